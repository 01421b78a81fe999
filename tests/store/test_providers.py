"""Providers in the store: no secrets, at most one default (SPEC §7)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.store import Store
from xworkmate.store.repositories import ProviderExistsError


def test_provider_round_trips_without_any_secret_column(store: Store) -> None:
    record = ProviderRecord(
        name="local",
        base_url="http://127.0.0.1:11434/v1",
        model="llama3",
        tags=("medical", "legal"),
        api_key_env="LOCAL_KEY",
        is_default=True,
    )
    store.providers.add(record)
    loaded = store.providers.get("local")
    assert loaded is not None
    assert loaded.model_dump() == {**record.model_dump(), "tags": ("legal", "medical")}
    with store.engine.connect() as conn:
        columns = set(conn.execute(text("SELECT * FROM providers")).keys())
    assert not any("secret" in c or c in {"api_key", "password", "token"} for c in columns)


def test_adding_a_provider_twice_is_refused_unless_replacing(store: Store) -> None:
    store.providers.add(ProviderRecord(name="p", base_url="http://h/v1", model="a"))
    with pytest.raises(ProviderExistsError, match="'p'"):
        store.providers.add(ProviderRecord(name="p", base_url="http://h/v1", model="b"))
    store.providers.add(ProviderRecord(name="p", base_url="http://h/v1", model="b"), replace=True)
    stored = store.providers.get("p")
    assert stored is not None and stored.model == "b"


def test_only_one_provider_is_the_default(store: Store) -> None:
    store.providers.add(ProviderRecord(name="a", base_url="http://h/v1", model="m", is_default=True))
    store.providers.add(ProviderRecord(name="b", base_url="http://h/v1", model="m", is_default=True))
    assert [(p.name, p.is_default) for p in store.providers.list()] == [("a", False), ("b", True)]


def test_acp_provider_keeps_its_command_and_env_references(store: Store) -> None:
    record = ProviderRecord(
        name="qwen",
        kind=ProviderKind.ACP,
        acp_command=("qwen", "--acp"),
        acp_env_refs=(("OPENAI_API_KEY", "env:QWEN_KEY"),),
    )
    store.providers.add(record)
    assert store.providers.get("qwen") == record
    assert store.providers.remove("qwen") is True
    assert store.providers.get("qwen") is None
