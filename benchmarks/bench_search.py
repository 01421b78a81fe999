"""8. Search across lines (SPEC LOOP-3): 500,000 messages on SQLite and on PostgreSQL.

Figures:
* p95 of ``SessionController.search`` (the whole path: index, visibility predicate, grouping,
  snippets) over a mix of queries — rare and common English words, word prefixes, Chinese
  two-character words, single characters, three-character phrases, mixed Chinese/English —
  target ≤ 30 ms; beside it, in the same run, a plain ``LIKE '%word%'`` over 1,000 rows (and a
  50-row primary-key read in the notes).
* The same p95 for a thread viewer (the predicate's subquery on every row).
* Results painted after the debounced last keystroke, in the palette over the SQLite database
  (target ≤ 50 ms): from the debounce timer firing to the result list painted.
* The index's size beside the database's, and how long building the rows took.

``XW_BENCH_SEARCH_MESSAGES`` changes the size (default 500,000).
"""

from __future__ import annotations

import io
import itertools
import json
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, text

from benchmarks.bench_evidence import pg_database
from benchmarks.common import Figure, median, percentile, temp_home
from xworkmate.controllers import SessionController
from xworkmate.domain.search import index_terms
from xworkmate.domain.viewers import Viewer
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.store.search import SearchRepository
from xworkmate.store.tables import MessageRow, ThreadRow

MESSAGES = int(os.environ.get("XW_BENCH_SEARCH_MESSAGES", "500000"))
LINES = 200
REPEATS = 25
TARGET_MS = 30.0
PAINT_TARGET_MS = 50.0

# A deterministic corpus: pseudo-words with a Zipf-like spread, and Chinese from common characters.
_RNG = random.Random(17)
_SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "de", "fu", "gi", "ho", "ju", "xe"]
WORDS = sorted({"".join(_RNG.choice(_SYLLABLES) for _ in range(_RNG.randint(2, 4))) for _ in range(6000)})
_RNG.shuffle(WORDS)
HAN = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种"
    "面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本"
    "去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比"
    "或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总"
    "次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做"
    "必战先回则任取据处理府研质"
)
CUM_WEIGHTS = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(WORDS))))


def _body(n: int, rng: random.Random) -> str:
    words = rng.choices(WORDS, cum_weights=CUM_WEIGHTS, k=rng.randint(8, 24))
    if n % 3 == 0:  # a third of the messages carry Chinese, mixed with the words
        chinese = "".join(rng.choice(HAN) for _ in range(rng.randint(6, 30)))
        words.insert(rng.randrange(len(words)), chinese)
    return " ".join(words)


def _build(store: Store, settings: Settings) -> tuple[float, list[str], str]:
    """Create the lines and ``MESSAGES`` messages with their index entries, fast; returns seconds taken."""
    controller = SessionController(store, settings)
    keys = [controller.lines.create_line(f"Line {n} {WORDS[n * 7]}").thread_id for n in range(LINES)]
    ward = keys[-1]
    controller.tasks.set_category(ward, "medical")
    with store.engine.connect() as conn:
        sessions = dict(conn.execute(select(ThreadRow.thread_id, ThreadRow.current_session_id)).all())
    rng = random.Random(2026)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    began = time.perf_counter()
    sqlite = store.engine.dialect.name == "sqlite"
    raw = store.engine.raw_connection()
    try:
        cursor = raw.cursor()
        if sqlite:
            batch: list[tuple[Any, ...]] = []
            entries: list[tuple[Any, ...]] = []
            for n in range(1, MESSAGES + 1):
                key = keys[n % LINES]
                body = _body(n, rng)
                batch.append((n, key, "user", "human", body, "complete", sessions[key], start + timedelta(seconds=n)))
                terms = index_terms(body)
                entries.append((n, " ".join(terms.terms), " ".join(terms.chars)))
                if len(batch) == 20_000:
                    _sqlite_flush(cursor, batch, entries)
            _sqlite_flush(cursor, batch, entries)
            raw.commit()
            cursor.execute("ANALYZE")
        else:
            cursor.execute("DROP INDEX ix_message_search_terms")
            messages, entries_pg = io.StringIO(), io.StringIO()
            for n in range(1, MESSAGES + 1):
                key = keys[n % LINES]
                body = _body(n, rng)
                when = (start + timedelta(seconds=n)).isoformat()
                messages.write(f"{n}\t{key}\tuser\thuman\t{body}\tcomplete\t{sessions[key]}\t{when}\tf\n")
                entries_pg.write(f"{n}\t{index_terms(body).tsvector_literal()}\n")
            with cursor.copy(  # type: ignore[attr-defined]
                "COPY messages (id, thread_id, role, source, content, state, session_id, created_at, quarantined)"
                " FROM STDIN"
            ) as copy:
                copy.write(messages.getvalue())
            with cursor.copy("COPY message_search (message_id, terms) FROM STDIN") as copy:  # type: ignore[attr-defined]
                copy.write(entries_pg.getvalue())
            cursor.execute("SELECT setval(pg_get_serial_sequence('messages', 'id'), (SELECT max(id) FROM messages))")
            cursor.execute("CREATE INDEX ix_message_search_terms ON message_search USING gin (terms)")
            raw.commit()
            cursor.execute("ANALYZE")
            raw.commit()
    finally:
        raw.close()
    return time.perf_counter() - began, keys, ward


