"""Issue 30, item 1: a dark-theme user's window opens dark: the saved theme is read before the first paint,
so "Opening the database…" is not a light screen for seconds before the window turns dark."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.preferences import load_preferences
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.ui.settings.appearance import THEME_ACTION_NAMES
from xworkmate.ui.shell import WindowShell
from xworkmate.ui.theme import THEME_STATE, ThemeMode, theme_manager
from xworkmate.ui.window.main_window import MainWindow

from .conftest import open_window


@pytest.fixture
def theme_restored(qapp: QApplication) -> Iterator[None]:
    icon, stylesheet = qapp.windowIcon(), qapp.styleSheet()
    yield
    qapp.setWindowIcon(icon)
    qapp.setStyleSheet(stylesheet)
    theme_manager().set_mode(ThemeMode.LIGHT)
    theme_manager().set_mode(ThemeMode.SYSTEM)


def _chose_dark(settings: Settings) -> None:
    """A previous run where the person picked Settings → Theme → Dark (the action, as the menu triggers it)."""
    from xworkmate.ui import build_main_window

    store = open_store(settings.effective_database_url)
    try:
        controller = SessionController(store, settings)
        window = build_main_window(controller)
        try:
            action = window.chrome.theme_follower.actions[ThemeMode.DARK]
            assert action.objectName() == THEME_ACTION_NAMES[ThemeMode.DARK]
            action.trigger()
        finally:
            window.close()
            window.deleteLater()
        assert controller.lines.ui_state(THEME_STATE) == "dark"
    finally:
        store.close()
    theme_manager().set_mode(ThemeMode.LIGHT)  # this process goes on light: the next start must read it


def _opening_colours(qapp: QApplication, monkeypatch: pytest.MonkeyPatch, home: Path) -> list[int]:
    """Start ``xworkmate gui`` as ``make run`` does; the lightness of the window's background each time the
    opening screen ("Opening the database…") was seen shown, before the window had its panes."""
    from xworkmate.cli import main

    monkeypatch.setenv("XWORKMATE_HOME", str(home))
    monkeypatch.delenv("XWORKMATE_DATABASE_URL", raising=False)
    seen: list[int] = []

    def look() -> None:
        windows = [w for w in qapp.topLevelWidgets() if isinstance(w, WindowShell) and w.isVisible()]
        if windows and windows[0].opening_page is not None and not windows[0].attached:
            page = windows[0].opening_page
            seen.append(page.palette().color(QPalette.ColorRole.Window).lightness())
        if windows and isinstance(windows[0], MainWindow) and windows[0].attached:
            windows[0].close()
            return
        QTimer.singleShot(2, look)

    QTimer.singleShot(0, look)
    assert main(["gui"]) == 0
    return seen


def test_a_dark_theme_users_opening_screen_is_dark(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, qapp: QApplication, theme_restored: None
) -> None:
    _chose_dark(settings)
    assert load_preferences(settings.home).theme == "dark"  # kept where the start reads it before the store

    seen = _opening_colours(qapp, monkeypatch, settings.home)

    assert seen, "the opening screen was never seen"
    assert max(seen) < 100, seen  # dark from the first look on, never the light palette (lightness ~245)


def test_a_theme_saved_only_in_the_database_still_opens_dark_once_it_is_read(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, qapp: QApplication, theme_restored: None
) -> None:
    """A choice made before the preferences kept it: the first read (its ``ui_state``) brings it."""
    _chose_dark(settings)
    path = settings.home / "preferences.json"
    path.write_text(json.dumps({"language": "system"}), encoding="utf-8")

    _opening_colours(qapp, monkeypatch, settings.home)

    assert load_preferences(settings.home).theme == "dark"  # the window kept it for the next start


def test_a_theme_kept_only_in_the_preferences_stays_once_the_window_is_built(
    qtbot: QtBot, sqlite_controller: SessionController, theme_restored: None
) -> None:
    """The window built after the opening does not go back to the system's theme (and forget the choice)
    because its database has no choice of its own yet."""
    home = sqlite_controller.settings.home
    (home / "preferences.json").write_text(json.dumps({"theme": "dark"}), encoding="utf-8")
    theme_manager().set_mode(ThemeMode.LIGHT)
    window = open_window(qtbot, sqlite_controller)
    assert window.chrome.theme_follower.actions[ThemeMode.DARK].isChecked()
    # The application's palette reaches its widgets by posted events, before their first paint.
    qtbot.waitUntil(lambda: window.palette().color(QPalette.ColorRole.Window).lightness() < 100, timeout=2000)
    assert load_preferences(home).theme == "dark"
