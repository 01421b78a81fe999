"""The test suite's wall time, each half and both (issue 33 item 5): ``python -m benchmarks suite``.

``make test`` runs the tests marked ``qt`` in ``.venv`` and every other test in the Qt-free ``.venv-core``
(``tests/support/halves.py``), each once. This runs the halves check (both collections, which is also
the reference measured beside the figures), then both halves side by side as ``make test`` runs them
(the core half on its pytest-xdist workers), and reports each half's wall time from the common start,
the wall time of both, the tests collected and the outcome counts pytest printed. Each half's output goes
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


def _run_halves(names: list[str]) -> tuple[float, dict[str, tuple[float, dict[str, int], int]]]:
    """Both halves side by side, as ``make test`` runs them; (wall time of both, per half: wall, counts, exit)."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    running = {}
    for name in names:
        half = HALVES[name]
        log = RESULTS_DIR / f"suite-{name}.log"
        with log.open("w") as out:
            child = subprocess.Popen(
                half.run_command(), cwd=ROOT, env=half.environ(), stdout=out, stderr=subprocess.STDOUT
            )
        running[name] = (child, log)
    ended: dict[str, tuple[float, dict[str, int], int]] = {}
    while running:
        for name, (child, log) in list(running.items()):
            if child.poll() is None:
                continue
            del running[name]
            tail = log.read_text(errors="replace").strip().splitlines()[-1:] or [""]
            counts = {
                kind.rstrip("s") if kind.startswith("error") else kind: int(n) for n, kind in OUTCOMES.findall(tail[0])
            }
            ended[name] = (time.monotonic() - start, counts, child.returncode)
        time.sleep(0.5)
    return time.monotonic() - start, ended


def run() -> list[Figure]:
    start = time.monotonic()
    halves = split()
    check_s = time.monotonic() - start
    collected = {"qt": len(halves.qt), "core": len(halves.core)}
    split_ok = not (halves.in_neither or halves.in_both or halves.unknown)
    figures: list[Figure] = []
    total, ended = _run_halves(["qt", "core"])
    all_passed = all(code == 0 for _wall, _counts, code in ended.values())
    for name, label in (("qt", "Qt half (.venv)"), ("core", "core half (.venv-core)")):
        wall, counts, code = ended[name]
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
            name="suite: both halves side by side (make test's tests)",
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
