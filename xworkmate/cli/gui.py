"""``xworkmate gui`` (and ``xworkmate`` alone): the window, painted before the stack loads (issue 19, item 7).

``xworkmate.entry`` asks ``gui_arguments`` first: for a command line that only starts the window, it runs
``run_window_first`` with nothing loaded but argparse, PySide6 and the window's shell (``ui/start``). The
rest of the command line (``cli/run``, the controllers, SQLAlchemy, pydantic) loads right after the first
paint, when ``ui/start`` asks for the store's ``Opening`` (``cli/run.window_opening``). Any other command
line, ``--help`` included, and an installation without the window's libraries, go through ``cli/run.main``
and its full parser, which says what is wrong (ERR-1). Nothing here imports the stack at import time.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from xworkmate.cli.exits import EXIT_INTERRUPTED

if TYPE_CHECKING:
    from xworkmate.ui.opening import Opening

GUI_COMMAND = "gui"


def add_gui_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``xworkmate gui``: the full parser's subcommand and ``gui_arguments`` share them."""
    parser.add_argument("--smoke-test", action="store_true", help="build the main window offscreen, print ok, exit")


def add_gui_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(GUI_COMMAND, help="open the window")
    add_gui_options(parser)
    return parser


def gui_arguments(argv: Sequence[str]) -> argparse.Namespace | None:
    """The arguments of a command line that only starts the window (``[]``, ``gui``, ``gui --smoke-test``);
    ``None`` for any other, and when the window's libraries are not installed: ``cli/run.main`` reads those."""
    if argv and argv[0] != GUI_COMMAND:
        return None
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    add_gui_options(parser)
    try:
        args, rest = parser.parse_known_args(list(argv[1:]))
    except argparse.ArgumentError:
        return None
    if rest or missing_gui_modules():
        return None
    return args


def missing_gui_modules() -> list[str]:
    """The window's own dependencies (the ``gui`` extra) that this installation lacks."""

    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except (ImportError, ValueError):
            return True

    return [name for name in ("PySide6", "qasync") if absent(name)]


def run_window_first(args: argparse.Namespace) -> int:
    """``xworkmate gui``: the window shows, then the rest loads and the store opens on a worker. A failure
    is one line on stderr with the exit code of its kind (ERR-1), said in the window too when it can be."""
    if args.smoke_test:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from xworkmate.home import chosen_home
        from xworkmate.ui.start import prepared_application, run_shell_first

        app = prepared_application(chosen_home(), smoke_test=args.smoke_test)
        if app is None:
            return 1
        return run_shell_first(app, _window_opening, smoke_test=args.smoke_test)
    except KeyboardInterrupt:
        print("xworkmate: error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # the window's code did not load, or the data folder is unusable
        from xworkmate.cli.run import report_failure

        return report_failure(exc, window=not args.smoke_test)


def _window_opening() -> Opening:
    """Called by ``ui/start`` after the first paint: the rest of the command line loads here."""
    from xworkmate.cli.run import window_opening

    return window_opening()
