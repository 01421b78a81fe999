"""What Linux's ``/proc/PID/stat`` says of a process: its state and when it started.

One home for the read, below every layer (like ``lazy`` and ``home``; nothing of ours, standard library only):
the store's turn owners use it to tell a dead turn's process from a live one and a pid used again later
(``store.turn_owners``), the agents' CPU priority to tell a watched agent from a later process with its pid
(``agents.priority``).
"""

from __future__ import annotations

import sys


def process_stat(pid: int) -> tuple[str, str]:
    """``pid``'s state letter and start time (fields 3 and 22: the kernel's clock ticks since boot);
    ``('', '')`` where that is not known (no such process, or not Linux)."""
    if not sys.platform.startswith("linux"):
        return "", ""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            text = stat.read()
    except OSError:
        return "", ""
    fields = text[text.rfind(")") + 2 :].split()  # the name may hold spaces and parentheses
    return (fields[0], fields[19]) if len(fields) > 19 else ("", "")


def process_started(pid: int) -> str:
    """When ``pid`` started ('' where that is not known): a pid used again later names another process."""
    return process_stat(pid)[1]
