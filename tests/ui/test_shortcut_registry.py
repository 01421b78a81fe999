"""Every shortcut of the window comes from one registry, ``presentation/shortcuts.py`` (issue 33 item 3; LOOP-2).

Pins: every ``QAction`` and ``QShortcut`` in the real window that carries keys is a registered action and
carries exactly the registered keys; no two actions share a key in one context; Help → Keyboard shortcuts
(``shortcutsDialog``) lists every registered action with its keys, and its own keys open it.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QTableWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.presentation.shortcuts import BY_ACTION, SHORTCUTS, ShortcutContext, clashes
from xworkmate.ui.agent.approvals import DECISION_KEYS
from xworkmate.ui.message_text import COPY_MARKDOWN
from xworkmate.ui.settings.shortcuts_dialog import ShortcutsDialog, native_keys

from .conftest import open_window


def _portable(sequence: QKeySequence) -> str:
    return sequence.toString(QKeySequence.SequenceFormat.PortableText)


def test_every_shortcut_in_the_window_is_registered_with_its_keys(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController
) -> None:
    window = open_window(qtbot, bare_controller)
    carried: dict[str, set[str]] = {}
    for action in window.findChildren(QAction):
        keys = {_portable(k) for k in action.shortcuts() if not k.isEmpty()}
        if keys:
            assert action.objectName() in BY_ACTION, f"{action.objectName()!r} ({action.text()}) is not registered"
            carried.setdefault(action.objectName(), set()).update(keys)
    for shortcut in window.findChildren(QShortcut):
        if not shortcut.key().isEmpty():
            assert shortcut.objectName() in BY_ACTION, f"QShortcut {_portable(shortcut.key())} is not registered"
            carried.setdefault(shortcut.objectName(), set()).add(_portable(shortcut.key()))
    window_entries = {s.action: set(s.keys) for s in SHORTCUTS if s.context is ShortcutContext.WINDOW}
    assert carried == window_entries
    # the keys handled in a widget's own key handler come from the registry too
    assert _portable(COPY_MARKDOWN) in BY_ACTION["copyMarkdown"].keys
    assert {
        QKeySequence(k)[0].key() for s in SHORTCUTS if s.context is ShortcutContext.APPROVAL for k in s.keys
    } == set(DECISION_KEYS)


def test_no_two_actions_share_a_key_in_one_context() -> None:
    assert clashes() == []
    for context in ShortcutContext:
        keys = [_portable(QKeySequence(k)) for s in SHORTCUTS if s.context is context for k in s.keys]
        assert len(keys) == len(set(keys)), context


def test_help_keyboard_shortcuts_lists_the_registry_and_opens_on_its_keys(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController
) -> None:
    window = open_window(qtbot, bare_controller)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.menu() and a.text() == window.tr("&Help"))
    assert window.chrome.shortcuts_action in help_menu.actions()
    qtbot.keyClick(window, Qt.Key.Key_Slash, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.findChild(ShortcutsDialog, "shortcutsDialog") is not None)
    dialog = window.findChild(ShortcutsDialog, "shortcutsDialog")
    assert dialog is not None and dialog.isVisible()
    table = dialog.findChild(QTableWidget, "shortcutsTable")
    assert table is not None and table.rowCount() == len(SHORTCUTS)
    rows = {table.item(r, 0).data(Qt.ItemDataRole.UserRole): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows == {s.action: native_keys(s.keys) for s in SHORTCUTS}
    dialog.close()
    QApplication.processEvents()
