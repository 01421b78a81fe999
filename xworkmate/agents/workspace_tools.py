"""The confined workspace tools of the native agent loop (SPEC §5 native mode, WR-1).

Each tool is a plain function taking a ``ToolContext`` first; none needs an
event loop. ``dispatch_tool_call`` is what the agent loop calls with the tool
name and the JSON argument string the model produced; it always returns a
``ToolResult`` and never lets an exception escape (cancellation aside).

Errors: a ``ToolError`` (including ``PathEscapeError``, ``InvalidPathError`` and
``WriteRefused``) carries a message for the model, which sees it as the tool
result. Any other exception is internal: logged with its traceback, and the
model only learns that the tool failed.

Every path goes through ``confinement.resolve_inside``; every file read or
written also goes through SBX-2's hard-link rule (``resolve_file_inside``,
``open_confined_file``); every write goes through the thread's ``WriteGate``
before anything on disk changes.
``run_command`` runs in the context's sandbox (SBX-1, ``agents.sandbox``): the
folder is the only writable place and nothing it starts outlives it. Without a
sandbox it runs unconfined, which only the agent loop may allow, after the
person approved it (approval per permission level is the loop's job too).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import difflib
import errno
import fnmatch
import json
import logging
import math
import os
import re
import selectors
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from xworkmate.agents.confinement import (
    LinkedFileError,
    ToolError,
    display_path,
    open_confined_file,
    real_working_directory,
    resolve_file_inside,
    resolve_inside,
)
from xworkmate.agents.sandbox import Sandbox, SandboxUnavailable
from xworkmate.agents.write_gate import EvidenceMessage, WriteGate

__all__ = [
    "TOOL_NAMES",
    "CommandOutcome",
    "OutputSink",
    "ProcessEnd",
    "TailCapture",
    "ToolContext",
    "ToolError",
    "ToolLimits",
    "ToolResult",
    "WriteOutcome",
    "contained_argv",
    "dispatch_tool_call",
    "dispatch_tool_call_async",
    "edit_file",
    "list_dir",
    "read_file",
    "run_command",
    "run_command_async",
    "run_process",
    "search_files",
    "tool_schemas",
    "write_file",
]

logger = logging.getLogger("xworkmate.agents.workspace_tools")

_KIB = 1024
_MIB = 1024 * 1024
_BINARY_SNIFF_BYTES = 8 * _KIB
_READ_CHUNK = 64 * _KIB
_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})


@dataclass(frozen=True)
class ToolLimits:
    """Caps that keep one tool call from flooding the model's context or the process's memory."""

    list_max_entries: int = 500
    read_max_chars: int = 128 * _KIB
    read_default_lines: int = 2000
    read_max_line_chars: int = 2000
    search_max_matches: int = 200
    search_max_files: int = 20_000
    search_max_file_bytes: int = 4 * _MIB
    search_max_line_chars: int = 300
    write_max_bytes: int = 8 * _MIB
    diff_max_file_bytes: int = 1 * _MIB
    diff_max_chars: int = 64 * _KIB
    command_output_bytes: int = 64 * _KIB
    command_default_timeout_s: float = 120.0
    command_max_timeout_s: float = 1800.0
    # After SIGTERM to the process group, how long before SIGKILL.
    command_kill_grace_s: float = 1.0
    # After the shell exits, how long to keep reading output that background
    # processes still write into the pipe.
    command_drain_grace_s: float = 1.0


@dataclass(frozen=True)
class ToolContext:
    """What a tool call may touch: one thread's working directory, through its write gate."""

    write_gate: WriteGate
    limits: ToolLimits = field(default_factory=ToolLimits)
    # Environment for run_command; None inherits the application's environment.
    command_env: Mapping[str, str] | None = None
    # SBX-1: where run_command runs. None, or a sandbox that cannot run here, means unconfined:
    # the agent loop asks the person first (the approval card says so), headless runs refuse.
    sandbox: Sandbox | None = None

    @classmethod
    def for_working_directory(
        cls,
        working_directory: str | os.PathLike[str],
        evidence: Callable[[], Sequence[EvidenceMessage]],
        limits: ToolLimits | None = None,
    ) -> ToolContext:
        return cls(write_gate=WriteGate(working_directory, evidence), limits=limits or ToolLimits())

    @property
    def working_directory(self) -> Path:
        return self.write_gate.working_directory


