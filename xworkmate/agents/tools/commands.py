"""``run_command``: a shell command in the line's sandbox (SBX-1), with its output captured and bounded."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import threading
import time

from xworkmate.agents.confinement import (
    ToolError,
    real_working_directory,
)
from xworkmate.agents.tools.context import CommandOutcome, ToolContext
from xworkmate.agents.tools.processes import _OutputCapture, contained_argv, run_process


def run_command(ctx: ToolContext, command: str, timeout_s: float | None = None) -> CommandOutcome:
    """Run a shell command with cwd = the working directory; blocks until it ends or times out.

    The command gets its own process group (session); at the timeout, and in
    any case once it has ended, the whole group is killed. Output (stdout and
    stderr together) keeps the first and last halves of ``command_output_bytes``
    and reports how many bytes in between were dropped; memory use stays bounded
    whatever the command prints.
    """
    return _run_shell(ctx, command, timeout_s, stop=None)


async def run_command_async(ctx: ToolContext, command: str, timeout_s: float | None = None) -> CommandOutcome:
    """``run_command`` for the agent loop; cancelling the awaiting task kills the process group.

    The process is driven from its own thread (not the loop's default executor,
    which long commands on many lines could exhaust), so this works on any
    asyncio loop, qasync included, without the loop's subprocess support. On
    cancellation it waits until the group has been killed, then re-raises.
    """
    stop = threading.Event()
    loop = asyncio.get_running_loop()
    done: asyncio.Future[CommandOutcome] = loop.create_future()

    def settle(outcome: CommandOutcome | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            assert outcome is not None
            done.set_result(outcome)

    def work() -> None:
        try:
            outcome = _run_shell(ctx, command, timeout_s, stop=stop)
        except Exception as exc:
            result: tuple[CommandOutcome | None, BaseException | None] = (None, exc)
        else:
            result = (outcome, None)
        with contextlib.suppress(RuntimeError):  # the loop was closed meanwhile
            loop.call_soon_threadsafe(settle, *result)

    threading.Thread(target=work, name="xworkmate-run-command", daemon=True).start()
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        stop.set()
        with contextlib.suppress(Exception):
            await done
        raise


def _run_shell(ctx: ToolContext, command: str, timeout_s: float | None, stop: threading.Event | None) -> CommandOutcome:
    limits = ctx.limits
    if not isinstance(command, str) or not command.strip():
        raise ToolError("command is empty")
    if "\0" in command:
        raise ToolError("command contains a NUL byte")
    if os.name != "posix":  # process groups below are POSIX; see the report on Windows support
        raise ToolError("run_command is not available on this operating system yet")
    notes: list[str] = []
    if timeout_s is None:
        timeout_s = limits.command_default_timeout_s
    if not math.isfinite(timeout_s) or timeout_s <= 0:
        raise ToolError("timeout_s must be a positive number of seconds")
    if timeout_s > limits.command_max_timeout_s:
        notes.append(f"timeout_s lowered from {timeout_s:g} to the maximum {limits.command_max_timeout_s:g} s")
        timeout_s = limits.command_max_timeout_s
    cwd = real_working_directory(ctx.working_directory)
    argv = contained_argv(["/bin/sh", "-c", command], ctx.sandbox, notes)
    started = time.monotonic()
    capture = _OutputCapture(limits.command_output_bytes)
    end = run_process(
        argv, cwd=cwd, env=ctx.command_env, capture=capture, timeout_s=timeout_s, stop=stop, limits=limits
    )
    if end.pipe_held:
        notes.append("background processes kept the output open after the command ended; they were killed")
    return CommandOutcome(
        command=command,
        exit_code=None if end.killed else end.returncode,
        timed_out=end.timed_out,
        cancelled=end.cancelled,
        timeout_s=timeout_s,
        duration_s=time.monotonic() - started,
        output=capture.text(),
        total_output_bytes=capture.total,
        dropped_output_bytes=capture.dropped,
        output_pipe_held_open=end.pipe_held,
        notes=tuple(notes),
    )
