"""The old home of ``xworkmate.cli.checkpoints``, kept while imports move (issue 19)."""

from __future__ import annotations

from xworkmate.cli.checkpoints import (
    add_checkpoint_commands,
    cmd_changes,
    cmd_checkpoints_exclude,
    cmd_checkpoints_prune,
    cmd_checkpoints_retention,
    cmd_restore,
    cmd_revert,
)

__all__ = [
    "add_checkpoint_commands",
    "cmd_changes",
    "cmd_checkpoints_exclude",
    "cmd_checkpoints_prune",
    "cmd_checkpoints_retention",
    "cmd_restore",
    "cmd_revert",
]
