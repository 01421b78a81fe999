"""How a unified diff reads, line by line (issue 16, LOOP-1): pure rules, no Qt, no git.

The changes view colours a patch by these kinds and maps its cursor to a hunk with
``hunk_starts``; ``CheckpointController.revert_hunk`` numbers hunks the same way (0-based,
in the patch's order, each starting at an ``@@ -a,b +c,d @@`` line).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from enum import StrEnum

__all__ = ["HUNK_HEADER", "DiffLineKind", "diff_line_kind", "hunk_at", "hunk_starts"]

HUNK_HEADER = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_FILE_HEADERS: tuple[str, ...] = (
    "diff --git ",
    "index ",
    "--- ",
    "+++ ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "similarity index",
    "rename from",
    "rename to",
    "Binary files ",
)


class DiffLineKind(StrEnum):
    FILE = "file"  # diff --git, index, ---/+++ and mode lines
    HUNK = "hunk"  # @@ -a,b +c,d @@
    ADDED = "added"
    REMOVED = "removed"
    CONTEXT = "context"
    NOTE = "note"  # "\ No newline at end of file"


def diff_line_kind(line: str, *, in_hunk: bool) -> DiffLineKind:
    """The kind of one line of a unified diff; ``in_hunk``: a hunk header came before it."""
    if HUNK_HEADER.match(line):
        return DiffLineKind.HUNK
    if not in_hunk:
        return DiffLineKind.FILE if line.startswith(_FILE_HEADERS) else DiffLineKind.CONTEXT
    first = line[:1]
    if first == "+":
        return DiffLineKind.ADDED
    if first == "-":
        return DiffLineKind.REMOVED
    if first == "\\":
        return DiffLineKind.NOTE
    if line.startswith("diff --git "):
        return DiffLineKind.FILE  # the next file of a multi-file patch
    return DiffLineKind.CONTEXT


def hunk_starts(lines: Sequence[str]) -> list[int]:
    """The 0-based line numbers of the patch's hunk headers, in order."""
    return [number for number, line in enumerate(lines) if HUNK_HEADER.match(line)]


def hunk_at(starts: Sequence[int], line_number: int) -> int | None:
    """The 0-based hunk a line belongs to, or ``None`` above the first hunk."""
    found = bisect_right(starts, line_number) - 1
    return found if found >= 0 else None
