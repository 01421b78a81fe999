"""The read-only workspace tools: ``list_dir``, ``read_file``, ``search_files``."""

from __future__ import annotations

import os
import re
from pathlib import Path

from xworkmate.agents.confinement import (
    LinkedFileError,
    ToolError,
    display_path,
    open_confined_file,
    refuse_hidden,
    resolve_file_inside,
    resolve_inside,
)
from xworkmate.agents.tools.context import _BINARY_SNIFF_BYTES, ToolContext
from xworkmate.agents.tools.files import (
    _describe_entry,
    _glob_matches,
    _hidden_rule,
    _iter_lines,
    _looks_binary,
    _os_errors,
    _require_regular_file,
    _walk_files,
)


def list_dir(ctx: ToolContext, path: str = ".") -> str:
    """List one directory: sub-directories end with ``/``, files show their size, links their target.

    What the line's sandbox hides is refused, and left out of a listing (SBX-2)."""
    target = resolve_inside(ctx.working_directory, path)
    shown = display_path(ctx.working_directory, target)
    refuse_hidden(ctx.policy, target, shown)
    if not target.exists():
        raise ToolError(f"{shown} does not exist")
    if not target.is_dir():
        raise ToolError(f"{shown} is a file, not a directory; use read_file to read it")
    hidden = _hidden_rule(ctx)
    with _os_errors("list", shown):
        entries = sorted((e for e in os.scandir(target) if not hidden(Path(e.path))), key=lambda entry: entry.name)
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
    with more than one hard link, or one the line's sandbox hides, is refused (SBX-2).
    """
    limits = ctx.limits
    if offset < 1:
        raise ToolError("offset is a 1-based line number and must be at least 1")
    if limit is not None and limit < 1:
        raise ToolError("limit must be at least 1 line")
    max_lines = limit if limit is not None else limits.read_default_lines
    target = resolve_file_inside(ctx.working_directory, path)
    shown = display_path(ctx.working_directory, target)
    refuse_hidden(ctx.policy, target, shown)
    _require_regular_file(target, shown)

    with (
        _os_errors("read", shown),
        os.fdopen(open_confined_file(target, shown, within=ctx.working_directory), "rb") as handle,
    ):
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
    ``read_file``), and what the line's sandbox hides (a hidden folder is not
    entered; naming one is refused); stops after ``search_max_matches`` matches. Results are
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
    refuse_hidden(ctx.policy, root, shown_root)
    if not root.exists():
        raise ToolError(f"{shown_root} does not exist")

    matches: list[str] = []
    files_seen = 0
    skipped_large = 0
    skipped_linked = 0
    stopped: str | None = None
    for file_path in _walk_files(root, _hidden_rule(ctx)):
        if files_seen >= limits.search_max_files:
            stopped = f"stopped after looking at {limits.search_max_files:,} files; narrow the path or glob"
            break
        files_seen += 1
        rel = display_path(ctx.working_directory, file_path)
        if glob and not _glob_matches(glob, rel):
            continue
        try:
            handle = os.fdopen(open_confined_file(file_path, rel, within=ctx.working_directory), "rb")
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
