"""Shared fixtures: real SQLite files in tmp dirs, real PostgreSQL databases, real controllers."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from xworkmate.testing.screen import desktop_offscreen

# Issue 30: windows fit their screen, and the offscreen one is 800x800: a desktop-sized one instead.
os.environ["QT_QPA_PLATFORM"] = desktop_offscreen(os.environ.get("QT_QPA_PLATFORM"))
os.environ.setdefault("QT_API", "pyside6")
# pytest-qt's binding (STYLE 2), set here rather than as an ini key so that pytest configures under
# --strict-config without pytest-qt (the Qt-free core job in .ci/run runs with -p no:pytest-qt).
os.environ.setdefault("PYTEST_QT_API", "pyside6")

from tests.support import halves
from tests.support.fixtures import openai_server, openai_server_factory, xw
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.testing import templates

__all__ = ["openai_server", "openai_server_factory", "xw"]

ROOT = Path(__file__).resolve().parent.parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Issue 33 item 5: the tests that need Qt are marked ``qt`` (tests/support/halves.py): ``make test``
    runs them in .venv and every other test in the Qt-free .venv-core, each test once."""
    for item in items:
        if halves.is_qt_path(item.path.relative_to(ROOT).as_posix()):
            item.add_marker(pytest.mark.qt)
    dump = os.environ.get(halves.DUMP_ENV)
    if dump:  # the halves check: every collected test with the half it belongs to
        rows = (f"{item.nodeid}\t{'qt' if item.get_closest_marker('qt') else 'core'}" for item in items)
        Path(dump).write_text("".join(row + "\n" for row in rows))


PG_ADMIN_URL = os.environ.get("XWORKMATE_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture(autouse=True)
def acp_traffic_checked(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Issue 32, item 7: every ACP message XWorkmate sends in a test matches the official v1 schema.

    The trace is appended by the app itself (``XWORKMATE_ACP_TRACE``), in this process and in the CLI
    processes a test starts; what the agents send is checked too, and reported only (agents are not ours).
    """
    trace = tmp_path_factory.getbasetemp() / "acp-traffic" / f"{uuid.uuid4().hex}.jsonl"
    trace.parent.mkdir(exist_ok=True)
    monkeypatch.setenv("XWORKMATE_ACP_TRACE", str(trace))
    yield
    if not trace.exists():
        return
    from tests.support.acp_traffic import problems

    found = problems(trace)
    trace.unlink()
    if found["in"]:
        print(f"ACP messages from the agent outside the schema ({len(found['in'])}):", *found["in"][:5], sep="\n  ")
    if found["out"]:
        pytest.fail("XWorkmate sent ACP messages outside the official schema:\n  " + "\n  ".join(found["out"][:10]))


def _pg_available() -> bool:
    import psycopg

    try:
        with psycopg.connect(PG_ADMIN_URL.replace("+psycopg", ""), connect_timeout=3):
            return True
    except psycopg.OperationalError:
        return False


@pytest.fixture(scope="session")
def pg_admin_url() -> str:
    if not _pg_available():
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is not reachable at {PG_ADMIN_URL}; CI must run the store tests on it")
        pytest.skip(f"PostgreSQL is not reachable at {PG_ADMIN_URL}")
    return PG_ADMIN_URL


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Issue 33 item 5: one SQLite store migrated per session; each test's store is a copy of it."""
    return templates.migrated_sqlite(tmp_path_factory.mktemp("store-template") / "template.sqlite3")


@pytest.fixture(scope="session")
def pg_template(pg_admin_url: str) -> Iterator[templates.PostgresTemplate]:
    """Issue 33 item 5: one PostgreSQL template database migrated per session (a unique name, so sessions
    running side by side do not share it), dropped when the session ends."""
    template = templates.PostgresTemplate(pg_admin_url)
    try:
        yield template
    finally:
        template.drop()


def _wants_a_store(request: pytest.FixtureRequest) -> bool:
    """The test opens its database through the ``store`` fixture, which would migrate it first anyway."""
    return "store" in request.fixturenames


@pytest.fixture
def pg_database_url(request: pytest.FixtureRequest, pg_admin_url: str) -> Iterator[str]:
    """A fresh PostgreSQL database for one test, dropped afterwards: empty, or a copy of the migrated
    template when the test's ``store`` fixture would migrate it anyway."""
    import psycopg

    name = f"xw_test_{uuid.uuid4().hex[:16]}"
    admin = pg_admin_url.replace("+psycopg", "")
    base, _, _ = pg_admin_url.rpartition("/")
    if _wants_a_store(request):
        request.getfixturevalue("pg_template").create(name)
    else:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def settings(home: Path) -> Settings:
    return Settings(home=home, database_url=None, workspace_root=None)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, settings: Settings) -> str:
    """Each store test runs on a SQLite file and on its own PostgreSQL database."""
    if request.param == "sqlite":
        return settings.effective_database_url
    return str(request.getfixturevalue("pg_database_url"))


def _from_sqlite_template(request: pytest.FixtureRequest, database_url: str) -> None:
    path = templates.sqlite_path_of(database_url)
    if path is not None:
        templates.copy_sqlite(request.getfixturevalue("sqlite_template"), path)


@pytest.fixture
def store(request: pytest.FixtureRequest, database_url: str) -> Iterator[Store]:
    _from_sqlite_template(request, database_url)
    opened = open_store(database_url)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def sqlite_store(request: pytest.FixtureRequest, settings: Settings) -> Iterator[Store]:
    _from_sqlite_template(request, settings.effective_database_url)
    opened = open_store(settings.effective_database_url)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def controller(store: Store, settings: Settings) -> SessionController:
    return SessionController(store, settings)


@pytest.fixture
def sqlite_controller(sqlite_store: Store, settings: Settings) -> SessionController:
    return SessionController(sqlite_store, settings)
