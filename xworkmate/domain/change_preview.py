"""What a waiting write or edit would do to the file (issue 30, item 3): pure rules, no Qt.

The approval card shows it before the person answers: a unified diff against the current
file, or a new file's content. ``read_current`` reads the file (the controller calls it off the
event loop, SPEC §6: the window never waits on the disk); ``change_preview`` computes the rest
from plain strings and caps what it keeps, so a huge file costs the card a few hundred lines.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from xworkmate.domain.tools import NativeTool, is_native_edit

__all__ = [
    "PREVIEW_LINES",
    "READ_MAX_BYTES",
    "ChangePreview",
    "CurrentFile",
    "PreviewNote",
    "change_preview",
    "diff_preview",
    "edited_path",
    "read_current",
]

PREVIEW_LINES = 200
"""Lines of diff or content an approval card keeps; the rest is counted (``ChangePreview.more_lines``)."""
READ_MAX_BYTES = 1024 * 1024
"""A current file larger than this is not compared (``PreviewNote.TOO_LARGE``)."""
CONTEXT_LINES = 3


class PreviewNote(StrEnum):
    """Why a preview has no diff (the card words it)."""

    NONE = ""
    OUTSIDE = "outside"  # the path leaves the line's folder: nothing is read
    NOT_TEXT = "not_text"  # the current file is not UTF-8 text, or not a regular file
    TOO_LARGE = "too_large"
    NO_MATCH = "no_match"  # edit_file's ``old`` is not found exactly once: the edit would fail
    MISSING = "missing"  # edit_file on a file that does not exist: the edit would fail


@dataclass(frozen=True, slots=True)
class CurrentFile:
    """The file a write names, as it is now: ``text`` None when it does not exist or was not read."""

    exists: bool
    text: str | None
    note: PreviewNote = PreviewNote.NONE


@dataclass(frozen=True, slots=True)
class ChangePreview:
    """A write's effect: ``diff`` (unified, ``a/``/``b/`` headers) for an existing file, ``content`` for a
    new one, each at most ``PREVIEW_LINES`` lines with ``more_lines`` not kept; ``note`` when neither."""

    path: str
    created: bool
    diff: str = ""
    content: str = ""
    more_lines: int = 0
    note: PreviewNote = PreviewNote.NONE


def _arguments(arguments: str) -> dict[str, object]:
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def edited_path(tool: str, arguments: str) -> str | None:
    """The path a native ``write_file`` / ``edit_file`` call names, None for any other call."""
    if not is_native_edit(tool):
        return None
    path = _arguments(arguments).get("path")
    return path if isinstance(path, str) and path else None


def read_current(folder: str | Path, path: str) -> CurrentFile:
    """The named file's current text, read only inside ``folder`` (links resolved first); blocking."""
    root = os.path.realpath(folder)
    target = os.path.realpath(os.path.join(root, path))
    if os.path.commonpath([root, target]) != root:
        return CurrentFile(exists=False, text=None, note=PreviewNote.OUTSIDE)
    if not os.path.lexists(target):
        return CurrentFile(exists=False, text=None)
    try:
        if not os.path.isfile(target):
            return CurrentFile(exists=True, text=None, note=PreviewNote.NOT_TEXT)
        if os.path.getsize(target) > READ_MAX_BYTES:
            return CurrentFile(exists=True, text=None, note=PreviewNote.TOO_LARGE)
        with open(target, "rb") as handle:
            return CurrentFile(exists=True, text=handle.read(READ_MAX_BYTES + 1).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return CurrentFile(exists=True, text=None, note=PreviewNote.NOT_TEXT)


def _capped(lines: list[str]) -> tuple[str, int]:
    kept = lines[:PREVIEW_LINES]
    return "\n".join(kept), len(lines) - len(kept)


def change_preview(tool: str, arguments: str, current: CurrentFile) -> ChangePreview | None:
    """What the call would write, against ``current``; None when the call is not a native write or edit."""
    path = edited_path(tool, arguments)
    if path is None:
        return None
    args = _arguments(arguments)
    if tool == NativeTool.WRITE_FILE:
        after = str(args.get("content", ""))
        if not current.exists and current.note is PreviewNote.NONE:
            content, more = _capped(after.splitlines())
            return ChangePreview(path, created=True, content=content, more_lines=more)
    else:
        old, new = str(args.get("old", "")), str(args.get("new", ""))
        if not current.exists and current.note is PreviewNote.NONE:
            return ChangePreview(path, created=False, note=PreviewNote.MISSING)
        if current.text is not None and (not old or current.text.count(old) != 1):
            return ChangePreview(path, created=False, note=PreviewNote.NO_MATCH)
        after = current.text.replace(old, new, 1) if current.text is not None else ""
    if current.text is None:
        return ChangePreview(path, created=False, note=current.note)
    diff = difflib.unified_diff(
        current.text.splitlines(), after.splitlines(), f"a/{path}", f"b/{path}", n=CONTEXT_LINES, lineterm=""
    )
    text, more = _capped(list(diff))
    return ChangePreview(path, created=False, diff=text, more_lines=more)


def diff_preview(diff: str) -> ChangePreview | None:
    """An ACP agent's edit, from the unified diff it sent (``--- /dev/null`` for a new file); its first file."""
    lines = diff.splitlines()
    path = next((line[4:].removeprefix("b/") for line in lines if line.startswith("+++ ")), None)
    if path is None:
        return None
    if any(line.startswith("--- /dev/null") for line in lines):
        added = [line[1:] for line in lines if line.startswith("+") and not line.startswith("+++ ")]
        content, more = _capped(added)
        return ChangePreview(path, created=True, content=content, more_lines=more)
    text, more = _capped(lines)
    return ChangePreview(path, created=False, diff=text, more_lines=more)
