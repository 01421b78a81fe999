"""``xworkmate gui`` as the entry starts it: the window painted first, the rest loaded after (issue 19, item 7).

``run_window_first`` runs with nothing loaded but argparse, PySide6 and the window's shell (``ui/start``),
and reads the first task list on a worker without the stack (``controllers.first_list``);
the rest of the command line (``cli/run``: the settings, the log file, the store's ``Opening``), the
controllers, SQLAlchemy, pydantic and the window's code load right after the shell's first paint, on a
worker thread (``_load_window_code``; the opening page takes keys meanwhile), then ``_shown_window`` builds.
Nothing here imports the stack at import time.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from xworkmate.cli.exits import EXIT_ERROR, EXIT_INTERRUPTED, said_if_signalled

if TYPE_CHECKING:
    import asyncio

    from PySide6.QtWidgets import QApplication

    from xworkmate.ui.shell import WindowShell
    from xworkmate.ui.start import ShownRun


def display_problem(environ: Mapping[str, str], platform: str = sys.platform) -> str | None:
    """Why no window can open here, or None: on Linux, Qt's desktop platforms (xcb, wayland; the default
    when ``QT_QPA_PLATFORM`` is unset) need a display. Qt itself would abort saying a library is needed
    (``xcb-cursor0``), though the library is there (issue 30)."""
    if not platform.startswith("linux"):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "").split(":", 1)[0].split(";", 1)[0]
    if chosen not in ("", "xcb", "wayland", "wayland-egl"):
        return None  # offscreen, minimal, vnc, eglfs: no display needed
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no display (DISPLAY and WAYLAND_DISPLAY are unset): start XWorkmate in a desktop session,"
        " or use the command line (`xworkmate --help`)"
    )


def run_window_first(args: argparse.Namespace) -> int:
    """The window shows, then the rest loads and the store opens on a worker. A failure is one line on
    stderr with the exit code of its kind (ERR-1), said in the window too when it can be."""
    if args.smoke_test:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    problem = display_problem(os.environ)
    if problem is not None:
        print(f"xworkmate: error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    try:
        from xworkmate import code_cache
        from xworkmate.home import chosen_home, database_url_setting

        home = chosen_home()
        # Issue 34 item 4: before the window's first modules load (the first list's, ``ui/start``'s and what
        # they import), so that their dataclasses, namedtuples and annotations are kept code too.
        code_cache.install(home)
        from xworkmate.controllers.first_list import first_opening
        from xworkmate.ui.start import prepared_application, run_shell_first

        app = prepared_application(home, smoke_test=args.smoke_test)
        if app is None:
            return 1
        code = run_shell_first(
            app,
            _shown_window,
            smoke_test=args.smoke_test,
            first_opening=lambda: first_opening(home, database_url_setting()),  # as the settings will name it
            load=_load_window_code,
        )
        return said_if_signalled(code)
    except KeyboardInterrupt:
        print("xworkmate: error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # the window's code did not load, or the data folder is unusable
        from xworkmate.cli.run import report_failure

        return report_failure(exc, window=not args.smoke_test)


def _load_window_code() -> None:
    """What ``_shown_window`` imports, loaded on a worker before it is called (``run_shell_first``'s ``load``)."""
    import xworkmate.cli.run
    import xworkmate.ui.app  # noqa: F401


def _shown_window(app: QApplication, shell: WindowShell, done: asyncio.Future[int], smoke_test: bool) -> ShownRun:
    """Called by ``ui/start`` right after the shell's first paint: the rest of the command line and the
    window's code load here, and the shell becomes the window whose store opens on a worker."""
    from xworkmate.cli.run import window_opening
    from xworkmate.ui.app import ShownWindow

    return ShownWindow(app, shell, window_opening(), done, smoke_test=smoke_test)
