"""6. Sandbox overhead per command (SBX-1, issue 12).

The figure is the median wall time of ``run_command("true")`` in a line's real
bubblewrap sandbox (the policy a line gets: data folder and other lines hidden,
private home and /tmp, toolchains shown again) minus the median of the same
call unsandboxed, measured alternately in the same run. Target: at most 15 ms.
The reference is the unsandboxed median itself.
"""

from __future__ import annotations

import time
from pathlib import Path

from benchmarks.common import Figure, median, temp_home
from xworkmate.agents.workspace_tools import ToolContext, run_command
from xworkmate.controllers import SessionController
from xworkmate.controllers.containment import line_sandbox, sandbox_env
from xworkmate.store import open_store

REPEATS = 60


def _time(ctx: ToolContext) -> float:
    started = time.perf_counter()
    outcome = run_command(ctx, "true")
    elapsed = (time.perf_counter() - started) * 1000
    if outcome.exit_code != 0:
        raise RuntimeError(f"`true` failed: {outcome.output}")
    return elapsed


def run() -> list[Figure]:
    with temp_home() as settings:
        store = open_store(settings.effective_database_url)
        try:
            controller = SessionController(store, settings)
            for _ in range(20):  # other lines' folders to hide, as on a real day
                controller.create_line()
            thread = controller.create_line("bench")
            sandbox = line_sandbox(settings, store, thread)
            if not sandbox.available:
                raise RuntimeError(f"no sandbox here: {sandbox.status.detail}")
            folder = Path(thread.workspace_binding.path or "")
            base = ToolContext.for_working_directory(folder, lambda: ())
            env = sandbox_env(thread)
            bare = ToolContext(write_gate=base.write_gate, command_env=env)
            boxed = ToolContext(write_gate=base.write_gate, command_env=env, sandbox=sandbox)
            for ctx in (bare, boxed):  # warm the page cache and the probe
                _time(ctx)
            bare_ms: list[float] = []
            boxed_ms: list[float] = []
            for _ in range(REPEATS):
                bare_ms.append(_time(bare))
                boxed_ms.append(_time(boxed))
        finally:
            store.close()
    overhead = median(boxed_ms) - median(bare_ms)
    return [
        Figure(
            name="sandbox: overhead of one command (bubblewrap)",
            value=overhead,
            unit="ms",
            target="<= 15 ms",
            met=overhead <= 15,
            reference=median(bare_ms),
            reference_label="ms median unsandboxed `true`",
            notes={"sandboxed_median_ms": median(boxed_ms), "repeats": REPEATS},
        )
    ]
