"""What XWorkmate starts for agents runs at a lower CPU priority than the window (issue 34 item 1).

Twenty lines at work can ask for more CPU than the machine has: their agent CLIs streaming, the commands
their tools run, git taking their checkpoints. The kernel shares the cores out evenly between everything
that wants one, so the window's GUI thread then waits its turn behind them: a switch, a keystroke or a
frame comes late (seen while twenty lines started their turns on two cores: the GUI thread waited for a
core for most of each late tick, while working a few milliseconds of it). With these processes at a higher
nice value (``AGENT_NICE``), the kernel gives the window a core first, and an agent alone on an idle core
still runs at full speed: only who waits changes when both want one.

An agent cannot undo it: an unprivileged process may raise its nice value but not lower it (the default
``RLIMIT_NICE`` allows no lowering), inside the sandbox or not, and what it starts inherits the value.
What a person starts and waits on runs as the window does: a sign-in terminal, a restore, a diff.

The turns' own thread in this process (``controllers.store_thread``: each streamed delta stored, a turn's
records) is an agent's work as well: it runs at ``AGENT_NICE`` above the window too
(``lower_this_thread``; Linux sets a nice value per thread), so it does not take the core the GUI thread
waits for. The window's store worker does not: what a person asked for and waits on runs there.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
from collections.abc import Iterator, Sequence
from contextvars import ContextVar

AGENT_NICE = 10
"""How much higher than the window's the nice value of an agent's processes is. At 10 the kernel gives a
nice-0 thread about ten times the CPU share of such a process when both are runnable (its weight 1024
against 110)."""

_BACKGROUND: ContextVar[bool] = ContextVar("xworkmate_background_work", default=False)


def agent_argv(argv: Sequence[str], path: str | None = None) -> list[str]:
    """``argv`` started at ``AGENT_NICE`` above this process by ``nice(1)``, which sets it before the command
    runs, so every process the command starts inherits it. As is where no ``nice`` is on the ``PATH``, or
    where the command is not found on ``path`` (the child's ``PATH``; this process's when ``None``): its
    start then fails as it always did, saying so, not with ``nice``'s words."""
    nice = shutil.which("nice")
    if nice is None or not argv or shutil.which(argv[0], path=path) is None:
        return list(argv)
    return [nice, "-n", str(AGENT_NICE), *argv]


@contextlib.contextmanager
def background() -> Iterator[None]:
    """Within it, the processes this thread (or task) starts through ``background_argv`` are an agent's
    work (a turn's checkpoint), not something a person waits on."""
    token = _BACKGROUND.set(True)
    try:
        yield
    finally:
        _BACKGROUND.reset(token)


def background_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` as ``agent_argv`` has it within ``background``, else as is."""
    return agent_argv(argv) if _BACKGROUND.get() else list(argv)


def lower_this_thread() -> None:
    """The calling thread's nice value raised by ``AGENT_NICE`` (at most 19): Linux keeps one per thread, and
    a thread may raise its own. Elsewhere, or where the kernel refuses, nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, min(19, os.getpriority(os.PRIO_PROCESS, thread) + AGENT_NICE))
    except OSError:
        pass
