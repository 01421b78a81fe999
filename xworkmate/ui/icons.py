"""The window's icons on its buttons, in the theme's colours (issue 30 item 1).

Where the peers put an icon (a new line, archive, stop, send, the side panes' toggles) the button shows one
of ``resources/icons`` (``ui/resources.themed_icon``), drawn in a colour token of the current theme and
drawn again when the theme changes. The buttons keep their object names, accessible names and tooltips;
the pane toggles show only the icon (their words are in the View menu and the tooltip).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QSize, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractButton, QWidget

from xworkmate.ui import theme
from xworkmate.ui.resources import ResourceMissingError, themed_icon

log = logging.getLogger(__name__)

ICON_SIZE = 16


class ButtonIcons(QObject):
    """Owned by the window: which button shows which icon in which colour token; ``apply`` draws them."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setObjectName("buttonIcons")
        self._buttons: list[tuple[QAbstractButton | QAction, str, str]] = []
        theme.theme_manager().changed.connect(self.on_theme_changed)

    def add(self, button: QAbstractButton | QAction, name: str, colour: str = "text") -> None:
        """``button`` (or an action: the tool buttons showing it) shows icon ``name`` in the colour token ``colour``."""
        self._buttons = [entry for entry in self._buttons if entry[0] is not button]
        self._buttons.append((button, name, colour))
        if isinstance(button, QAbstractButton):
            button.setIconSize(QSize(ICON_SIZE, ICON_SIZE))
        self._draw(button, name, colour)

    def set_name(self, button: QAbstractButton | QAction, name: str) -> None:
        """Another icon for a button already added (Archive/Unarchive)."""
        for entry in self._buttons:
            if entry[0] is button and entry[1] != name:
                self.add(button, name, entry[2])
                return

    def _draw(self, button: QAbstractButton | QAction, name: str, colour: str) -> None:
        try:
            button.setIcon(themed_icon(name, theme.current().hex(colour)))
        except ResourceMissingError as exc:  # the words stay: a missing icon is a broken install, logged
            log.warning("no icon for %s: %s", button.objectName(), exc)

    @Slot(object)
    def on_theme_changed(self, _theme: theme.Theme) -> None:
        for button, name, colour in self._buttons:
            self._draw(button, name, colour)
