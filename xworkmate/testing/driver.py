"""``WindowDriver``: a page object over the real XWorkmate window (issue 21, docs/testing.md).

Every action is what a person does: a click on a widget found by its documented ``objectName``, keys
typed into the composer, a context-menu action, a dialog answered through the window's ``ask`` hook
(``workspace.choose_folder``, ``task_list.ask_title``, ``task_list.ask_category`` — STYLE lesson 6).
Nothing calls the controller to act. Waits run the window's qasync loop until a condition holds,
re-checked on every controller change record and on a short Qt timer; they never sleep and never nest
qtbot waits in a coroutine (STYLE lesson 7).

Reads are plain records: ``messages()`` from the stored conversation, ``lines()`` from the task
line list as it is shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QAbstractButton, QLabel, QListView, QPlainTextEdit, QWidget
from pytestqt.qtbot import QtBot

from xworkmate.ui import MainWindow
from xworkmate.ui.conversation import LIVE_ROLE
from xworkmate.ui.lines.task_lines import CATEGORY_ROLE, KEY_ROLE, STATUS_ROLE, WORKSPACE_PATH_ROLE

DEFAULT_TIMEOUT = 15.0
NO_FOLDER = "(no folder bound)"


class SendDisabled(AssertionError):
    """Send stayed disabled after typing: the line cannot run (the status line says why)."""


@dataclass(frozen=True)
class MessageRecord:
    role: str
    """``user`` / ``assistant`` / ``tool`` / ``system``."""
    source: str
    """Who wrote it (``human``, ``agent``, ``tool``…; SPEC §4)."""
    text: str
    state: str
    """``complete``, ``streaming``, ``interrupted``, ``failed``…"""


@dataclass(frozen=True)
class LineRecord:
    key: str
    title: str
    status: str
    category: str | None
    workspace_path: str | None


class WindowDriver:
    """Drives one ``MainWindow`` with ``qtbot`` on its qasync ``loop``."""

    def __init__(self, window: MainWindow, qtbot: QtBot, loop: asyncio.AbstractEventLoop) -> None:
        self.window = window
        self.qtbot = qtbot
        self.loop = loop

    # -- finding widgets -------------------------------------------------------------------------

    def widget(self, name: str, kind: type[QObject] = QWidget) -> Any:
        """The window's widget with this documented objectName (AssertionError when it is missing)."""
        found = self.window.findChild(kind, name)
        assert found is not None, f"the window has no {kind.__name__} named {name!r}"
        return found

    def click(self, name: str) -> None:
        button = self.widget(name, QAbstractButton)
        assert button.isVisible() and button.isEnabled(), f"{name} is not clickable (visible and enabled)"
        self.qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        self.settle()

    def settle(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until the store work the window started is applied (issue 19: switch, send, create, bind,
        category and archive run as operations on the store worker, and the window applies their changes),
        and what a switch left for after the conversation's paint has run (issue 34 item 1: the fresh read of
        a line shown lately, its folder, its queue), and the start's own (``MainWindow.settling``)."""
        window = self.window
        self.wait_until(lambda: not window.settling, timeout=timeout, what="the window's operations")

    # -- properties ------------------------------------------------------------------------------

    @property
    def current_key(self) -> str:
        """The session key the panes show (``sessionKeyLabel``)."""
        return str(self.widget("sessionKeyLabel", QLabel).text())

    @property
    def workspace_path(self) -> str | None:
        """The shown line's folder (``workspacePathLabel``), None when none is bound."""
        label = self.widget("workspacePathLabel", QLabel)
        return None if label.text() == NO_FOLDER else str(label.toolTip() or label.text())

    @property
    def status_text(self) -> str:
        """The shown line's status line (``lineStatusLabel``): state, errors, refusals."""
        return str(self.widget("lineStatusLabel", QLabel).text())

    # -- actions ---------------------------------------------------------------------------------

    def new_line(self, title: str | None = None) -> str:
        """Click "New task line"; with ``title``, rename it through the row's "Rename…" menu. Returns its key."""
        before = set(self._keys())
        self.click("newTaskLineButton")
        self.wait_until(lambda: self.current_key not in before, what="the new line to be shown")
        key = self.current_key
        if title is not None:
            with self._hook(self.window.task_list, "ask_title", lambda _parent, _current: title):
                self._menu_action(key, "Rename…")
            self.wait_until(lambda: self._title_of(key) == title, what=f"{key} to be titled {title!r}")
        return key

    def select(self, key: str) -> None:
        """Click the line's row in the task line list."""
        view = self.widget("taskLineList", QListView)
        index = self._proxy_index(key)
        view.scrollTo(index)
        self.qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center())
        self.wait_until(lambda: self.current_key == key, what=f"{key} to be shown")
        self.settle()

    def send(self, text: str) -> None:
        """Type ``text`` into the composer (replacing a draft) and click Send.

        Raises ``SendDisabled`` (an AssertionError) when Send stays disabled; the text stays typed.
        """
        composer = self.widget("composer", QPlainTextEdit)
        composer.setFocus()
        self.qtbot.keyClick(composer, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        self.qtbot.keyClick(composer, Qt.Key.Key_Delete)
        self.qtbot.keyClicks(composer, text)
        send = self.widget("sendButton", QAbstractButton)
        if not send.isEnabled():
            raise SendDisabled(f"Send is disabled on {self.current_key}: {self.status_text}")
        self.qtbot.mouseClick(send, Qt.MouseButton.LeftButton)
        self.settle()

    def wait_idle(self, key: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until the line (default: the shown one) has no turn running, and the window shows it so (issue
        19: the line's row and view after a turn are read on the store worker)."""
        target = key or self.current_key
        controller, operations = self.window.controller, self.window.operations
        self.wait_until(
            lambda: not controller.turns.is_running(target) and operations.running == 0,
            timeout=timeout,
            what=f"{target} to be idle",
        )

    def approve(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait for the shown line's approval card and click "Allow once"."""
        self._answer("approveButton", timeout)

    def reject(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait for the shown line's approval card and click "Reject"."""
        self._answer("rejectButton", timeout)

    def stop(self) -> None:
        """Click Stop on the shown line's running turn."""
        self.click("stopButton")

    def bind(self, key: str, folder: str | Path) -> None:
        """Show ``key`` and bind it to ``folder`` through "Change folder…" (the folder dialog answers)."""
        if self.current_key != key:
            self.select(key)
        wanted = str(Path(folder).resolve())
        with self._hook(self.window.workspace, "choose_folder", lambda _parent, _start: wanted):
            self.click("changeFolderButton")
        self.wait_until(
            lambda: self.workspace_path == wanted or self.status_text.startswith("Folder not changed"),
            what=f"{key} to be bound to {wanted}",
        )

    def set_category(self, key: str, name: str) -> None:
        """The row's "Set category…" menu action, answered with ``name`` (``""`` clears it)."""
        with self._hook(self.window.task_list, "ask_category", lambda _parent, _current: name):
            self._menu_action(key, "Set category…")

    def set_mode(self, label: str) -> None:
        """Choose who runs the shown line in ``modePicker``: ``"Built-in agent"`` or ``"<agent> (ACP)"``."""
        picker = self.widget("modePicker")
        index = picker.findText(label)
        labels = [picker.itemText(i) for i in range(picker.count())]
        assert index >= 0, f"{label!r} is not offered by the mode picker: {labels}"
        why = picker.itemData(index, Qt.ItemDataRole.ToolTipRole)
        assert picker.is_enabled_at(index), f"{label!r} is disabled in the mode picker: {why}"
        picker.setCurrentIndex(index)  # what picking the entry from the popup does
        self.settle()

    # -- reads -----------------------------------------------------------------------------------

    def messages(self, key: str | None = None) -> list[MessageRecord]:
        """The line's stored conversation (default: the shown line), oldest first."""
        stored = self.window.controller.lines.messages(key or self.current_key)
        return [MessageRecord(m.role.value, m.source.value, m.content, m.state.value) for m in stored]

    def lines(self) -> list[LineRecord]:
        """The task line list as shown (filter applied), top to bottom."""
        model = self.window.task_proxy
        records = []
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            status = index.data(STATUS_ROLE)
            records.append(
                LineRecord(
                    key=str(index.data(KEY_ROLE)),
                    title=str(index.data()),
                    status=str(getattr(status, "value", status)),
                    category=index.data(CATEGORY_ROLE),
                    workspace_path=index.data(WORKSPACE_PATH_ROLE),
                )
            )
        return records

    @property
    def live_text(self) -> str | None:
        """The text streaming into the shown conversation right now (its transient row), or None."""
        model = self.widget("messageList", QListView).model()
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            if index.data(LIVE_ROLE) == "stream":
                return str(index.data())
        return None

    @property
    def composer_text(self) -> str:
        return str(self.widget("composer", QPlainTextEdit).toPlainText())

    def approval_cards(self) -> list[QWidget]:
        """The shown line's visible approval cards (``approvalCard``)."""
        area = self.widget("approvalArea")
        return [card for card in area.findChildren(QWidget, "approvalCard") if card.isVisible()]

    # -- waiting ---------------------------------------------------------------------------------

    def wait_until(self, condition: Callable[[], bool], *, timeout: float = DEFAULT_TIMEOUT, what: str = "") -> None:
        """Run the window's loop until ``condition()`` holds; AssertionError after ``timeout`` seconds."""
        if condition():
            return
        done: asyncio.Future[None] = self.loop.create_future()

        def check(*_args: object) -> None:
            if not done.done() and condition():
                done.set_result(None)

        def check_soon(*_args: object) -> None:
            # After the record is handled, and the ones emitted with it (a turn's end says RunFinished, then
            # LineUpdated, whose read the window then starts): checked at once, the wait could end between them.
            QTimer.singleShot(0, check)

        timer = QTimer()
        timer.setInterval(20)
        timer.timeout.connect(check)
        self.window.bridge.changed.connect(check_soon)
        timer.start()
        try:
            self.loop.run_until_complete(asyncio.wait_for(done, timeout))
        except TimeoutError:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or condition}") from None
        finally:
            timer.stop()
            self.window.bridge.changed.disconnect(check_soon)

    # -- internals -------------------------------------------------------------------------------

    def _answer(self, button: str, timeout: float) -> None:
        self.wait_until(lambda: bool(self.approval_cards()), timeout=timeout, what="an approval card")
        card = self.approval_cards()[0]
        found = card.findChild(QAbstractButton, button)
        assert found is not None, f"the approval card has no {button}"
        self.qtbot.mouseClick(found, Qt.MouseButton.LeftButton)

    def _keys(self) -> list[str]:
        return [record.key for record in self.lines()]

    def _title_of(self, key: str) -> str | None:
        return next((r.title for r in self.lines() if r.key == key), None)

    def _proxy_index(self, key: str) -> Any:
        model = self.window.task_proxy
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            if index.data(KEY_ROLE) == key:
                return index
        raise AssertionError(f"{key} is not in the task line list (is a filter hiding it?)")

    def _menu_action(self, key: str, text: str) -> None:
        """Trigger the action ``text`` of the row's context menu (``taskLineMenu``), as a click on it does."""
        self._proxy_index(key)  # the row must be there to be right-clicked
        menu = self.window.task_list.task_line_menu(key)
        try:
            [action] = [a for a in menu.actions() if a.text() == text]
            assert action.isEnabled(), f"{text!r} is disabled in {key}'s menu"
            action.trigger()
        finally:
            menu.deleteLater()
        self.settle()

    @contextmanager
    def _hook(self, part: object, name: str, answer: Callable[[Any, str], str | None]) -> Iterator[None]:
        """Answer the dialog hook ``name`` (a ``*Dialog.ask``) of a part of the window with ``answer`` for one
        action."""
        original = getattr(part, name)
        setattr(part, name, answer)
        try:
            yield
        finally:
            setattr(part, name, original)


__all__ = ["LineRecord", "MessageRecord", "SendDisabled", "WindowDriver"]
