"""File helpers the tools share: OS errors as messages, binary sniffing, bounded line reading, the walk, diffs and
writes.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import fnmatch
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from xworkmate.agents.confinement import (
    ToolError,
    open_confined_file,
)
from xworkmate.agents.tools.context import _READ_CHUNK, _SKIPPED_DIRS, ToolContext, ToolLimits


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


def _walk_files(root: Path, hidden: Callable[[Path], bool] = lambda _: False) -> Iterator[Path]:
    """Regular files under ``root`` in a stable order, without following symbolic links, and without
    what ``hidden`` says the line's sandbox hides (SBX-2: a hidden folder is not entered)."""
    if root.is_file():
        yield root
        return
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(
            name for name in dirnames if name not in _SKIPPED_DIRS and not hidden(Path(directory, name))
        )
        for name in sorted(filenames):
            candidate = Path(directory, name)
            if not candidate.is_symlink() and not hidden(candidate):
                yield candidate


def _hidden_rule(ctx: ToolContext) -> Callable[[Path], bool]:
    """Whether the line's sandbox hides a path of a walk or a listing (real already: no link followed)."""
    if ctx.policy is None:
        return lambda _: False
    access = ctx.policy.rule(resolve=False, within=ctx.working_directory)
    return lambda path: access(path).hides


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


def _write_bytes(target: Path, shown: str, data: bytes, *, within: Path) -> None:
    """Write in place without following a link, or writing a hard-linked file, that appeared after the gate's
    check; missing folders are made on the way, never through a link (SBX-3)."""
    with (
        _os_errors("write", shown),
        os.fdopen(open_confined_file(target, shown, within=within, write=True), "wb") as handle,
    ):
        handle.write(data)
