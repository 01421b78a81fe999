"""The main window as a person first sees it: before the store opens, before its own code loads.

Issue 19, item 7. ``xworkmate gui`` paints this window ("Opening the database…", ``OpeningPage``) with
nothing loaded but PySide6 and this module; the stack (SQLAlchemy, pydantic), the controllers and the
rest of the window load right after its first paint (``ui/start``). ``MainWindow`` is a ``WindowShell``:
once its code is loaded, the shown shell becomes the ``MainWindow`` (``MainWindow.take_over``) and gets its
panes when the store is open, so the window painted first is the app's window, never a splash.

Nothing here may import the stack, the controllers or another module of the window at import time (a
test pins it: ``tests/ui/test_startup.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

OPENING_TEXT = QT_TRANSLATE_NOOP("OpeningPage", "Opening the database…")
FAILED_TEXT = QT_TRANSLATE_NOOP("OpeningPage", "The database did not open — {error}")
WINDOW_TITLE = "XWorkmate"
DEFAULT_SIZE = (1200, 760)
UNPAINTED_START_MS = 250  # a window that is never painted (minimised, no screen) still goes on


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
        from xworkmate.ui.dialogs import startup_error_help  # loaded by then: the page says what it found
        from xworkmate.ui.wording import plain_words

        words = plain_words(line).replace("\n", " ")
        self.notice.setText(QCoreApplication.translate("OpeningPage", FAILED_TEXT).format(error=words))
        self.help.setText(startup_error_help(database))
        self.help.show()
        self.failed = True


class WindowShell(QMainWindow):
    """The main window before it has a controller: its name, title and size, and (``opening``) the
    ``OpeningPage`` as its central widget. ``MainWindow`` builds its panes over it (``attach``)."""

    def __init__(self, parent: QWidget | None = None, *, opening: bool = True) -> None:
        super().__init__(parent)
        self.attached = False  # first: ``MainWindow``'s event handlers read it, from the title's change on
        self.opening_page: OpeningPage | None = None
        self.setObjectName("mainWindow")
        self.setWindowTitle(WINDOW_TITLE)
        if opening:
            self.resize(*DEFAULT_SIZE)
            self.opening_page = OpeningPage(self)
            self.setCentralWidget(self.opening_page)


class FirstPaint(QObject):
    """Calls ``then()`` once, on the GUI thread, right after ``widget``'s first paint has reached the screen,
    or after ``UNPAINTED_START_MS`` if it is never painted. ``painted`` says which it was (tests read it)."""

    def __init__(self, widget: QWidget, then: Callable[[], None]) -> None:
        super().__init__(widget)
        self._then = then
        self._called = False
        self.painted = False
        widget.installEventFilter(self)
        QTimer.singleShot(UNPAINTED_START_MS, self, self._call)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self.painted:
            self.painted = True
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self, self._call)  # after this paint has reached the screen
        return False

    def _call(self) -> None:
        if not self._called:
            self._called = True
            self._then()
