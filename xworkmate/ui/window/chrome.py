"""The window's chrome: its actions and shortcuts (every key from the one registry, issue 33), the menu bar
(File, Settings, View, Help), the theme (issue 18) and language (issue 20) menus, the buttons' icons (issue
30 item 1) and the eliding of long titles and pickers (issue 30 item 4).

``WindowChrome`` makes the actions first (the parts take the shortcuts they answer); ``add_menus`` fills the
menu bar once the parts exist. What each action does is wired in ``MainWindow._connect_signals``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QMainWindow, QMenu

from xworkmate.controllers import LineView, SessionController
from xworkmate.controllers.views import LinePanes
from xworkmate.domain.threads import ThreadKind
from xworkmate.presentation.shortcuts import shortcut_keys
from xworkmate.ui.changes.workspace import WorkspacePane
from xworkmate.ui.conversation import MessagePane
from xworkmate.ui.i18n import LanguageMenu
from xworkmate.ui.icons import ButtonIcons
from xworkmate.ui.keyboard import KeyboardSetup
from xworkmate.ui.layout import LEFT, RIGHT, Elider, PaneLayout
from xworkmate.ui.lines.needs_you import NeedsYou
from xworkmate.ui.lines.task_lines import TaskLinePane
from xworkmate.ui.settings.appearance import ThemeFollower
from xworkmate.ui.settings.shortcuts_dialog import add_shortcuts_help, registered_shortcut
from xworkmate.ui.window.search_export import SearchAndExport

Panes = tuple[TaskLinePane, MessagePane, WorkspacePane]
"""The window's three panes, left to right."""


class WindowChrome(QObject):
    """The actions, shortcuts and menus of ``window``, and how it looks: theme, language, icons, eliding.

    Signals: none (the actions' ``triggered`` are wired by the window).
    """

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self._window = window
        self.new_line_action = self._action(self.tr("&New task line"), "newTaskLineAction", keys=True)
        self.new_line_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.new_worktree_line_action = self._action(
            self.tr("New task line in a git &worktree…"),
            "newWorktreeLineAction",
            self.tr("A task line in its own git worktree of a repository, on a new branch"),
        )
        self.quit_action = self._action(self.tr("&Quit"), "quitAction", keys=True)
        self.about_action = self._action(self.tr("&About XWorkmate"), "aboutAction")
        self.provider_settings_action = self._action(
            self.tr("&Providers…"),
            "providerSettingsAction",
            self.tr("OpenAI-compatible endpoints the agent may use, and their API keys"),
        )
        self.mcp_settings_action = self._action(self.tr("&MCP servers…"), "mcpSettingsAction")  # issue 15, item 3
        # Escape stops the shown line's turn; enabled only while it runs, so Escape is free otherwise.
        self.stop_shortcut = registered_shortcut("stopShortcut", window)[0]
        self.stop_shortcut.setEnabled(False)
        self.send_shortcuts = registered_shortcut("sendShortcut", window)
        self.jump_shortcuts = registered_shortcut("jumpShortcut", window)
        self.file_menu: QMenu | None = None
        self.shortcuts_action: QAction | None = None

    def _action(self, text: str, name: str, tip: str = "", *, keys: bool = False) -> QAction:
        action = QAction(text, self._window)
        action.setObjectName(name)
        if tip:
            action.setToolTip(tip)
        if keys:
            action.setShortcut(QKeySequence(shortcut_keys(name)[0]))
        return action

    def add_keyboard(
        self,
        controller: SessionController,
        panes: Panes,
        *,
        send: Callable[[], None],
        open_settings: Callable[[], object],
        archive: Callable[[], None],
    ) -> KeyboardSetup:
        """Issue 18: Enter sends (a setting for Ctrl+Enter), Ctrl+, / Ctrl+Shift+Backspace / Ctrl+F, focus, names."""
        task_pane, message_pane, _workspace_pane = self._panes = panes
        self.keyboard = KeyboardSetup(
            self._window,
            controller,
            composer=message_pane.composer,
            send=send,
            open_settings=open_settings,
            archive=archive,
            filter_edit=task_pane.filter_edit,
            task_list=task_pane.list_view,
        )
        return self.keyboard

    def show_line(self, view: LineView, previous: LineView | None, panes: LinePanes | None) -> None:
        """After every pane: on a switch the composer takes the keys (unless the list is being walked)."""
        if previous is None or previous.key != view.key:
            self.keyboard.after_switch()
            self.keyboard.composer_keys.show_placeholder(task_line=view.thread.kind is ThreadKind.TASK)

    def order_keys(self) -> None:
        """Tab walks the panes left to right; every focusable widget has an accessible name."""
        task_pane, pane, workspace_pane = self._panes
        self.keyboard.set_tab_order(
            [
                task_pane.filter_edit,
                task_pane.list_view,
                pane.message_list,
                pane.composer,
                pane.send_button,
                pane.mode_picker,
                pane.permission_picker,
                pane.provider_picker,
                workspace_pane.tree,
            ]
        )
        self.keyboard.name_widgets()

    def add_menus(
        self,
        controller: SessionController,
        panes: Panes,
        pane_layout: PaneLayout,
        *,
        needs_you: NeedsYou,
        search_export: SearchAndExport,
    ) -> None:
        """The menu bar, the theme and language menus, the icons and the eliding, over the built panes."""
        window, keyboard, (task_pane, message_pane, workspace_pane) = self._window, self.keyboard, panes
        self.file_menu = file_menu = window.menuBar().addMenu(self.tr("&File"))
        file_menu.addActions([self.new_line_action, self.new_worktree_line_action])
        file_menu.addSeparator()
        file_menu.addActions([search_export.search_action, search_export.export_action])
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        settings_menu = window.menuBar().addMenu(self.tr("&Settings"))
        settings_menu.addActions([self.provider_settings_action, needs_you.notifications_action])
        # Settings → Theme (follow the system, light, dark); the views follow the theme.
        views: list[QAbstractItemView] = [message_pane.message_list, task_pane.list_view]
        self.theme_follower = ThemeFollower(window, controller, views)
        self.theme_follower.add_menu(settings_menu)
        # Settings → Language (follow the system, English, 简体中文), applied at the next start.
        notice = message_pane.show_status
        self.language_menu = LanguageMenu(window, controller.settings.home, lambda text: notice(text, "info"))
        self.language_menu.add_menu(settings_menu)
        keyboard.add_to_menu(settings_menu)
        settings_menu.addAction(self.mcp_settings_action)
        self.button_icons = ButtonIcons(window)  # icons where the peers have them, in the theme's colours
        for widget, name, *colour in (
            (task_pane.new_line_button, "new-line"),
            (task_pane.archive_button, "archive"),
            (message_pane.stop_button, "stop", "danger-text"),
            (message_pane.send_button, "send", "accent"),
            (pane_layout.actions[LEFT], "pane-left"),
            (pane_layout.actions[RIGHT], "pane-right"),
        ):
            self.button_icons.add(widget, name, *colour)
        pane_layout.add_menu(window.menuBar().addMenu(self.tr("&View")))  # show/hide the side panes
        self.elider = Elider(window)
        self.elider.watch(message_pane.title_label, message_pane.session_key_label, workspace_pane.path_label)
        self.elider.watch_pickers(window)  # every picker, the composer's and the panes'
        help_menu = window.menuBar().addMenu(self.tr("&Help"))
        help_menu.addAction(self.about_action)
        self.shortcuts_action = add_shortcuts_help(window, help_menu)  # lists the shortcut registry