def _sqlite_flush(cursor: Any, batch: list[tuple[Any, ...]], entries: list[tuple[Any, ...]]) -> None:
    if not batch:
        return
    cursor.executemany(
        "INSERT INTO messages (id, thread_id, role, source, content, state, session_id, created_at, quarantined)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)",
        [(*row[:7], row[7].strftime("%Y-%m-%d %H:%M:%S.%f")) for row in batch],
    )
    cursor.executemany("INSERT INTO message_search (rowid, terms, chars) VALUES (?, ?, ?)", entries)
    batch.clear()
    entries.clear()


def queries() -> dict[str, list[str]]:
    """The query mix, by kind (deterministic)."""
    rng = random.Random(5)
    common = WORDS[:40]
    rare = WORDS[3000:6000]
    han = [a + b for a, b in zip(HAN[:60], HAN[60:120], strict=True)]
    return {
        "rare word": rng.sample(rare, 8),
        "common word": common[:4],
        "word prefix (3 letters and *)": [w[:3] + "*" for w in rng.sample(WORDS[100:400], 6)],
        "two Chinese characters": han[:8],
        "one Chinese character": list(HAN[:6]),
        "three-character phrase": [h + HAN[200 + i] for i, h in enumerate(han[:4])],
        "mixed Chinese and English": [f"{han[i]} {WORDS[i]}" for i in range(4)],
    }


