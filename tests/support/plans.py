"""The plans of the statements a store read runs, for tests that pin a plan's shape, not its time
(issue 34 item 2: a page of a line or a search must stop early, whatever the database's size).

``captured(store)`` records every statement run on the store's engines while the block runs;
``pg_plan`` runs one of them again under ``EXPLAIN (ANALYZE, FORMAT JSON)`` and returns the plan's
nodes; ``sqlite_plan`` returns SQLite's ``EXPLAIN QUERY PLAN`` lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event

from xworkmate.store import Store


@dataclass(frozen=True)
class Ran:
    statement: str
    parameters: Any


@contextmanager
def captured(store: Store) -> Iterator[list[Ran]]:
    ran: list[Ran] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        ran.append(Ran(statement, parameters))

    engines = set(store.engines)
    for engine in engines:
        event.listen(engine, "before_cursor_execute", record)
    try:
        yield ran
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", record)


def pg_plan(store: Store, ran: Ran, *, index_scans_only: bool = False) -> list[dict[str, Any]]:
    """Every node of ``ran``'s plan as PostgreSQL executed it (``EXPLAIN ANALYZE``), outermost first.

    ``index_scans_only``: with sequential scans turned off for it, as a table of a test's size is read
    whole in one go where one of a user's size never is; what is pinned is then the shape the indexes
    allow (a walk that stops), not the planner's choice for a few thousand rows.

    Planned on a connection of the readers' pool, with what its connections are told when they are made
    (``store.database.PG_READ_RANDOM_PAGE_COST``), inside a transaction rolled back after."""
    raw = store.engines[1].raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute("BEGIN")
        try:
            if index_scans_only:
                cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + ran.statement, ran.parameters)
            [[document]] = cursor.fetchall()
        finally:
            cursor.execute("ROLLBACK")
    finally:
        raw.close()
    nodes: list[dict[str, Any]] = []

    def walk(node: dict[str, Any]) -> None:
        nodes.append(node)
        for child in node.get("Plans", ()):
            walk(child)

    walk(document[0]["Plan"])
    return nodes


def rows_read(nodes: list[dict[str, Any]]) -> int:
    """The rows the plan's scans produced or threw away (``Rows Removed by Filter``), all loops."""
    total = 0
    for node in nodes:
        if "Scan" in node["Node Type"]:
            loops = node.get("Actual Loops", 1)
            total += (node.get("Actual Rows", 0) + node.get("Rows Removed by Filter", 0)) * loops
    return int(total)


def sqlite_plan(store: Store, ran: Ran) -> list[str]:
    raw = store.engine.raw_connection()
    try:
        rows = raw.cursor().execute("EXPLAIN QUERY PLAN " + ran.statement, ran.parameters).fetchall()
    finally:
        raw.close()
    return [str(row[3]) for row in rows]
