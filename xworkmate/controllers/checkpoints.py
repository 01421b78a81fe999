"""``CheckpointController``: each turn's changes, revert, restore and undo (LOOP-1).

Reached as ``SessionController.checkpoints``. Skeleton: the signatures of the contract
with helper i16b (CHECKPOINT_API.md); the bodies follow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xworkmate.domain.checkpoints import ChangeScope, CheckpointError, RestoreResult, TurnChanges

if TYPE_CHECKING:
    from xworkmate.controllers.session import SessionController

__all__ = ["CheckpointController", "CheckpointError"]


class CheckpointController:
    """Checkpointed turns of every line: read their changes, revert a file or hunk, restore, undo."""

    def __init__(self, controller: SessionController) -> None:
        self._controller = controller

    def turns(self, key: str) -> list[TurnChanges]:
        """Every checkpointed turn that changed files, oldest first."""
        return []

    def changes(self, key: str, scope: ChangeScope = ChangeScope.TURN, turn: int | None = None) -> TurnChanges:
        """One turn's changes (``turn`` None: the last), the whole line's, or the folder's uncommitted ones."""
        raise CheckpointError(f"line {key} has no checkpointed turn yet")

    def file_patch(self, key: str, path: str, scope: ChangeScope = ChangeScope.TURN, turn: int | None = None) -> str:
        """A git-style unified diff of one file ("" if binary)."""
        raise CheckpointError(f"line {key} has no checkpointed turn yet")

    def revert_file(self, key: str, path: str, turn: int) -> None:
        """That file back to before the turn."""
        raise CheckpointError(f"line {key} has no checkpointed turn {turn}")

    def revert_hunk(self, key: str, path: str, turn: int, hunk_index: int) -> None:
        """One hunk (0-based, in ``file_patch``'s order) of the turn taken back."""
        raise CheckpointError(f"line {key} has no checkpointed turn {turn}")

    def restore(self, key: str, turn: int, *, fork: bool = False, force: bool = False) -> RestoreResult:
        """The folder back to before that turn; ``fork`` also forks the line there."""
        raise CheckpointError(f"line {key} has no checkpointed turn {turn}")

    def undo_restore(self, key: str) -> None:
        """Undo the last restore (or revert) on that line."""
        raise CheckpointError(f"nothing to undo on line {key}")
