"""5. Evidence: resolving a task's 12 dispatch sources through the visibility predicate (PROV-3, CAT-4).

Measured at 100,000 and 1,000,000 messages on SQLite and PostgreSQL: the
figure is the median time of ``task_sources`` at 1M (target ≤ 2 ms) and the
growth from 100k to 1M (target: flat, within 2×). The reference is a bare
primary-key read of the same 12 rows in the same database.
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import select, text

from benchmarks.common import Figure, median, temp_home
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.store.tables import MessageRow, ThreadRow

SIZES = (100_000, 1_000_000)
LINES = 200
REPEATS = 300
PG_ADMIN = os.environ.get("XWORKMATE_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@contextmanager
def pg_database() -> Iterator[str]:
    import psycopg

    name = f"xw_bench_{uuid.uuid4().hex[:12]}"
    admin = PG_ADMIN.replace("+psycopg", "")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{PG_ADMIN.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _rows(keys: list[tuple[str, int]], count: int, start_index: int) -> Iterator[tuple[Any, ...]]:
    for n in range(start_index, start_index + count):
        key, session_id = keys[n % len(keys)]
        human = n % 3 == 0
        yield (
            key,
            "user" if human else "assistant",
            "human" if human else "agent",
            f"message {n}: please check the build output and tell me what failed",
            "complete",
            session_id,
        )


def _grow(store: Store, keys: list[tuple[str, int]], count: int, start_index: int) -> None:
    """Append ``count`` messages spread over the lines, fast (COPY on PostgreSQL, executemany on SQLite)."""
    if store.engine.dialect.name == "postgresql":
        raw = store.engine.raw_connection()
        try:
            cursor = raw.cursor()
            with cursor.copy(  # type: ignore[attr-defined]
                "COPY messages (thread_id, role, source, content, state, session_id, created_at, quarantined)"
                " FROM STDIN"
            ) as copy:
                for row in _rows(keys, count, start_index):
                    copy.write_row((*row, "2026-01-01T00:00:00+00", False))
            raw.commit()
        finally:
            raw.close()
        with store.engine.begin() as conn:
            conn.execute(text("ANALYZE messages"))
        return
    insert = (
        "INSERT INTO messages (thread_id, role, source, content, state, session_id, created_at, quarantined)"
        " VALUES (?, ?, ?, ?, ?, ?, '2026-01-01 00:00:00', 0)"
    )
    raw = store.engine.raw_connection()
    try:
        batch: list[tuple[Any, ...]] = []
        cursor = raw.cursor()
        for row in _rows(keys, count, start_index):
            batch.append(row)
            if len(batch) == 50_000:
                cursor.executemany(insert, batch)
                batch.clear()
        if batch:
            cursor.executemany(insert, batch)
        raw.commit()
        cursor.execute("ANALYZE")
    finally:
        raw.close()


def _time_sources(controller: SessionController, task_key: str, ids: list[int], store: Store) -> tuple[float, float]:
    for _ in range(20):
        controller.tasks.task_sources(task_key)
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        got = controller.tasks.task_sources(task_key)
        samples.append((time.perf_counter() - start) * 1000)
    assert len(got) == 12, len(got)
    reference = []
    with store.engine.connect() as conn:
        for _ in range(REPEATS):
            start = time.perf_counter()
            conn.execute(select(MessageRow).where(MessageRow.id.in_(ids))).all()
            reference.append((time.perf_counter() - start) * 1000)
    return median(samples), median(reference)


def measure(settings: Settings, url: str, label: str) -> list[Figure]:
    store = open_store(url)
    controller = SessionController(store, settings)
    lines = [controller.lines.create_line(f"history {n}").thread_id for n in range(LINES)]
    dispatcher = controller.lines.create_line("dispatcher").thread_id
    with store.engine.connect() as conn:
        sessions = dict(conn.execute(select(ThreadRow.thread_id, ThreadRow.current_session_id)).all())
    keys = [(key, sessions[key]) for key in lines]
    results: dict[int, tuple[float, float]] = {}
    grown = 0
    task_key = ""
    ids: list[int] = []
    for size in SIZES:
        _grow(store, keys, size - grown, grown)
        grown = size
        if not task_key:
            for n in range(12):
                store.messages.append(
                    dispatcher, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"human instruction {n}"
                )
            started = controller.tasks.start_task(dispatcher, "check the build")
            task_key, ids = started.key, list(started.source_ids)
        results[size] = _time_sources(controller, task_key, ids, store)
    store.close()
    small, large = results[SIZES[0]], results[SIZES[1]]
    growth = large[0] / small[0]
    return [
        Figure(
            name=f"evidence: 12 sources at 1M messages ({label})",
            value=large[0],
            unit="ms",
            target="<= 2 ms",
            met=large[0] <= 2,
            reference=large[1],
            reference_label="ms bare PK read of 12 rows",
            notes={"at_100k_ms": small[0], "reference_at_100k_ms": small[1]},
        ),
        Figure(
            name=f"evidence: growth 100k → 1M ({label})",
            value=growth,
            unit="x",
            target="<= 2x (flat)",
            met=growth <= 2,
            reference=large[1] / small[1],
            reference_label="x growth of the bare read",
        ),
    ]


def run() -> list[Figure]:
    figures: list[Figure] = []
    with temp_home() as settings:
        figures += measure(settings, settings.effective_database_url, "SQLite")
    with temp_home() as settings, pg_database() as url:
        figures += measure(settings, url, "PostgreSQL")
    return figures


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
