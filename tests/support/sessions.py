"""Session groups (the kernel's autogroups) for the tests of ``agents.priority`` (issue 34 item 1)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from xworkmate.agents.priority import AGENT_NICE


def group_nice(pid: int | str = "self") -> int | None:
    """The nice value of ``pid``'s session group; None where the kernel groups no sessions (or it is gone)."""
    try:
        enabled = Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() != "0"
        return int(Path(f"/proc/{pid}/autogroup").read_text().split()[2]) if enabled else None
    except (OSError, IndexError, ValueError):
        return None


GROUP_OWN = group_nice()
GROUP_AGENTS = min((GROUP_OWN or 0) + AGENT_NICE, 19)
needs_autogroups = pytest.mark.skipif(GROUP_OWN is None, reason="this kernel does not share the cores by session")


def group_nice_soon(pid: int, wanted: int = GROUP_AGENTS, within_s: float = 5.0) -> int | None:
    """``pid``'s session group's nice value once it is ``wanted``, or as it is after ``within_s``."""
    deadline = time.monotonic() + within_s
    while (nice := group_nice(pid)) != wanted and time.monotonic() < deadline:
        time.sleep(0.02)
    return nice
