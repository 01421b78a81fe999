"""The ``xworkmate`` pytest plugin: fixtures for testers who drive XWorkmate (issue 21, docs/testing.md).

pytest loads it through the ``pytest11`` entry point wherever xworkmate is installed, so at import
time it needs pytest alone: no Qt, no pytest-qt, nothing of ours. Everything else is imported
inside the fixture that needs it, and the Qt fixtures (``xwm_loop``, ``xwm_window``) fail with one
clear line when PySide6 or pytest-qt is missing (e.g. under ``-p no:pytest-qt``).

Fixtures: ``xwm_database_url``, ``xwm_home``, ``xwm_llm``, ``xwm_acp_agent``, ``xwm_loop``, ``xwm_window``;
the session's migrated store templates ``xwm_store_template`` and ``xwm_pg_template``.
Option: ``--xwm-database-url URL`` (or ``XWORKMATE_TEST_DATABASE_URL``): a PostgreSQL *server* URL;
each test gets its own fresh database on it, dropped afterwards (SPEC §7).
"""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import asyncio

    from xworkmate.controllers import SessionController
    from xworkmate.settings import Settings
    from xworkmate.testing.acp_provider import ScriptedAcpAgent
    from xworkmate.testing.llm import ScriptedLLM
    from xworkmate.testing.templates import PostgresTemplate

