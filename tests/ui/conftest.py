"""Window tests: real controller on a real SQLite file, real widgets, offscreen.

Every test here fails on any Qt warning (STYLE lesson 8), except the offscreen
platform's own note that it cannot propagate size hints, which says nothing
about our code.

Tests that run turns use ``loop``: a qasync loop on pytest-qt's ``qapp``,
current for the test and closed after it. Clicks are made with ``qtbot``
while the loop is idle; then ``loop.run_until_complete(...)`` runs the
controller's task (or a polling ``wait_until``) — never a qtbot wait inside
a coroutine (STYLE lesson 7).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.providers import ProviderRecord
from xworkmate.preferences import LANGUAGE_ENV, Language
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer
from xworkmate.ui import MainWindow, build_main_window
from xworkmate.ui.i18n import install_translations, remove_translations
from xworkmate.ui.resources import load_resources
from xworkmate.ui.start import apply_resources
from xworkmate.ui.theme import theme_manager

from .gui_thread_guard import REPORT_ENV, no_sql_on_gui_thread, write_report
from .support_runs import fast_router

__all__ = ["no_sql_on_gui_thread"]  # the autouse guard: every UI test runs no SQL on the GUI thread

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


@pytest.fixture
def app_style(qapp: QApplication) -> Iterator[None]:
    """The window as the app shows it: its stylesheet (type scale, padding) on, as ``xworkmate`` starts it; put
    back after, the theme manager told too (else it takes the next test's same stylesheet as there already)."""
    before, font = qapp.styleSheet(), qapp.font()
    apply_resources(qapp, load_resources())
    yield
    theme_manager().set_template("")
    qapp.setStyleSheet(before)
    qapp.setFont(font)


@pytest.fixture(autouse=True)
def english_window(monkeypatch: pytest.MonkeyPatch, qapp: QApplication) -> Iterator[None]:
    """Issue 20: the window speaks English in every test, whatever the machine's locale (tests of the
    language choose theirs), with the English catalogue installed as ``run_gui`` installs it, so plural
    texts read "3 lines", not "3 line(s)"."""
    monkeypatch.setenv(LANGUAGE_ENV, Language.ENGLISH.value)
    install_translations(qapp, Language.ENGLISH)
    yield
    remove_translations(qapp)


@pytest.fixture(autouse=True)
def gui_thread_gc(xwm_gui_thread_gc: None) -> None:
    """Every UI test: garbage (closed windows, their timers) is collected on the GUI thread only."""


@pytest.fixture
def loop(xwm_loop: asyncio.AbstractEventLoop) -> asyncio.AbstractEventLoop:
    """A qasync event loop for one test: the shipped plugin's (issue 21), so testers and we share one set-up;
    turns still running at the end are cancelled and awaited."""
    return xwm_loop


@pytest.fixture
def bare_controller(sqlite_store: Store, settings: Settings) -> SessionController:
    """A controller with no provider yet, whose turns retry fast (for the provider settings tests)."""
    return SessionController(sqlite_store, settings, router_factory=fast_router)


@pytest.fixture
def agent_controller(bare_controller: SessionController, openai_server: OpenAIServer) -> SessionController:
    """A controller whose default provider is the scripted OpenAI-compatible test server."""
    bare_controller.providers.add_provider(
        ProviderRecord(name="local", base_url=openai_server.base_url, model="test-model", is_default=True)
    )
    return bare_controller


@pytest.fixture
def agent_window(qtbot: QtBot, loop: asyncio.AbstractEventLoop, agent_controller: SessionController) -> MainWindow:
    return open_window(qtbot, agent_controller)


def pytest_sessionfinish(session: pytest.Session) -> None:
    report = os.environ.get(REPORT_ENV)
    if report:
        write_report(report)
