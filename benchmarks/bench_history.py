"""Issue 34 item 2, "a gigabyte of history": one big line and many messages across many lines.

``XW_BENCH_HISTORY_SCALE`` sets the size as a fraction of the issue's (1.0: a 1 GB line and
5,000,000 messages across 20,000 lines; default 0.02, about two minutes here). The data sets are
built in the run with bulk inserts (``executemany`` on SQLite, ``COPY`` on PostgreSQL).

Figures, each beside a reference measured in the same run:
* search p95 over the query mix of ``bench_search`` (LOOP-3), on SQLite and PostgreSQL; reference:
  a 50-row primary-key read of the same database.
* scroll to the start of the big line: each older page (``page_ids`` + ``get_many``, as the
  message pane asks) p95; reference: the newest page, read the same way beside each older page, p95.
* opening the big line in the window (SQLite): first paint and RSS growth; reference: opening a small line.
* export of the big line (SQLite): RSS growth while it is written; reference: the file's size (notes: the
  growth of the whole-line-in-memory export, measured after it, and whether both files are the same).

Start-up with 20,000 lines: ``XW_BENCH_STARTUP_LINES=20000 python -m benchmarks startup`` (its own ratios).

``XW_BENCH_HISTORY_KEEP=<folder>``: the data sets are built once and kept (the SQLite home in that folder,
a PostgreSQL database named after the scale, what was built in a JSON file beside them), and later runs at
the same scale measure them again without building (the full size takes 15-30 minutes to build here).
The search, scroll, open and export figures do not write to them; the export writes into the home.
"""

from __future__ import annotations

import io
import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from benchmarks.bench_evidence import pg_database
from benchmarks.bench_search import _body, queries
from benchmarks.common import Figure, median, percentile, rss_mb, temp_home
from xworkmate.controllers import SessionController
from xworkmate.domain.search import index_terms
from xworkmate.domain.viewers import DESKTOP
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.store.tables import MessageRow, ThreadRow

SCALE = float(os.environ.get("XW_BENCH_HISTORY_SCALE", "0.02"))
LINES = max(20, int(20_000 * SCALE))
MESSAGES = max(1000, int(5_000_000 * SCALE))
BIG_BYTES = max(1 << 20, int((1 << 30) * SCALE))
TOOL_OUTPUT = 64 * 1024  # every tenth message of the big line is a long tool output
PAGE = 200
NOW = datetime(2026, 12, 4, tzinfo=UTC)  # both exports name the same time: the files compare byte for byte
SEARCH_TARGET_MS = 30.0
KEEP = os.environ.get("XW_BENCH_HISTORY_KEEP")
EXPORT_TARGET_MB = 50.0


