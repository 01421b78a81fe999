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

import contextlib
import json
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, cast

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QEvent,
    QObject,
    QPoint,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFontMetrics, QGuiApplication, QKeyEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from xworkmate.domain import ui_state
from xworkmate.ui.marks import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from xworkmate.controllers.first_list import FirstLine, FirstOpening
    from xworkmate.ui.lines.task_lines import TaskLinePane


class FirstInput(NamedTuple):
    """What the person did on the opening page while the window's code loaded (issue 34 item 4): the line they
    selected in the first list (``None``: none; the window's own choice stands), what they typed, and whether
    they pressed Send. The window carries it over as it is built (``ConversationActions.take_first_input``)."""

    key: str | None
    text: str
    send: bool


OPENING_TEXT = QT_TRANSLATE_NOOP("OpeningPage", "Opening the database…")
HELD_TEXT = QT_TRANSLATE_NOOP("OpeningPage", "Opening the database… your message is sent once it is open.")
FIRST_PLACEHOLDER = QT_TRANSLATE_NOOP(
    "OpeningPage", "Type a request for the line selected on the left: it goes there once the window is ready ({keys})"
)
FIRST_PLACEHOLDER_NO_LIST = QT_TRANSLATE_NOOP(
    "OpeningPage", "Type a request: it goes to the line the window opens on, once it is ready ({keys})"
)
SEND_TEXT = QT_TRANSLATE_NOOP("OpeningPage", "Send")
ENTER_SENDS_HINT = QT_TRANSLATE_NOOP("ComposerKeys", "Enter sends, Shift+Enter adds a line")
CTRL_ENTER_SENDS_HINT = QT_TRANSLATE_NOOP("ComposerKeys", "Ctrl+Enter sends, Enter adds a line")
COMPOSER_NAME = QT_TRANSLATE_NOOP("Keyboard", "Message to the agent")
"""A composer's accessible name (the window's, ``ui/keyboard.ACCESSIBLE_NAMES``, and the opening page's)."""
FAILED_TEXT = QT_TRANSLATE_NOOP("OpeningPage", "The database did not open — {error}")
WINDOW_TITLE = "XWorkmate"
DEFAULT_SIZE = (1200, 760)
DEFAULT_SPLITTER_SIZES = (260, 620, 320)
LEFT, CENTRE, RIGHT = 0, 1, 2
"""The window's panes, in the splitter's order: the task lines, the conversation, the workspace."""
AUTO_HIDE_BELOW = {LEFT: 760, RIGHT: 1000}
"""Window widths below which a side pane hides on its own (``ui/layout.PaneLayout``; the opening page's composer
keeps clear of the workspace pane only where the window will show it)."""
"""The widths of the window's three panes until the person moves them (the first list takes the first)."""
GEOMETRY_STATE = ui_state.GEOMETRY.name
SPLITTER_STATE = ui_state.SPLITTER_SIZES.name
"""The ``ui_state`` names of the window's saved geometry (``saveGeometry``, base64) and pane widths (JSON)."""
FIRST_LIST_THREAD = "xworkmate-first-list"
UNPAINTED_START_MS = 250  # a window that is never painted (minimised, no screen) still goes on


def enter_sends_hint(enter_sends: bool) -> str:
    """The keys that send, as a composer's placeholder says them (``enter_sends``: ``ui_state.ENTER_SENDS``)."""
    return QCoreApplication.translate("ComposerKeys", ENTER_SENDS_HINT if enter_sends else CTRL_ENTER_SENDS_HINT)


