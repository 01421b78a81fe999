"""The one process machinery behind ``run_command`` and ACP terminals (SBX-1): a contained argv, a process group
that is killed whole, bounded output.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from xworkmate.agents.confinement import (
    ToolError,
)
from xworkmate.agents.priority import agent_argv, watch_sessions
from xworkmate.agents.sandbox import Sandbox, SandboxUnavailable
from xworkmate.agents.tools.context import _READ_CHUNK, ToolLimits

logger = logging.getLogger(__name__)


class OutputSink(Protocol):
    """Where ``run_process`` puts what the command prints (stdout and stderr together)."""

    def feed(self, chunk: bytes) -> None: ...


@dataclass(frozen=True)
class ProcessEnd:
    """How a ``run_process`` command ended. ``returncode`` as ``Popen`` has it (negative: a signal);
    ``killed``: we stopped it (timeout or ``stop``), so its return code says nothing of its own."""

    returncode: int
    timed_out: bool
    cancelled: bool
    pipe_held: bool

    @property
    def killed(self) -> bool:
        return self.timed_out or self.cancelled


def contained_argv(argv: Sequence[str], sandbox: Sandbox | None, notes: list[str] | None = None) -> list[str]:
    """``argv`` wrapped in ``sandbox`` when it can run (SBX-1); otherwise as is, which only an
    approval may allow (the caller's job), noted in ``notes``."""
    if sandbox is not None and sandbox.available:
        try:
            return sandbox.wrap(argv)
        except SandboxUnavailable as exc:
            raise ToolError(str(exc)) from exc
    if sandbox is not None and notes is not None:
        notes.append(f"ran without a sandbox, as the person approved ({sandbox.status.detail})")
    return list(argv)


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None,
    capture: OutputSink,
    timeout_s: float,
    stop: threading.Event | None,
    limits: ToolLimits,
    on_start: Callable[[], None] | None = None,
) -> ProcessEnd:
    """Run ``argv`` in its own process group until it ends, times out or ``stop`` is set; blocks.

    Output goes to ``capture`` as it arrives; ``on_start`` is called once it runs. However the
    command ends, its whole group is killed and the process reaped, so nothing it started
    outlives it (SBX-1).
    """
    deadline = time.monotonic() + timeout_s
    try:
        process = subprocess.Popen(
            agent_argv(argv, (env if env is not None else os.environ).get("PATH")),  # below the window (issue 34)
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a kill reaches grandchildren
            env=dict(env) if env is not None else None,
            close_fds=True,
        )
    except OSError as exc:
        raise ToolError(f"could not start the command: {exc.strerror or exc}") from exc
    watch_sessions(process.pid)  # its sessions below the window too (agents.priority)
    if on_start is not None:
        on_start()
    assert process.stdout is not None
    pipe = process.stdout
    timed_out = cancelled = pipe_held = False
    try:
        fd = pipe.fileno()
        os.set_blocking(fd, False)
        with selectors.DefaultSelector() as selector, _exit_notifier(process) as exit_fd:
            selector.register(fd, selectors.EVENT_READ)
            exited_at: float | None = None
            end_of_output = False
            while True:
                now = time.monotonic()
                if stop is not None and stop.is_set():
                    cancelled = True
                    break
                if now >= deadline:
                    timed_out = True
                    break
                if exited_at is None and _has_exited(process):
                    exited_at = now
                if exited_at is not None and end_of_output:
                    break
                if exited_at is not None and now - exited_at > limits.command_drain_grace_s:
                    pipe_held = True
                    break
                wait = min(0.1, deadline - now)
                if end_of_output:
                    # Output closed, the shell still runs: wake when it exits (a pidfd), else poll.
                    if exit_fd is None:
                        time.sleep(min(0.02, wait))
                    else:
                        _wait_readable(exit_fd, wait)
                elif selector.select(wait) and not _drain(fd, capture):
                    end_of_output = True
                    selector.unregister(fd)
    finally:
        returncode = _kill_group(process, graceful=timed_out or cancelled, grace_s=limits.command_kill_grace_s)
        pipe.close()
    return ProcessEnd(returncode=returncode, timed_out=timed_out, cancelled=cancelled, pipe_held=pipe_held)


def _drain(fd: int, capture: OutputSink) -> bool:
    """Read what is available; False at end of file."""
    for _ in range(64):  # bounded, so timeouts and cancellation are still checked
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        capture.feed(chunk)
    return True


@contextlib.contextmanager
def _exit_notifier(process: subprocess.Popen[bytes]) -> Iterator[int | None]:
    """A pidfd that becomes readable when ``process`` exits (Linux 5.3+), else None (poll instead)."""
    pidfd_open = getattr(os, "pidfd_open", None)
    try:
        fd = pidfd_open(process.pid) if pidfd_open is not None else None
    except OSError:
        fd = None
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def _wait_readable(fd: int, timeout: float) -> None:
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        selector.select(timeout)


def _has_exited(process: subprocess.Popen[bytes]) -> bool:
    # WNOWAIT: look without reaping, so the shell's pid (= the group id) cannot be
    # reused by an unrelated process before we signal the group.
    waitid = getattr(os, "waitid", None)
    if waitid is None:
        return process.poll() is not None
    try:
        return waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _kill_group(process: subprocess.Popen[bytes], graceful: bool, grace_s: float) -> int:
    """Kill the command's whole process group and reap its leader; the leader's return code."""
    pgid = process.pid  # start_new_session: the shell leads its own group
    if graceful:
        _signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while not _has_exited(process) and time.monotonic() < deadline:
            time.sleep(0.02)
    _signal_group(pgid, signal.SIGKILL)
    return process.wait()


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass
    except PermissionError:  # pragma: no cover - only if the group id was reused by another user
        logger.error("could not signal process group %d", pgid)


class _OutputCapture:
    """Keeps the first and the last half of the allowed bytes, counts the rest."""

    def __init__(self, limit: int) -> None:
        self._head_limit = limit // 2
        self._tail_limit = limit - self._head_limit
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            excess = len(self._tail) - self._tail_limit
            if excess > 0:
                del self._tail[:excess]

    @property
    def dropped(self) -> int:
        return self.total - len(self._head) - len(self._tail)

    def text(self) -> str:
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        if not self.dropped:
            return head + tail
        return (
            f"{head}\n[... {self.dropped:,} bytes of output dropped; showing the first "
            f"{len(self._head):,} and the last {len(self._tail):,} of {self.total:,} bytes ...]\n{tail}"
        )


class TailCapture:
    """Keeps the last ``limit`` bytes (an ACP terminal's ``outputByteLimit``: truncated from the
    beginning); safe to read from another thread while ``run_process`` feeds it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._data = bytearray()
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        with self._lock:
            self.total += len(chunk)
            self._data += chunk
            excess = len(self._data) - self.limit
            if excess > 0:
                del self._data[:excess]

    def snapshot(self) -> tuple[str, bool]:
        """The text kept, starting at a character boundary, and whether anything was dropped."""
        with self._lock:
            data = bytes(self._data)
            truncated = self.total > len(data)
        if truncated:
            # Skip UTF-8 continuation bytes so the kept text starts on a whole character.
            start = 0
            while start < len(data) and start < 4 and data[start] & 0xC0 == 0x80:
                start += 1
            data = data[start:]
        return data.decode("utf-8", errors="replace"), truncated