def _tool_output(n: int) -> str:
    line = f"build step {n}: compiling module_{n % 97}.c ... ok\n"
    return (line * (TOOL_OUTPUT // len(line) + 1))[:TOOL_OUTPUT]


def _big_rows(big: str, session: int, first_id: int, start: datetime) -> Any:
    """The big line's rows, ``(id, key, role, source, body, session, when, index body)``, until BIG_BYTES."""
    rng = random.Random(34)
    size, n = 0, 0
    while size < BIG_BYTES:
        tool = n % 10 == 9
        body = _tool_output(n) if tool else _body(n, rng)
        role, source = ("tool", "agent") if tool else (("user", "human") if n % 2 == 0 else ("assistant", "agent"))
        # The index holds the tool output's first words only in this benchmark (building speed).
        yield (first_id + n, big, role, source, body, session, start + timedelta(seconds=n), body[:400])
        size += len(body)
        n += 1


def _rows(keys: list[str], sessions: dict[str, int], big: str, start: datetime) -> Any:
    rng = random.Random(2026)
    for n in range(1, MESSAGES + 1):
        key = keys[n % len(keys)]
        body = _body(n, rng)
        yield (n, key, "user", "human", body, sessions[key], start + timedelta(seconds=n), body)
    yield from _big_rows(big, sessions[big], MESSAGES + 1, start + timedelta(seconds=MESSAGES + 1))


def build(store: Store, settings: Settings) -> tuple[float, list[str], str]:
    """LINES lines with MESSAGES messages, then one line of BIG_BYTES; returns seconds, keys, the big key."""
    began = time.perf_counter()
    controller = SessionController(store, settings)
    keys = [controller.lines.create_line(f"Line {n}").thread_id for n in range(LINES)]
    big = controller.lines.create_line("The big line").thread_id
    with store.engine.connect() as conn:
        sessions = dict(conn.execute(select(ThreadRow.thread_id, ThreadRow.current_session_id)).all())
    start = datetime(2026, 1, 1, tzinfo=UTC)
    raw = store.engine.raw_connection()
    try:
        cursor = raw.cursor()
        if store.engine.dialect.name == "sqlite":
            batch: list[tuple[Any, ...]] = []
            for row in _rows(keys, sessions, big, start):
                batch.append(row)
                if len(batch) == 10_000:
                    _sqlite_flush(cursor, batch)
            _sqlite_flush(cursor, batch)
            raw.commit()
            cursor.execute("ANALYZE")
        else:
            cursor.execute("DROP INDEX ix_message_search_terms")
            messages, entries = io.StringIO(), io.StringIO()

            def flush() -> None:
                with cursor.copy(  # type: ignore[attr-defined]
                    "COPY messages (id, thread_id, role, source, content, state, session_id, created_at, quarantined)"
                    " FROM STDIN"
                ) as copy:
                    copy.write(messages.getvalue())
                with cursor.copy("COPY message_search (message_id, terms) FROM STDIN") as copy:  # type: ignore[attr-defined]
                    copy.write(entries.getvalue())
                messages.seek(0)
                messages.truncate()
                entries.seek(0)
                entries.truncate()

            for n, (i, key, role, source, body, session, when, indexed) in enumerate(_rows(keys, sessions, big, start)):
                escaped = body.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")
                messages.write(f"{i}\t{key}\t{role}\t{source}\t{escaped}\tcomplete\t{session}\t{when.isoformat()}\tf\n")
                entries.write(f"{i}\t{index_terms(indexed).tsvector_literal()}\n")
                if n % 10_000 == 9_999:
                    flush()
            flush()
            cursor.execute("SELECT setval(pg_get_serial_sequence('messages', 'id'), (SELECT max(id) FROM messages))")
            cursor.execute("CREATE INDEX ix_message_search_terms ON message_search USING gin (terms)")
            raw.commit()
            # A database grown to this size over months has been vacuumed by autovacuum: its visibility map
            # set, so the planner takes index-only scans (the lines' folded titles: 2 ms, against a 6-15 ms
            # walk of the table just after the bulk load). VACUUM runs outside a transaction.
            raw.driver_connection.autocommit = True  # type: ignore[union-attr]
            cursor.execute("VACUUM (ANALYZE)")
            raw.driver_connection.autocommit = False  # type: ignore[union-attr]
    finally:
        raw.close()
    controller.close()
    return time.perf_counter() - began, keys, big


def _sqlite_flush(cursor: Any, batch: list[tuple[Any, ...]]) -> None:
    if not batch:
        return
    cursor.executemany(
        "INSERT INTO messages (id, thread_id, role, source, content, state, session_id, created_at, quarantined)"
        " VALUES (?, ?, ?, ?, ?, 'complete', ?, ?, 0)",
        [(*row[:6], row[6].strftime("%Y-%m-%d %H:%M:%S.%f")) for row in batch],
    )
    entries = []
    for row in batch:
        terms = index_terms(row[7])
        entries.append((row[0], " ".join(terms.terms), " ".join(terms.chars)))
    cursor.executemany("INSERT INTO message_search (rowid, terms, chars) VALUES (?, ?, ?)", entries)
    batch.clear()


def _ms(run: Callable[[], object]) -> float:
    began = time.perf_counter()
    run()
    return (time.perf_counter() - began) * 1000


def search_figure(store: Store, settings: Settings, label: str) -> Figure:
    controller = SessionController(store, settings)
    samples: list[float] = []
    by_kind: dict[str, float] = {}
    for kind, texts in queries().items():
        kind_samples = []
        for query in texts:
            controller.search(query)  # warm
            kind_samples += [_ms(lambda q=query: controller.search(q)) for _ in range(3)]
        by_kind[kind] = percentile(kind_samples, 95)
        samples += kind_samples
    ids = list(range(1000, 1050))
    with store.engine.connect() as conn:
        pk = median(
            [_ms(lambda: conn.execute(select(MessageRow).where(MessageRow.id.in_(ids))).all()) for _ in range(30)]
        )
    p95 = percentile(samples, 95)
    return Figure(
        name=f"history: search p95, {MESSAGES:,} messages / {LINES:,} lines ({label})",
        value=p95,
        unit="ms",
        target=f"<= {SEARCH_TARGET_MS:g} ms",
        met=p95 <= SEARCH_TARGET_MS,
        reference=pk,
        reference_label="ms a 50-row primary-key read",
        notes={"median_ms": median(samples), **{f"p95 {k}": v for k, v in by_kind.items()}},
    )


def scroll_figure(store: Store, big: str, label: str) -> Figure:
    """Walk the big line from its newest page to its start, as the message pane pages it.

    The reference, the newest page, is read once beside each older page (the same moments, the same
    load on the machine), and both figures are the p95 of as many reads: a p95 of single reads beside
    a median of five counted every scheduling hiccup of a loaded machine against the older pages."""
    messages = store.messages

    def newest_page() -> object:
        return messages.get_many(messages.page_ids(big, viewer=DESKTOP, limit=PAGE), viewer=DESKTOP)

    newest_page()  # warm: the line was just opened
    newest: list[float] = []
    pages: list[float] = []
    before: int | None = None
    began = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        ids = messages.page_ids(big, viewer=DESKTOP, before_id=before, limit=PAGE)
        messages.get_many(ids, viewer=DESKTOP)
        pages.append((time.perf_counter() - t0) * 1000)
        newest.append(_ms(newest_page))
        if len(ids) < PAGE:
            break
        before = ids[0]
    total = time.perf_counter() - began - sum(newest) / 1000
    p95 = percentile(pages, 95)
    reference = percentile(newest, 95)
    return Figure(
        name=f"history: each older page to the big line's start ({label})",
        value=p95,
        unit="ms",
        target="<= 2x the newest page",
        met=p95 <= 2 * reference,
        reference=reference,
        reference_label="ms the newest page (p95, read beside each)",
        notes={
            "pages": len(pages),
            "to_the_start_s": total,
            "median_ms": median(pages),
            "newest_median_ms": median(newest),
            "slowest_page_ms": max(pages),
            "the_start_page_ms": pages[-1],  # the page that reaches the line's first message
        },
    )


class _PeakRss:
    """The highest RSS seen while the block runs (sampled every 5 ms)."""

    def __init__(self) -> None:
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mb())
            time.sleep(0.005)

    def __enter__(self) -> _PeakRss:
        self.peak = rss_mb()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mb())


