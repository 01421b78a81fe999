"""Rows of issue 15 (migration 0012): what an ACP agent offers a line, the line's usage, MCP servers.

``AgentStateRepository``: one JSON state and one usage row per line (upserted).
``McpServerRepository``: the configured servers and which ones each line gets.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, bindparam, delete, select

from xworkmate.domain.agent_session import AgentSessionState, LineUsage
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.store.sessions import Sessions
from xworkmate.store.tables import LineAgentStateRow, LineMcpServerRow, LineUsageRow, McpServerRow

__all__ = ["AgentStateRepository", "McpServerExistsError", "McpServerRepository"]


def _now() -> datetime:
    return datetime.now(UTC)


_USAGE_COLUMNS = ("context_used", "context_size", "tokens_in", "tokens_out", "cost", "currency")
# Built once: a switch reads it (``repositories/line_panes``) as well as the meter.
USAGE_BY_KEY = select(*(LineUsageRow.__table__.c[name] for name in _USAGE_COLUMNS)).where(
    LineUsageRow.thread_id == bindparam("key")
)


def usage_from_row(row: Row[Any] | Any | None) -> LineUsage:
    """A line's meter from its ``USAGE_BY_KEY`` row; no row yet is a meter at zero."""
    if row is None:
        return LineUsage()
    return LineUsage(**{name: getattr(row, name) for name in _USAGE_COLUMNS})


class AgentStateRepository:
    def __init__(self, store: Sessions) -> None:
        self._store = store

    def state(self, key: str) -> AgentSessionState:
        with self._store.read() as session:
            row = session.get(LineAgentStateRow, key)
            return AgentSessionState.model_validate_json(row.state) if row is not None else AgentSessionState()

    def set_state(self, key: str, state: AgentSessionState) -> AgentSessionState:
        text = state.model_dump_json()
        with self._store.session() as session:
            row = session.get(LineAgentStateRow, key)
            if row is None:
                session.add(LineAgentStateRow(thread_id=key, state=text, updated_at=_now()))
            else:
                row.state, row.updated_at = text, _now()
        return state

    def usage(self, key: str) -> LineUsage:
        with self._store.connect() as connection:
            return usage_from_row(connection.execute(USAGE_BY_KEY, {"key": key}).first())

    def set_usage(self, key: str, usage: LineUsage) -> LineUsage:
        values = usage.model_dump()
        with self._store.session() as session:
            row = session.get(LineUsageRow, key)
            if row is None:
                session.add(LineUsageRow(thread_id=key, updated_at=_now(), **values))
            else:
                for column, value in values.items():
                    setattr(row, column, value)
                row.updated_at = _now()
        return usage


class McpServerExistsError(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"an MCP server named {name!r} already exists (use --replace)")


def _server(row: McpServerRow) -> McpServerRecord:
    return McpServerRecord(
        name=row.name,
        transport=row.transport if row.transport in ("http", "sse") else "stdio",
        command=tuple(json.loads(row.command or "[]")),
        url=row.url,
        env_refs=tuple(tuple(pair) for pair in json.loads(row.env_refs or "[]")),
        header_refs=tuple(tuple(pair) for pair in json.loads(row.header_refs or "[]")),
        tags=tuple(json.loads(row.tags or "[]")),
    )


class McpServerRepository:
    def __init__(self, store: Sessions) -> None:
        self._store = store

    def all(self) -> list[McpServerRecord]:
        with self._store.read() as session:
            return [_server(r) for r in session.scalars(select(McpServerRow).order_by(McpServerRow.name))]

    def get(self, name: str) -> McpServerRecord | None:
        with self._store.read() as session:
            row = session.get(McpServerRow, name)
            return _server(row) if row is not None else None

    def add(self, record: McpServerRecord, *, replace: bool = False) -> McpServerRecord:
        values = {
            "transport": record.transport,
            "command": json.dumps(list(record.command)),
            "url": record.url,
            "env_refs": json.dumps([list(p) for p in record.env_refs]),
            "header_refs": json.dumps([list(p) for p in record.header_refs]),
            "tags": json.dumps(list(record.tags)),
        }
        with self._store.session() as session:
            row = session.get(McpServerRow, record.name)
            if row is not None and not replace:
                raise McpServerExistsError(record.name)
            if row is None:
                session.add(McpServerRow(name=record.name, created_at=_now(), **values))
            else:
                for column, value in values.items():
                    setattr(row, column, value)
        return record

    def remove(self, name: str) -> bool:
        with self._store.session() as session:
            session.execute(delete(LineMcpServerRow).where(LineMcpServerRow.server_name == name))
            result = session.execute(delete(McpServerRow).where(McpServerRow.name == name))
            return bool(result.rowcount)  # type: ignore[attr-defined]

    def for_line(self, key: str) -> list[McpServerRecord]:
        """The servers the line gets, in the order the person gave them."""
        with self._store.read() as session:
            rows = session.execute(
                select(McpServerRow)
                .join(LineMcpServerRow, LineMcpServerRow.server_name == McpServerRow.name)
                .where(LineMcpServerRow.thread_id == key)
                .order_by(LineMcpServerRow.position)
            ).scalars()
            return [_server(r) for r in rows]

    def set_for_line(self, key: str, names: Sequence[str]) -> None:
        with self._store.session() as session:
            session.execute(delete(LineMcpServerRow).where(LineMcpServerRow.thread_id == key))
            session.flush()
            for position, name in enumerate(dict.fromkeys(names)):
                session.add(LineMcpServerRow(thread_id=key, server_name=name, position=position))
