"""Worktree lines (issue 16, item 4; ISO-3, ISO-4, ISO-7) with real git, on SQLite and PostgreSQL.

A worktree line's folder is ``git worktree add`` under ``.xworkmate/threads/<dir name>`` on a new branch;
its binding (kind ``worktree``, repository, branch) is stored on the thread; archiving removes the worktree
and keeps the branch, unarchiving adds it again; a worktree deleted outside XWorkmate blocks the line.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.git_repos import git, make_repo, repo_state
from xworkmate.controllers import SessionController, WorktreeDirtyError, WorktreeError
from xworkmate.domain.keys import key_to_dir_name
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.threads import ThreadStatus, WorkspaceKind
from xworkmate.settings import Settings
from xworkmate.store import open_store


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "project", {"README.md": "hello\n", "src/app.py": "print('hi')\n"})


def branches(repo: Path) -> set[str]:
    return set(git(repo, "branch", "--format=%(refname:short)").split())


def worktree_paths(repo: Path) -> set[str]:
    out = git(repo, "worktree", "list", "--porcelain")
    return {line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("worktree ")}


def test_a_worktree_line_is_a_worktree_on_a_new_branch_and_the_binding_is_stored(
    controller: SessionController, settings: Settings, database_url: str, repo: Path
) -> None:
    before = repo_state(repo)
    thread = controller.lines.create_worktree_line(repo / "src", title="Fix it")  # a folder inside the repo is enough
    key = thread.thread_id
    folder = settings.threads_root / key_to_dir_name(key)
    binding = thread.workspace_binding
    assert binding.kind is WorkspaceKind.WORKTREE
    assert (binding.path, binding.repo) == (str(folder), str(repo.resolve()))
    assert binding.branch == f"xworkmate/{key_to_dir_name(key)}"
    assert (folder / "src" / "app.py").read_text() == "print('hi')\n"
    assert git(folder, "branch", "--show-current").strip() == binding.branch
    assert binding.branch in branches(repo)
    assert repo_state(repo) == before  # HEAD, index, status, stash of the repository itself: untouched
    assert controller.lines.status_of(thread) is ThreadStatus.RUNNABLE
    assert controller.turns.prepare_run(key, "go").working_directory == str(folder)

    # The binding is on the thread row: a new store on the same database reads it back.
    reopened = open_store(database_url)
    try:
        again = SessionController(reopened, settings).get_thread(key)
    finally:
        reopened.close()
    assert again.workspace_binding == binding


def test_a_named_branch_is_used(controller: SessionController, repo: Path) -> None:
    thread = controller.lines.create_worktree_line(repo, branch="feature/login")
    assert thread.workspace_binding.branch == "feature/login"
    assert git(Path(thread.workspace_binding.path or ""), "branch", "--show-current").strip() == "feature/login"


def test_archive_removes_the_worktree_keeps_the_branch_and_unarchive_brings_it_back(
    controller: SessionController, repo: Path
) -> None:
    thread = controller.lines.create_worktree_line(repo, branch="task-1")
    folder = Path(thread.workspace_binding.path or "")
    (folder / "notes.txt").write_text("work\n")
    git(folder, "add", "notes.txt")
    git(folder, "commit", "-q", "-m", "work on the branch")

    archived = controller.lines.archive_line(thread.thread_id)
    assert archived.archived
    assert not folder.exists()
    assert str(folder) not in worktree_paths(repo)
    assert "task-1" in branches(repo)  # the branch and its commit are kept
    assert archived.workspace_binding == thread.workspace_binding

    back = controller.lines.unarchive_line(thread.thread_id)
    assert not back.archived
    assert (folder / "notes.txt").read_text() == "work\n"  # the kept branch, checked out again
    assert git(folder, "branch", "--show-current").strip() == "task-1"
    assert controller.lines.status_of(back) is ThreadStatus.RUNNABLE


def test_archive_refuses_uncommitted_changes_unless_forced(controller: SessionController, repo: Path) -> None:
    thread = controller.lines.create_worktree_line(repo, branch="dirty")
    folder = Path(thread.workspace_binding.path or "")
    (folder / "README.md").write_text("changed\n")
    (folder / "new.txt").write_text("untracked\n")

    with pytest.raises(WorktreeDirtyError) as refused:
        controller.lines.archive_line(thread.thread_id)
    assert "uncommitted changes (2 files" in str(refused.value) and "\n" not in str(refused.value)
    assert folder.is_dir() and not controller.get_thread(thread.thread_id).archived  # nothing lost

    assert controller.lines.archive_line(thread.thread_id, force=True).archived
    assert not folder.exists()
    assert "dirty" in branches(repo)


def test_a_worktree_removed_outside_blocks_the_line_and_never_falls_back_to_main(
    controller: SessionController, repo: Path
) -> None:
    thread = controller.lines.create_worktree_line(repo)
    folder = Path(thread.workspace_binding.path or "")
    shutil.rmtree(folder)  # removed behind XWorkmate's back; git still has it registered

    view = controller.lines.line_view(thread.thread_id)
    assert view.status is ThreadStatus.NEEDS_WORKSPACE  # ISO-4
    with pytest.raises(NotRunnable) as refused:
        controller.turns.prepare_run(thread.thread_id, "go")
    assert refused.value.status is ThreadStatus.NEEDS_WORKSPACE
    assert controller.get_thread(thread.thread_id).workspace_binding.path == str(folder)  # ISO-7: not main

    # "Recreate folder" (the window's recreate_folder) adds the worktree again on its branch, not an
    # empty folder at its path (the stale registration is cleared first).
    controller.lines.recreate_folder(thread.thread_id)
    assert folder.is_dir() and (folder / ".git").is_file()
    assert str(folder) in worktree_paths(repo)
    assert controller.lines.line_view(thread.thread_id).status is ThreadStatus.RUNNABLE

    # Archiving a line whose worktree is gone only clears git's registration of it.
    shutil.rmtree(folder)
    assert controller.lines.archive_line(thread.thread_id).archived
    assert str(folder) not in worktree_paths(repo)


def test_unarchive_refuses_when_the_branch_is_gone(controller: SessionController, repo: Path) -> None:
    thread = controller.lines.create_worktree_line(repo, branch="short-lived")
    controller.lines.archive_line(thread.thread_id)
    git(repo, "branch", "-D", "short-lived")
    with pytest.raises(WorktreeError, match=r"no longer in .*stays archived"):
        controller.lines.unarchive_line(thread.thread_id)
    assert controller.get_thread(thread.thread_id).archived


@pytest.mark.parametrize(
    ("make_input", "fragment"),
    [
        (lambda tmp, repo: (tmp / "plain", None), "is not a git repository"),
        (lambda tmp, repo: (tmp / "nowhere", None), "does not exist"),
        (lambda tmp, repo: (repo, "bad..name"), "is not a valid branch name"),
        (lambda tmp, repo: (repo, "-x"), "is not a valid branch name"),
        (lambda tmp, repo: (repo, ""), "is not a valid branch name"),
        (lambda tmp, repo: (repo, "main"), "already exists"),
    ],
    ids=["not-a-repository", "missing-path", "bad-branch", "dash-branch", "empty-branch", "branch-exists"],
)
def test_bad_input_is_one_line_and_makes_nothing(
    controller: SessionController, settings: Settings, repo: Path, tmp_path: Path, make_input, fragment: str
) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "plain").mkdir()
    where, branch = make_input(tmp_path, repo)
    lines_before = controller.lines.list_lines(include_archived=True)
    before = (branches(repo), worktree_paths(repo), repo_state(repo))
    with pytest.raises(WorktreeError) as refused:
        controller.lines.create_worktree_line(where, branch=branch)
    message = str(refused.value)
    assert fragment in message and "\n" not in message
    assert controller.lines.list_lines(include_archived=True) == lines_before
    assert (branches(repo), worktree_paths(repo), repo_state(repo)) == before
    assert not settings.threads_root.exists() or [p.name for p in settings.threads_root.iterdir()] == ["main"]