DATABASE_URL_ENV = "XWORKMATE_TEST_DATABASE_URL"
LLM_PROVIDER = "xwm-llm"
QT_MISSING = (
    "{fixture} needs the XWorkmate window and pytest-qt: install 'xworkmate[gui,testing]' "
    "and do not disable pytest-qt (-p no:pytest-qt)"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("xworkmate")
    group.addoption(
        "--xwm-database-url",
        default=None,
        metavar="URL",
        help=f"run xwm_home on PostgreSQL: a server URL such as postgresql+psycopg://postgres@127.0.0.1:5432/postgres;"
        f" each test gets a fresh database there, dropped after it (default: ${DATABASE_URL_ENV}, else SQLite)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # Before pytest-qt reads its binding and before any QApplication exists: one binding (STYLE 2), and
    # windows that never reach the screen. A value the tester set wins.
    os.environ.setdefault("QT_API", "pyside6")
    os.environ.setdefault("PYTEST_QT_API", "pyside6")
    from xworkmate.testing.screen import use_desktop_offscreen  # loaded when pytest starts, not on import

    use_desktop_offscreen()  # a desktop-sized screen: windows fit the screen they open on (issue 30)


def _server_url(config: pytest.Config) -> str | None:
    url = config.getoption("--xwm-database-url") or os.environ.get(DATABASE_URL_ENV)
    return url.strip() or None if url else None


@pytest.fixture(scope="session")
def xwm_store_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite store migrated once per session; each test's home starts from a copy (issue 33 item 5)."""
    from xworkmate.testing.templates import migrated_sqlite

    return migrated_sqlite(tmp_path_factory.mktemp("xwm-store-template") / "template.sqlite3")


@pytest.fixture(scope="session")
def xwm_pg_template(request: pytest.FixtureRequest) -> Iterator[PostgresTemplate | None]:
    """On ``--xwm-database-url``: a template database migrated once per session (a name of its own, so
    sessions side by side do not share it), dropped when the session ends; else ``None``."""
    server = _server_url(request.config)
    if server is None or not server.startswith("postgresql"):
        yield None
        return
    from xworkmate.testing.templates import PostgresTemplate

    template = PostgresTemplate(server)
    try:
        yield template
    finally:
        template.drop()


@pytest.fixture
def xwm_database_url(request: pytest.FixtureRequest, xwm_pg_template: PostgresTemplate | None) -> Iterator[str | None]:
    """``None`` (SQLite in the home) or the URL of a fresh PostgreSQL database made for this test (a copy
    of the session's migrated template)."""
    server = _server_url(request.config)
    if server is None:
        yield None
        return
    if xwm_pg_template is None:
        pytest.fail(f"--xwm-database-url must be a PostgreSQL server URL, not {server.split(':', 1)[0]}:…", False)
    import psycopg

    admin = server.replace("+psycopg", "", 1)
    name = f"xwm_test_{uuid.uuid4().hex[:16]}"
    try:
        url = xwm_pg_template.create(name)
    except psycopg.OperationalError as exc:
        pytest.fail(f"cannot create a test database on the PostgreSQL server — {exc}".splitlines()[0], False)
    try:
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class XwmHome:
    """One test's private XWorkmate data folder (``XWORKMATE_HOME``) and its database."""

    path: Path
    database_url: str | None
    _controller: SessionController | None = field(default=None, repr=False)

    @property
    def settings(self) -> Settings:
        from xworkmate.settings import Settings

        return Settings(home=self.path, database_url=self.database_url, workspace_root=None)

    @property
    def controller(self) -> SessionController:
        """The controller the window (and the other fixtures) use, opened on first use."""
        if self._controller is None:
            from xworkmate.controllers import SessionController
            from xworkmate.store import open_store
            from xworkmate.testing.routing import fast_router

            settings = self.settings
            self._controller = SessionController(
                open_store(settings.effective_database_url), settings, router_factory=fast_router
            )
        return self._controller

    def close(self) -> None:
        if self._controller is not None:
            self._controller.close()
            self._controller = None


@pytest.fixture
def xwm_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, xwm_database_url: str | None, xwm_store_template: Path
) -> Iterator[XwmHome]:
    """A private home; ``XWORKMATE_HOME`` (and the database URL) are set, so a ``xworkmate`` CLI the
    test starts sees the same data. Its store is already migrated (a copy of the session's template)."""
    path = tmp_path / "xwm-home"
    path.mkdir()
    monkeypatch.setenv("XWORKMATE_HOME", str(path))
    if xwm_database_url is None:
        monkeypatch.delenv("XWORKMATE_DATABASE_URL", raising=False)
    else:
        monkeypatch.setenv("XWORKMATE_DATABASE_URL", xwm_database_url)
    monkeypatch.delenv("XWORKMATE_WORKSPACE_ROOT", raising=False)
    home = XwmHome(path, xwm_database_url)
    if xwm_database_url is None:
        from xworkmate.testing.templates import copy_sqlite

        copy_sqlite(xwm_store_template, home.settings.sqlite_path)
    try:
        yield home
    finally:
        home.close()


@pytest.fixture
def xwm_llm(xwm_home: XwmHome) -> Iterator[ScriptedLLM]:
    """A real OpenAI-compatible server on 127.0.0.1, the home's default provider (model ``test-model``)."""
    from xworkmate.domain.providers import ProviderRecord
    from xworkmate.testing.llm import DEFAULT_MODEL, ScriptedLLM

    with ScriptedLLM() as server:
        xwm_home.controller.providers.add_provider(
            ProviderRecord(name=LLM_PROVIDER, base_url=server.base_url, model=DEFAULT_MODEL, is_default=True)
        )
        yield server


@pytest.fixture
def xwm_acp_agent(xwm_home: XwmHome, tmp_path: Path) -> ScriptedAcpAgent:
    """The scripted ACP agent process, registered on the home as the agent provider ``scripted-agent``."""
    from xworkmate.testing.acp_provider import ScriptedAcpAgent

    return ScriptedAcpAgent(xwm_home.controller, tmp_path)


def _require_qt(request: pytest.FixtureRequest, fixture: str) -> None:
    has_qt = importlib.util.find_spec("PySide6") is not None and importlib.util.find_spec("qasync") is not None
    if not has_qt or not request.config.pluginmanager.hasplugin("pytest-qt"):
        pytest.fail(QT_MISSING.format(fixture=fixture), pytrace=False)


@pytest.fixture
def xwm_gui_thread_gc() -> Iterator[None]:
    """Python's cycle collector runs only on the test's own (GUI) thread, between tests.

    As in the app (``xworkmate.ui.collector``): the automatic collector would run in whichever worker
    thread allocates (git, a search, a sandboxed command) and could free a closed window there; Qt
    cannot stop its timers from that thread, and a later timer event crashes the process.

    One full collection per test, at its end (issue 33 item 5): garbage left from before the test waits,
    with the collector off, for that same collection on this thread, so a second one at the start (about
    30 ms over the window's heap) bought nothing.
    """
    import gc

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.collect()
        if was_enabled:
            gc.enable()


@pytest.fixture
def xwm_loop(request: pytest.FixtureRequest, xwm_gui_thread_gc: None) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync loop on pytest-qt's ``qapp``, current for the test; turns left running are cancelled."""
    _require_qt(request, "xwm_loop")
    import asyncio

    qapp = request.getfixturevalue("qapp")
    from xworkmate.testing.qt_loop import TestEventLoop  # after PySide6 (pytest-qt imported it): qasync binds to it

    event_loop = TestEventLoop(qapp)
    asyncio.set_event_loop(event_loop)
    try:
        yield event_loop
    finally:
        pending = [task for task in asyncio.all_tasks(event_loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            event_loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        event_loop.run_until_complete(event_loop.shutdown_asyncgens())
        event_loop.close()
        asyncio.set_event_loop(None)


@pytest.fixture
def xwm_window(request: pytest.FixtureRequest, xwm_home: XwmHome) -> Iterator[Any]:
    """The real ``MainWindow`` on ``xwm_home``, shown offscreen and bound to ``qtbot``; ``.driver`` drives it.

    Request ``xwm_llm`` / ``xwm_acp_agent`` before (or beside) it so the window starts with them.
    """
    _require_qt(request, "xwm_window")
    loop = request.getfixturevalue("xwm_loop")
    qtbot = request.getfixturevalue("qtbot")
    from xworkmate.preferences import LANGUAGE_ENV, Language
    from xworkmate.testing.driver import WindowDriver
    from xworkmate.ui import build_main_window
    from xworkmate.ui.i18n import install_chosen_translations, remove_translations

    # Issue 20: the window speaks English unless the test sets XWORKMATE_LANGUAGE (e.g. zh_CN), whatever
    # the machine's locale; the catalogues are installed as a real start installs them.
    monkeypatch = request.getfixturevalue("monkeypatch")
    if not os.environ.get(LANGUAGE_ENV, "").strip():
        monkeypatch.setenv(LANGUAGE_ENV, Language.ENGLISH.value)
    qapp = request.getfixturevalue("qapp")
    install_chosen_translations(qapp, xwm_home.path)
    window = build_main_window(xwm_home.controller)
    window.persist_ui_state = False  # a test's window size is nobody's layout
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    # The testers' handle on the fixture's window (docs/testing.md): set on this window only.
    window.driver = WindowDriver(window, qtbot, loop)  # type: ignore[attr-defined]
    try:
        yield window
    finally:
        window.close()
        remove_translations(qapp)
