"""Issue 34 item 4: the window can be used while its code loads. ``xworkmate gui`` paints the opening page with
the person's lines and a composer, then loads the stack and the window's code on a worker thread
(``ui/start.run_shell_first``'s ``load``): the GUI thread answers meanwhile, a line can be selected and a
request typed and sent there, and the window, once built, opens that line with the text and sends it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import cast

import pytest
from PySide6.QtCore import QElapsedTimer, QEvent, QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QListView, QPlainTextEdit, QPushButton
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.controllers.first_list import FirstLine, FirstOpening, first_opening
from xworkmate.domain.messages import MessageRole
from xworkmate.domain.providers import ProviderRecord
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.testing.openai_server import OpenAIServer, TextReply
from xworkmate.ui.app import ShownWindow
from xworkmate.ui.lines.task_lines import KEY_ROLE
from xworkmate.ui.opening import Opening
from xworkmate.ui.shell import AUTO_HIDE_BELOW, RIGHT, FirstInput, OpeningPage, WindowShell
from xworkmate.ui.start import WINDOW_CODE_THREAD, run_shell_first
from xworkmate.ui.window.main_window import MainWindow

LOAD_WAIT_S = 60.0


def _seeded(settings: Settings, server: OpenAIServer) -> tuple[str, str]:
    """Two lines (the second current, as a previous run left it) and the scripted server as the provider."""
    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        controller.providers.add_provider(
            ProviderRecord(name="local", base_url=server.base_url, model="test-model", is_default=True)
        )
        chosen = controller.lines.create_line("Chosen while loading").thread_id
        current = controller.lines.create_line("Where the window was").thread_id
        controller.lines.switch_session(current)
        return chosen, current
    finally:
        store.close()


def _stored(settings: Settings, key: str) -> list[tuple[MessageRole, str]]:
    """The line's messages as stored, read on a thread of the test's (the GUI thread runs no SQL: LOOP-4)."""

    def read() -> list[tuple[MessageRole, str]]:
        store = open_store(settings.effective_database_url)
        try:
            return [(m.role, m.content) for m in SessionController(store, settings).lines.messages(key)]
        finally:
            store.close()

    with ThreadPoolExecutor(max_workers=1) as reader:
        return reader.submit(read).result()


class HeldLoad:
    """A ``load`` for ``run_shell_first`` that takes as long as the test wants: it notes its thread and returns
    once ``release`` is set (the window's code is loaded already in this process; a real start imports it)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.thread = ""

    def __call__(self) -> None:
        self.thread = threading.current_thread().name
        assert self.release.wait(LOAD_WAIT_S), "the test never released the load"


def _run_window(
    settings: Settings,
    load: HeldLoad,
    drive: Callable[[Waits], None],
    open_: Callable[[], SessionController] | None = None,
    first: Callable[[], FirstOpening | None] | None = None,
) -> int:
    """``xworkmate gui`` as ``cli/window`` runs it, over ``settings``, with ``load`` as the window's code load and
    ``open_`` as the store's open (the real one by default); ``drive(waits)`` runs once the loop runs, and the
    run fails if it waited in vain."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)

    def opened() -> SessionController:
        return SessionController(open_store(settings.effective_database_url), settings)

    opening = Opening(
        open=open_ or opened,
        home=settings.home,
        database_url=settings.effective_database_url,
        failed=lambda e: (str(e), 3),
    )

    def shown(app: QApplication, shell: WindowShell, done: object, smoke_test: bool) -> ShownWindow:
        return ShownWindow(app, shell, opening, done, smoke_test=smoke_test)  # type: ignore[arg-type]

    waits = Waits(app)
    QTimer.singleShot(0, lambda: drive(waits))
    try:
        code = run_shell_first(
            app,
            shown,
            smoke_test=False,
            first_opening=first or (lambda: first_opening(settings.home, None)),
            load=load,
        )
    finally:
        for window in app.topLevelWidgets():  # the run's window, closed: gone before the next test's run
            if isinstance(window, WindowShell):
                window.deleteLater()
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not waits.missed, f"waited in vain for {waits.missed}"
    return code


class Waits:
    """Polls on the loop (every 10 ms) until a condition holds, then goes on; past ``LOAD_WAIT_S`` every window
    closes (the run ends) and ``missed`` says what was waited for, so a stuck start fails the test, never hangs it."""

    def __init__(self, app: QApplication) -> None:
        self.app = app
        self.missed: list[str] = []

    def built_window(self) -> MainWindow | None:
        """This run's window once built over the open store (an earlier test's run may have left its own, closed)."""
        windows = [w for w in self.app.topLevelWidgets() if isinstance(w, MainWindow) and w.attached and w.isVisible()]
        return windows[0] if windows else None

    def state(self) -> str:
        """What the windows were doing, for a failure's message."""
        said, built = [], self.built_window()
        for window in self.app.topLevelWidgets():
            if built is not None and window is built:
                said.append(
                    f"window: operations {built.operations.running}, deferred {built.shown.deferred.pending},"
                    f" partial {built.task_model.partial}, usable {built._held.released},"
                    f" changes view pending {built.workspace.changes_view_pending}"
                )
            elif isinstance(window, WindowShell):
                said.append(f"{type(window).__name__}: visible {window.isVisible()}, attached {window.attached}")
        return "; ".join(said) or "no window"

    def until(self, ready: Callable[[], bool], then: Callable[[], None], what: str) -> None:
        clock = QElapsedTimer()
        clock.start()

        def ask() -> None:
            if self.missed:
                return
            if ready():
                then()
            elif clock.elapsed() > LOAD_WAIT_S * 1000:
                self.missed.append(f"{what} ({self.state()})")
                self.app.closeAllWindows()
            else:
                QTimer.singleShot(10, ask)

        ask()

    def opening_page(self, load: HeldLoad, then: Callable[[WindowShell, QPlainTextEdit], None]) -> None:
        """``then(shell, composer)`` once the opening page shows its composer and ``load`` holds the code's load."""

        def ready() -> bool:
            return load.thread != "" and self.composer() is not None

        def go() -> None:
            shell, composer = _shell(self.app), self.composer()
            assert shell is not None and composer is not None
            then(shell, composer)

        self.until(ready, go, "the opening page's composer, the window's code loading")

    def composer(self) -> QPlainTextEdit | None:
        shell = _shell(self.app)
        composer = shell.findChild(QPlainTextEdit, "firstComposer") if shell is not None else None
        return composer if composer is not None and composer.isVisible() else None

    def window(self, then: Callable[[MainWindow], None], also: Callable[[], bool] = lambda: True) -> None:
        """``then(window)`` once the window is built over the open store, usable, and ``also()`` holds."""

        def built() -> MainWindow | None:
            window = self.built_window()
            return window if window is not None and not window.settling else None

        self.until(lambda: built() is not None and also(), lambda: then(cast(MainWindow, built())), "the window")


