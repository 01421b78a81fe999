"""Per-turn checkpoints as the window and the CLI see them (LOOP-1). Pure data, no Qt, no git.

The shadow repositories and the git plumbing live in ``agents/checkpoints.py``; the
controller (``controllers/checkpoints.py``) turns them into these values.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

__all__ = [
    "DEFAULT_CHECKPOINT_RETENTION_DAYS",
    "DEFAULT_MAX_FILE_BYTES",
    "ChangeScope",
    "CheckpointError",
    "FileChange",
    "FileChangeKind",
    "RestoreResult",
    "TurnChanges",
]

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
"""LOOP-1: a file larger than this is listed as ``too_large`` and not stored in a checkpoint."""

DEFAULT_CHECKPOINT_RETENTION_DAYS = 30
"""LOOP-1: checkpoints of a line archived longer ago than this are pruned."""


class CheckpointError(ValueError):
    """A checkpoint request that cannot be done, in one line (not a checkpointed turn, unknown file, …)."""


class FileChangeKind(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"


class FileChange(BaseModel):
    """One file a turn (or the line, or the uncommitted work) changed."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    path: str
    """Relative to the line's folder, ``/``-separated."""
    kind: FileChangeKind
    additions: int
    """0 for binary or too-large files."""
    deletions: int
    binary: bool = False
    too_large: bool = False
    """Over the size cap: listed, not stored, cannot be reverted."""
    mode_changed: bool = False
    """The executable bit changed."""
    reverted: bool = False
    """TURN scope: the folder's last checkpoint has the file as it was before the turn (reverted since)."""


class ChangeScope(StrEnum):
    TURN = "turn"
    LINE = "line"
    UNCOMMITTED = "uncommitted"


class TurnChanges(BaseModel):
    """What one turn (or the whole line, or the folder's uncommitted work) changed."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    turn: int
    """1-based turn number on the line (LINE scope: the last turn; UNCOMMITTED: 0)."""
    scope: ChangeScope
    message_id: int | None
    """The last message stored by that turn (the chip goes on it); ``None`` for LINE / UNCOMMITTED."""
    files: tuple[FileChange, ...]
    restorable: bool
    """TURN scope: a snapshot from before the turn exists."""


class ChangedTurn(NamedTuple):
    """A turn that changed files, as its pickers and chips name it: no list of the files (a line of many turns
    of thousands of files each is listed without reading them; issue 34)."""

    turn: int
    message_id: int | None
    """The last message stored by that turn (the chip goes on it)."""
    files: int
    """How many files it changed (more than none)."""


class RestoreResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    turn: int
    fork_key: str | None
    undo_available: bool
    # Issue 34: False when the snapshot before the turn was taken beside it and files changed after the turn
    # began, so what came back may hold some of the turn's own first changes.
    before_exact: bool = True
