"""Migration 0016 (SBX-4): the boolean network setting becomes off/allow-list/on, rows kept."""

from __future__ import annotations

from sqlalchemy import text

from xworkmate.domain.threads import NetworkAccess
from xworkmate.store import open_store
from xworkmate.store.database import create_store_engine


def test_upgrading_turns_network_on_into_on_and_off_into_off(database_url: str) -> None:
    from alembic import command

    from xworkmate.store.database import _alembic_config

    engine = create_store_engine(database_url)
    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "0014")
        for key, network in (("on-line", True), ("off-line", False)):
            conn.execute(
                text(
                    "INSERT INTO threads (thread_id, title, network_access, created_at, updated_at)"
                    " VALUES (:key, :key, :network, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ),
                {"key": key, "network": network},
            )
    engine.dispose()
    store = open_store(database_url)
    try:
        on, off = store.threads.get("on-line"), store.threads.get("off-line")
        assert on is not None and on.context_state.network is NetworkAccess.ON
        assert off is not None and off.context_state.network is NetworkAccess.OFF
        assert on.context_state.allowed_hosts == () == off.context_state.allowed_hosts
        allowed = store.threads.set_sandbox(
            "off-line", network=NetworkAccess.ALLOW_LIST, allowed_hosts=("api.example.com:443",)
        )
        assert allowed.context_state.network is NetworkAccess.ALLOW_LIST
        assert store.threads.get("off-line") == allowed
    finally:
        store.close()
