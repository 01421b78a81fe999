"""Settings → Theme, and the window's views following the theme (issue 18, item 2).

The person picks "Follow the system", Light or Dark; the choice is kept in
the controller's ui_state (``theme.THEME_STATE``) and applied by the
application's ``ThemeManager``. When the theme changes, the conversation
renders its rows again (their documents carry the colours) and the lists
repaint.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from PySide6.QtCore import QCoreApplication, QObject, Slot
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QAbstractItemView, QLabel, QMenu, QWidget

from xworkmate.controllers import SessionController
from xworkmate.domain import ui_state
from xworkmate.preferences import load_preferences, save_preferences
from xworkmate.ui.ops import error_line_of, operations_of
from xworkmate.ui.ops.settings import set_ui_state
from xworkmate.ui.theme import THEME_MODE_LABELS, THEME_STATE, Theme, ThemeManager, ThemeMode, parse_mode, theme_manager

log = logging.getLogger(__name__)

THEME_ACTION_NAMES: dict[ThemeMode, str] = {
    ThemeMode.SYSTEM: "themeSystemAction",
    ThemeMode.LIGHT: "themeLightAction",
    ThemeMode.DARK: "themeDarkAction",
}


class ThemeFollower(QObject):
    """Owned by the window: the theme menu's actions, and what the window does when the theme changes.

    Being the window's child, its connection to the application-wide manager
    ends with the window.
    """

    def __init__(self, window: QWidget, controller: SessionController, views: list[QAbstractItemView]) -> None:
        super().__init__(window)
        self.setObjectName("themeFollower")
        self._window = window
        self._controller = controller
        self._views = views
        self.manager: ThemeManager = theme_manager()
        self.group = QActionGroup(self)
        self.group.setExclusive(True)
        self.actions: dict[ThemeMode, QAction] = {}
        for mode, label in THEME_MODE_LABELS.items():
            action = QAction(QCoreApplication.translate("ThemeFollower", label), window)
            action.setObjectName(THEME_ACTION_NAMES[mode])
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, chosen=mode: self.choose(chosen))
            self.group.addAction(action)
            self.actions[mode] = action
        self.manager.changed.connect(self.on_theme_changed)
        stored = controller.lines.ui_state(THEME_STATE)  # the database's word, else the one the opening used
        self.manager.set_mode(parse_mode(stored if stored else load_preferences(controller.settings.home).theme))
        self.actions[self.manager.mode].setChecked(True)
        self._keep_for_opening(self.manager.mode)

    def add_menu(self, parent: QMenu) -> QMenu:
        menu = parent.addMenu(self.tr("&Theme"))
        menu.setObjectName("themeMenu")
        for action in self.actions.values():
            menu.addAction(action)
        return menu

    def choose(self, mode: ThemeMode) -> None:
        """The person picked a theme: show it and remember it."""
        self.actions[mode].setChecked(True)
        self.manager.set_mode(mode)
        set_ui_state(self._controller, ui_state.THEME, mode.value).run(operations_of(self), failed=error_line_of(self))
        self._keep_for_opening(mode)

    def _keep_for_opening(self, mode: ThemeMode) -> None:
        """The choice in the preferences file too: the next start paints its opening screen in it, before
        the store (which keeps the choice) is open (issue 30 item 1). A file that cannot be written only
        means the opening screen follows the system; it is logged, never raised."""
        home = self._controller.settings.home
        preferences = load_preferences(home)
        if preferences.theme == mode.value:
            return
        try:
            save_preferences(home, replace(preferences, theme=mode.value))
        except OSError as exc:
            log.warning("could not keep the theme for the next start in %s: %s", home, exc)

    @Slot(object)
    def on_theme_changed(self, _theme: Theme) -> None:
        for view in self._views:
            delegate = view.itemDelegate()
            forget = getattr(delegate, "forget_rendering", None)
            if forget is not None:
                forget()
                view.scheduleDelayedItemsLayout()
            view.viewport().update()
        for label in self._window.findChildren(QLabel):
            text = label.text()
            if "<a " in text:  # a rich-text label laid out its links in the old palette's colour
                label.setText("")
                label.setText(text)
