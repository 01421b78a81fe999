"""Start-up (issue 19, item 7): the window is shown before the store opens.

``xworkmate gui`` shows a ``WindowShell`` (``ui/shell``: the ``MainWindow`` before its code is loaded),
whose only content is the ``OpeningPage`` ("Opening the database…"): nothing that needs the store exists
yet, so nothing can be used before it is open. Right after that window's first paint, the window's code
loads (``ui/start``) and ``ui/app.StoreOpening`` opens the store (migrations included), builds the
controller and makes the window's first read (``controllers/views.read_first``) on a worker
(``run_off_thread``, LOOP-4); the GUI thread then attaches the controller, which builds the panes from
that read without reading again. If opening fails (a bad URL, an unreachable server, a newer schema), the
page says so in one line and the traceback goes to the log (ERR-1); the process goes on until the person
closes the window.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QWidget

from xworkmate.controllers import SessionController
from xworkmate.ui.conversation.model import MIN_FIRST_PAGE, PAGE_SIZE
from xworkmate.ui.shell import OpeningPage

__all__ = ["Opening", "OpeningPage", "first_page_for"]


@dataclass(frozen=True)
class Opening:
    """How the window gets its controller after the first paint.

    ``open`` runs on a worker: open the store (with its migrations) and build the controller.
    ``home``: the data folder, whose language choice is read before the first widget.
    ``database_url``: what the window's error boundary names. ``failed``: the one line and the exit code
    for a failure to open (the caller's ERR-1 rule: it logs the traceback and says the line on stderr).
    """

    open: Callable[[], SessionController]
    home: Path
    database_url: str
    failed: Callable[[BaseException], tuple[str, int]]


def first_page_for(window: QWidget) -> int:
    """How many of the current line's newest messages the first read asks for, before the message list
    exists: enough to fill the screen's height at two lines a row (no row is shorter), as
    ``MessageListView.rows_to_fill`` would say for a window as tall as the screen."""
    screen = window.screen()
    height = screen.availableGeometry().height() if screen is not None else 1080
    row = 2 * QFontMetrics(window.font()).lineSpacing()
    return max(MIN_FIRST_PAGE, min(PAGE_SIZE, -(-height // max(1, row)) + 1))