@dataclass(frozen=True)
class ToolResult:
    """What the model sees (``content``) plus what the UI may show (``changed_path``, ``diff``)."""

    ok: bool
    content: str
    tool_name: str
    error_kind: str | None = None
    changed_path: Path | None = None
    diff: str | None = None


@dataclass(frozen=True)
class WriteOutcome:
    path: Path
    display_path: str
    created: bool
    bytes_written: int
    evidence_message_id: int | str
    diff: str | None

    def to_tool_text(self) -> str:
        verb = "created" if self.created else "updated"
        return f"{verb} {self.display_path} ({self.bytes_written:,} bytes written)"


@dataclass(frozen=True)
class CommandOutcome:
    command: str
    exit_code: int | None
    timed_out: bool
    cancelled: bool
    timeout_s: float
    duration_s: float
    output: str
    total_output_bytes: int
    dropped_output_bytes: int
    # True when background processes kept the output pipe open after the command ended.
    output_pipe_held_open: bool = False
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not (self.timed_out or self.cancelled)

    def to_tool_text(self) -> str:
        if self.timed_out:
            status = f"[timed out after {self.timeout_s:g} s: the command and every process it started were killed]"
        elif self.cancelled:
            status = "[cancelled: the command and every process it started were killed]"
        else:
            status = f"[exit code {self.exit_code} after {self.duration_s:.1f} s]"
        lines = [status, *(f"[{note}]" for note in self.notes)]
        lines.append(self.output if self.total_output_bytes else "(no output)")
        return "\n".join(lines)


# --------------------------------------------------------------------------- read-only tools


def list_dir(ctx: ToolContext, path: str = ".") -> str:
    """List one directory: sub-directories end with ``/``, files show their size, links their target."""
    target = resolve_inside(ctx.working_directory, path)
    shown = display_path(ctx.working_directory, target)
    if not target.exists():
        raise ToolError(f"{shown} does not exist")
    if not target.is_dir():
        raise ToolError(f"{shown} is a file, not a directory; use read_file to read it")
    with _os_errors("list", shown):
        entries = sorted(os.scandir(target), key=lambda entry: entry.name)
    limit = ctx.limits.list_max_entries
    lines = [f"{shown}/ ({len(entries)} entries)" if shown != "." else f"./ ({len(entries)} entries)"]
    for entry in entries[:limit]:
        lines.append(_describe_entry(entry))
    if len(entries) > limit:
        lines.append(f"[{len(entries) - limit} more entries not shown]")
    if not entries:
        lines.append("(empty directory)")
    return "\n".join(lines)


