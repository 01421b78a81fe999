"""The agent's child process: spawning, stdout checked line by line, stderr kept, timeouts, reaping."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from acp import RequestError, connect_to_agent
from acp.client.connection import ClientSideConnection
from acp.connection import StreamDirection, StreamEvent
from acp.interfaces import Client
from pydantic import ValidationError

from xworkmate.agents.acp.errors import (
    AcpAgentError,
    AcpAgentExited,
    AcpAgentTimeout,
    AcpCommandNotFound,
    AcpProtocolError,
    command_label,
)
from xworkmate.agents.acp.reports import AcpTimeouts
from xworkmate.agents.priority import agent_argv, watch_sessions
from xworkmate.agents.sandbox import Sandbox, SandboxUnavailable

log = logging.getLogger(__name__)


_STREAM_LIMIT = 50 * 1024 * 1024  # the SDK's own default for one JSON-RPC line

_STDERR_TAIL_LINES = 20
_POLL = 0.02


def connect(client: Client, agent: _AgentProcess) -> ClientSideConnection:
    """The JSON-RPC connection to ``agent``'s stdio, with notifications it does not know ignored quietly.

    Issue 32, item 2 (ERR-1): an agent's own notification (``qwen/notify/...``) or a session update of a
    kind this client's schema lacks is written to the log at debug level; the SDK would otherwise log a
    traceback, which reaches ``xworkmate run``'s stderr. Unknown *requests* are still answered -32601.
    """
    assert agent.process is not None and agent.process.stdin is not None
    # The SDK routes ``elicitation/create`` only with its "unstable" switch; the method is stable in ACP v1
    # since July 2026 (issue 32 item 3). It changes nothing else on the client side.
    connection = connect_to_agent(client, agent.process.stdin, agent.reader, use_unstable_protocol=True)
    rpc = connection._conn
    handle = rpc._handler

    async def quietly(method: str, params: Any | None, is_notification: bool) -> Any:
        if not is_notification:
            return await handle(method, params, is_notification)
        try:
            return await handle(method, params, is_notification)
        except RequestError as exc:
            if exc.code != -32601:
                raise
            log.debug("ACP notification %s ignored: this client does not handle it", method)
        except ValidationError as exc:
            errors = exc.error_count()
            log.debug("ACP notification %s ignored: it does not match the schema (%d errors)", method, errors)
        return None

    rpc._handler = quietly
    trace = os.environ.get(TRACE_ENV)
    if trace:
        rpc.add_observer(_Tracer(trace))
    return connection


TRACE_ENV = "XWORKMATE_ACP_TRACE"
"""A file to append every JSON-RPC message to, one JSON object a line (``{"conn", "dir": "out"|"in", "msg"}``).