def export_figure(store: Store, settings: Settings, big: str, label: str) -> Figure:
    from xworkmate.controllers.export import ExportFormat, build_export, export_text, save_export, write_export

    controller = SessionController(store, settings)
    path = Path(settings.home) / "big-export.md"
    before = rss_mb()
    began = time.perf_counter()
    with _PeakRss() as peak:
        # As the window's Export does it: the line without its messages, then written as they are read.
        skeleton = build_export(store, big, sources=lambda _key: [], now=NOW, with_messages=False)
        write_export(store, skeleton, path, ExportFormat.MARKDOWN)
    seconds = time.perf_counter() - began
    whole = path.with_suffix(".whole.md")
    before_whole = rss_mb()
    with _PeakRss() as peak_whole:  # the reference: the whole line in memory, as before issue 34
        save_export(
            export_text(build_export(store, big, sources=lambda _key: [], now=NOW), ExportFormat.MARKDOWN), whole
        )
    same = whole.read_bytes() == path.read_bytes()
    growth = peak.peak - before
    controller.close()
    return Figure(
        name=f"history: export of the big line, RSS growth ({label})",
        value=growth,
        unit="MB",
        target=f"<= {EXPORT_TARGET_MB:g} MB",
        met=growth <= EXPORT_TARGET_MB,
        reference=path.stat().st_size / (1 << 20),
        reference_label="MB the file written",
        notes={
            "seconds": seconds,
            "whole_line_in_memory_growth_mb": peak_whole.peak - before_whole,
            "same_file_as_whole": same,
        },
    )


