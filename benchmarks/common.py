"""Shared pieces: seeding large databases fast, percentiles, memory, results."""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.store.tables import MessageRow
from xworkmate.testing.bulk import insert_lines

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass
class Figure:
    """One measured figure, its target and the reference measured beside it."""

    name: str
    value: float
    unit: str
    target: str
    met: bool
    reference: float | None = None
    reference_label: str = ""
    notes: dict[str, Any] = field(default_factory=dict)


def percentile(values: Sequence[float], pct: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * pct / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def rss_mb() -> float:
    """Resident set size of this process, from /proc (Linux)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


@contextmanager
def temp_home() -> Iterator[Settings]:
    with tempfile.TemporaryDirectory(prefix="xw-bench-") as tmp:
        yield Settings(home=Path(tmp), database_url=None, workspace_root=None)


def seed(
    store: Store,
    settings: Settings,
    *,
    lines: int,
    messages_per_line: int = 0,
    big_line_messages: int = 0,
    batch: int = 20_000,
    folders: Sequence[Path] = (),
) -> tuple[list[str], str | None]:
    """Insert ``lines`` lines (sharing one folder, or the ``n``-th bound to ``folders[n]``) and their messages
    with bulk inserts.

    Returns the line keys and, when ``big_line_messages`` > 0, the key of one
    extra line holding that many messages.
    """
    folder = settings.threads_root / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    start = datetime.now(UTC)
    bound = [folders[n] if n < len(folders) else folder for n in range(lines)]
    all_keys = insert_lines(store, [*bound, *([folder] if big_line_messages else [])], batch=batch)
    keys, big_key = all_keys[:lines], (all_keys[lines] if big_line_messages else None)

    def message_rows() -> Iterator[dict[str, Any]]:
        for key in keys:
            for m in range(messages_per_line):
                yield _message(key, m, start)
        if big_key:
            for m in range(big_line_messages):
                yield _message(big_key, m, start)

    pending: list[dict[str, Any]] = []
    with store.engine.begin() as conn:
        for row in message_rows():
            pending.append(row)
            if len(pending) >= batch:
                conn.execute(insert(MessageRow), pending)
                pending.clear()
        if pending:
            conn.execute(insert(MessageRow), pending)
    return keys, big_key


def _message(key: str, m: int, start: datetime) -> dict[str, Any]:
    human = m % 2 == 0
    return {
        "thread_id": key,
        "role": "user" if human else "assistant",
        "source": "human" if human else "agent",
        "content": f"message {m} on {key}: " + ("please look at the build log" if human else "I looked; it is fine."),
        "state": "complete",
        "created_at": start + timedelta(milliseconds=m),
    }


def open_controller(settings: Settings, database_url: str | None = None) -> tuple[Store, SessionController]:
    store = open_store(database_url or settings.effective_database_url)
    return store, SessionController(store, settings)


def write_results(figures: list[Figure]) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = RESULTS_DIR / f"bench-{stamp}.json"
    payload = {"when": stamp, "machine": os.uname().nodename, "figures": [asdict(f) for f in figures]}
    path.write_text(json.dumps(payload, indent=2))
    (RESULTS_DIR / "latest.json").write_text(json.dumps(payload, indent=2))
    return path


def print_table(figures: list[Figure]) -> None:
    header = f"{'figure':<46} {'value':>12} {'target':>16} {'met':>4}   reference"
    print(header)
    print("-" * len(header))
    for f in figures:
        ref = f"{f.reference:.3g} {f.reference_label}" if f.reference is not None else ""
        print(f"{f.name:<46} {f.value:>9.3g} {f.unit:<2} {f.target:>16} {'yes' if f.met else 'NO':>4}   {ref}")
        if f.notes:
            shown = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in f.notes.items())
            print(f"    {shown}")


def markdown_tokens(prefix: str, count: int) -> list[str]:
    """Prose with a paragraph break every 60 tokens and a fenced code block every 400: Markdown work for the
    streaming benchmarks (one line's reply, ``count`` tokens)."""
    out: list[str] = []
    for i in range(count):
        if i % 400 == 399:
            out.append(f"\n\n```python\ndef {prefix}{i}(x):\n    return x + {i}  # note\n```\n\n")
        elif i % 60 == 59:
            out.append(f"{prefix}{i}.\n\n")
        else:
            out.append(f"{prefix}{i} ")
    return out