For tests and debugging (issue 32, item 7: the tests validate the traffic against the official schema).
The file holds the conversation as the agent saw it: set it only where that is fine to keep."""


class _Tracer:
    def __init__(self, path: str) -> None:
        self.path = path
        self.conn = f"{os.getpid()}-{id(self):x}"  # one connection's ids are matched among themselves

    def __call__(self, event: StreamEvent) -> None:
        direction = "out" if event.direction is StreamDirection.OUTGOING else "in"
        line = json.dumps({"conn": self.conn, "dir": direction, "msg": event.message})
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)


class _AgentProcess:
    """The agent process: spawning, stdout checked line by line, stderr kept, timeouts, reaping."""

    STARTUP_PHASES = frozenset({"initialize", "authenticate", "session/new", "session/load", "session/resume"})

    def __init__(self, command: tuple[str, ...], timeouts: AcpTimeouts) -> None:
        self.command = command
        self.timeouts = timeouts
        self.process: asyncio.subprocess.Process | None = None
        self.reader = asyncio.StreamReader(limit=_STREAM_LIMIT)
        self.failure: asyncio.Future[AcpAgentError] = asyncio.get_running_loop().create_future()
        self.phase = "start"
        self.paused = 0
        self._last_activity = asyncio.get_running_loop().time()
        self._stderr: deque[str] = deque(maxlen=_STDERR_TAIL_LINES)
        self.on_stderr: Callable[[str], None] | None = None
        """Each line of the agent's stderr, as it comes (the turn reads what agents report there: issue 32 item 5)."""
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False
        self._close_task: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def start(self, executable: str, cwd: Path, env: Mapping[str, str], sandbox: Sandbox | None = None) -> None:
        # The sandbox's mounts and the PATH looked up on a worker: the loop is the window's, and twenty lines'
        # streams wait behind it (~6 ms of disk work an agent's start, issue 34 item 1).
        argv = await asyncio.to_thread(self._argv, executable, env.get("PATH"), sandbox)
        try:
            self.process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=cwd,
                env=dict(env),
                limit=_STREAM_LIMIT,
                # Its own process group, so that stopping it also stops what it started.
                start_new_session=os.name == "posix",
            )
        except FileNotFoundError as exc:
            raise AcpCommandNotFound(self.command, str(exc)) from None
        except OSError as exc:
            raise AcpAgentError(
                self.command, f"cannot start ACP agent {command_label(self.command)}: {exc.strerror or exc}"
            ) from None
        watch_sessions(self.process.pid)  # its sessions below the window too (agents.priority)
        self._tasks = [
            asyncio.create_task(self._pump_stdout(), name="acp.stdout"),
            asyncio.create_task(self._pump_stderr(), name="acp.stderr"),
            asyncio.create_task(self._watchdog(), name="acp.watchdog"),
        ]

    def _argv(self, executable: str, path: str | None, sandbox: Sandbox | None) -> list[str]:
        """The command in its sandbox, below the window's CPU priority (issue 34 item 1)."""
        argv = [executable, *self.command[1:]]
        if sandbox is not None and sandbox.available:
            try:
                argv = sandbox.wrap(argv)
            except SandboxUnavailable as exc:
                raise AcpAgentError(self.command, str(exc)) from None
        return agent_argv(argv, path)

    # -- state seen by the turn

    def enter(self, phase: str) -> None:
        self.phase = phase
        self.touch()

    def touch(self) -> None:
        self._last_activity = asyncio.get_running_loop().time()

    @contextlib.contextmanager
    def paused_clock(self) -> Iterator[None]:
        """While a person decides, the agent is rightly silent: the idle timeout waits too."""
        self.paused += 1
        try:
            yield
        finally:
            self.paused -= 1
            self.touch()

    def stderr_tail(self) -> str:
        for line in reversed(self._stderr):
            if line.strip():
                text = " ".join(line.split())
                return text if len(text) <= 200 else text[:197] + "..."
        return ""

    def fail(self, error: AcpAgentError) -> None:
        if not self._closing and not self.failure.done():
            self.failure.set_result(error)

    async def exited(self, timeout: float) -> int | None:
        """The return code once the process has exited (and been reaped), or None after ``timeout``.

        Polls ``returncode``: ``Process.wait()`` also waits for the pipes, which a
        grandchild may hold open.
        """
        assert self.process is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.process.returncode is None and loop.time() < deadline:
            await asyncio.sleep(_POLL)
        return self.process.returncode

    # -- background tasks

    async def _pump_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout
        try:
            while True:
                try:
                    line = await stdout.readline()
                except ValueError:
                    self.fail(AcpProtocolError(self.command, self.phase, "a line on stdout exceeds 50 MB"))
                    return
                if not line:
                    break
                self.touch()
                stripped = line.strip()
                if not stripped:
                    continue
                try:
                    message = json.loads(stripped)
                except ValueError:
                    message = None
                if not isinstance(message, dict):
                    shown = stripped[:80].decode("utf-8", "replace")
                    self.fail(
                        AcpProtocolError(
                            self.command, self.phase, f"it wrote {shown!r} on stdout, which is not a JSON-RPC message"
                        )
                    )
                    return
                self.reader.feed_data(line if line.endswith(b"\n") else line + b"\n")
        finally:
            self.reader.feed_eof()
        returncode = await self.exited(self.timeouts.exit_grace)
        await asyncio.sleep(0.05)  # let the last stderr lines arrive
        self.fail(AcpAgentExited(self.command, returncode, self.phase, self.stderr_tail()))

    async def _pump_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        while True:
            try:
                line = await self.process.stderr.readline()
            except ValueError:
                continue
            if not line:
                return
            text = line.decode("utf-8", "replace").rstrip()
            self._stderr.append(text)
            log.debug("acp agent %s stderr: %s", self.command[0], text)
            if self.on_stderr is not None:
                try:
                    self.on_stderr(text)
                except Exception:  # a reader's bug must not stop the pump (the agent would block on a full pipe)
                    log.exception("reading the agent's stderr line failed")

    async def _watchdog(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            startup = self.phase in self.STARTUP_PHASES
            limit = self.timeouts.startup if startup else self.timeouts.idle
            if limit is None or self.paused or self.phase == "start":
                await asyncio.sleep(0.1)
                continue
            remaining = self._last_activity + limit - loop.time()
            if remaining <= 0:
                self.fail(AcpAgentTimeout(self.command, self.phase, limit, idle=not startup))
                return
            await asyncio.sleep(min(remaining, 0.25))

    # -- the end

    async def close_reaped(self, connection: ClientSideConnection | None = None) -> None:
        """Stop the process however it is doing and reap it. Never raises; survives repeated cancellation."""
        if self._close_task is None:
            self._close_task = asyncio.create_task(self._close(connection))
        task = self._close_task
        cancelled = False
        while not task.done():
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                cancelled = True
            except Exception:
                log.exception("stopping ACP agent %s failed", self.command[0])
        if cancelled:
            raise asyncio.CancelledError

    async def _close(self, connection: ClientSideConnection | None) -> None:
        self._closing = True
        process = self.process
        if process is None:
            return
        watchdog = self._tasks[2] if len(self._tasks) == 3 else None
        if watchdog is not None:
            watchdog.cancel()
        if connection is not None:
            closing = asyncio.create_task(connection.close())
            await asyncio.wait({closing}, timeout=1.0)
        else:
            closing = None
        # End of input asks a well-behaved agent to leave.
        if process.stdin is not None:
            with contextlib.suppress(Exception):
                process.stdin.close()
        if await self.exited(self.timeouts.exit_grace) is None:
            self._signal(signal.SIGTERM)
            if await self.exited(self.timeouts.kill_grace) is None:
                self._signal(signal.SIGKILL if os.name == "posix" else signal.SIGTERM)
                while process.returncode is None:
                    await asyncio.sleep(_POLL)
        if closing is not None:
            await asyncio.wait({closing})
            if not closing.cancelled() and closing.exception() is not None:
                log.debug("closing the ACP connection: %r", closing.exception())
        if process.stdin is not None:
            stdin_closed = asyncio.ensure_future(process.stdin.wait_closed())
            await asyncio.wait({stdin_closed}, timeout=1.0)
            if not stdin_closed.done():
                stdin_closed.cancel()
            await asyncio.wait({stdin_closed})
            if not stdin_closed.cancelled():
                stdin_closed.exception()  # a broken pipe here is expected
        pumps = [t for t in self._tasks if t is not watchdog]
        if pumps:
            _, pending = await asyncio.wait(pumps, timeout=1.0)
            for t in pending:  # a grandchild still holds the pipes open
                t.cancel()
            await asyncio.wait(pumps)
            if pending:
                transport = getattr(process, "_transport", None)
                if transport is not None:
                    transport.close()
        if watchdog is not None:
            await asyncio.wait({watchdog})

    def _signal(self, sig: signal.Signals) -> None:
        process = self.process
        if process is None or process.returncode is not None:
            return
        try:
            if os.name == "posix":
                # The whole group (its pid), so what the agent started stops too; it has not
                # been seen to exit, and on Linux a group id is not reused while members live.
                os.killpg(process.pid, sig)
            else:
                process.terminate() if sig == signal.SIGTERM else process.kill()
        except ProcessLookupError:
            pass
        except PermissionError:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(sig)