def enter_sends_key(key: int, modifiers: Qt.KeyboardModifier, enter_sends: bool) -> bool | None:
    """For a key pressed in a composer: ``True`` when it sends, ``False`` when it adds a line, ``None`` when
    it is not Enter (its usual meaning). Enter sends when ``enter_sends`` (``ui_state.ENTER_SENDS``), Shift+Enter
    adds a line; else Enter adds a line. Ctrl+Enter always sends (the window's shortcut)."""
    if key not in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
        return None
    modifiers &= ~Qt.KeyboardModifier.KeypadModifier
    if modifiers == Qt.KeyboardModifier.ControlModifier:
        return True
    if modifiers == Qt.KeyboardModifier.ShiftModifier:
        return False
    if modifiers == Qt.KeyboardModifier.NoModifier:
        return enter_sends
    return None


class OpeningPage(QWidget):
    """What the window shows until its store is open: "Opening the database…" (``notice``); if it did not
    open, why, in one line (ERR-1), and under it which database it was and how to use another (``help``).
    Under the notice, once the first screen is painted, a composer and Send (``show_input``): what is
    selected, typed and sent here while the window's code loads is the window's once built (``first_input``).

    On its left, once they are read (``FirstListRead``), the person's task lines as the list will show
    them (``show_lines``, ``ui/lines/first_list``): readable while the rest of the window loads."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("openingPage")
        self.notice = QLabel(QCoreApplication.translate("OpeningPage", OPENING_TEXT), self)
        self.notice.setObjectName("openingNotice")
        self.help = QLabel(self)
        self.help.setObjectName("openingHelp")
        self.help.hide()
        self.first_list: TaskLinePane | None = None
        self.composer: QPlainTextEdit | None = None  # once the first screen is painted (``show_input``)
        self.send_button: QPushButton | None = None
        self.list_width = DEFAULT_SPLITTER_SIZES[LEFT]  # the saved one, once read (``WindowShell.restore_saved``)
        self.side_width = DEFAULT_SPLITTER_SIZES[RIGHT]  # the workspace pane's, which the composer keeps clear of
        self._enter_sends = True
        self._send_asked = False
        self._preselected: str | None = None
        self._early_keys: list[QKeyEvent] = []  # typed before the composer showed (``hold_key``)
        self._input_row: QHBoxLayout | None = None
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)
        self._column = column = QVBoxLayout()
        column.addStretch(1)
        for label in (self.notice, self.help):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
            column.addWidget(label)
        column.addStretch(1)
        self._row.addLayout(column, 1)
        self.failed = False

    def show_lines(self, lines: Sequence[FirstLine], current_key: str | None = None) -> None:
        """The first list, at the place and width of the window's task list, ``current_key`` selected (once;
        not after a failure)."""
        if self.first_list is not None or self.failed:
            return
        from xworkmate.ui.lines.first_list import first_list_pane, selected_key  # after the first paint

        self.first_list = first_list_pane(lines, self, selected=current_key)
        self._preselected = selected_key(self.first_list)
        self.first_list.setFixedWidth(self.list_width)
        self._row.insertWidget(0, self.first_list)
        if self.composer is not None:
            self.composer.setPlaceholderText(self._placeholder())

    def show_input(self, enter_sends: bool) -> None:
        """The composer and Send under the notice, the composer focused: what is typed and sent while the rest
        of the window loads is the window's once it can be used (``first_input``; issue 34 item 4).
        ``enter_sends``: the person's choice of key (``ui_state.ENTER_SENDS``), as the window's composer has it."""
        if self.composer is not None or self.failed:
            return
        self._enter_sends = enter_sends
        self._input_row = row = QHBoxLayout()
        self._keep_clear_of_side()
        self.composer = QPlainTextEdit(self)
        self.composer.setObjectName("firstComposer")
        self.composer.setAccessibleName(QCoreApplication.translate("Keyboard", COMPOSER_NAME))
        self.composer.setTabChangesFocus(True)
        self.composer.setPlaceholderText(self._placeholder())
        self.composer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.composer.setFixedHeight(QFontMetrics(self.composer.font()).lineSpacing() * 5 + 12)  # as the window's
        self.composer.installEventFilter(self)
        self.send_button = QPushButton(QCoreApplication.translate("OpeningPage", SEND_TEXT), self)
        self.send_button.setObjectName("firstSendButton")
        self.send_button.setEnabled(False)
        self.send_button.clicked.connect(self._ask_to_send)
        self.composer.textChanged.connect(self._on_text_changed)
        row.addWidget(self.composer, 1)
        row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        self._column.addLayout(row)
        self.composer.show()  # now, not at the layout's next turn: a hidden widget does not take the focus
        self.send_button.show()
        self.composer.setFocus()
        early, self._early_keys = self._early_keys, []
        for key in early:  # what was typed as the window appeared, in order, as typed into the composer
            QCoreApplication.sendEvent(self.composer, key)

    def _keep_clear_of_side(self) -> None:
        """The composer where the window's will be: clear of the workspace pane where the window will show it (not
        hidden by the person, the window wide enough: ``AUTO_HIDE_BELOW``), else as wide as the page lets it."""
        if self._input_row is None:
            return
        shown = self.side_width > 0 and self.window().width() >= AUTO_HIDE_BELOW[RIGHT]
        self._input_row.setContentsMargins(8, 8, 8 + (self.side_width if shown else 0), 8)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._keep_clear_of_side()

    def hold_key(self, event: QKeyEvent) -> bool:
        """A key the window got itself, no widget having the focus: one that types (text, Enter, Backspace) goes
        to the composer, or, before it shows (the window appears ~50 ms before it), is kept and typed into it
        then. ``True`` when taken so."""
        types = event.text().isprintable() and event.text() != ""
        if self.failed or (
            not types and event.key() not in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Backspace)
        ):
            return False
        key = QKeyEvent(event.type(), event.key(), event.modifiers(), event.text(), event.isAutoRepeat(), event.count())
        if self.composer is None:
            self._early_keys.append(key)
        else:
            self.composer.setFocus()
            QCoreApplication.sendEvent(self.composer, key)
        return True

    def first_input(self) -> FirstInput | None:
        """What was selected, typed and sent here, or ``None`` when nothing was (the window's own choices stand)."""
        key = None
        if self.first_list is not None:
            from xworkmate.ui.lines.first_list import selected_key

            key = selected_key(self.first_list)
        text = self.composer.toPlainText() if self.composer is not None else ""
        if not text and not self._send_asked and key == self._preselected:
            return None
        return FirstInput(key, text, self._send_asked)

    def _placeholder(self) -> str:
        keys = enter_sends_hint(self._enter_sends)
        template = FIRST_PLACEHOLDER if self.first_list is not None else FIRST_PLACEHOLDER_NO_LIST
        return QCoreApplication.translate("OpeningPage", template).format(keys=keys)

    def _on_text_changed(self) -> None:
        if self.send_button is not None and self.composer is not None:
            sendable = not (self._send_asked or self.failed) and bool(self.composer.toPlainText().strip())
            self.send_button.setEnabled(sendable)

    def _ask_to_send(self) -> None:
        if self.composer is None or self._send_asked or self.failed or not self.composer.toPlainText().strip():
            return
        self._send_asked = True  # held: the window sends it through its own Send once it can (``first_input``)
        self.composer.setReadOnly(True)
        self._on_text_changed()
        self.notice.setText(QCoreApplication.translate("OpeningPage", HELD_TEXT))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.composer and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            sends = enter_sends_key(event.key(), event.modifiers(), self._enter_sends)
            if sends is True:
                self._ask_to_send()
                return True
            if sends is False and self.composer is not None:
                self.composer.insertPlainText("\n")  # a real newline, as the window's composer adds
                return True
        return super().eventFilter(watched, event)

    def show_failure(self, line: str, database: str) -> None:
        """``line``: the failure's one line; ``database``: where it is, as a person reads it."""
        from xworkmate.presentation.wording import plain_words
        from xworkmate.ui.dialogs import startup_error_help  # loaded by then: the page says what it found

        words = plain_words(line).replace("\n", " ")
        self.notice.setText(QCoreApplication.translate("OpeningPage", FAILED_TEXT).format(error=words))
        self.help.setText(startup_error_help(database))
        self.help.show()
        self.failed = True
        if self.first_list is not None:  # the lines were read, but the window cannot show them as its own
            self.first_list.hide()
        if self.composer is not None:  # what was typed stays, to be copied: it cannot be sent from here
            self.composer.setReadOnly(True)
            self._on_text_changed()


class WindowShell(QMainWindow):
    """The main window before it has a controller: its name, title and size, and (``opening``) the
    ``OpeningPage`` as its central widget. ``MainWindow`` builds its panes over it (``attach``)."""

    def __init__(self, parent: QWidget | None = None, *, opening: bool = True) -> None:
        super().__init__(parent)
        self.attached = False  # first: ``MainWindow``'s event handlers read it, from the title's change on
        self._fitted_shown = False
        self.opening_page: OpeningPage | None = None
        self.setObjectName("mainWindow")
        self.setWindowTitle(WINDOW_TITLE)
        if opening:
            self.resize(*DEFAULT_SIZE)
            self.fit_on_screen()
            self.opening_page = OpeningPage(self)
            self.setCentralWidget(self.opening_page)

    def restore_geometry(self, saved: str | None) -> bool:
        """The window's saved size and place (``GEOMETRY_STATE``), if there is one Qt can use; either way
        it then fits the screen it opens on (``fit_on_screen``)."""
        restored = False
        if saved:
            try:
                restored = self.restoreGeometry(QByteArray.fromBase64(saved.encode("ascii")))
            except UnicodeEncodeError:
                restored = False
        if not restored:
            self.resize(*DEFAULT_SIZE)
        self.fit_on_screen()
        return restored

    def fit_on_screen(self) -> None:
        """Never larger than the screen's available area, frame included, and on it (issue 30: at a scale
        of 2 on a 1440×900 screen the default size was 2400×1520 pixels, the composer and Send off-screen;
        a size saved on a bigger monitor did the same on a laptop). Again once shown, when the window
        manager's frame is known."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return
        area, frame = screen.availableGeometry(), self.frameGeometry()
        extra_width, extra_height = frame.width() - self.width(), frame.height() - self.height()
        size = self.fitted_size(self.width(), self.height())
        if size != self.size():
            self.resize(size)
        right = area.left() + area.width() - size.width() - extra_width
        bottom = area.top() + area.height() - size.height() - extra_height
        x, y = min(max(frame.x(), area.left()), right), min(max(frame.y(), area.top()), bottom)
        if (x, y) != (frame.x(), frame.y()):
            self.move(self.pos() + QPoint(x - frame.x(), y - frame.y()))  # by how far the frame is out

    def fitted_size(self, width: int, height: int) -> QSize:
        """``width`` × ``height``, made to fit the available area of the window's screen with its frame."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            return QSize(width, height)
        area, frame = screen.availableGeometry(), self.frameGeometry()
        extra_width, extra_height = frame.width() - self.width(), frame.height() - self.height()
        return QSize(min(width, area.width() - extra_width), min(height, area.height() - extra_height))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """A key the window gets itself (no widget has the focus): before the opening page's composer shows, it
        is kept and typed into it then (issue 34 item 4: nothing typed as the window appears is lost)."""
        page = self.opening_page
        if not self.attached and page is not None and page.hold_key(event):
            return
        super().keyPressEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._fitted_shown:
            self._fitted_shown = True
            shown = self.size()

            def fit_with_frame() -> None:  # the frame is known once the window is shown
                if self.size() == shown:  # not resized on purpose meanwhile
                    self.fit_on_screen()

            QTimer.singleShot(0, fit_with_frame)

    def restore_saved(self, ui_states: dict[str, str]) -> None:
        """Before the first show, from the first read: the window where the person left it, and the first
        list as wide as their task list was, so nothing jumps when the window's own panes arrive."""
        self.restore_geometry(ui_states.get(GEOMETRY_STATE))
        sizes = parse_sizes(ui_states.get(SPLITTER_STATE), len(DEFAULT_SPLITTER_SIZES))
        page = self.opening_page
        if sizes is not None and page is not None:
            page.list_width, page.side_width = sizes[LEFT], sizes[RIGHT]
        _, workspace_hidden = ui_state.hidden_panes(ui_state.PANES.decode(ui_states.get(ui_state.PANES.name)))
        if page is not None and workspace_hidden:
            page.side_width = 0  # the person hid the workspace pane


def parse_sizes(raw: str | None, count: int) -> list[int] | None:
    """Saved pane widths (``SPLITTER_STATE``), or ``None`` unless they are ``count`` widths, not all 0."""
    if not raw:
        return None
    try:
        sizes = json.loads(raw)
    except ValueError:
        return None
    if (
        isinstance(sizes, list)
        and len(sizes) == count
        and all(isinstance(size, int) and size >= 0 for size in sizes)
        and any(sizes)
    ):
        return sizes
    return None


class HeldJobs:
    """Jobs held until the window can be used (issue 34 item 4), then run once, in order; at once after."""

    def __init__(self) -> None:
        self.released = False
        self._held: list[Callable[[], None]] = []

    def add(self, job: Callable[[], None]) -> None:
        if self.released:
            job()
        else:
            self._held.append(job)

    def release(self) -> None:
        self.released = True
        held, self._held = self._held, []
        for job in held:
            job()


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


class OffThreadAnswer(QObject):
    """Calls ``call()`` on a daemon thread of its own (named ``thread_name``), started at once, and sends
    ``arrived(answer)`` on the GUI thread with what it returned, or ``None`` when it raised; ``settled`` once
    it came. ``arrived`` is sent from the GUI thread once the answer is settled there, so a slot connected
    after the thread has started, before the GUI thread is back in its loop, still gets it.

    Nothing waits for the thread: a window closed first drops the answer (``join`` is there for whoever must
    not leave the thread running, such as an import, into the interpreter's shutdown)."""

    arrived = Signal(object)
    _answered = Signal(object)  # from the calling thread; queued to ``_settle``

    def __init__(self, call: Callable[[], object], thread_name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settled = False
        self.answer: object = None
        self._answered.connect(self._settle)
        self._thread = threading.Thread(target=self._work, args=(call,), name=thread_name, daemon=True)
        self._thread.start()

    def _work(self, call: Callable[[], object]) -> None:
        try:
            answer = call()
        except Exception:  # the caller says, its own way, what went wrong (see the subclasses)
            answer = None
        with contextlib.suppress(RuntimeError):  # the window, and this object with it, is gone
            self._answered.emit(answer)

    def _settle(self, answer: object) -> None:
        self.settled = True
        self.answer = answer
        self.arrived.emit(answer)

    def join(self, timeout: float) -> None:
        """Wait for the thread (at most ``timeout`` seconds)."""
        self._thread.join(timeout)


class FirstListRead(OffThreadAnswer):
    """Reads what the window first shows (``read``: ``controllers.first_list.first_opening``: its task lines
    and saved sizes) on a daemon thread of its own, started at once: it runs while the window is built and
    painted. ``arrived(opening)`` on the GUI thread with them, or ``None`` when there is nothing to show so
    (a read that raised: the store's own open says what is wrong with the database).

    A read that hangs (a file system that does not answer) only leaves the list to the store's own read."""

    def __init__(self, read: Callable[[], FirstOpening | None], parent: QObject | None = None) -> None:
        super().__init__(read, FIRST_LIST_THREAD, parent)
        self.setObjectName("firstListRead")

    @property
    def opening(self) -> FirstOpening | None:
        return cast("FirstOpening | None", self.answer)  # what ``read`` returned
