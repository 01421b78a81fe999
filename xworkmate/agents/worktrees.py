"""Git worktrees for worktree lines (issue 16, item 4): pure git calls, no store, no Qt.

A worktree line's folder is ``git worktree add`` of a repository on a branch of its own.
Nothing here touches the repository's state beyond that: ``git worktree add`` (with a new
branch), ``git worktree remove`` of the line's own worktree, and reads (``rev-parse``,
``show-ref``, ``status``, ``worktree list``). The branch is never deleted, except the one
``add_worktree`` just made when the caller undoes a line that could not be stored (ERR-2).

Every git here runs through ``agents.git_safe`` (SBX-3): the repository's config, hooks and
attributes run nothing, and git in a worktree is told the folder git made for it, after its
``.git`` file is checked to still point there.

Every refusal is a ``WorktreeError`` (a ``ValueError``) with one line saying what is wrong.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from xworkmate.agents.git_safe import GIT_TIMEOUT_S, GitRedirected, GitUnsafe, expect_gitdir, run_git

__all__ = [
    "WorktreeDirtyError",
    "WorktreeError",
    "WorktreeRedirectedError",
    "add_worktree",
    "branch_exists",
    "check_branch_name",
    "drop_new_branch",
    "remove_worktree",
    "repository_top",
    "uncommitted_paths",
    "worktree_git_dir",
]


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


class WorktreeRedirectedError(WorktreeDirtyError):
    """The worktree's ``.git`` no longer leads to the repository git made it in: git is not run there (SBX-3).

    A ``WorktreeDirtyError`` because what the folder holds cannot be checked: archiving asks as
    for uncommitted changes, never stays blocked, and ``force`` deletes the folder without git
    reading it, then its registration; the branch stays.
    """

    def __init__(self, path: Path, reason: str) -> None:
        WorktreeError.__init__(self, f"{reason}, so its uncommitted changes cannot be checked")
        self.path = path
        self.changed = ()


def _git_binary() -> str:
    found = shutil.which("git")
    if found is None:
        raise WorktreeError("git is not installed (worktree lines need it on PATH)")
    return found


def _git(
    args: list[str], *, cwd: Path, git_dir: Path | None = None, work_tree: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """git through ``agents.git_safe``: neither the repository's config nor its hooks run anything (SBX-3)."""
    _git_binary()
    try:
        done = run_git(args, cwd=cwd, git_dir=git_dir, work_tree=work_tree, timeout=GIT_TIMEOUT_S)
    except GitUnsafe as exc:
        raise WorktreeError(str(exc)) from None
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    )


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


def worktree_git_dir(repo: Path, path: Path) -> Path:
    """The folder git keeps for the worktree at ``path`` (``<common dir>/worktrees/<id>``), found from ``repo``.

    The worktree's own ``.git`` file is the agent's to rewrite (issue 29, row 2): it must still
    point there, else ``WorktreeRedirectedError``. git is then told this folder and the work tree
    explicitly, so neither the ``.git`` file nor ``core.worktree`` can move what it reads.
    """
    done = _git(["rev-parse", "--git-common-dir"], cwd=repo)
    if done.returncode != 0:
        raise WorktreeError(f"cannot read the repository {repo}: {_first_line(done.stderr)}")
    common = repo / done.stdout.strip()
    real = os.path.realpath(path)
    for gitdir_file in sorted((common / "worktrees").glob("*/gitdir")):
        try:
            named = gitdir_file.read_text(encoding="utf-8", errors="surrogateescape").strip()
        except OSError:
            continue
        registered = Path(named) if os.path.isabs(named) else gitdir_file.parent / named
        if registered.name == ".git" and os.path.realpath(registered.parent) == real:
            try:
                expect_gitdir(path, gitdir_file.parent)
            except GitRedirected as exc:
                raise WorktreeRedirectedError(path, str(exc)) from None
            except GitUnsafe as exc:
                raise WorktreeRedirectedError(path, f"the line's .git in {path} cannot be read ({exc})") from None
            return gitdir_file.parent
    raise WorktreeRedirectedError(path, f"the worktree {path} is no longer registered in {repo}")


def uncommitted_paths(repo: Path, path: Path) -> list[str]:
    """The worktree's changed and untracked files (``git status --porcelain``), as git names them.

    Submodules are compared by commit only (git would run ``status`` inside them, under their own
    config); a populated one is listed as ``<path> (submodule)``, as ``git worktree remove`` refuses it.
    """
    git_dir = worktree_git_dir(repo, path)
    done = _git(
        ["status", "--porcelain", "--untracked-files=all", "--ignore-submodules=dirty"],
        cwd=path,
        git_dir=git_dir,
        work_tree=path,
    )
    if done.returncode != 0:
        raise WorktreeError(f"cannot read the state of the worktree {path}: {_first_line(done.stderr)}")
    changed = [line[3:] for line in done.stdout.splitlines() if len(line) > 3]
    staged = _git(["ls-files", "--stage", "-z"], cwd=path, git_dir=git_dir, work_tree=path)
    for entry in staged.stdout.split("\0"):
        meta, _, name = entry.partition("\t")
        if meta.startswith("160000 ") and (path / name / ".git").exists() and name not in changed:
            changed.append(f"{name} (submodule)")
    return changed


def _delete_unreadable(repo: Path, path: Path) -> None:
    """``force`` on a worktree git must not run in: delete the folder ourselves (symlinks inside are
    removed, never followed), then git's registration of the now missing path; the branch stays."""
    if path.is_symlink():
        path.unlink()
    else:
        shutil.rmtree(path)
    if path in _registered_worktrees(repo) or Path(os.path.realpath(path)) in _registered_worktrees(repo):
        _git(["worktree", "remove", "--force", str(path)], cwd=repo)


def remove_worktree(repo: Path, path: Path, *, force: bool = False) -> None:
    """``git worktree remove`` of the line's worktree; the branch stays. Refuses uncommitted changes unless ``force``.

    A worktree already deleted outside git only has its registration cleared. One whose ``.git``
    was redirected is refused (``WorktreeRedirectedError``), or with ``force`` deleted unread.
    """
    if not repo.is_dir():
        if path.exists():
            raise WorktreeError(f"the repository {repo} is missing; its worktree {path} was left as it is")
        return  # nothing is left to remove
    if path.is_dir():
        try:
            changed = uncommitted_paths(repo, path)
        except WorktreeRedirectedError:
            if not force:
                raise
            _delete_unreadable(repo, path)
            return
        if changed and not force:
            raise WorktreeDirtyError(path, changed)
    elif path not in _registered_worktrees(repo):
        return
    # Always --force: the state was checked just above, safely; git's own check would run `status`
    # under config this call did not list (a worktree's config.worktree, a submodule's).
    done = _git(["worktree", "remove", "--force", str(path)], cwd=repo)
    if done.returncode != 0:
        raise WorktreeError(f"git worktree remove failed for {path}: {_first_line(done.stderr)}")


def drop_new_branch(repo: Path, path: Path, branch: str) -> None:
    """Undo ``add_worktree(new_branch=True)``: the worktree and the branch it just made (ERR-2)."""
    _git(["worktree", "remove", "--force", str(path)], cwd=repo)
    _git(["branch", "-D", branch], cwd=repo)
