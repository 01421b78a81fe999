"""``python -m benchmarks [NAME ...]``: run the benchmarks, print a table, write JSON to benchmarks/results/.

Each benchmark runs in its own process so that memory figures and Qt state do
not leak from one into the next.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.common import Figure, print_table, write_results

ROOT = Path(__file__).resolve().parent.parent
SUITES = {
    "startup": "benchmarks.bench_startup",
    "switching": "benchmarks.bench_switching",
    "streaming": "benchmarks.bench_streaming",
    "ui_streaming": "benchmarks.ui_streaming",
    "ui_twenty_lines": "benchmarks.ui_twenty_lines",  # issue 34 item 1: twenty lines streaming at once
    "evidence": "benchmarks.bench_evidence",
    "sandbox": "benchmarks.bench_sandbox",
    "concurrent_start": "benchmarks.bench_concurrent_start",
    "slow_database": "benchmarks.bench_slow_database",
    "checkpoints": "benchmarks.bench_checkpoints",
    "changes_view": "benchmarks.bench_changes_view",
    "long_content": "benchmarks.bench_long_content",  # issue 34: an agent's long lines and code fences
    "search": "benchmarks.bench_search",
    "search_exact": "benchmarks.bench_search_exact",  # issue 33: LOOP-3's 100,000-message check, from the suite
    "history": "benchmarks.bench_history",  # issue 34 item 2: a gigabyte of history (XW_BENCH_HISTORY_SCALE)
    "line_summaries": "benchmarks.bench_line_summaries",  # issue 34 item 2: the list's read at 20,000 lines
    "attachments": "benchmarks.bench_attachments",
    "skills": "benchmarks.bench_skills",
    "redact": "benchmarks.bench_redact",  # issue 33 item 3: the one redactor beside the two-step rule it replaced
    # Issue 33 item 5: both halves of the test suite, timed (tens of minutes: run by name only).
    "suite": "benchmarks.bench_suite",
}
BY_NAME_ONLY = {"suite"}
TIMEOUTS = {"suite": 4 * 3600}


def _run_in_child(module: str, timeout: int = 1800) -> list[Figure]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import json, sys, {module} as m; json.dump([f.__dict__ for f in m.run()], sys.stdout)",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{module} failed:\n{proc.stderr[-3000:]}")
    return [Figure(**raw) for raw in json.loads(proc.stdout.strip().splitlines()[-1])]


def main(argv: list[str]) -> int:
    names = argv or [name for name in SUITES if name not in BY_NAME_ONLY]
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(SUITES)}", file=sys.stderr)
        return 2
    figures: list[Figure] = []
    failed = False
    for name in names:
        print(f"running {name} …", file=sys.stderr, flush=True)
        try:
            figures.extend(_run_in_child(SUITES[name], TIMEOUTS.get(name, 1800)))
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            failed = True
            print(f"{name}: {exc}", file=sys.stderr)
    print_table(figures)
    path = write_results(figures)
    print(f"\nwritten to {path.relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
