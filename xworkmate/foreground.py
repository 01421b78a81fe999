"""What a person waits for on the GUI thread comes first: background threads step aside meanwhile (issue 34 item 1).

The interpreter runs one thread's Python at a time, and PySide6 lets its lock go around each Qt call. While the
window switches lines, the turns' store thread (twenty lines' streamed writes) takes the lock at each of those
calls, and the GUI thread waits for it back, up to the switch interval each time, longer when that thread, lowered
below the window as an agent's work is, holds it while the machine's other processes have the CPUs (its low
priority passes to the window). Measured in ``python -m benchmarks.ui_twenty_lines``, 13 interleaved pairs: a
switch's time to the paint spent neither on the GUI thread's CPU nor waiting for one, p95, median 2.4 ms without
this and 1.0 ms with it (1.3-4.4 against 0.1-4.2); the switch p95 8.2-13.3 ms (mean 10.8) against 5.9-13.0
(mean 9.4).

``held()``, on the GUI thread around such a moment (a switch, up to its paint), closes the gate; ``step_aside()``,
called by a background thread before each job it takes (the turns' store thread, the window's store worker, the
loop's executor), waits while it is closed, at most ``STEP_ASIDE_MAX_S``: background work is late by at most that,
never lost, and a job begun before the moment runs on. The thread holding the gate never waits for it (a window
without a loop runs its "off-thread" work at once, on the GUI thread).

Standard library only, below every layer (as ``lazy`` and ``proc_stat``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

STEP_ASIDE_MAX_S = 0.05
"""The longest a background job waits for the gate: a moment the person waits on takes a few milliseconds (a
switch's p95 is bounded at 16 ms); one that takes longer lets the background go on after this."""

_open = threading.Event()
_open.set()
_lock = threading.Lock()
_holder: int | None = None
_depth = 0


@contextmanager
def held() -> Iterator[None]:
    """Background threads step aside until this ends (nested holds on one thread end with the outermost)."""
    global _holder, _depth
    with _lock:
        _depth += 1
        if _depth == 1:
            _holder = threading.get_ident()
            _open.clear()
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _holder = None
                _open.set()


def is_held() -> bool:
    return not _open.is_set()


def step_aside() -> None:
    """Called by a background thread before a job: wait while the gate is held (at most ``STEP_ASIDE_MAX_S``)."""
    if _open.is_set() or threading.get_ident() == _holder:
        return
    _open.wait(STEP_ASIDE_MAX_S)
