"""These tests use the xworkmate plugin's own fixtures (it loads through its pytest11 entry point)."""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
OFFSCREEN_NOISE = r"This plugin does not support propagateSizeHints\(\)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("pytest-qt"):
        return  # the Qt-free core job (-p no:pytest-qt): its markers are unknown there
    for item in items:
        if item.path.is_relative_to(_HERE):
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))
