"""Opening databases: Alembic owns the schema; bad databases fail clearly, never overwritten (SPEC §7)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from tests.support.crafted_database import make_threads_an_endless_view
from xworkmate.domain.viewers import DESKTOP
from xworkmate.settings import Settings
from xworkmate.store import Store, StoreOpenError, open_store
from xworkmate.store.database import PG_CONNECT_TIMEOUT_S, create_store_engine, head_revision


def test_opening_a_new_database_migrates_it_to_head(database_url: str) -> None:
    store = open_store(database_url)
    try:
        names = set(inspect(store.engine).get_table_names())
        assert {"threads", "messages", "app_state", "alembic_version"} <= names
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head_revision()
    finally:
        store.close()


def test_reopening_a_migrated_database_keeps_its_rows(database_url: str) -> None:
    first = open_store(database_url)
    first.app_state.set("probe", "kept")
    first.close()
    second = open_store(database_url)
    try:
        assert second.app_state.get("probe") == "kept"
    finally:
        second.close()


def test_saving_a_named_value_again_replaces_it(database_url: str) -> None:
    """The current line is saved on every switch: one upsert replaces the value, on either database."""
    store = open_store(database_url)
    try:
        store.app_state.set("current_key", "main")
        store.app_state.set("current_key", "draft:01J0000000000000000000000A")
        assert store.app_state.get("current_key") == "draft:01J0000000000000000000000A"
        assert store.app_state.get("never_set") is None
    finally:
        store.close()


def test_sqlite_runs_in_wal_mode_with_foreign_keys_on(settings: Settings) -> None:
    store = open_store(settings.effective_database_url)
    try:
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        store.close()


def test_corrupt_sqlite_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    db = tmp_path / "xworkmate.sqlite3"
    garbage = b"this is not a database, but somebody's data\n" * 100
    db.write_bytes(garbage)
    with pytest.raises(StoreOpenError, match="not a database") as info:
        open_store(f"sqlite:///{db}")
    assert "\n" not in str(info.value)
    assert db.read_bytes() == garbage


def test_a_table_replaced_by_an_endless_view_is_refused_in_one_line(tmp_path: Path) -> None:
    """Issue 29: a crafted file whose ``threads`` is an endless recursive view would keep the store's first read
    (and a core) busy for ever; it is not an XWorkmate database, said before anything reads it."""
    db = tmp_path / "xworkmate.sqlite3"
    open_store(f"sqlite:///{db}").close()
    make_threads_an_endless_view(db)
    with pytest.raises(StoreOpenError, match="its 'threads' is not a table") as info:
        open_store(f"sqlite:///{db}")
    assert "\n" not in str(info.value) and str(db) in str(info.value)


def test_unreachable_database_gives_one_clear_line() -> None:
    with pytest.raises(StoreOpenError) as info:
        open_store("postgresql://nobody:secret@127.0.0.1:1/none")
    message = str(info.value)
    assert "\n" not in message
    assert "127.0.0.1:1" in message
    assert "secret" not in message  # never leak a password into an error line


def test_a_postgresql_urls_own_connect_timeout_replaces_the_default() -> None:
    """A server that accepts and never answers: the connect gives up after the URL's 1 s, not the default 5 s."""
    silent = socket.create_server(("127.0.0.1", 0))  # the kernel accepts; nobody ever answers
    port = silent.getsockname()[1]
    try:
        started = time.monotonic()
        with pytest.raises(StoreOpenError, match="cannot open"):
            open_store(f"postgresql+psycopg://postgres@127.0.0.1:{port}/none?connect_timeout=1&sslmode=disable")
        took = time.monotonic() - started
    finally:
        silent.close()
    assert took < PG_CONNECT_TIMEOUT_S * 0.8, f"the connect waited {took:.1f} s: the default timeout"


def test_malformed_database_url_names_the_setting() -> None:
    with pytest.raises(StoreOpenError, match="XWORKMATE_DATABASE_URL"):
        open_store("not a url at all")


