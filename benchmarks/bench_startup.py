"""1. Start-up: ``xworkmate gui --smoke-test`` against a bare PySide6 script with the same three panes, and
against the same panes after importing the stack (SQLAlchemy, pydantic): issue 19, item 7.

Two times per run, noted inside each process by ``startup_marks``: its first painted window (the app's
shows before its store opens) against the bare script's, and its task list painted with its rows against
the stack reference's list. The whole run to exit is in the notes, as earlier runs reported it."""

from __future__ import annotations

import compileall
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, median
from benchmarks.startup_marks import MARKS_ENV

RUNS = 7
TARGET_RATIO = 1.5
STACK_TARGET_RATIO = 1.1  # issue 19, item 7


def _time(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, float]:
    """Seconds from starting ``cmd`` to its exit, to its first painted window, to its filled task list and
    to its window's own list (the window can be used: the same as filled for the references)."""
    with tempfile.NamedTemporaryFile(prefix="xw-marks-", suffix=".json", delete=False) as handle:
        marks_path = Path(handle.name)
    try:
        start_wall, start = time.time(), time.perf_counter()
        proc = subprocess.run(
            cmd, env={**env, MARKS_ENV: str(marks_path)}, capture_output=True, text=True, timeout=120, check=False
        )
        elapsed = time.perf_counter() - start
        if proc.returncode != 0 or proc.stdout.strip() != "ok":
            raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[-500:]}")
        marks = json.loads(marks_path.read_text(encoding="utf-8") or "{}")
    finally:
        marks_path.unlink(missing_ok=True)
    if "ready" not in marks:
        raise RuntimeError(f"{' '.join(cmd)} never painted its task list")
    return elapsed, marks["first_paint"] - start_wall, marks["filled"] - start_wall, marks["ready"] - start_wall


# A person's day of task lines, each with a short conversation: the list has rows to paint;
# XW_BENCH_STARTUP_LINES=20000 is issue 34 item 2's start-up with 20,000 lines (the same ratios).
SEEDED_LINES = int(os.environ.get("XW_BENCH_STARTUP_LINES", "40"))
SEEDED_MESSAGES = 20


def _seed_lines(home: Path) -> None:
    from benchmarks.common import seed
    from xworkmate.settings import Settings
    from xworkmate.store import open_store

    settings = Settings(home=home, database_url=None, workspace_root=None)
    store = open_store(settings.effective_database_url)
    try:
        seed(store, settings, lines=SEEDED_LINES, messages_per_line=SEEDED_MESSAGES)
    finally:
        store.close()


def _compile_bytecode() -> None:
    """What an installed copy has: pip and the bundle ship bytecode. Without it (an editable
    install under PYTHONDONTWRITEBYTECODE, as on CI machines) every start compiles our modules."""
    import xworkmate

    compileall.compile_dir(Path(xworkmate.__file__).parent, quiet=1)


def run() -> list[Figure]:
    _compile_bytecode()
    here = Path(__file__).parent
    with tempfile.TemporaryDirectory(prefix="xw-bench-start-") as home:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XWORKMATE_HOME": home}
        env.pop("XWORKMATE_DATABASE_URL", None)
        # The smoke test as the command runs it, with the paint marks on (app_startup.py).
        app_cmd = [sys.executable, str(here / "app_startup.py")]
        bare_cmd = [sys.executable, str(here / "bare_panes.py")]
        stack_cmd = [sys.executable, str(here / "bare_stack.py")]
        _time(app_cmd, env)  # first run migrates the new database; not counted
        _seed_lines(Path(home))
        runs: dict[str, list[tuple[float, float, float, float]]] = {"app": [], "bare": [], "stack": []}
        for _ in range(RUNS):  # interleaved, so drift hits all alike
            runs["app"].append(_time(app_cmd, env))
            runs["bare"].append(_time(bare_cmd, env))
            runs["stack"].append(_time(stack_cmd, env))
    # median of each column: 0 the whole run (to exit), 1 the first paint, 2 the filled task list, 3 ready
    app, bare, stack = ([median([r[i] for r in runs[name]]) for i in range(4)] for name in ("app", "bare", "stack"))
    paint_ratio = app[1] / bare[1]
    filled_ratio = app[2] / stack[2]
    whole = {
        "app_ms": app[0] * 1000,
        "bare_ms": bare[0] * 1000,
        "bare_with_stack_ms": stack[0] * 1000,
        "whole_run_over_bare": app[0] / bare[0],
        "whole_run_over_stack": app[0] / stack[0],
    }
    return [
        # Issue 19, item 7: the window is painted before the store opens (and before the panes are built).
        Figure(
            name="start-up: first painted window / bare PySide6 (median)",
            value=paint_ratio,
            unit="x",
            target=f"<= {TARGET_RATIO}x",
            met=paint_ratio <= TARGET_RATIO,
            reference=bare[1] * 1000,
            reference_label="ms bare first paint",
            notes={
                "app_first_paint_ms": app[1] * 1000,
                "bare_first_paint_ms": bare[1] * 1000,
                # The same panes after importing SQLAlchemy + ORM and pydantic: the stack's own floor.
                "stack_first_paint_ms": stack[1] * 1000,
                "stack_floor_ratio": stack[1] / bare[1],
                "runs": RUNS,
                **whole,
            },
        ),
        # Issue 19: the task list painted with its rows, after the store opened on a worker.
        Figure(
            name="start-up: filled task list / bare panes after importing the stack (median)",
            value=filled_ratio,
            unit="x",
            target=f"<= {STACK_TARGET_RATIO}x",
            met=filled_ratio <= STACK_TARGET_RATIO,
            reference=stack[2] * 1000,
            reference_label="ms bare panes + stack painted",
            notes={
                "app_filled_ms": app[2] * 1000,
                "lines": SEEDED_LINES + 1,
                # The window's own list, over the open store: the window can be used from here on.
                "app_ready_ms": app[3] * 1000,
                "ready_over_stack": app[3] / stack[2],
                "runs": RUNS,
            },
        ),
    ]
