"""Git worktrees for worktree lines (issue 16, item 4): pure git calls, no store, no Qt.

A worktree line's folder is ``git worktree add`` of a repository on a branch of its own.
Nothing here touches the repository's state beyond that: ``git worktree add`` (with a new
branch), ``git worktree remove`` of the line's own worktree, and reads (``rev-parse``,
``show-ref``, ``status``, ``worktree list``). The branch is never deleted, except the one
``add_worktree`` just made when the caller undoes a line that could not be stored (ERR-2).

Every refusal is a ``WorktreeError`` (a ``ValueError``) with one line saying what is wrong.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = [
    "WorktreeDirtyError",
    "WorktreeError",
    "add_worktree",
    "branch_exists",
    "check_branch_name",
    "drop_new_branch",
    "remove_worktree",
    "repository_top",
    "uncommitted_paths",
]

GIT_TIMEOUT_S = 120
# Variables that would point git at another repository than the one named (a shadow checkpoint
# repository's GIT_DIR, a hook's GIT_INDEX_FILE): never inherited by these calls.
_REPO_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")


class WorktreeError(ValueError):
    """A worktree that cannot be made, removed or recreated; the message is one line."""


class WorktreeDirtyError(WorktreeError):
    """The worktree has uncommitted changes: removing it would lose them (``force`` removes it anyway)."""

    def __init__(self, path: Path, changed: list[str]) -> None:
        count = len(changed)
        shown = ", ".join(changed[:3]) + (", …" if count > 3 else "")
        super().__init__(
            f"the worktree {path} has uncommitted changes ({count} file{'s' if count != 1 else ''}: {shown});"
            " commit them on its branch, or remove it anyway"
        )
        self.path = path
        self.changed = tuple(changed)


def _git_binary() -> str:
    found = shutil.which("git")
    if found is None:
        raise WorktreeError("git is not installed (worktree lines need it on PATH)")
    return found


def _git(args: list[str], *, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in _REPO_VARIABLES}
    env["LC_ALL"] = "C"  # git's messages are read below; the person sees the one line we make of them
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        return subprocess.run(
            [_git_binary(), *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise WorktreeError(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s in {cwd}; nothing was changed") from None


def _first_line(stderr: str) -> str:
    """git's own reason: its ``fatal:``/``error:`` line, else its first line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        for prefix in ("fatal: ", "error: "):
            if line.startswith(prefix):
                return line[len(prefix) :]
    return lines[0] if lines else "git failed"


def repository_top(repo: str | Path) -> Path:
    """The top folder of the repository ``repo`` is in; refuses a missing path or a folder outside any repository."""
    raw = str(repo).strip()
    if not raw:
        raise WorktreeError("no repository given")
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    if not path.exists():
        raise WorktreeError(f"cannot add a worktree of {path}: the folder does not exist")
    if not path.is_dir():
        raise WorktreeError(f"cannot add a worktree of {path}: it is a file, not a folder")
    done = _git(["rev-parse", "--show-toplevel"], cwd=path)
    top = done.stdout.strip()
    if done.returncode != 0 or not top:
        raise WorktreeError(f"{path} is not a git repository (or a folder inside one)")
    return Path(top).resolve()


def check_branch_name(repo: Path, name: str) -> str:
    """``name`` if git takes it as a new branch's name (``git check-ref-format --branch``), else a refusal."""
    if not name or name != name.strip() or name.startswith("-") or "@{" in name:
        raise WorktreeError(f"{name!r} is not a valid branch name")
    done = _git(["check-ref-format", "--branch", name], cwd=repo)
    if done.returncode != 0 or done.stdout.strip() != name:
        raise WorktreeError(f"{name!r} is not a valid branch name")
    return name


def branch_exists(repo: Path, name: str) -> bool:
    return _git(["show-ref", "--verify", "--quiet", f"refs/heads/{name}"], cwd=repo).returncode == 0


def _registered_worktrees(repo: Path) -> set[Path]:
    done = _git(["worktree", "list", "--porcelain"], cwd=repo)
    if done.returncode != 0:
        return set()
    return {Path(line[len("worktree ") :]) for line in done.stdout.splitlines() if line.startswith("worktree ")}


def add_worktree(repo: Path, path: Path, branch: str, *, new_branch: bool) -> None:
    """``git worktree add`` at ``path``: on a new branch from the repository's HEAD, or on the existing ``branch``.

    A registration of ``path`` itself left behind by a worktree deleted outside git (``rm -rf``) is
    cleared first (``git worktree remove --force`` of that one path); no other worktree is touched.
    """
    if not repo.is_dir():
        raise WorktreeError(f"the repository {repo} is missing; the worktree cannot be added")
    if new_branch and branch_exists(repo, branch):
        raise WorktreeError(f"a branch named {branch!r} already exists in {repo}; choose another name")
    if not new_branch and not branch_exists(repo, branch):
        raise WorktreeError(f"the branch {branch!r} is no longer in {repo}; the worktree cannot be added again")
    if path.exists():
        raise WorktreeError(f"cannot add a worktree at {path}: something is already there")
    if path in _registered_worktrees(repo) or path.resolve() in _registered_worktrees(repo):
        _git(["worktree", "remove", "--force", str(path)], cwd=repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    args = ["worktree", "add", "--quiet", "-b", branch, str(path)] if new_branch else ["worktree", "add", "--quiet"]
    if not new_branch:
        args += [str(path), branch]
    done = _git(args, cwd=repo)
    if done.returncode != 0:
        raise WorktreeError(f"git worktree add failed in {repo}: {_first_line(done.stderr)}")


def uncommitted_paths(path: Path) -> list[str]:
    """The worktree's changed and untracked files (``git status --porcelain``), as git names them."""
    done = _git(["status", "--porcelain", "--untracked-files=all"], cwd=path)
    if done.returncode != 0:
        raise WorktreeError(f"cannot read the state of the worktree {path}: {_first_line(done.stderr)}")
    return [line[3:] for line in done.stdout.splitlines() if len(line) > 3]


def remove_worktree(repo: Path, path: Path, *, force: bool = False) -> None:
    """``git worktree remove`` of the line's worktree; the branch stays. Refuses uncommitted changes unless ``force``.

    A worktree already deleted outside git only has its registration cleared.
    """
    if not repo.is_dir():
        if path.exists():
            raise WorktreeError(f"the repository {repo} is missing; its worktree {path} was left as it is")
        return  # nothing is left to remove
    if path.is_dir():
        changed = uncommitted_paths(path)
        if changed and not force:
            raise WorktreeDirtyError(path, changed)
    elif path not in _registered_worktrees(repo):
        return
    done = _git(["worktree", "remove", *(["--force"] if force or not path.is_dir() else []), str(path)], cwd=repo)
    if done.returncode != 0:
        raise WorktreeError(f"git worktree remove failed for {path}: {_first_line(done.stderr)}")


def drop_new_branch(repo: Path, path: Path, branch: str) -> None:
    """Undo ``add_worktree(new_branch=True)``: the worktree and the branch it just made (ERR-2)."""
    _git(["worktree", "remove", "--force", str(path)], cwd=repo)
    _git(["branch", "-D", branch], cwd=repo)
