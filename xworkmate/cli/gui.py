"""``xworkmate gui`` (and ``xworkmate`` alone): its options, and which command lines only start the window.

``xworkmate.entry`` asks ``gui_arguments`` first: a command line that only starts the window runs
``cli/window.run_window_first``, which paints the window before the stack loads (issue 19, item 7). Any
other command line, ``--help`` included, and an installation without the window's libraries, go through
``cli/run.main`` and its full parser (which adds ``gui`` from here), which says what is wrong (ERR-1).
Nothing here imports the stack.
"""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Sequence
from typing import Any

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
