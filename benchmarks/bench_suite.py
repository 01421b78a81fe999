"""The test suite's wall time, each half and both (issue 33 item 5): ``python -m benchmarks suite``.

``make test`` runs the tests marked ``qt`` in ``.venv`` and every other test in the Qt-free ``.venv-core``
(``tests/support/halves.py``), each once. This runs the halves check (both collections, which is also
the reference measured beside the figures), then each half as ``make test`` runs it, and reports wall
times with the number of tests collected and the outcome counts pytest printed. Each half's output goes
to ``benchmarks/results/suite-<half>.log``. Targets (issue 33): both halves together <= 15 minutes.
Needs both venvs (``make test`` makes them); not part of the default ``python -m benchmarks`` run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

from benchmarks.common import RESULTS_DIR, Figure
from tests.support.halves import HALVES, ROOT, split

OUTCOMES = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


def _run_half(name: str) -> tuple[float, dict[str, int], int]:
    half = HALVES[name]
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    log = RESULTS_DIR / f"suite-{name}.log"
    start = time.monotonic()
    with log.open("w") as out:
        done = subprocess.run(half.command(), cwd=ROOT, env=half.environ(), stdout=out, stderr=subprocess.STDOUT)
    wall = time.monotonic() - start
    tail = log.read_text(errors="replace").strip().splitlines()[-1:] or [""]
    counts = {kind.rstrip("s") if kind.startswith("error") else kind: int(n) for n, kind in OUTCOMES.findall(tail[0])}
    return wall, counts, done.returncode


def run() -> list[Figure]:
    start = time.monotonic()
    halves = split()
    check_s = time.monotonic() - start
    collected = {"qt": len(halves.qt), "core": len(halves.core)}
    split_ok = not (halves.in_neither or halves.in_both or halves.unknown)
    figures: list[Figure] = []
    total = 0.0
    all_passed = True
    for name, label in (("qt", "Qt half (.venv)"), ("core", "core half (.venv-core)")):
        wall, counts, code = _run_half(name)
        total += wall
        all_passed = all_passed and code == 0
        figures.append(
            Figure(
                name=f"suite: {label}",
                value=wall,
                unit="s",
                target="passes",
                met=code == 0,
                reference=check_s,
                reference_label="s collecting both halves (the check)",
                notes={"collected": collected[name], **counts, "exit": code},
            )
        )
    load = os.getloadavg()
    figures.append(
        Figure(
            name="suite: both halves (make test's tests)",
            value=total,
            unit="s",
            target="<= 900 s (15 min), each test once",
            met=total <= 900 and all_passed and split_ok,
            reference=check_s,
            reference_label="s collecting both halves (the check)",
            notes={
                "tests": len(halves.everything),
                "in_neither": len(halves.in_neither),
                "in_both": len(halves.in_both),
                "cores": os.cpu_count(),
                "load_at_end": f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
            },
        )
    )
    return figures


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
