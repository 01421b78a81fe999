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

from tests.support.fixtures import openai_server, openai_server_factory
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store

__all__ = ["openai_server", "openai_server_factory"]

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


@pytest.fixture
def pg_database_url(pg_admin_url: str) -> Iterator[str]:
    """A fresh PostgreSQL database for one test, dropped afterwards."""
    import psycopg

    name = f"xw_test_{uuid.uuid4().hex[:16]}"
    admin = pg_admin_url.replace("+psycopg", "")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, _ = pg_admin_url.rpartition("/")
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


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    opened = open_store(database_url)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def sqlite_store(settings: Settings) -> Iterator[Store]:
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