def _shell(app: QApplication) -> WindowShell | None:
    shells = [w for w in app.topLevelWidgets() if isinstance(w, WindowShell) and w.isVisible()]
    return shells[0] if shells else None


def _row_point(view: QListView, key: str) -> QPoint:
    model = view.model()
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        if index.data(KEY_ROLE) == key:
            return view.visualRect(index).center()
    raise AssertionError(f"no row for {key}")


def test_a_line_selected_and_a_request_typed_and_sent_while_the_code_loads_are_sent_on_that_line_once_it_opens(
    qtbot: QtBot, settings: Settings, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XWORKMATE_HOME", str(settings.home))
    chosen, current = _seeded(settings, openai_server)
    openai_server.script(TextReply(["Answered."]))
    load = HeldLoad()
    seen: dict[str, object] = {}

    def drive(waits: Waits) -> None:
        waits.opening_page(load, lambda shell, composer: typed_ahead(waits, shell, composer))

    def typed_ahead(waits: Waits, shell: WindowShell, composer: QPlainTextEdit) -> None:
        view = shell.findChild(QListView, "firstTaskLineList")
        send = shell.findChild(QPushButton, "firstSendButton")
        assert view is not None and send is not None
        seen["focused"] = composer.hasFocus()  # typing starts in it, as in the window's composer
        seen["selected_first"] = view.currentIndex().data(KEY_ROLE)
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=_row_point(view, chosen))
        seen["focused_after_click"] = composer.hasFocus()  # the keys stay the composer's
        qtbot.keyClicks(composer, "Summarise the notes")
        qtbot.keyClick(composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # adds a line
        qtbot.keyClicks(composer, "from today")
        seen["sendable"] = send.isEnabled()
        send.click()
        notice = shell.findChild(QLabel, "openingNotice")
        seen["held"] = [composer.isReadOnly(), send.isEnabled(), notice.text() if notice is not None else ""]
        seen["stored_before"] = _stored(settings, chosen)  # held: nothing is sent before the window can
        load.release.set()
        waits.window(finish, also=lambda: _answered_and_ended(waits, settings, chosen))

    def finish(window: MainWindow) -> None:
        seen["shown"] = window.shown_key
        seen["composer"] = window.composer.toPlainText()
        seen["stored"] = _stored(settings, chosen)
        window.close()

    assert _run_window(settings, load, drive) == 0
    assert load.thread == WINDOW_CODE_THREAD
    assert seen["focused"] is True and seen["selected_first"] == current  # where the window was, selected
    assert seen["sendable"] is True and seen["focused_after_click"] is True
    assert seen["held"] == [True, False, "Opening the database… your message is sent once it is open."]
    assert seen["stored_before"] == []
    assert seen["shown"] == chosen  # the line selected on the opening page, opened
    assert seen["composer"] == ""  # sent, as Send sends
    assert seen["stored"] == [
        (MessageRole.USER, "Summarise the notes\nfrom today"),
        (MessageRole.ASSISTANT, "Answered."),
    ]
    assert _stored(settings, current) == []  # ISO-5: never on the line the window was on


def test_text_typed_while_the_code_loads_goes_after_the_shown_lines_draft_and_is_not_sent_unasked(
    qtbot: QtBot, settings: Settings, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XWORKMATE_HOME", str(settings.home))
    _chosen, current = _seeded(settings, openai_server)
    store = open_store(settings.effective_database_url)
    try:
        SessionController(store, settings).attention.save_draft(current, "A draft kept from before")
    finally:
        store.close()
    load = HeldLoad()
    seen: dict[str, object] = {}

    def drive(waits: Waits) -> None:
        waits.opening_page(load, lambda _shell, composer: typed_ahead(waits, composer))

    def typed_ahead(waits: Waits, composer: QPlainTextEdit) -> None:
        qtbot.keyClicks(composer, "and one more thing")
        load.release.set()
        waits.window(finish)

    def finish(window: MainWindow) -> None:
        seen["shown"] = window.shown_key
        seen["composer"] = window.composer.toPlainText()
        seen["focused"] = window.composer.hasFocus()
        window.close()

    assert _run_window(settings, load, drive) == 0
    assert seen == {"shown": current, "composer": "A draft kept from before\nand one more thing", "focused": True}
    assert _stored(settings, current) == []


def test_the_gui_thread_answers_while_the_windows_code_loads_on_its_worker(
    qtbot: QtBot, settings: Settings, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load holds for as long as the test wants; a timer on the GUI thread keeps firing meanwhile (before
    issue 34 item 4 the window's code loaded on the GUI thread, and the opening page answered nothing)."""
    monkeypatch.setenv("XWORKMATE_HOME", str(settings.home))
    _seeded(settings, openai_server)
    load = HeldLoad()
    ticks: list[int] = []

    def drive(waits: Waits) -> None:
        waits.until(lambda: load.thread != "", lambda: tick(waits), "the window's code loading")

    def tick(waits: Waits) -> None:
        timer = QTimer(waits.app)
        timer.setInterval(5)
        timer.timeout.connect(lambda: ticks.append(1))
        timer.start()

        def enough() -> None:
            timer.stop()
            load.release.set()
            waits.window(closed)

        def closed(window: MainWindow) -> None:
            window.close()

        waits.until(lambda: len(ticks) >= 20, enough, "twenty ticks of a timer while the load holds")

    assert _run_window(settings, load, drive) == 0
    assert load.thread == WINDOW_CODE_THREAD and len(ticks) >= 20


def test_text_typed_before_the_database_fails_to_open_stays_readable_and_is_never_sent(
    qtbot: QtBot, settings: Settings, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ERR-1, nothing lost: the page says why the database did not open, and what was typed stays in the
    composer, to be copied, with nothing to send it with (the window never gets its panes)."""
    monkeypatch.setenv("XWORKMATE_HOME", str(settings.home))
    _seeded(settings, openai_server)
    load = HeldLoad()
    seen: dict[str, object] = {}

    def refused() -> SessionController:
        raise OSError("the disk went away")

    def drive(waits: Waits) -> None:
        waits.opening_page(load, lambda shell, composer: typed_ahead(waits, shell, composer))

    def typed_ahead(waits: Waits, shell: WindowShell, composer: QPlainTextEdit) -> None:
        qtbot.keyClicks(composer, "Words worth keeping")
        load.release.set()
        page = shell.opening_page
        assert page is not None
        waits.until(lambda: page.failed, lambda: failed(shell, page), "the failure said on the page")

    def failed(shell: WindowShell, page: OpeningPage) -> None:
        composer, send = page.composer, page.send_button
        assert composer is not None and send is not None
        seen["page"] = [composer.toPlainText(), composer.isReadOnly(), send.isEnabled(), page.notice.text()]
        shell.close()

    assert _run_window(settings, load, drive, refused) == 3
    assert seen["page"] == [
        "Words worth keeping",
        True,
        False,
        "The database did not open — the disk went away",
    ]


@pytest.mark.parametrize("enter_sends", [True, False])
def test_the_opening_pages_composer_sends_on_the_keys_the_window_does(qtbot: QtBot, enter_sends: bool) -> None:
    """As the window's composer (``ui_state.ENTER_SENDS``): Enter sends or adds a line as the person chose,
    Shift+Enter adds a line, Ctrl+Enter sends; an empty composer sends nothing."""
    page = OpeningPage()
    qtbot.addWidget(page)
    page.show_input(enter_sends)
    composer = page.composer
    assert composer is not None
    qtbot.keyClick(composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert page.first_input() is None  # nothing typed: nothing to send
    qtbot.keyClicks(composer, "first")
    qtbot.keyClick(composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer, "second")
    qtbot.keyClick(composer, Qt.Key.Key_Return)
    if not enter_sends:
        assert page.first_input() == FirstInput(None, "first\nsecond\n", False)
        qtbot.keyClick(composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    sent = "first\nsecond" if enter_sends else "first\nsecond\n"
    assert page.first_input() == FirstInput(None, sent, True)
    assert composer.isReadOnly()


def test_text_sent_for_a_line_that_does_not_open_waits_unsent_in_the_shown_lines_composer(
    qtbot: QtBot, settings: Settings, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing lost (ERR-1) and nothing sent elsewhere (ISO-5): a line selected on the opening page that the
    store does not have by the time the window is built (the first read listed it) is said, and the text waits
    in the composer of the line shown, unsent."""
    monkeypatch.setenv("XWORKMATE_HOME", str(settings.home))
    _chosen, current = _seeded(settings, openai_server)
    load = HeldLoad()
    seen: dict[str, object] = {}

    def with_a_gone_line() -> FirstOpening | None:
        read = first_opening(settings.home, None)
        assert read is not None
        gone = FirstLine("draft:gone", "Gone since", read.lines[0].kind, None, None, False, None)
        return read._replace(lines=[*read.lines, gone])

    def drive(waits: Waits) -> None:
        waits.opening_page(load, lambda shell, composer: typed_ahead(waits, shell, composer))

    def typed_ahead(waits: Waits, shell: WindowShell, composer: QPlainTextEdit) -> None:
        view = shell.findChild(QListView, "firstTaskLineList")
        assert view is not None
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=_row_point(view, "draft:gone"))
        qtbot.keyClicks(composer, "For the line that went")
        qtbot.keyClick(composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        load.release.set()
        waits.window(finish, also=lambda: "did not open" in _status_of(waits))

    def finish(window: MainWindow) -> None:
        seen["shown"] = window.shown_key
        seen["composer"] = window.composer.toPlainText()
        seen["status"] = window.message_pane.status_label.text()
        window.close()

    assert _run_window(settings, load, drive, first=with_a_gone_line) == 0
    assert seen == {
        "shown": current,
        "composer": "For the line that went",
        "status": "Not sent — draft:gone did not open; your text is in this line's composer.",
    }
    assert _stored(settings, current) == []


def _answered_and_ended(waits: Waits, settings: Settings, key: str) -> bool:
    """The line's answer is stored and its turn has ended (the window closes with no turn on the loop)."""
    window = waits.built_window()
    if window is None or window.controller.turns.is_running(key):
        return False
    return any(role is MessageRole.ASSISTANT for role, _ in _stored(settings, key))


def _status_of(waits: Waits) -> str:
    window = waits.built_window()
    return window.message_pane.status_label.text() if window is not None else ""


def test_keys_the_window_gets_before_and_beside_its_composer_are_typed_into_it_in_order(qtbot: QtBot) -> None:
    """Seen under a real window manager: the window is focused before its composer shows (~50 ms), and a key
    pressed then went to the window itself and was lost; so was one pressed before the composer had taken the
    focus. The window now keeps them and types them into the composer, in order (Enter too)."""
    shell = WindowShell()
    qtbot.addWidget(shell)
    shell.show()
    page = shell.opening_page
    assert page is not None
    qtbot.keyClicks(shell, "typed ")  # no composer yet: kept
    page.show_input(True)
    composer = page.composer
    assert composer is not None and composer.toPlainText() == "typed "
    qtbot.keyClicks(shell, "at once")  # the window's own, with the composer there: typed into it
    qtbot.keyClick(shell, Qt.Key.Key_Return)
    assert page.first_input() == FirstInput(None, "typed at once", True)
    qtbot.keyClick(shell, Qt.Key.Key_F5)  # not a key that types: the window's own, as before
    assert composer.toPlainText() == "typed at once"


def test_the_opening_pages_composer_keeps_clear_of_the_workspace_pane_only_where_the_window_shows_it(
    qtbot: QtBot,
) -> None:
    """Where the window's composer will be: beside the workspace pane on a wide window; on a window too narrow for
    that pane (``AUTO_HIDE_BELOW``, as ``PaneLayout`` hides it) or with the pane hidden by the person, as wide
    as the page lets it (seen at 900x600 and at a scale of 2: a composer squeezed to a few words a line)."""
    shell = WindowShell()
    qtbot.addWidget(shell)
    shell.restore_saved({"main_window.splitter_sizes": "[260, 620, 320]"})
    shell.resize(1200, 700)
    shell.show()
    page = shell.opening_page
    assert page is not None
    page.show_input(True)
    composer = page.composer
    assert composer is not None

    def room_right() -> int:
        qtbot.wait(20)  # the layout, after the resize
        return page.width() - composer.geometry().right()

    assert room_right() > 320
    shell.resize(AUTO_HIDE_BELOW[RIGHT] - 100, 700)
    assert room_right() < 200  # the Send button and margins only
    shell.resize(1200, 700)
    assert room_right() > 320
    hidden = WindowShell()
    qtbot.addWidget(hidden)
    hidden.restore_saved({"main_window.panes": '{"hidden": [false, true], "widths": [260, 320]}'})
    assert hidden.opening_page is not None and hidden.opening_page.side_width == 0