def read_file(ctx: ToolContext, path: str, offset: int = 1, limit: int | None = None) -> str:
    """Read a text file from line ``offset`` (1-based): at most ``limit`` lines and ``read_max_chars``.

    Lines longer than ``read_max_line_chars`` are cut; a note at the end says
    where to continue when the read stopped before the end of the file. A file
    with more than one hard link is refused (SBX-2).
    """
    limits = ctx.limits
    if offset < 1:
        raise ToolError("offset is a 1-based line number and must be at least 1")
    if limit is not None and limit < 1:
        raise ToolError("limit must be at least 1 line")
    max_lines = limit if limit is not None else limits.read_default_lines
    target = resolve_file_inside(ctx.working_directory, path)
    shown = display_path(ctx.working_directory, target)
    _require_regular_file(target, shown)

    with _os_errors("read", shown), os.fdopen(open_confined_file(target, shown), "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if _looks_binary(handle.read(_BINARY_SNIFF_BYTES)):
            raise ToolError(f"{shown} is a binary file ({size:,} bytes); read_file only reads text")
        handle.seek(0)
        kept: list[str] = []
        used = 0
        line_no = 0
        cut_lines = 0
        stop_reason: str | None = None
        for raw, was_cut in _iter_lines(handle, limits.read_max_line_chars * 4):
            line_no += 1
            if line_no < offset:
                continue
            if len(kept) >= max_lines:
                stop_reason = "limit"
                break
            text = raw.decode("utf-8", errors="replace")
            if was_cut or len(text) > limits.read_max_line_chars:
                text = text[: limits.read_max_line_chars].rstrip("\r\n") + " [line cut]\n"
                cut_lines += 1
            if used + len(text) > limits.read_max_chars and kept:
                stop_reason = "size"
                break
            kept.append(text)
            used += len(text)

    if size == 0:
        return f"{shown} is empty (0 bytes)"
    if not kept:
        raise ToolError(f"{shown} has only {line_no} lines; offset {offset} is past the end")
    first, last = offset, offset + len(kept) - 1
    notes = []
    if stop_reason is not None:
        why = "the line limit" if stop_reason == "limit" else f"the {limits.read_max_chars:,}-character cap"
        notes.append(
            f"[truncated at {why}: showing lines {first}-{last} of a {size:,}-byte file; "
            f"call read_file with offset={last + 1} to continue]"
        )
    elif first > 1:
        notes.append(f"[showing lines {first}-{last}, the end of the file]")
    if cut_lines:
        notes.append(f"[{cut_lines} long line(s) were cut at {limits.read_max_line_chars} characters]")
    body = "".join(kept)
    if notes:
        body = body + ("" if body.endswith("\n") else "\n") + "\n".join(notes)
    return body


def search_files(
    ctx: ToolContext,
    pattern: str,
    path: str = ".",
    glob: str | None = None,
    literal: bool = False,
) -> str:
    """Search text files under ``path`` for a regular expression (or a literal string).

    Skips ``.git``/``.hg``/``.svn``, symbolic links, binary files, files over
    ``search_max_file_bytes`` and files with more than one hard link (SBX-2; a
    note counts them, and naming such a file as ``path`` is refused as in
    ``read_file``); stops after ``search_max_matches`` matches. Results are
    ``relative/path:line: text``.
    """
    limits = ctx.limits
    if not pattern:
        raise ToolError("pattern is empty")
    try:
        regex = re.compile(re.escape(pattern) if literal else pattern)
    except re.error as exc:
        raise ToolError(
            f"pattern is not a valid regular expression ({exc}); pass literal=true to search for the text as is"
        ) from exc
    root = resolve_file_inside(ctx.working_directory, path)
    shown_root = display_path(ctx.working_directory, root)
    if not root.exists():
        raise ToolError(f"{shown_root} does not exist")

    matches: list[str] = []
    files_seen = 0
    skipped_large = 0
    skipped_linked = 0
    stopped: str | None = None
    for file_path in _walk_files(root):
        if files_seen >= limits.search_max_files:
            stopped = f"stopped after looking at {limits.search_max_files:,} files; narrow the path or glob"
            break
        files_seen += 1
        rel = display_path(ctx.working_directory, file_path)
        if glob and not _glob_matches(glob, rel):
            continue
        try:
            handle = os.fdopen(open_confined_file(file_path, rel), "rb")
        except LinkedFileError:
            skipped_linked += 1  # SBX-2: another name may be outside the folder
            continue
        except (OSError, ToolError):
            continue  # unreadable, vanished or not a regular file: not the model's problem
        try:
            with handle:
                if os.fstat(handle.fileno()).st_size > limits.search_max_file_bytes:
                    skipped_large += 1
                    continue
                if _looks_binary(handle.read(_BINARY_SNIFF_BYTES)):
                    continue
                handle.seek(0)
                for line_no, (raw, _cut) in enumerate(_iter_lines(handle, limits.search_max_line_chars * 16), 1):
                    text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                    if regex.search(text):
                        if len(text) > limits.search_max_line_chars:
                            text = text[: limits.search_max_line_chars] + " [line cut]"
                        matches.append(f"{rel}:{line_no}: {text}")
                        if len(matches) >= limits.search_max_matches:
                            break
        except OSError:
            continue  # unreadable or vanished file: not the model's problem
        if len(matches) >= limits.search_max_matches:
            stopped = f"stopped at {limits.search_max_matches} matches; narrow the pattern, path or glob"
            break

    lines = matches or [f"no matches for {pattern!r} in {shown_root}" + (f" (glob {glob!r})" if glob else "")]
    if stopped:
        lines.append(f"[{stopped}]")
    if skipped_large:
        lines.append(f"[{skipped_large} file(s) over {limits.search_max_file_bytes:,} bytes were not searched]")
    if skipped_linked:
        lines.append(
            f"[{skipped_linked} file(s) with more than one hard link were not searched: another name for "
            "such a file may be outside the working directory]"
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------- gated writes (WR-1)


def write_file(ctx: ToolContext, path: str, content: str, quote: str) -> WriteOutcome:
    """Create or replace a text file, after the write gate allowed it (WR-1).

    Missing parent directories are created; a refusal leaves the file system untouched.
    """
    data = content.encode("utf-8")
    if len(data) > ctx.limits.write_max_bytes:
        raise ToolError(f"content is {len(data):,} bytes; write_file accepts at most {ctx.limits.write_max_bytes:,}")
    decision = ctx.write_gate.check(path, quote)
    target, shown = decision.path, decision.display_path
    old = _existing_text_for_diff(target, ctx.limits)
    created = not os.path.lexists(target)
    if not created:
        _require_regular_file(target, shown)
    with _os_errors("create the directories for", shown):
        target.parent.mkdir(parents=True, exist_ok=True)
    _write_bytes(target, shown, data)
    logger.info("wrote %s (%d bytes, evidence message %s)", target, len(data), decision.message_id)
    return WriteOutcome(
        path=target,
        display_path=shown,
        created=created,
        bytes_written=len(data),
        evidence_message_id=decision.message_id,
        diff=_diff(shown, old if old is not None else "", content, ctx.limits) if created or old is not None else None,
    )


def edit_file(ctx: ToolContext, path: str, old: str, new: str, quote: str) -> WriteOutcome:
    """Replace the one occurrence of ``old`` with ``new`` in a text file, after the write gate (WR-1).

    ``old`` must occur exactly once (overlapping occurrences count); otherwise
    nothing is written and the error says how many matches there were.
    """
    if not old:
        raise ToolError("old is empty; pass the exact text to replace (use write_file to create a file)")
    if old == new:
        raise ToolError("old and new are identical; nothing to change")
    decision = ctx.write_gate.check(path, quote)
    target, shown = decision.path, decision.display_path
    if not os.path.lexists(target):
        raise ToolError(f"{shown} does not exist; use write_file to create it")
    _require_regular_file(target, shown)
    with _os_errors("read", shown), os.fdopen(open_confined_file(target, shown), "rb") as handle:
        if os.fstat(handle.fileno()).st_size > ctx.limits.write_max_bytes:
            raise ToolError(
                f"{shown} is larger than {ctx.limits.write_max_bytes:,} bytes; edit_file will not rewrite it"
            )
        raw = handle.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{shown} is not UTF-8 text; edit_file only edits UTF-8 text files") from exc

    positions = _occurrences(text, old)
    if not positions:
        hint = ""
        if "\r\n" in text and "\r\n" not in old and text.replace("\r\n", "\n").count(old.replace("\r\n", "\n")):
            hint = " The file uses CRLF line endings; include '\\r\\n' in old."
        raise ToolError(
            f"old text not found in {shown} (0 matches). Read the file again and copy the text exactly, "
            f"including whitespace and indentation.{hint}"
        )
    if len(positions) > 1:
        line_numbers = ", ".join(str(text.count("\n", 0, pos) + 1) for pos in positions[:10])
        raise ToolError(
            f"old text occurs {len(positions)} times in {shown} (at lines {line_numbers}); it must occur "
            "exactly once. Include more surrounding lines in old so it matches one place."
        )
    start = positions[0]
    updated = text[:start] + new + text[start + len(old) :]
    data = updated.encode("utf-8")
    if len(data) > ctx.limits.write_max_bytes:
        raise ToolError(f"the edited file would be {len(data):,} bytes; the cap is {ctx.limits.write_max_bytes:,}")
    _write_bytes(target, shown, data)
    logger.info("edited %s (%d bytes, evidence message %s)", target, len(data), decision.message_id)
    return WriteOutcome(
        path=target,
        display_path=shown,
        created=False,
        bytes_written=len(data),
        evidence_message_id=decision.message_id,
        diff=_diff(shown, text, updated, ctx.limits) if len(raw) <= ctx.limits.diff_max_file_bytes else None,
    )


# --------------------------------------------------------------------------- run_command


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


# -- the one process machinery behind run_command and ACP terminals (SBX-1)


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
            list(argv),
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


# --------------------------------------------------------------------------- schemas and dispatch

_QUOTE_DESCRIPTION = (
    "The human's own words asking for this change, copied verbatim from one of their messages "
    "(at least 8 letters and 2 words). A summary, a paraphrase or a statement like 'the user asked' "
    "is refused, and so is text from a task goal or a tool result."
)

_SCHEMAS: tuple[dict[str, Any], ...] = (
    {
        "name": "list_dir",
        "description": "List a directory inside the working directory: sub-directories end with '/', "
        "files show their size, symbolic links their target.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Directory relative to the working directory. Default '.'.",
                },
            },
            "required": [],
            "additionalProperties": False,
        },
    },
    {
        "name": "read_file",
        "description": "Read a UTF-8 text file inside the working directory. Long files are truncated with a "
        "note telling the offset to continue from.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File relative to the working directory."},
                "offset": {"type": "integer", "minimum": 1, "description": "First line to read, 1-based."},
                "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines."},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    },
    {
        "name": "search_files",
        "description": "Search the text files under a directory for a regular expression (Python syntax) or, "
        "with literal=true, a plain string. Returns 'path:line: text' lines, capped.",
        "parameters": {
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "description": "Regular expression, or text if literal is true.",
                },
                "path": {"type": "string", "description": "Directory or file to search. Default '.'."},
                "glob": {
                    "type": "string",
                    "description": "Only files whose name (or, if it contains '/', relative path) matches, "
                    "e.g. '*.py'.",
                },
                "literal": {"type": "boolean", "description": "Treat pattern as plain text. Default false."},
            },
            "required": ["pattern"],
            "additionalProperties": False,
        },
    },
    {
        "name": "write_file",
        "description": "Create or replace a text file inside the working directory. Only allowed when the "
        "human asked for it: pass their words in quote.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File relative to the working directory."},
                "content": {"type": "string", "description": "The complete new content of the file."},
                "quote": {"type": "string", "description": _QUOTE_DESCRIPTION},
            },
            "required": ["path", "content", "quote"],
            "additionalProperties": False,
        },
    },
    {
        "name": "edit_file",
        "description": "Replace one exact piece of text in a file inside the working directory. "
        "old must occur exactly once, whitespace included. Only allowed when the human asked for it: "
        "pass their words in quote.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File relative to the working directory."},
                "old": {
                    "type": "string",
                    "description": "The exact text to replace; must occur exactly once.",
                },
                "new": {"type": "string", "description": "The replacement text."},
                "quote": {"type": "string", "description": _QUOTE_DESCRIPTION},
            },
            "required": ["path", "old", "new", "quote"],
            "additionalProperties": False,
        },
    },
    {
        "name": "run_command",
        "description": "Run a shell command (/bin/sh -c) in the working directory. stdin is empty; "
        "stdout and stderr are returned together, long output keeps its beginning and end. The command and "
        "everything it started are killed at the timeout, and background processes do not outlive it.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The shell command line."},
                "timeout_s": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": "Seconds before the command is killed. Default 120.",
                },
            },
            "required": ["command"],
            "additionalProperties": False,
        },
    },
)

