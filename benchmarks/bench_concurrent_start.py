"""7. Concurrent first start (ERR-3, issue 13).

50 ``xworkmate thread new`` processes are started at once on a fresh SQLite
database: one of them creates the schema and ``main`` while the others wait for
its lock. Target: all 50 succeed. The figure is the wall time from the first
start to the last exit; the reference is the median wall time of one such
process alone on a fresh database (each process imports the app, so on a small
machine the 50 mostly queue for the CPU, not for the database).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, median

PROCESSES = 50
ALONE_REPEATS = 3


def _start(home: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    env.update({"XWORKMATE_HOME": str(home), "QT_QPA_PLATFORM": "offscreen"})
    return subprocess.Popen(
        [sys.executable, "-m", "xworkmate", "thread", "new", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _start_at_once(count: int) -> tuple[float, list[str]]:
    """Wall seconds for ``count`` processes started together on a fresh home; the failures' stderr."""
    with tempfile.TemporaryDirectory(prefix="xw-bench-") as tmp:
        started = time.perf_counter()
        children = [_start(Path(tmp)) for _ in range(count)]
        failures = []
        for child in children:
            _, stderr = child.communicate(timeout=600)
            if child.returncode != 0 or stderr:
                failures.append(f"exit {child.returncode}: {stderr.strip()[-300:]}")
        return time.perf_counter() - started, failures


def run() -> list[Figure]:
    _start_at_once(1)  # warm the page cache: the first import of the app reads it all from disk
    alone = []
    for _ in range(ALONE_REPEATS):
        seconds, failures = _start_at_once(1)
        if failures:
            raise RuntimeError(f"one process alone failed: {failures[0]}")
        alone.append(seconds)
    wall, failures = _start_at_once(PROCESSES)
    return [
        Figure(
            name=f"concurrent start: {PROCESSES} `thread new`, fresh SQLite",
            value=wall,
            unit="s",
            target=f"{PROCESSES}/{PROCESSES} succeed",
            met=not failures,
            reference=median(alone),
            reference_label="s median, one process alone",
            notes={
                "succeeded": PROCESSES - len(failures),
                "first_failure": failures[0] if failures else "",
                "cpus": os.cpu_count() or 0,
            },
        )
    ]
