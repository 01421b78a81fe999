"""Start-up (issue 19, item 7): the window is shown before the store opens.

``run_gui`` shows a ``MainWindow()`` without a controller, whose only content is the ``OpeningPage``
("Opening the database…"): nothing that needs the store exists yet, so nothing can be used before it
is open. Right after that window's first paint, ``ui/app.StoreOpening`` opens the store (migrations
included), builds the controller and makes the window's first read (``controllers/views.read_first``)
on a worker (``run_off_thread``, LOOP-4); the GUI thread then attaches the controller, which builds the
panes from that read without reading again. If opening fails (a bad URL, an unreachable server, a newer schema),
the page says so in one line and the traceback goes to the log (ERR-1); the process goes on until
the person closes the window.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from xworkmate.controllers import SessionController
from xworkmate.ui.conversation.model import MIN_FIRST_PAGE, PAGE_SIZE
from xworkmate.ui.dialogs import startup_error_help
from xworkmate.ui.wording import plain_words

OPENING_TEXT = QT_TRANSLATE_NOOP("OpeningPage", "Opening the database…")
FAILED_TEXT = QT_TRANSLATE_NOOP("OpeningPage", "The database did not open — {error}")


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


class OpeningPage(QWidget):
    """What the window shows until its store is open: "Opening the database…" (``notice``); if it did not
    open, why, in one line (ERR-1), and under it which database it was and how to use another (``help``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("openingPage")
        self.notice = QLabel(QCoreApplication.translate("OpeningPage", OPENING_TEXT), self)
        self.notice.setObjectName("openingNotice")
        self.help = QLabel(self)
        self.help.setObjectName("openingHelp")
        self.help.hide()
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        for label in (self.notice, self.help):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
            layout.addWidget(label)
        layout.addStretch(1)
        self.failed = False

    def show_failure(self, line: str, database: str) -> None:
        """``line``: the failure's one line; ``database``: where it is, as a person reads it."""
        words = plain_words(line).replace("\n", " ")
        self.notice.setText(QCoreApplication.translate("OpeningPage", FAILED_TEXT).format(error=words))
        self.help.setText(startup_error_help(database))
        self.help.show()
        self.failed = True


def first_page_for(window: QWidget) -> int:
    """How many of the current line's newest messages the first read asks for, before the message list
    exists: enough to fill the screen's height at two lines a row (no row is shorter), as
    ``MessageListView.rows_to_fill`` would say for a window as tall as the screen."""
    screen = window.screen()
    height = screen.availableGeometry().height() if screen is not None else 1080
    row = 2 * QFontMetrics(window.font()).lineSpacing()
    return max(MIN_FIRST_PAGE, min(PAGE_SIZE, -(-height // max(1, row)) + 1))