TOOL_NAMES: tuple[str, ...] = tuple(schema["name"] for schema in _SCHEMAS)


def tool_schemas() -> list[dict[str, Any]]:
    """The tools in the OpenAI ``tools=[...]`` shape; a fresh copy the caller may modify."""
    return [{"type": "function", "function": copy.deepcopy(schema)} for schema in _SCHEMAS]


class _ArgumentError(Exception):
    pass


def dispatch_tool_call(name: str, arguments_json: str | Mapping[str, Any], ctx: ToolContext) -> ToolResult:
    """Run one tool call from the model; every failure becomes a ``ToolResult`` with ``ok=False``."""
    prepared = _prepare(name, arguments_json)
    if isinstance(prepared, ToolResult):
        return prepared
    return _invoke(name, prepared, ctx)


async def dispatch_tool_call_async(name: str, arguments_json: str | Mapping[str, Any], ctx: ToolContext) -> ToolResult:
    """``dispatch_tool_call`` for the agent loop.

    - ``list_dir``, ``read_file``, ``search_files`` run in a worker thread, so a large search
      does not freeze the window;
    - ``write_file``, ``edit_file`` run on the calling thread: the gate calls the evidence
      callable there (it may use the caller's database session), and a cancelled call never
      leaves a write finishing in the background;
    - ``run_command`` runs through ``run_command_async``: cancelling kills its process group.
    """
    prepared = _prepare(name, arguments_json)
    if isinstance(prepared, ToolResult):
        return prepared
    if name in _READERS:
        return await asyncio.to_thread(_invoke, name, prepared, ctx)
    if name != "run_command":
        return _invoke(name, prepared, ctx)
    try:
        outcome = await run_command_async(ctx, **prepared)
    except ToolError as exc:
        return ToolResult(ok=False, content=str(exc), tool_name=name, error_kind=exc.kind)
    except Exception:
        logger.exception("tool %s failed", name)
        return _internal_error(name)
    return _command_result(outcome)