def test_database_from_a_newer_version_is_refused_untouched(database_url: str) -> None:
    store = open_store(database_url)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'f00dfeed9999'"))
    store.close()
    with pytest.raises(StoreOpenError, match="does not know"):
        open_store(database_url)
    raw = create_store_engine(database_url)
    try:
        with raw.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "f00dfeed9999"
    finally:
        raw.dispose()


def test_xworkmate_home_moves_the_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XWORKMATE_HOME", str(tmp_path / "elsewhere"))
    monkeypatch.delenv("XWORKMATE_DATABASE_URL", raising=False)
    monkeypatch.delenv("XWORKMATE_WORKSPACE_ROOT", raising=False)
    settings = Settings()
    assert settings.sqlite_path == tmp_path / "elsewhere" / "xworkmate.sqlite3"
    assert settings.threads_root == tmp_path / "elsewhere" / "workspace" / ".xworkmate" / "threads"
    store = open_store(settings.effective_database_url)
    store.close()
    assert settings.sqlite_path.is_file()


def test_database_url_setting_selects_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "chosen.db"
    monkeypatch.setenv("XWORKMATE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XWORKMATE_DATABASE_URL", f"sqlite:///{target}")
    settings = Settings()
    assert settings.effective_database_url == f"sqlite:///{target}"
    open_store(settings.effective_database_url).close()
    assert target.is_file()
    assert not settings.sqlite_path.exists()


def test_upgrading_an_older_schema_keeps_its_rows(database_url: str) -> None:
    """Alembic upgrades in place: a database left at revision 0001 keeps its lines and messages."""
    from alembic import command

    from xworkmate.store.database import _alembic_config

    engine = create_store_engine(database_url)
    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "0001")
        conn.execute(
            text(
                "INSERT INTO threads (thread_id, title, created_at, updated_at)"
                " VALUES ('main', 'Old main', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO messages (thread_id, role, source, content, created_at)"
                " VALUES ('main', 'user', 'human', 'from before', CURRENT_TIMESTAMP)"
            )
        )
    engine.dispose()
    store = open_store(database_url)
    try:
        main = store.threads.get("main")
        assert main is not None and main.title == "Old main"
        [message] = store.messages.list_for_thread("main", viewer=DESKTOP)
        assert message.content == "from before" and message.payload is None
    finally:
        store.close()


def test_head_read_from_the_scripts_matches_alembics_own() -> None:
    """Start-up reads the head without importing Alembic; it must agree with Alembic."""
    from alembic.script import ScriptDirectory

    from xworkmate.store.database import _alembic_config

    assert head_revision() == ScriptDirectory.from_config(_alembic_config()).get_current_head()


def test_missing_migrations_stop_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken installation without migration scripts says so instead of failing later on 'no such table'."""
    from xworkmate.store import database, revisions

    empty = tmp_path / "migrations"
    (empty / "versions").mkdir(parents=True)
    monkeypatch.setattr(database, "MIGRATIONS_DIR", empty)
    monkeypatch.setattr(revisions, "MIGRATIONS_DIR", empty)
    revisions.revisions.cache_clear()
    try:
        with pytest.raises(StoreOpenError, match="no schema migrations"):
            open_store(f"sqlite:///{tmp_path / 'x.db'}")
    finally:
        revisions.revisions.cache_clear()


def test_several_named_values_are_saved_in_one_statement_and_read_back_by_prefix(store: Store) -> None:
    """Issue 19: a closing window saves what it remembers in one write; a new one reads it in one read."""
    store.app_state.set("ui.a", "old")
    store.app_state.set("uix", "not under the prefix")
    store.app_state.set_many({"ui.a": "1", "ui.b": "2", "ui.c_%": "3"})
    store.app_state.set_many({})
    assert store.app_state.with_prefix("ui.") == {"ui.a": "1", "ui.b": "2", "ui.c_%": "3"}
    assert store.app_state.with_prefix("ui.c_") == {"ui.c_%": "3"}  # a prefix is literal, not a LIKE pattern
    assert store.app_state.get("uix") == "not under the prefix"
