"""Help → Keyboard shortcuts, and the window's ``QShortcut``s, both from the one registry (issue 33 item 3).

The dialog (``shortcutsDialog``) lists ``presentation.shortcuts.SHORTCUTS``: what each does, its keys in
the platform's own notation, and where it works. It is non-modal and built from the table each time it opens,
so it always shows what the window carries.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from xworkmate.presentation.shortcuts import SHORTCUTS, shortcut_keys


def native_keys(keys: tuple[str, ...]) -> str:
    """``("Ctrl+F", "Ctrl+L")`` as the platform writes them (``⌘F, ⌘L`` on macOS); a run of more than three
    (Ctrl+1 … Ctrl+9) as its first and last."""
    shown = [
        QKeySequence(key, QKeySequence.SequenceFormat.PortableText).toString(QKeySequence.SequenceFormat.NativeText)
        for key in keys
    ]
    return f"{shown[0]} … {shown[-1]}" if len(shown) > 3 else ", ".join(shown)


def registered_shortcut(action: str, parent: QWidget) -> list[QShortcut]:
    """One ``QShortcut`` per key of a registered action, named by the action's id."""
    shortcuts = []
    for key in shortcut_keys(action):
        shortcut = QShortcut(QKeySequence(key), parent)
        shortcut.setObjectName(action)
        shortcuts.append(shortcut)
    return shortcuts


class ShortcutsDialog(QDialog):
    """Every shortcut, read from the registry: action, keys, where it works."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        self.table = QTableWidget(len(SHORTCUTS), 3, self)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels([self.tr("Action"), self.tr("Keys"), self.tr("Where")])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, entry in enumerate(SHORTCUTS):
            cells = (
                QCoreApplication.translate("Shortcuts", entry.label),
                native_keys(entry.keys),
                QCoreApplication.translate("Shortcuts", entry.context.value),
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, entry.action)
                self.table.setItem(row, column, item)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.table.setWordWrap(False)
        self.resize(620, 620)


def add_shortcuts_help(window: QWidget, menu: QMenu) -> QAction:
    """Help → Keyboard shortcuts (its own keys from the registry); opens a fresh ``ShortcutsDialog``."""
    action = QAction(QCoreApplication.translate("ShortcutsDialog", "&Keyboard shortcuts"), window)
    action.setObjectName("shortcutsHelpAction")
    action.setShortcuts([QKeySequence(key) for key in shortcut_keys("shortcutsHelpAction")])
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)

    def show() -> None:
        dialog = ShortcutsDialog(window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()

    action.triggered.connect(lambda _checked=False: show())
    window.addAction(action)
    menu.addAction(action)
    return action
