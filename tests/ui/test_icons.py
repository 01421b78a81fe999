"""Issue 30, item 1: the window's icon set, shipped in resources/icons and drawn in the theme's colours on
the buttons where peers have icons; the buttons keep their object names, tooltips and accessible names."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractButton, QApplication, QToolButton
from pytestqt.qtbot import QtBot

from xworkmate.icon_names import ICON_NAMES
from xworkmate.ui import MainWindow
from xworkmate.ui.layout import LEFT, RIGHT
from xworkmate.ui.resources import REQUIRED_FILES, find_resource_dir, themed_icon
from xworkmate.ui.theme import DARK, LIGHT, ThemeMode, theme_manager


def test_every_icon_loads_in_both_themes() -> None:
    assert all(f"icons/{name}.svg" in REQUIRED_FILES for name in ICON_NAMES)  # a resource folder needs them
    folder = find_resource_dir()
    for name in ICON_NAMES:
        for theme in (LIGHT, DARK):
            icon = themed_icon(name, theme.hex("text"), folder)
            assert not icon.isNull(), name
            image = icon.pixmap(24, 24).toImage()
            drawn = {
                image.pixelColor(x, y).name() for x in range(24) for y in range(24) if image.pixelColor(x, y).alpha()
            }
            assert drawn, f"{name} draws nothing"


def test_the_buttons_show_their_icons_and_keep_their_names(
    qtbot: QtBot, window: MainWindow, qapp: QApplication
) -> None:
    buttons: dict[str, QAbstractButton] = {
        "newTaskLineButton": window.task_pane.new_line_button,
        "archiveTaskLineButton": window.task_pane.archive_button,
        "stopButton": window.stop_button,
        "sendButton": window.send_button,
        "toggleTaskPaneButton": window.pane_layout.buttons[LEFT],
        "toggleWorkspacePaneButton": window.pane_layout.buttons[RIGHT],
    }
    for name, button in buttons.items():
        assert button.objectName() == name
        assert not button.icon().isNull(), name
        assert button.toolTip(), name
    assert all(isinstance(window.pane_layout.buttons[p], QToolButton) for p in (LEFT, RIGHT))
    assert window.pane_layout.buttons[LEFT].accessibleName()

    before = window.send_button.icon().pixmap(16, 16).toImage()
    manager = theme_manager()
    try:
        manager.set_mode(ThemeMode.DARK if manager.theme is LIGHT else ThemeMode.LIGHT)
        after = window.send_button.icon().pixmap(16, 16).toImage()
        assert after != before  # drawn again in the other theme's colour
    finally:
        manager.set_mode(ThemeMode.SYSTEM)
