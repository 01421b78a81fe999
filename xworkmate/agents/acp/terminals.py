"""ACP terminals: the commands an agent asks the client to run (issue 15 item 2, SBX-1, SBX-2).

``terminal/create`` starts a command in the line's folder (its ``cwd`` must resolve
inside it) with the same machinery and rules as the native ``run_command``
(``agents.tools.run_process``): the line's sandbox with the line's own network
setting, the line's environment allow-list plus what the agent passes (never
``XWORKMATE_*`` or a secret-looking name), its own process group, output kept up
to ``outputByteLimit`` (truncated from the beginning, as the ACP spec says).
Whether a person must approve it first is the turn's job (``acp.terminal_requests``); this
module prepares, runs, reports and stops. ``TurnTerminals.close`` kills and
releases every terminal of a turn: none outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import shlex
import signal
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from acp import RequestError
from acp.schema import EnvVariable, TerminalExitStatus, TerminalOutputResponse, WaitForTerminalExitResponse

from xworkmate.agents.confinement import ToolError, display_path, resolve_inside
from xworkmate.agents.native import command_environment
from xworkmate.agents.sandbox import Sandbox, command_env_name_problem
from xworkmate.agents.tools import (
    ProcessEnd,
    TailCapture,
    ToolLimits,
    contained_argv,
    run_process,
)

__all__ = ["TerminalPlan", "TurnTerminals", "terminal_refusal"]

log = logging.getLogger(__name__)

_ids = itertools.count(1)


def terminal_refusal(message: str, reason: str) -> RequestError:
    """The JSON-RPC error an agent gets for a terminal we will not run: one line saying why."""
    return RequestError(-32602, f"refused: {message}", {"reason": reason, "details": message})


@dataclass(frozen=True)
class TerminalPlan:
    """A checked ``terminal/create``: what will run, where, with which environment."""

    argv: tuple[str, ...]
    label: str
    cwd: Path
    env: Mapping[str, str]
    output_byte_limit: int
    dropped_env: tuple[str, ...] = ()


@dataclass
class _Terminal:
    id: str
    plan: TerminalPlan
    capture: TailCapture
    stop: threading.Event
    ended: asyncio.Future[ProcessEnd]
    notes: list[str] = field(default_factory=list)


class TurnTerminals:
    """The terminals of one ACP turn. ``sandbox`` is the line's (its network setting, not the
    agent's); ``env`` the line's allow-list. Without a usable sandbox the turn must have asked."""

    def __init__(
        self,
        working_directory: Path,
        *,
        sandbox: Sandbox | None,
        env: Mapping[str, str] | None,
        limits: ToolLimits | None = None,
    ) -> None:
        self.working_directory = working_directory
        self.sandbox = sandbox
        self.env = dict(env) if env is not None else command_environment()
        self.limits = limits or ToolLimits()
        self._live: dict[str, _Terminal] = {}
        self._cards: dict[str, str] = {}  # id → what its tool card shows, kept after release

    @property
    def sandboxed(self) -> bool:
        return self.sandbox is not None and self.sandbox.available

    def unsandboxed_reason(self) -> str | None:
        """SBX-1: why a terminal would run without a sandbox (shown on its approval card), or None."""
        if self.sandboxed:
            return None
        return self.sandbox.status.detail if self.sandbox is not None else "no sandbox was set up for this run"

    # -- terminal/create

    def plan(
        self,
        command: str,
        args: Sequence[str] | None,
        env: Sequence[EnvVariable] | None,
        cwd: str | None,
        output_byte_limit: int | None,
    ) -> TerminalPlan:
        """Check a ``terminal/create``; raises the one-line refusal the agent gets."""
        if not command.strip() or "\0" in command or any("\0" in a for a in args or ()):
            raise terminal_refusal("the terminal command is empty or contains a NUL byte", "invalid_command")
        try:
            # SBX-2: the command runs in the line's folder or below it, never elsewhere.
            where = resolve_inside(self.working_directory, cwd) if cwd else self.working_directory
        except ToolError as exc:
            raise terminal_refusal(f"cwd {cwd}: {exc}", exc.kind) from None
        if not where.is_dir():
            shown = display_path(self.working_directory, where)
            raise terminal_refusal(f"cwd {shown} is not a folder in the line's folder", "invalid_cwd")
        # A bare command line runs through the shell (agents send `npm test`); with args, as given.
        argv = (command, *args) if args else ("/bin/sh", "-c", command)
        label = shlex.join([command, *args]) if args else command
        if where != self.working_directory:
            # The sandbox starts in the line's folder (bwrap --chdir): step into the subfolder first.
            argv = ("/bin/sh", "-c", 'cd -- "$1" || exit 126; shift; exec "$@"', "sh", str(where), *argv)
        child_env = dict(self.env)
        dropped: list[str] = []
        for variable in env or ():
            if command_env_name_problem(variable.name) or "\0" in variable.value:
                dropped.append(variable.name)  # SEC-1: XWORKMATE_* and secret-looking names never pass
            else:
                child_env[variable.name] = variable.value
        limit = self.limits.command_output_bytes if output_byte_limit is None else max(output_byte_limit, 0)
        return TerminalPlan(argv, label, where, child_env, limit, tuple(dropped))

    def start(self, plan: TerminalPlan) -> str:
        """Start a planned (and, where needed, approved) command; its terminal id."""
        notes: list[str] = []
        if plan.dropped_env:
            notes.append(f"not passed to the command: {', '.join(plan.dropped_env)}")
        try:
            argv = contained_argv(plan.argv, self.sandbox, notes)
        except ToolError as exc:
            raise terminal_refusal(str(exc), exc.kind) from None
        loop = asyncio.get_running_loop()
        terminal = _Terminal(
            id=f"term-{next(_ids)}",
            plan=plan,
            capture=TailCapture(plan.output_byte_limit),
            stop=threading.Event(),
            ended=loop.create_future(),
            notes=notes,
        )
        started = threading.Event()
        failure: list[ToolError] = []

        def settle(end: ProcessEnd | None, error: BaseException | None) -> None:
            if terminal.ended.done():
                return
            if error is not None:
                terminal.ended.set_exception(error)
            else:
                assert end is not None
                terminal.ended.set_result(end)

        def work() -> None:
            result: tuple[ProcessEnd | None, BaseException | None]
            try:
                end = run_process(
                    argv,
                    cwd=plan.cwd,
                    env=plan.env,
                    capture=terminal.capture,
                    # ACP terminals have no timeout of their own; the turn's end stops them, this is a backstop.
                    timeout_s=self.limits.command_max_timeout_s,
                    stop=terminal.stop,
                    limits=self.limits,
                    on_start=started.set,
                )
            except ToolError as exc:
                failure.append(exc)
                result = (None, exc)
            except Exception as exc:  # logged below; the agent learns the terminal failed
                result = (None, exc)
            else:
                result = (end, None)
            started.set()
            with contextlib.suppress(RuntimeError):  # the loop was closed meanwhile
                loop.call_soon_threadsafe(settle, *result)

        threading.Thread(target=work, name=f"xworkmate-acp-{terminal.id}", daemon=True).start()
        started.wait()
        if failure:
            raise terminal_refusal(f"{plan.label}: {failure[0]}", failure[0].kind)
        self._live[terminal.id] = terminal
        self._cards[terminal.id] = self._card(terminal)
        log.info("ACP terminal %s started in %s: %s", terminal.id, plan.cwd, plan.label)
        return terminal.id

    # -- terminal/output, wait_for_exit, kill, release

    def output(self, terminal_id: str) -> TerminalOutputResponse:
        terminal = self._get(terminal_id)
        text, truncated = terminal.capture.snapshot()
        return TerminalOutputResponse(output=text, truncated=truncated, exit_status=self._exit_status(terminal))

    async def wait_for_exit(self, terminal_id: str) -> WaitForTerminalExitResponse:
        terminal = self._get(terminal_id)
        await asyncio.wait({terminal.ended})
        status = self._exit_status(terminal)
        assert status is not None
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill(self, terminal_id: str) -> None:
        await self._stop(self._get(terminal_id))

    async def release(self, terminal_id: str) -> None:
        terminal = self._get(terminal_id)
        await self._stop(terminal)
        self._live.pop(terminal_id, None)

    async def close(self) -> None:
        """Kill and release every terminal of the turn (SBX-1). Never raises; survives cancellation."""
        cancelled = False
        for terminal in list(self._live.values()):
            terminal.stop.set()
        for terminal in list(self._live.values()):
            while not terminal.ended.done():
                try:
                    await asyncio.wait({terminal.ended})
                except asyncio.CancelledError:
                    cancelled = True
            self._cards[terminal.id] = self._card(terminal)
        self._live.clear()
        if cancelled:
            raise asyncio.CancelledError

    async def stream_output(
        self, terminal_id: str, on_output: Callable[[str], None], *, interval: float = 0.2, tail: int = 2000
    ) -> None:
        """Until cancelled (or the terminal ends): call ``on_output`` with the last ``tail`` characters
        of its output whenever they changed, at most every ``interval`` seconds (issue 15: live cards)."""
        last = ""
        while True:
            terminal = self._live.get(terminal_id)
            if terminal is None:
                return
            text, _truncated = terminal.capture.snapshot()
            shown = text[-tail:]
            if shown != last:
                last = shown
                on_output(shown)
            if terminal.ended.done():
                return
            await asyncio.sleep(interval)

    def card_text(self, terminal_id: str) -> str | None:
        """What a tool card shows for a terminal: its command, output and how it ended."""
        terminal = self._live.get(terminal_id)
        if terminal is not None:
            self._cards[terminal_id] = self._card(terminal)
        return self._cards.get(terminal_id)

    # -- helpers

    def _get(self, terminal_id: str) -> _Terminal:
        terminal = self._live.get(terminal_id)
        if terminal is None:
            message = f"no terminal {terminal_id} (unknown or released)"
            raise RequestError(-32602, message, {"details": message})
        return terminal

    async def _stop(self, terminal: _Terminal) -> None:
        terminal.stop.set()
        await asyncio.wait({terminal.ended})
        self._cards[terminal.id] = self._card(terminal)

    def _exit_status(self, terminal: _Terminal) -> TerminalExitStatus | None:
        if not terminal.ended.done():
            return None
        error = terminal.ended.exception()
        if error is not None:
            log.error("ACP terminal %s failed", terminal.id, exc_info=error)
            return TerminalExitStatus(exit_code=None, signal=None)
        code = terminal.ended.result().returncode
        if code >= 0:
            return TerminalExitStatus(exit_code=code)
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return TerminalExitStatus(signal=name)

    def _card(self, terminal: _Terminal) -> str:
        text, truncated = terminal.capture.snapshot()
        lines = [f"$ {terminal.plan.label}"]
        lines += [f"[{note}]" for note in terminal.notes]
        if truncated:
            lines.append(f"[earlier output dropped: the last {terminal.plan.output_byte_limit:,} bytes are kept]")
        lines.append(text.rstrip("\n") if text else "(no output)")
        status = self._exit_status(terminal)
        if status is None:
            lines.append("[running]")
        elif status.exit_code is not None:
            lines.append(f"[exit code {status.exit_code}]")
        else:
            lines.append(f"[stopped by {status.signal or 'an error'}]")
        return "\n".join(lines)