def _prepare(name: str, arguments_json: str | Mapping[str, Any]) -> dict[str, Any] | ToolResult:
    schema = next((s for s in _SCHEMAS if s["name"] == name), None)
    if schema is None:
        return ToolResult(
            ok=False,
            content=f"unknown tool {name!r}; the available tools are {', '.join(TOOL_NAMES)}",
            tool_name=str(name),
            error_kind="unknown_tool",
        )
    try:
        return _parse_arguments(schema, arguments_json)
    except _ArgumentError as exc:
        return ToolResult(
            ok=False,
            content=f"invalid arguments for {name}: {exc}",
            tool_name=name,
            error_kind="invalid_arguments",
        )


def _invoke(name: str, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    try:
        if name == "run_command":
            return _command_result(run_command(ctx, **args))
        if name in ("write_file", "edit_file"):
            outcome = write_file(ctx, **args) if name == "write_file" else edit_file(ctx, **args)
            return ToolResult(
                ok=True,
                content=outcome.to_tool_text(),
                tool_name=name,
                changed_path=outcome.path,
                diff=outcome.diff,
            )
        return ToolResult(ok=True, content=_READERS[name](ctx, **args), tool_name=name)
    except ToolError as exc:
        return ToolResult(ok=False, content=str(exc), tool_name=name, error_kind=exc.kind)
    except Exception:
        logger.exception("tool %s failed", name)
        return _internal_error(name)


_READERS: dict[str, Callable[..., str]] = {
    "list_dir": list_dir,
    "read_file": read_file,
    "search_files": search_files,
}


def _internal_error(name: str) -> ToolResult:
    return ToolResult(
        ok=False,
        content=f"{name} failed because of an internal error (logged); it may not have completed",
        tool_name=name,
        error_kind="internal_error",
    )


def _command_result(outcome: CommandOutcome) -> ToolResult:
    return ToolResult(
        ok=outcome.ok,
        content=outcome.to_tool_text(),
        tool_name="run_command",
        error_kind="timeout" if outcome.timed_out else ("cancelled" if outcome.cancelled else None),
    )


_JSON_TYPES: dict[str, str] = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
}


