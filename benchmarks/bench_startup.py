"""1. Start-up: ``xworkmate gui --smoke-test`` against a bare PySide6 script with the same three panes, and
against the same panes after importing the stack (SQLAlchemy, pydantic): issue 19, item 7."""

from __future__ import annotations

import compileall
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, median

RUNS = 7
TARGET_RATIO = 1.5
STACK_TARGET_RATIO = 1.1  # issue 19, item 7


def _time(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or proc.stdout.strip() != "ok":
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[-500:]}")
    return elapsed


def _compile_bytecode() -> None:
    """What an installed copy has: pip and the bundle ship bytecode. Without it (an editable
    install under PYTHONDONTWRITEBYTECODE, as on CI machines) every start compiles our modules."""
    import xworkmate

    compileall.compile_dir(Path(xworkmate.__file__).parent, quiet=1)


def run() -> list[Figure]:
    _compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="xw-bench-start-") as home:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XWORKMATE_HOME": home}
        env.pop("XWORKMATE_DATABASE_URL", None)
        app_cmd = [sys.executable, "-m", "xworkmate", "gui", "--smoke-test"]
        bare_cmd = [sys.executable, str(Path(__file__).with_name("bare_panes.py"))]
        stack_cmd = [sys.executable, str(Path(__file__).with_name("bare_stack.py"))]
        _time(app_cmd, env)  # first run migrates the new database; not counted
        app_times, bare_times, stack_times = [], [], []
        for _ in range(RUNS):  # interleaved, so drift hits all alike
            app_times.append(_time(app_cmd, env))
            bare_times.append(_time(bare_cmd, env))
            stack_times.append(_time(stack_cmd, env))
    app_s, bare_s, stack_s = median(app_times), median(bare_times), median(stack_times)
    ratio = app_s / bare_s
    over_stack = app_s / stack_s
    return [
        Figure(
            name="start-up: smoke test / bare PySide6 (median)",
            value=ratio,
            unit="x",
            target=f"<= {TARGET_RATIO}x",
            met=ratio <= TARGET_RATIO,
            reference=bare_s * 1000,
            reference_label="ms bare",
            notes={
                "app_ms": app_s * 1000,
                "bare_ms": bare_s * 1000,
                # The same panes after importing SQLAlchemy + ORM and pydantic: the stack's own floor.
                "bare_with_stack_ms": stack_s * 1000,
                "stack_floor_ratio": stack_s / bare_s,
                "app_over_stack_floor": app_s / stack_s,
                "runs": RUNS,
            },
        ),
        # Issue 19: the smoke test ends with the task list filled, so it is the "filled task list" time.
        Figure(
            name="start-up: filled task list / bare panes after importing the stack (median)",
            value=over_stack,
            unit="x",
            target=f"<= {STACK_TARGET_RATIO}x",
            met=over_stack <= STACK_TARGET_RATIO,
            reference=stack_s * 1000,
            reference_label="ms bare panes + stack",
            notes={"app_ms": app_s * 1000, "runs": RUNS},
        ),
    ]
