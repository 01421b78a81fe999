"""``ProviderRepository``: the configured model providers."""

from __future__ import annotations

import json

from sqlalchemy import (
    delete,
    select,
    update,
)

from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.store.repositories.records import utcnow
from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import (
    ProviderRow,
)


class ProviderExistsError(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"a provider named {name!r} already exists")
        self.name = name


def _provider_from_row(row: ProviderRow) -> ProviderRecord:
    # Not re-validated: a row stored before a rule existed must still list (and can be fixed or removed).
    return ProviderRecord.model_construct(
        name=row.name,
        kind=ProviderKind(row.kind),
        base_url=row.base_url,
        model=row.model,
        tags=tuple(json.loads(row.tags or "[]")),
        api_key_env=row.api_key_env,
        api_key_keyring=row.api_key_keyring,
        is_default=row.is_default,
        acp_command=tuple(json.loads(row.acp_command or "[]")),
        acp_env_refs=tuple(tuple(pair) for pair in json.loads(row.acp_env_refs or "[]")),
        acp_state_dirs=None if row.acp_state_dirs is None else tuple(json.loads(row.acp_state_dirs)),
        acp_auth_method=row.acp_auth_method,
        acp_allow_hosts=tuple(json.loads(row.acp_allow_hosts or "[]")),
        vision=bool(row.vision),
    )


class ProviderRepository:
    """Providers in the order they were added. At most one is the default."""

    def __init__(self, store: Sessions) -> None:
        self._store = store

    def key_sources(self) -> list[tuple[str, str | None, bool]]:
        """Each provider's name, its key's environment variable and whether its key is in the keyring: what the
        redactor's reading of the keys needs (SEC-1), in one Core read (every search asks, issue 34 item 2)."""
        with self._store.connect() as connection:
            rows = connection.execute(
                select(ProviderRow.name, ProviderRow.api_key_env, ProviderRow.api_key_keyring).order_by(
                    ProviderRow.created_at, ProviderRow.name
                )
            )
            return [(name, env, bool(keyring)) for name, env, keyring in rows]

    def list(self) -> list[ProviderRecord]:
        with self._store.read() as session:
            rows = session.scalars(select(ProviderRow).order_by(ProviderRow.created_at, ProviderRow.name))
            return [_provider_from_row(row) for row in rows]

    def get(self, name: str) -> ProviderRecord | None:
        with self._store.read() as session:
            row = session.get(ProviderRow, name)
            return _provider_from_row(row) if row is not None else None

    def add(self, record: ProviderRecord, *, replace: bool = False) -> ProviderRecord:
        with self._store.session() as session:
            existing = session.get(ProviderRow, record.name)
            if existing is not None and not replace:
                raise ProviderExistsError(record.name)
            if record.is_default:
                session.execute(update(ProviderRow).values(is_default=False))
            values = {
                "kind": record.kind.value,
                "base_url": record.base_url,
                "model": record.model,
                "tags": json.dumps(sorted(record.tags)),
                "api_key_env": record.api_key_env,
                "api_key_keyring": record.api_key_keyring,
                "is_default": record.is_default,
                "acp_command": json.dumps(list(record.acp_command)),
                "acp_env_refs": json.dumps([list(pair) for pair in record.acp_env_refs]),
                "acp_state_dirs": None if record.acp_state_dirs is None else json.dumps(list(record.acp_state_dirs)),
                "acp_auth_method": record.acp_auth_method,
                "acp_allow_hosts": json.dumps(list(record.acp_allow_hosts)),
                "vision": record.vision,
            }
            if existing is None:
                session.add(ProviderRow(name=record.name, created_at=utcnow(), **values))
            else:
                for column, value in values.items():
                    setattr(existing, column, value)
        stored = self.get(record.name)
        assert stored is not None
        return stored

    def remove(self, name: str) -> bool:
        with self._store.session() as session:
            result = session.execute(delete(ProviderRow).where(ProviderRow.name == name))
            return bool(result.rowcount)  # type: ignore[attr-defined]