def _time_queries(controller: SessionController, viewer: Viewer | None) -> tuple[list[float], dict[str, float]]:
    samples: list[float] = []
    by_kind: dict[str, float] = {}
    for kind, texts in queries().items():
        kind_samples = []
        for query in texts:
            run = (
                (lambda q=query: controller.search(q))
                if viewer is None
                else (lambda q=query: _search_as(controller, q, viewer))
            )
            run()  # warm
            for _ in range(max(1, REPEATS // len(texts) * 2)):
                began = time.perf_counter()
                run()
                kind_samples.append((time.perf_counter() - began) * 1000)
        by_kind[kind] = percentile(kind_samples, 95)
        samples += kind_samples
    return samples, by_kind


def _search_as(controller: SessionController, query: str, viewer: Viewer) -> object:
    from xworkmate.controllers.search import search_lines

    return search_lines(controller._store, query, viewer=viewer)  # the benchmark reads as a task would


def _references(store: Store) -> tuple[float, float]:
    """A plain LIKE over 1,000 rows, and a 50-row primary-key read, in the same database."""
    like, pk = [], []
    ids = list(range(1000, 1050))
    with store.engine.connect() as conn:
        for n in range(60):
            word = WORDS[3000 + n]
            began = time.perf_counter()
            conn.execute(
                text("SELECT id FROM (SELECT id, content FROM messages WHERE id <= 1000) m WHERE content LIKE :p"),
                {"p": f"%{word}%"},
            ).all()
            like.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            conn.execute(select(MessageRow).where(MessageRow.id.in_(ids))).all()
            pk.append((time.perf_counter() - began) * 1000)
    return median(like), median(pk)


def measure(settings: Settings, url: str, label: str) -> tuple[list[Figure], SessionController]:
    store = open_store(url)
    seconds, keys, _ward = _build(store, settings)
    controller = SessionController(store, settings)
    samples, by_kind = _time_queries(controller, None)
    thread_samples, _ = _time_queries(controller, Viewer.of_thread(keys[0], None))
    like, pk = _references(store)
    size = SearchRepository(store).index_size()
    p95, thread_p95 = percentile(samples, 95), percentile(thread_samples, 95)
    mb = 1024 * 1024
    figures = [
        Figure(
            name=f"search p95, {MESSAGES:,} messages ({label})",
            value=p95,
            unit="ms",
            target=f"<= {TARGET_MS:g} ms",
            met=p95 <= TARGET_MS,
            reference=like,
            reference_label="ms plain LIKE over 1,000 rows",
            notes={
                "median_ms": median(samples),
                "pk_read_50_rows_ms": pk,
                **{f"p95 {k}": v for k, v in by_kind.items()},
            },
        ),
        Figure(
            name=f"search p95 as a task viewer ({label})",
            value=thread_p95,
            unit="ms",
            target=f"<= {TARGET_MS:g} ms",
            met=thread_p95 <= TARGET_MS,
            reference=p95,
            reference_label="ms as the desktop",
        ),
        Figure(
            name=f"search index size ({label})",
            value=size.index_bytes / mb,
            unit="MB",
            target="reported",
            met=True,
            reference=size.database_bytes / mb,
            reference_label="MB the whole database",
            notes={"indexed_messages": size.indexed_messages},
        ),
        Figure(
            name=f"building {MESSAGES:,} messages + index ({label})",
            value=seconds,
            unit="s",
            target="reported",
            met=True,
        ),
    ]
    return figures, controller


def painted(controller: SessionController) -> Figure:
    """Debounce fired → the palette's list painted with the answer, over the given database."""
    from benchmarks.gui_common import application, shown_window

    app = application()
    window = shown_window(controller)
    palette = window.search_export.on_search_requested()
    app.processEvents()
    texts = [q for group in queries().values() for q in group]
    samples, paints = [], []
    fired: list[float] = []
    palette.debounce.timeout.connect(lambda: fired.append(time.perf_counter()))
    for query in texts * 2:
        done: list[float] = []

        def on_shown(_query: str, done: list[float] = done) -> None:
            began = time.perf_counter()
            palette.search_results.viewport().repaint()
            paints.append((time.perf_counter() - began) * 1000)
            done.append(time.perf_counter())

        palette.results_shown.connect(on_shown)
        fired.clear()
        palette.search_input.setText(query)  # as the last keystroke: the debounce starts
        deadline = time.perf_counter() + 10
        while not done and time.perf_counter() < deadline:
            app.processEvents()
            time.sleep(0.0005)
        palette.results_shown.disconnect(on_shown)
        if done and fired:
            samples.append((done[0] - fired[0]) * 1000)
    window.close()
    p95 = percentile(samples, 95)
    return Figure(
        name="results painted after the debounce (SQLite)",
        value=p95,
        unit="ms",
        target=f"<= {PAINT_TARGET_MS:g} ms",
        met=p95 <= PAINT_TARGET_MS,
        reference=median(paints),
        reference_label="ms painting the list alone",
        notes={"median_ms": median(samples), "queries": len(samples)},
    )


def run() -> list[Figure]:
    figures: list[Figure] = []
    with temp_home() as settings:
        found, controller = measure(settings, settings.effective_database_url, "SQLite")
        figures += found
        figures.append(painted(controller))
        controller.close()
    with temp_home() as settings, pg_database() as url:
        found, controller = measure(settings, url, "PostgreSQL")
        figures += found
        controller.close()
    return figures


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
