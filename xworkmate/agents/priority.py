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

A nice value counts only against processes of the same *session*, though, where the kernel groups processes by
session (its "autogroups", built into many distributions' kernels and on there unless a CPU cgroup of its own holds
the process; this host's among them): each session then gets an even share of the cores whatever its processes'
nice values. An agent's process starts a session of its own (so that Stop reaches all it started), and the sandbox
starts another inside (``bwrap --new-session``): each competed with the whole window at full weight, and a shell
command run with ``setsid`` undid the lowering. ``watch_sessions(pid)`` gives every session found under an agent's
process the same ``AGENT_NICE`` (``SessionWatch``), now and as it starts more.

The turns' own thread in this process (``controllers.store_thread``: each streamed delta stored, a turn's
records) is an agent's work as well: it runs at ``AGENT_NICE`` above the window too
(``lower_this_thread``; Linux sets a nice value per thread), so it does not take the core the GUI thread
waits for. The window's store worker does not: what a person asked for and waits on runs there.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextvars import ContextVar

from xworkmate.proc_stat import process_started

log = logging.getLogger(__name__)

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


WATCH_THREAD = "xworkmate-agent-sessions"
SESSION_SOON_S = 0.1
"""How often the sessions under an agent's processes are looked for in the first ``SESSION_BUSY_S`` after one started,
and how soon a refused change is tried again: the kernel takes one unprivileged change of a session's nice value per
100 ms, machine-wide (more come back as ``EAGAIN``)."""
SESSION_BUSY_S = 2.0
SESSION_LATER_S = 1.0
"""How often they are looked for afterwards, while any agent's process runs (a session it starts later)."""


def _proc_line(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as file:
            return file.read()
    except OSError:
        return None


def _children(pid: int) -> list[int]:
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        listed = _proc_line(f"/proc/{pid}/task/{task}/children")
        found += [int(child) for child in listed.split()] if listed else []
    return found


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode("ascii"))
    finally:
        os.close(fd)


def _autogroup(pid: int) -> tuple[str, int] | None:
    """``pid``'s session group and its nice value (``/proc/PID/autogroup``: ``/autogroup-12 nice 0``)."""
    line = _proc_line(f"/proc/{pid}/autogroup")
    parts = line.split() if line else []
    if len(parts) != 3 or parts[1] != "nice":
        return None
    try:
        return parts[0], int(parts[2])
    except ValueError:
        return None


class SessionWatch:
    """Gives each session group found under the processes it watches (``watch(pid)``: an agent's process, at its
    start) the nice value ``AGENT_NICE`` above the window's, on one thread of its own; never the window's own group.

    Where the kernel has no session groups (another system, a kernel built without them, or them turned off),
    it does nothing. A change refused for the kernel's pace is tried again at the next look."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roots: dict[int, str] = {}  # pid: when it started
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()
        self._busy_until = 0.0
        self.lowered = 0  # session groups given the agents' nice value (counted for the tests)
        own = _autogroup(os.getpid())
        enabled = (_proc_line("/proc/sys/kernel/sched_autogroup_enabled") or "1").strip() != "0"
        self._own = own[0] if own is not None and enabled and sys.platform.startswith("linux") else None
        self._nice = min(19, (own[1] if own is not None else 0) + AGENT_NICE)

    def watch(self, pid: int) -> None:
        """Look after the sessions of ``pid`` and of every process it starts, from now until it is gone."""
        if self._own is None or not (started := process_started(pid)):
            return
        with self._lock:
            self._roots[pid] = started
            self._busy_until = time.monotonic() + SESSION_BUSY_S
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=WATCH_THREAD, daemon=True)
                self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        lower_this_thread()  # bookkeeping for the agents: below the window too
        while True:
            self._wake.clear()
            try:
                refused = self.look()
            except Exception:  # never let the watch end the process's work: log it and stop watching
                log.warning("could not lower the agents' session priority", exc_info=True)
                refused = False
            with self._lock:
                if not self._roots:
                    self._thread = None
                    return
                busy = refused or time.monotonic() < self._busy_until
            self._wake.wait(SESSION_SOON_S if busy else SESSION_LATER_S)

    def look(self) -> bool:
        """One look at every watched process and what it started now; True when the kernel refused a change for
        its pace (to be tried again soon)."""
        with self._lock:
            roots = dict(self._roots)
        gone = [pid for pid, started in roots.items() if process_started(pid) != started]
        refused = False
        seen: set[str] = set()
        for root in roots.keys() - gone:
            pending = [root]
            while pending:
                pid = pending.pop()
                pending += _children(pid)
                group = _autogroup(pid)
                if group is None or group[0] == self._own or group[0] in seen or group[1] >= self._nice:
                    continue
                seen.add(group[0])
                try:
                    _write(f"/proc/{pid}/autogroup", str(self._nice))
                    self.lowered += 1
                except BlockingIOError:
                    refused = True
                except OSError:  # gone meanwhile, or not ours to change
                    pass
        with self._lock:
            for pid in gone:
                if self._roots.get(pid) == roots[pid]:
                    del self._roots[pid]
        return refused


_SESSIONS: SessionWatch | None = None
_SESSIONS_LOCK = threading.Lock()


def watch_sessions(pid: int) -> None:
    """The sessions of agent process ``pid`` and of what it starts run at ``AGENT_NICE`` above the window's, too
    (from any thread: a tool's command starts on a worker, an ACP agent on the loop)."""
    global _SESSIONS
    with _SESSIONS_LOCK:
        if _SESSIONS is None:
            _SESSIONS = SessionWatch()
        watch = _SESSIONS
    watch.watch(pid)
