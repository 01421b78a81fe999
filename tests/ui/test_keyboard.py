"""Keyboard and accessibility (issue 18, item 5).

Pins: the composer has the focus at launch and after a switch (but walking
the list with the arrow keys keeps the focus there); Enter sends and
Shift+Enter adds a line, and the Settings choice makes Ctrl+Enter send
instead (remembered); Ctrl+F, Ctrl+, and Ctrl+Shift+Backspace; a logical tab
order; every focusable widget has an accessible name; list rows expose title,
status and category to screen readers.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store import Store
from xworkmate.ui import MainWindow
from xworkmate.ui.keyboard import ENTER_SENDS_STATE

from .conftest import open_window
from .support import click_line, message_texts, proxy_index


def active(qtbot: QtBot, window: MainWindow) -> MainWindow:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # window shortcuts and focus go to the active window
    return window


def test_the_composer_has_the_focus_at_launch_and_after_a_switch(
    qtbot: QtBot, sqlite_controller: SessionController
) -> None:
    line = sqlite_controller.lines.create_line("Other")
    window = active(qtbot, open_window(qtbot, sqlite_controller))
    qtbot.waitUntil(lambda: window.composer.hasFocus())
    click_line(qtbot, window, line.thread_id)
    qtbot.waitUntil(lambda: window.controller.lines.current_key == line.thread_id)
    assert window.composer.hasFocus()

    window.task_line_list.setFocus()
    qtbot.keyClick(window.task_line_list, Qt.Key.Key_Up)  # walking the list: the focus stays in the list
    qtbot.waitUntil(lambda: window.controller.lines.current_key != line.thread_id)
    assert window.task_line_list.hasFocus()


def test_enter_sends_shift_enter_adds_a_line_and_the_setting_swaps_to_ctrl_enter(
    qtbot: QtBot, sqlite_controller: SessionController
) -> None:
    window = active(qtbot, open_window(qtbot, sqlite_controller))
    composer = window.composer
    qtbot.keyClicks(composer, "first")
    qtbot.keyClick(composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer, "second")
    assert composer.toPlainText() == "first\nsecond"
    qtbot.keyClick(composer, Qt.Key.Key_Return)
    assert message_texts(window)[0] == "first\nsecond"
    assert composer.toPlainText() == ""

    assert "(Enter sends, Shift+Enter adds a line)" in composer.placeholderText()
    window.keyboard.enter_sends_action.trigger()  # Settings → "Enter sends" off
    assert sqlite_controller.lines.ui_state(ENTER_SENDS_STATE) == "false"
    # Issue 30: the empty composer says which keys send now, not the old setting's.
    assert "(Ctrl+Enter sends, Enter adds a line)" in composer.placeholderText()
    qtbot.keyClicks(composer, "a")
    qtbot.keyClick(composer, Qt.Key.Key_Return)
    qtbot.keyClicks(composer, "b")
    assert composer.toPlainText() == "a\nb"
    qtbot.keyClick(composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert "a\nb" in message_texts(window)
    window.close()
    again = open_window(qtbot, sqlite_controller)
    assert not again.keyboard.composer_keys.enter_sends and not again.keyboard.enter_sends_action.isChecked()
    assert "Ctrl+Enter sends" in again.composer.placeholderText()


def test_shortcuts_for_the_filter_settings_and_archive(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController
) -> None:
    line = bare_controller.lines.create_line("To archive")
    bare_controller.lines.switch_session(line.thread_id)
    window = active(qtbot, open_window(qtbot, bare_controller))
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.task_pane.filter_edit.hasFocus()
    archive = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window, Qt.Key.Key_Backspace, archive)
    qtbot.waitUntil(lambda: bare_controller.get_thread(line.thread_id).archived)
    qtbot.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    assert window.line_settings.provider_dialog is not None and window.line_settings.provider_dialog.isVisible()
    window.line_settings.provider_dialog.reject()


def test_tab_walks_filter_list_conversation_composer_then_send(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    sqlite_store.messages.append("main", role=MessageRole.USER, source=MessageSource.HUMAN, content="hello")
    window = active(qtbot, open_window(qtbot, sqlite_controller))
    qtbot.keyClicks(window.composer, "draft")  # Send is enabled
    window.task_pane.filter_edit.setFocus()
    order = []
    widget: QWidget = window.task_pane.filter_edit
    for _ in range(4):
        widget = widget.nextInFocusChain()
        while not (widget.focusPolicy() & Qt.FocusPolicy.TabFocus) or not widget.isVisible():
            widget = widget.nextInFocusChain()
        order.append(widget.objectName())
    assert order[:4] == ["taskLineList", "messageList", "composer", "sendButton"]


def test_every_focusable_widget_has_an_accessible_name_and_rows_say_their_status(
    qtbot: QtBot, sqlite_controller: SessionController
) -> None:
    line = sqlite_controller.lines.create_line("Clinic")
    sqlite_controller.tasks.set_category(line.thread_id, "medical")
    window = open_window(qtbot, sqlite_controller)
    unnamed = [
        f"{type(w).__name__} {w.objectName()!r}"
        for w in [window, *window.findChildren(QWidget)]
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and not w.accessibleName()
    ]
    assert unnamed == []
    for name in ("composer", "taskLineFilter", "taskLineList", "messageList", "workspaceTree", "filePreview"):
        widget = window.findChild(QWidget, name)
        assert widget is not None and widget.accessibleName(), name
    index = proxy_index(window, line.thread_id)
    assert index.data(Qt.ItemDataRole.AccessibleTextRole) == "Clinic"
    description = index.data(Qt.ItemDataRole.AccessibleDescriptionRole)
    assert "ready" in description and "category medical" in description