def open_figures(store: Store, settings: Settings, keys: list[str], big: str) -> list[Figure]:
    """The window over this database: open the big line (first paint, memory growth) beside opening small ones."""
    from benchmarks.gui_common import application, settle, shown_window, switch_and_settle

    controller = SessionController(store, settings)
    application()
    window = shown_window(controller)
    rng = random.Random(3)
    switch_and_settle(window, keys[0])  # warm
    small = [switch_and_settle(window, rng.choice(keys)) * 1000 for _ in range(7)]
    settle()
    before = rss_mb()
    big_ms = switch_and_settle(window, big) * 1000
    growth = rss_mb() - before
    window.close()
    controller.close()
    return [
        Figure(
            name=f"history: open the {BIG_BYTES / (1 << 20):,.0f} MB line, first paint (SQLite)",
            value=big_ms,
            unit="ms",
            target="<= 50 ms",
            met=big_ms <= 50,
            reference=median(small),
            reference_label="ms opening a small line",
        ),
        Figure(
            name="history: open the big line, memory growth (SQLite)",
            value=growth,
            unit="MB",
            target="<= 30 MB",
            met=growth <= 30,
            reference=before,
            reference_label="MB RSS before",
        ),
    ]


def _with_load(figure: Figure) -> Figure:
    """The machine's load when the figure was taken (a shared machine: the figures move with it)."""
    figure.notes["load_1m"] = os.getloadavg()[0]
    return figure


def measure(settings: Settings, url: str, label: str, kept: Path | None = None) -> list[Figure]:
    """The figures over a data set built at ``url``; with ``kept`` (a JSON file), the one built there before,
    or one built now and recorded there."""
    store = open_store(url)
    if kept is not None and kept.exists():
        record = json.loads(kept.read_text(encoding="utf-8"))
        seconds, keys, big = record["seconds"], record["keys"], record["big"]
        print(f"history ({label}): measuring the data set kept at {kept} (built in {seconds:.1f} s)", file=sys.stderr)
    else:
        seconds, keys, big = build(store, settings)
        print(f"history ({label}): built in {seconds:.1f} s", file=sys.stderr, flush=True)
        if kept is not None:
            kept.write_text(json.dumps({"seconds": seconds, "keys": keys, "big": big}), encoding="utf-8")
    figures = [_with_load(search_figure(store, settings, label)), _with_load(scroll_figure(store, big, label))]
    if label == "SQLite":
        figures += open_figures(store, settings, keys, big)
        figures.append(export_figure(store, settings, big, label))
    figures.append(
        Figure(
            name=f"history: building the data set ({label})",
            value=seconds,
            unit="s",
            target="reported",
            met=True,
            notes={"kept": str(kept)} if kept is not None else {},
        )
    )
    store.close()
    return figures


def _kept_pg(folder: Path) -> str:
    """The kept PostgreSQL database of this scale (made if missing: then its record is stale and dropped)."""
    import psycopg

    from benchmarks.bench_evidence import PG_ADMIN

    name = f"xw_bench_history_{str(SCALE).replace('.', '_')}"
    admin = PG_ADMIN.replace("+psycopg", "")
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            (folder / f"postgresql-{SCALE}.json").unlink(missing_ok=True)
            conn.execute(f'CREATE DATABASE "{name}"')
    return f"{PG_ADMIN.rpartition('/')[0]}/{name}"


def run() -> list[Figure]:
    figures: list[Figure] = []
    if KEEP:
        folder = Path(KEEP)
        folder.mkdir(parents=True, exist_ok=True)
        home = folder / f"sqlite-{SCALE}"
        settings = Settings(home=home, database_url=None, workspace_root=None)
        figures += measure(settings, settings.effective_database_url, "SQLite", folder / f"sqlite-{SCALE}.json")
        pg_settings = Settings(home=folder / f"postgresql-{SCALE}-home", database_url=None, workspace_root=None)
        figures += measure(pg_settings, _kept_pg(folder), "PostgreSQL", folder / f"postgresql-{SCALE}.json")
        return figures
    with temp_home() as settings:
        figures += measure(settings, settings.effective_database_url, "SQLite")
    with temp_home() as settings, pg_database() as url:
        figures += measure(settings, url, "PostgreSQL")
    return figures


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
