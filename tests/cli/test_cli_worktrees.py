"""``xworkmate thread new --worktree REPO [--branch NAME]``, archive and unarchive, as a real process (issue 16)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from tests.support.git_repos import git, make_repo


def test_thread_new_worktree_archive_and_unarchive(home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "project")
    line = ok_json(home, "thread", "new", "--worktree", str(repo), "--branch", "cli-task", "--title", "CLI task")
    folder = Path(line["workspace_path"])
    assert line["workspace_kind"] == "worktree"
    assert (line["worktree_repo"], line["worktree_branch"]) == (str(repo.resolve()), "cli-task")
    assert folder.parent == home / "workspace" / ".xworkmate" / "threads"
    assert (folder / "README.md").is_file()

    shown = run_cli(home, "thread", "show", line["session_key"])
    assert f"worktree of {repo.resolve()} on branch cli-task" in shown.stdout

    (folder / "scratch.txt").write_text("unsaved\n")
    refused = run_cli(home, "thread", "archive", line["session_key"])
    assert_one_line_error(refused, "uncommitted changes", "--force")
    assert folder.is_dir()

    archived = ok_json(home, "thread", "archive", line["session_key"], "--force")
    assert archived["archived"] and not folder.exists()
    assert "cli-task" in git(repo, "branch", "--list", "cli-task")

    back = ok_json(home, "thread", "unarchive", line["session_key"])
    assert not back["archived"] and back["status"] == "runnable"
    assert (folder / "README.md").is_file()


def test_thread_new_worktree_bad_input_is_one_line(home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "project")
    (tmp_path / "plain").mkdir()
    assert_one_line_error(run_cli(home, "thread", "new", "--worktree", str(tmp_path / "plain")), "not a git repository")
    assert_one_line_error(run_cli(home, "thread", "new", "--worktree", str(tmp_path / "gone")), "does not exist")
    assert_one_line_error(
        run_cli(home, "thread", "new", "--worktree", str(repo), "--branch", "a b"), "not a valid branch name"
    )
    assert_one_line_error(run_cli(home, "thread", "new", "--worktree", str(repo), "--branch", "main"), "already exists")
    assert_one_line_error(run_cli(home, "thread", "new", "--branch", "x"), "--worktree")
    assert [row["session_key"] for row in ok_json(home, "thread", "list", "--all")] == ["main"]
