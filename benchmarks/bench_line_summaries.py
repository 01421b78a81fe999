"""The store's read of every line for the task list at 20,000 lines (issue 34 item 2: start-up with 20,000 lines
keeps its ratios), beside the plain SQLAlchemy Core read of the same rows in the same run.

``ThreadRepository.summaries`` is on the start's critical path (the window's first read, on the store worker).
Three reads of the same 20,000 rows (tasks under lines, categories, archived lines), repeated and interleaved:
the plain Core fetch of the columns (the reference: no summary built), the read as it is, and the read as it
was before issue 34 item 2 (an ORM session, a validated ``ThreadSummary`` a row; kept here as the "before").
Also the window's first read of its lines (``first_summaries``: both ends of the list, a line in the middle and
the lines above it), beside the read of every line.
Figures: CPU time (``time.process_time``, the machine is shared) as a ratio to the Core fetch, with the cycle collector
off as in the window (and, in the notes, on), on SQLite, and on
PostgreSQL when ``XW_BENCH_PG_URL`` names a server database to create a scratch database in. Also
``presentation.tree.tree_order`` over the same lines (it orders the list the window shows).
"""

from __future__ import annotations

import gc
import os
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import create_engine, insert, select, text

from benchmarks.common import Figure, median
from xworkmate.presentation.tree import tree_order
from xworkmate.store import Store, open_store
from xworkmate.store.repositories.operations import _summary_from
from xworkmate.store.repositories.records import _SUMMARY_COLUMNS
from xworkmate.store.tables import ThreadRow

LINES = int(os.environ.get("XW_BENCH_SUMMARY_LINES", "20000"))
REPEATS = 7
TARGET_RATIO = 2.0
"""The read may cost up to twice the bare Core fetch of its rows: it builds a summary a row."""
_STATEMENT = select(*_SUMMARY_COLUMNS).order_by(ThreadRow.created_at, ThreadRow.thread_id)


def _seed(store: Store) -> None:
    start = datetime.now(UTC)
    rows = [
        {
            "thread_id": f"bench-{n:06d}",
            "title": f"Line {n}",
            "kind": "task" if n % 3 else "conversation",
            "parent_key": f"bench-{n - n % 3:06d}" if n % 3 else None,  # two tasks under each line
            "category": "medical" if n // 3 % 5 == 0 else None,  # a line's tasks share its category (CAT-7)
            "archived": n // 3 % 7 == 0,
            "workspace_path": f"/work/line-{n}",
            "created_at": start + timedelta(microseconds=n),
            "updated_at": start + timedelta(microseconds=n),
        }
        for n in range(LINES)
    ]
    with store.begin() as connection:
        connection.execute(insert(ThreadRow), rows)


def _measure(store: Store, *, collector: bool) -> dict[str, float]:
    """Medians of CPU time; ``collector``: with Python's automatic cycle collector on. The window turns it off
    (``ui/collector``: it collects on the GUI thread's timer), so the store worker's first read runs without
    it; on, the 60,000 objects a read builds trigger collections that walk the rows just fetched."""
    if collector:
        return _reads(store)
    gc.collect()
    gc.disable()
    try:
        return _reads(store)
    finally:
        gc.enable()


def _reads(store: Store) -> dict[str, float]:
    def core() -> object:
        with store.connect() as connection:
            return connection.execute(_STATEMENT).all()

    def before() -> object:
        with store.read() as session:
            return [_summary_from(r) for r in session.execute(_STATEMENT)]

    def now() -> object:
        return store.threads.summaries(include_archived=True)

    def first() -> object:  # the window's first read of its lines (issue 34 item 2): a bounded part of them
        return store.threads.first_summaries([f"bench-{LINES // 2:06d}"])

    reads: dict[str, Callable[[], object]] = {"core": core, "before": before, "summaries": now, "first": first}
    times: dict[str, list[float]] = {name: [] for name in reads}
    for read in reads.values():
        read()  # compiled and cached, as after the first read of a process
    for _ in range(REPEATS):
        for name, read in reads.items():
            started = time.process_time()
            read()
            times[name].append(time.process_time() - started)
    lines = store.threads.summaries(include_archived=True)
    ordered: list[float] = []
    for _ in range(REPEATS):
        started = time.process_time()
        tree_order(lines)
        ordered.append(time.process_time() - started)
    return {**{name: median(values) for name, values in times.items()}, "tree_order": median(ordered)}


def _figures(database: str, measured: dict[str, float], collected: dict[str, float]) -> list[Figure]:
    core = measured["core"]
    ratio = measured["summaries"] / core
    notes: dict[str, Any] = {
        "lines": LINES,
        "summaries_cpu_ms": measured["summaries"] * 1000,
        "before_cpu_ms": measured["before"] * 1000,
        "before_over_core": measured["before"] / core,
        "tree_order_cpu_ms": measured["tree_order"] * 1000,
        "with_collector_over_core": collected["summaries"] / collected["core"],
        "with_collector_before_over_core": collected["before"] / collected["core"],
        "load": os.getloadavg()[0],
    }
    first_ratio = measured["first"] / measured["summaries"]
    return [
        Figure(
            name=f"window's first lines, {LINES:,} lines ({database}): CPU / the read of every line (median)",
            value=first_ratio,
            unit="x",
            target="(bounded: the same rows at any size)",
            met=True,
            reference=measured["summaries"] * 1000,
            reference_label="ms CPU every line",
            notes={"first_cpu_ms": measured["first"] * 1000, "load": os.getloadavg()[0]},
        ),
        Figure(
            name=f"line list read, {LINES:,} lines ({database}): CPU / plain Core fetch of its rows (median)",
            value=ratio,
            unit="x",
            target=f"<= {TARGET_RATIO}x",
            met=ratio <= TARGET_RATIO,
            reference=core * 1000,
            reference_label="ms CPU Core fetch",
            notes=notes,
        ),
    ]


def _postgresql(admin_url: str) -> list[Figure]:
    name = f"xw_bench_summaries_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        url = admin_url.rsplit("/", 1)[0] + f"/{name}"
        store = open_store(url)
        try:
            _seed(store)
            return _figures("PostgreSQL", _measure(store, collector=False), _measure(store, collector=True))
        finally:
            store.close()
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="xw-bench-summaries-") as tmp:
        store = open_store(f"sqlite:///{tmp}/bench.db")
        try:
            _seed(store)
            figures = _figures("SQLite", _measure(store, collector=False), _measure(store, collector=True))
        finally:
            store.close()
    pg_url = os.environ.get("XW_BENCH_PG_URL")
    if pg_url:
        figures += _postgresql(pg_url)
    return figures
