"""Window tests: real controller on a real SQLite file, real widgets, offscreen.

Every test here fails on any Qt warning (STYLE lesson 8), except the offscreen
platform's own note that it cannot propagate size hints, which says nothing
about our code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.ui import MainWindow, build_main_window

_HERE = Path(__file__).resolve().parent
OFFSCREEN_NOISE = r"This plugin does not support propagateSizeHints\(\)"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(_HERE):
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


def open_window(qtbot: QtBot, controller: SessionController) -> MainWindow:
    window = build_main_window(controller)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.fixture
def window(qtbot: QtBot, sqlite_controller: SessionController) -> MainWindow:
    """The whole window over the ``sqlite_controller`` fixture, shown offscreen."""
    return open_window(qtbot, sqlite_controller)
