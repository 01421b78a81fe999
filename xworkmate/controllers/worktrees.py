"""Worktree lines (issue 16, item 4): what a ``worktree`` binding means, between the controller and git.

``SessionController`` calls these through thin methods (``create_worktree_line``, ``archive_line``,
``unarchive_line``, ``restore_default_folder``); the git calls themselves are in
``xworkmate.agents.worktrees``. A worktree line's folder is ``<workspace root>/.xworkmate/threads/<dir
name>`` like any line's own folder (ISO-3), added with ``git worktree add`` on a new branch; the
binding (kind ``worktree``) records the repository and the branch. Archiving removes the worktree and
keeps the branch; unarchiving adds it again on that branch. A worktree deleted outside XWorkmate
leaves the line ``needs_workspace`` like any missing folder (ISO-4, ISO-7: never main).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xworkmate.domain.threads import BoundBy, WorkspaceBinding, WorkspaceKind
from xworkmate.lazy import lazy_attributes

if TYPE_CHECKING:  # issue 34 item 4: git's code (``agents.worktrees``) loads at the first worktree action
    from xworkmate.agents.worktrees import WorktreeDirtyError, WorktreeError

__all__ = [
    "WorktreeDirtyError",
    "WorktreeError",
    "WorktreePlan",
    "add_line_worktree",
    "default_branch_name",
    "is_worktree",
    "plan_line_worktree",
    "recreate_line_worktree",
    "release_line_worktree",
    "undo_line_worktree",
]

BRANCH_PREFIX = "xworkmate/"


# Issue 34 item 4: git's errors load from ``agents.worktrees`` when first asked for, with the rest of its code.
__getattr__ = lazy_attributes(
    __name__, dict.fromkeys(("WorktreeDirtyError", "WorktreeError"), "xworkmate.agents.worktrees")
)


@dataclass(frozen=True, slots=True)
class WorktreePlan:
    """A checked request for a new worktree line: where, from which repository, on which new branch."""

    repo: Path
    branch: str
    path: Path

    def binding(self) -> WorkspaceBinding:
        return WorkspaceBinding(
            path=str(self.path),
            kind=WorkspaceKind.WORKTREE,
            bound_by=BoundBy.EXPLICIT,
            repo=str(self.repo),
            branch=self.branch,
        )


def default_branch_name(folder: Path) -> str:
    """``xworkmate/<dir name>``: the line's folder name is already unique and safe as a ref (ISO-3)."""
    return BRANCH_PREFIX + folder.name


def is_worktree(binding: WorkspaceBinding) -> bool:
    return binding.kind is WorkspaceKind.WORKTREE and bool(binding.repo and binding.branch and binding.path)


def plan_line_worktree(repo: str | Path, branch: str | None, folder: Path) -> WorktreePlan:
    """Every check before anything is made: the repository, the branch name, that the branch is new."""
    from xworkmate.agents.worktrees import WorktreeError, branch_exists, check_branch_name, repository_top

    top = repository_top(repo)
    name = default_branch_name(folder) if branch is None else branch
    check_branch_name(top, name)
    if branch_exists(top, name):
        raise WorktreeError(f"a branch named {name!r} already exists in {top}; choose another name")
    if folder.exists():
        raise WorktreeError(f"cannot add a worktree at {folder}: something is already there")
    return WorktreePlan(repo=top, branch=name, path=folder)


def add_line_worktree(plan: WorktreePlan) -> WorkspaceBinding:
    from xworkmate.agents.worktrees import add_worktree

    add_worktree(plan.repo, plan.path, plan.branch, new_branch=True)
    return plan.binding()


def undo_line_worktree(plan: WorktreePlan) -> None:
    """The line's row could not be stored: its worktree and its new branch go again (ERR-2)."""
    from xworkmate.agents.worktrees import drop_new_branch

    drop_new_branch(plan.repo, plan.path, plan.branch)


def _parts(binding: WorkspaceBinding) -> tuple[Path, Path, str]:
    assert binding.repo is not None and binding.path is not None and binding.branch is not None
    return Path(binding.repo), Path(binding.path), binding.branch


def release_line_worktree(binding: WorkspaceBinding, *, force: bool = False) -> None:
    """Archiving: ``git worktree remove`` (refused on uncommitted changes unless ``force``); the branch stays."""
    from xworkmate.agents.worktrees import remove_worktree

    repo, path, _branch = _parts(binding)
    remove_worktree(repo, path, force=force)


def recreate_line_worktree(binding: WorkspaceBinding) -> None:
    """Unarchiving (or "Recreate folder"): ``git worktree add`` on the kept branch, unless it is there already."""
    from xworkmate.agents.worktrees import add_worktree

    repo, path, branch = _parts(binding)
    if path.is_dir():
        return
    add_worktree(repo, path, branch, new_branch=False)