def _parse_arguments(schema: Mapping[str, Any], arguments_json: str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(arguments_json, Mapping):
        raw: object = dict(arguments_json)
    elif isinstance(arguments_json, str):
        if not arguments_json.strip():
            raw = {}  # some models send "" for a call without arguments
        else:
            try:
                raw = json.loads(arguments_json)
            except json.JSONDecodeError as exc:
                raise _ArgumentError(
                    f"the arguments are not valid JSON ({exc.msg}: line {exc.lineno} column {exc.colno}); "
                    'send one JSON object such as {"path": "README.md"}'
                ) from exc
    else:
        raise _ArgumentError("the arguments must be a JSON object")
    if not isinstance(raw, dict):
        raise _ArgumentError(f"the arguments must be a JSON object, not {type(raw).__name__}")

    parameters = schema["parameters"]
    properties: Mapping[str, Mapping[str, Any]] = parameters["properties"]
    unknown = sorted(set(raw) - set(properties))
    if unknown:
        raise _ArgumentError(
            f"unknown argument(s) {', '.join(map(repr, unknown))}; expected {', '.join(properties) or 'none'}"
        )
    missing = [key for key in parameters["required"] if key not in raw]
    if missing:
        raise _ArgumentError(f"missing required argument(s) {', '.join(map(repr, missing))}")

    args: dict[str, Any] = {}
    for key, value in raw.items():
        spec = properties[key]
        if value is None and key not in parameters["required"]:
            continue  # explicit null for an optional argument means "use the default"
        args[key] = _coerce(key, value, spec)
    return args


def _coerce(key: str, value: Any, spec: Mapping[str, Any]) -> Any:
    kind = spec["type"]
    expected = _JSON_TYPES[kind]
    if kind == "string":
        ok = isinstance(value, str)
    elif kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok:
        raise _ArgumentError(f"{key!r} must be {expected}, got {_json_excerpt(value)}")
    if "minimum" in spec and value < spec["minimum"]:
        raise _ArgumentError(f"{key!r} must be at least {spec['minimum']}")
    if "exclusiveMinimum" in spec and value <= spec["exclusiveMinimum"]:
        raise _ArgumentError(f"{key!r} must be greater than {spec['exclusiveMinimum']}")
    return value


def _json_excerpt(value: object) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --------------------------------------------------------------------------- helpers


@contextlib.contextmanager
def _os_errors(action: str, shown: str) -> Iterator[None]:
    """Turn an OS error on a confined path into a message for the model."""
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        if exc.errno == errno.ELOOP:
            reason = "it is a symbolic link (it changed after the path was checked)"
        raise ToolError(f"cannot {action} {shown}: {reason}") from exc


def _require_regular_file(target: Path, shown: str) -> None:
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        raise ToolError(f"{shown} does not exist") from None
    except OSError as exc:
        raise ToolError(f"cannot access {shown}: {exc.strerror}") from exc
    if stat.S_ISDIR(mode):
        raise ToolError(f"{shown} is a directory; use list_dir to see what it holds")
    if not stat.S_ISREG(mode):
        raise ToolError(f"{shown} is not a regular file (a device, socket or pipe)")


def _looks_binary(sample: bytes) -> bool:
    return b"\0" in sample


def _iter_lines(handle: BinaryIO, max_line_bytes: int) -> Iterator[tuple[bytes, bool]]:
    """Lines as bytes, each at most ``max_line_bytes``; the flag says the rest of the line was skipped.

    Memory stays bounded on a huge file without newlines.
    """
    while True:
        line = handle.readline(max_line_bytes)
        if not line:
            return
        if line.endswith(b"\n") or len(line) < max_line_bytes:
            yield line, False
            continue
        while True:  # skip the remainder of an over-long line
            rest = handle.readline(_READ_CHUNK)
            if not rest or rest.endswith(b"\n"):
                break
        yield line + b"\n", True


def _walk_files(root: Path) -> Iterator[Path]:
    """Regular files under ``root`` in a stable order, without following symbolic links."""
    if root.is_file():
        yield root
        return
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(name for name in dirnames if name not in _SKIPPED_DIRS)
        for name in sorted(filenames):
            candidate = Path(directory, name)
            if not candidate.is_symlink():
                yield candidate


def _glob_matches(pattern: str, relative: str) -> bool:
    if "/" in pattern:
        return fnmatch.fnmatchcase(relative, pattern)
    return fnmatch.fnmatchcase(relative.rsplit("/", 1)[-1], pattern)


def _describe_entry(entry: os.DirEntry[str]) -> str:
    try:
        if entry.is_symlink():
            return f"{entry.name} -> {os.readlink(entry.path)} (symbolic link)"
        if entry.is_dir(follow_symlinks=False):
            return f"{entry.name}/"
        return f"{entry.name}  {entry.stat(follow_symlinks=False).st_size:,} bytes"
    except OSError:
        return f"{entry.name}  (unreadable)"


def _occurrences(text: str, needle: str) -> list[int]:
    positions: list[int] = []
    start = text.find(needle)
    while start != -1:
        positions.append(start)
        start = text.find(needle, start + 1)
    return positions


def _existing_text_for_diff(target: Path, limits: ToolLimits) -> str | None:
    """The current text of ``target`` if it is small UTF-8 text (for the UI diff), else None."""
    try:
        if not target.is_file() or target.stat().st_size > limits.diff_max_file_bytes:
            return None
        return target.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _diff(shown: str, before: str, after: str, limits: ToolLimits) -> str | None:
    if len(after) > limits.diff_max_file_bytes:
        return None
    text = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{shown}", f"b/{shown}"
        )
    )
    if len(text) > limits.diff_max_chars:
        text = text[: limits.diff_max_chars] + "\n[diff truncated]\n"
    return text


def _write_bytes(target: Path, shown: str, data: bytes) -> None:
    """Write in place without following a link, or writing a hard-linked file, that appeared after the gate's check."""
    with _os_errors("write", shown), os.fdopen(open_confined_file(target, shown, write=True), "wb") as handle:
        handle.write(data)
