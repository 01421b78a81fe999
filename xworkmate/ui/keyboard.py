"""Keyboard and accessibility for the window (issue 18, item 5).

- The composer has the focus at launch and after every switch (unless the
  person is moving through the task list with the keyboard).
- Enter sends and Shift+Enter adds a line; Settings → "Enter sends" off makes
  Enter add a line and Ctrl+Enter send (kept in ui_state ``ENTER_SENDS_STATE``).
- Shortcuts: Settings (Ctrl+,), archive the line (Ctrl+Shift+Backspace),
  the line filter (Ctrl+F; Ctrl+L too).
- A logical tab order: filter → task list → conversation → composer → Send →
  pickers → workspace.
- Every focusable widget gets an accessible name (``ACCESSIBLE_NAMES`` by
  objectName; the rest from their text or tooltip), so a screen reader never
  meets an unnamed control.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QCompleter,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QWidget,
)

from xworkmate.controllers import SessionController
from xworkmate.domain import ui_state
from xworkmate.presentation.shortcuts import shortcut_keys
from xworkmate.ui.marks import QT_TRANSLATE_NOOP
from xworkmate.ui.ops import error_line_of, operations_of
from xworkmate.ui.ops.settings import set_ui_state
from xworkmate.ui.shell import COMPOSER_NAME, enter_sends_hint, enter_sends_key

ENTER_SENDS_STATE = ui_state.ENTER_SENDS.name
# Issue 33: the keys are the shortcut registry's (presentation/shortcuts.py).
SETTINGS_KEYS = shortcut_keys("settingsShortcutAction")
ARCHIVE_KEYS = shortcut_keys("archiveShortcutAction")
FILTER_KEYS = shortcut_keys("filterShortcutAction")

ACCESSIBLE_NAMES: dict[str, str] = {
    "composer": COMPOSER_NAME,
    "taskLineFilter": QT_TRANSLATE_NOOP("Keyboard", "Filter task lines"),
    "taskLineList": QT_TRANSLATE_NOOP("Keyboard", "Task lines"),
    "messageList": QT_TRANSLATE_NOOP("Keyboard", "Conversation"),
    "workspaceTree": QT_TRANSLATE_NOOP("Keyboard", "Files in the line's folder"),
    "filePreview": QT_TRANSLATE_NOOP("Keyboard", "File preview"),
    "dispatchSourcesList": QT_TRANSLATE_NOOP("Keyboard", "Messages this task was dispatched on"),
    "sendButton": QT_TRANSLATE_NOOP("Keyboard", "Send"),
    "stopButton": QT_TRANSLATE_NOOP("Keyboard", "Stop the running turn"),
    "rawToggle": QT_TRANSLATE_NOOP("Keyboard", "Show Markdown source"),
    "networkPicker": QT_TRANSLATE_NOOP("Keyboard", "Network access for commands"),
    "newTaskLineButton": QT_TRANSLATE_NOOP("Keyboard", "New task line"),
    "archiveTaskLineButton": QT_TRANSLATE_NOOP("Keyboard", "Archive task line"),
    "changeFolderButton": QT_TRANSLATE_NOOP("Keyboard", "Change folder"),
    "recreateFolderButton": QT_TRANSLATE_NOOP("Keyboard", "Recreate folder"),
    "showArchivedCheck": QT_TRANSLATE_NOOP("Keyboard", "Show archived task lines"),
    "lineStatusLabel": QT_TRANSLATE_NOOP("Keyboard", "Line status"),
    "sessionKeyLabel": QT_TRANSLATE_NOOP("Keyboard", "Session key"),
    "workspacePathLabel": QT_TRANSLATE_NOOP("Keyboard", "Folder path"),
    "dispatchSourcesNote": QT_TRANSLATE_NOOP("Keyboard", "About what this task was dispatched on"),
}


def _words(object_name: str) -> str:
    """``dispatchSourcesNote`` → ``Dispatch sources note``: a last-resort name from the objectName."""
    spaced = "".join(f" {c.lower()}" if c.isupper() else c for c in object_name).strip()
    return spaced[:1].upper() + spaced[1:]


def name_focusable_widgets(root: QWidget) -> None:
    """Give every focusable widget under ``root`` an accessible name (its own, its text, its tooltip)."""
    for widget in [root, *root.findChildren(QWidget)]:
        if widget.focusPolicy() == Qt.FocusPolicy.NoFocus or widget.accessibleName():
            continue
        name = ACCESSIBLE_NAMES.get(widget.objectName(), "")
        name = QCoreApplication.translate("Keyboard", name) if name else ""
        if not name and isinstance(widget, QAbstractButton):
            name = widget.text().replace("&", "")
        if not name and isinstance(widget, (QLineEdit, QPlainTextEdit)):
            name = widget.placeholderText()
        if not name:
            name = widget.toolTip() or widget.windowTitle() or _words(widget.objectName())
        if name:
            widget.setAccessibleName(name)


class ComposerKeys(QObject):
    """Enter sends / Shift+Enter adds a line in the composer (or, with the setting off, Ctrl+Enter sends)."""

    def __init__(self, composer: QPlainTextEdit, send: Callable[[], object], controller: SessionController) -> None:
        super().__init__(composer)
        self.setObjectName("composerKeys")
        self._composer = composer
        self._send = send
        self._controller = controller
        self.enter_sends = ui_state.ENTER_SENDS.decode(controller.lines.ui_state(ENTER_SENDS_STATE))
        self._task_line = False
        composer.installEventFilter(self)
        self.show_placeholder()

    def set_enter_sends(self, on: bool) -> None:
        self.enter_sends = on
        op = set_ui_state(self._controller, ui_state.ENTER_SENDS, on)
        op.run(operations_of(self), failed=error_line_of(self))
        self.show_placeholder()

    def show_placeholder(self, *, task_line: bool | None = None) -> None:
        """The composer's empty text: what it is for (a task's follow-up replaces the words it acts on)
        and the keys that send as the setting now says (issue 30)."""
        if task_line is not None:
            self._task_line = task_line
        text = (
            self.tr("Send this task a follow-up… (it replaces the words the task acts on; {keys})")
            if self._task_line
            else self.tr("Type a request for this task line… ({keys})")
        )
        self._composer.setPlaceholderText(text.format(keys=self.hint()))

    def hint(self) -> str:
        return enter_sends_hint(self.enter_sends)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self._composer or event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return False
        sends = enter_sends_key(event.key(), event.modifiers(), self.enter_sends)
        if sends is None or event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            return False  # not Enter; or Ctrl+Enter, the window's Send shortcut (``chrome.send_shortcuts``)
        completer = self._composer.findChild(QCompleter)
        popup = completer.popup() if completer is not None else None
        if popup is not None and popup.isVisible():
            return False  # the "/" list is open: Enter chooses in it (its own filter), it does not send
        if sends:
            self._send()
        else:
            self._composer.insertPlainText("\n")  # a real newline, not Qt's line separator
        return True


class KeyboardSetup(QObject):
    """The window's keyboard wiring (one per window): shortcuts, tab order, focus after switches."""

    def __init__(
        self,
        window: QMainWindow,
        controller: SessionController,
        *,
        composer: QPlainTextEdit,
        send: Callable[[], object],
        open_settings: Callable[[], object],
        archive: Callable[[], object],
        filter_edit: QLineEdit,
        task_list: QWidget,
    ) -> None:
        super().__init__(window)
        self.setObjectName("keyboardSetup")
        self._window = window
        self._composer = composer
        self._task_list = task_list
        self._keyboard_in_list = False
        self.composer_keys = ComposerKeys(composer, send, controller)
        self.settings_action = self._action(
            "settingsShortcutAction", self.tr("Settings…"), SETTINGS_KEYS, open_settings
        )
        self.archive_action = self._action("archiveShortcutAction", self.tr("Archive task line"), ARCHIVE_KEYS, archive)
        self.filter_action = self._action(
            "filterShortcutAction", self.tr("Filter task lines"), FILTER_KEYS, lambda: self._focus_filter(filter_edit)
        )
        self.enter_sends_action = QAction(self.tr("Enter sends (Shift+Enter adds a line)"), window)
        self.enter_sends_action.setObjectName("enterSendsAction")
        self.enter_sends_action.setCheckable(True)
        self.enter_sends_action.setChecked(self.composer_keys.enter_sends)
        self.enter_sends_action.toggled.connect(self.composer_keys.set_enter_sends)
        task_list.installEventFilter(self)
        viewport = getattr(task_list, "viewport", None)
        self._list_viewport = viewport() if callable(viewport) else None
        if self._list_viewport is not None:
            self._list_viewport.installEventFilter(self)

    def _action(self, name: str, text: str, keys: tuple[str, ...], slot: Callable[[], object]) -> QAction:
        action = QAction(text, self._window)
        action.setObjectName(name)
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        self._window.addAction(action)
        return action

    def add_to_menu(self, menu: QMenu) -> None:
        menu.addAction(self.enter_sends_action)

    @staticmethod
    def _focus_filter(filter_edit: QLineEdit) -> None:
        filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        filter_edit.selectAll()

    def set_tab_order(self, chain: list[QWidget]) -> None:
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._task_list and event.type() == QEvent.Type.KeyPress:
            self._keyboard_in_list = True
        elif watched in (self._task_list, self._list_viewport) and event.type() in (
            QEvent.Type.MouseButtonPress,
            QEvent.Type.FocusOut,
        ):
            self._keyboard_in_list = False
        return False

    def after_switch(self) -> None:
        """The composer takes the focus, unless the person is walking the list with the keys."""
        if self._keyboard_in_list and self._task_list.hasFocus():
            return
        self._composer.setFocus(Qt.FocusReason.OtherFocusReason)

    def name_widgets(self) -> None:
        name_focusable_widgets(self._window)
        for combo in self._window.findChildren(QComboBox):
            view = combo.view()
            if view is not None and not view.accessibleName():
                view.setAccessibleName(self.tr("{name} list").format(name=combo.accessibleName() or self.tr("Choices")))
