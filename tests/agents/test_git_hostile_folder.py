"""SBX-3: no git XWorkmate runs for a line executes what the agent left in the line's folder (issue 29 rows 1, 2).

Every config key with which git runs a program is planted, as an attacker in the folder would,
with a command that writes a mark file outside the folder; then every host operation runs
(the folder repository's uncommitted changes, the shadow checkpoints, a worktree line's status,
archive and unarchive) and the mark must never appear. Real git, real files; the two rows of
the issue also through the real command line.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from tests.support.git_repos import git, make_repo
from xworkmate.agents.checkpoints import FolderRepo, ShadowRepo
from xworkmate.agents.worktrees import (
    WorktreeRedirectedError,
    add_worktree,
    remove_worktree,
    uncommitted_paths,
)

HOOKS = ("pre-commit", "post-checkout", "reference-transaction", "post-index-change", "pre-auto-gc", "post-commit")


def _mark(marks: Path, name: str) -> str:
    """A shell command that leaves ``marks/name`` and passes its input through (a filter must still answer)."""
    return f"sh -c 'id >> {shlex.quote(str(marks / name))}; cat' --"


def _config(git_dir: Path, key: str, value: str) -> None:
    git(git_dir, "config", "--file", str(git_dir / "config"), key, value)


def _attributes(folder: Path, line: str) -> None:
    with (folder / ".gitattributes").open("a", encoding="utf-8") as out:
        out.write(line + "\n")


def _hooks(folder: Path, marks: Path) -> Path:
    hooks = folder.parent / f"{folder.name}-hooks"
    hooks.mkdir(exist_ok=True)
    for name in HOOKS:
        hook = hooks / name
        hook.write_text(f"#!/bin/sh\nid >> {shlex.quote(str(marks / name))}\n", encoding="utf-8")
        hook.chmod(0o755)
    return hooks


# Each attack: (folder, its git dir, the marks folder) -> planted. The folder holds a committed
# "tracked.txt" that is modified after the commit, and an untracked "new.txt".
Attack = Callable[[Path, Path, Path], None]


def _fsmonitor(folder: Path, git_dir: Path, marks: Path) -> None:
    _config(git_dir, "core.fsmonitor", _mark(marks, "fsmonitor"))


def _hooks_path(folder: Path, git_dir: Path, marks: Path) -> None:
    _config(git_dir, "core.hooksPath", str(_hooks(folder, marks)))


def _hooks_in_git_dir(folder: Path, git_dir: Path, marks: Path) -> None:
    hooks = _hooks(folder, marks)
    (git_dir / "hooks").mkdir(exist_ok=True)
    for hook in hooks.iterdir():
        (git_dir / "hooks" / hook.name).write_bytes(hook.read_bytes())
        (git_dir / "hooks" / hook.name).chmod(0o755)


def _transport(folder: Path, git_dir: Path, marks: Path) -> None:
    _config(git_dir, "remote.origin.url", "ssh://example.invalid/x")
    _config(git_dir, "core.sshCommand", _mark(marks, "sshCommand"))
    _config(git_dir, "core.gitProxy", _mark(marks, "gitProxy"))
    _config(git_dir, "remote.origin.uploadpack", _mark(marks, "uploadpack"))
    _config(git_dir, "core.askPass", _mark(marks, "askPass"))
    _config(git_dir, "credential.helper", _mark(marks, "credential"))
    _config(git_dir, "credential.https://example.invalid.helper", _mark(marks, "credential-url"))
    _config(git_dir, "core.alternateRefsCommand", _mark(marks, "alternateRefs"))
    _config(git_dir, "uploadpack.packObjectsHook", _mark(marks, "packObjectsHook"))


def _pager_and_editors(folder: Path, git_dir: Path, marks: Path) -> None:
    _config(git_dir, "core.pager", _mark(marks, "pager"))
    for command in ("status", "diff", "log", "ls-files"):
        _config(git_dir, f"pager.{command}", _mark(marks, f"pager-{command}"))
    _config(git_dir, "core.editor", _mark(marks, "editor"))
    _config(git_dir, "sequence.editor", _mark(marks, "sequence-editor"))


def _signatures(folder: Path, git_dir: Path, marks: Path) -> None:
    _config(git_dir, "gpg.program", _mark(marks, "gpg"))
    _config(git_dir, "gpg.ssh.program", _mark(marks, "gpg-ssh"))
    _config(git_dir, "log.showSignature", "true")
    _config(git_dir, "commit.gpgSign", "true")


def _diff_external(folder: Path, git_dir: Path, marks: Path) -> None:
    _config(git_dir, "diff.external", _mark(marks, "diff-external"))


def _diff_driver(folder: Path, git_dir: Path, marks: Path) -> None:
    _config(git_dir, "diff.evil.command", _mark(marks, "diff-command"))
    _config(git_dir, "diff.evil.textconv", _mark(marks, "textconv"))
    _attributes(folder, "* diff=evil")


def _filter_driver(folder: Path, git_dir: Path, marks: Path) -> None:
    for key in ("clean", "smudge"):
        _config(git_dir, f"filter.evil.{key}", _mark(marks, f"filter-{key}"))
    _config(git_dir, "filter.evil.required", "true")
    _attributes(folder, "* filter=evil")


def _filter_process(folder: Path, git_dir: Path, marks: Path) -> None:
    _config(git_dir, "filter.proc.process", _mark(marks, "filter-process"))
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_text("* filter=proc\n", encoding="utf-8")


def _strange_driver_name(folder: Path, git_dir: Path, marks: Path) -> None:
    """A name ``-c name=value`` would split wrongly: it must be overridden all the same."""
    _config(git_dir, "filter.a=b.clean", _mark(marks, "filter-equals"))
    _attributes(folder, "* filter=a=b")


def _merge_driver(folder: Path, git_dir: Path, marks: Path) -> None:
    _config(git_dir, "merge.evil.driver", _mark(marks, "merge-driver"))
    _attributes(folder, "* merge=evil")


def _include(folder: Path, git_dir: Path, marks: Path) -> None:
    included = folder.parent / f"{folder.name}-included.cfg"
    included.write_text(
        f'[core]\n\tfsmonitor = "{_mark(marks, "include-fsmonitor")}"\n'
        f'[filter "inc"]\n\tclean = "{_mark(marks, "include-clean")}"\n',
        encoding="utf-8",
    )
    _config(git_dir, "include.path", str(included))
    _attributes(folder, "*.txt filter=inc")


def _include_if(folder: Path, git_dir: Path, marks: Path) -> None:
    included = folder.parent / f"{folder.name}-included-if.cfg"
    included.write_text(f'[core]\n\tfsmonitor = "{_mark(marks, "includeIf-fsmonitor")}"\n', encoding="utf-8")
    _config(git_dir, "includeIf.gitdir:/.path", str(included))


def _nested_repository(folder: Path, git_dir: Path, marks: Path) -> None:
    """A submodule (gitlink in the index, .gitmodules asking for its status) with its own fsmonitor and filter."""
    nested = make_repo(folder / "nested", {"inner.txt": "inner\n"})
    _config(nested / ".git", "core.fsmonitor", _mark(marks, "nested-fsmonitor"))
    _config(nested / ".git", "filter.inner.clean", _mark(marks, "nested-clean"))
    _attributes(nested, "* filter=inner")
    (nested / "inner.txt").write_text("inner, changed\n", encoding="utf-8")
    head = git(nested, "rev-parse", "HEAD").strip()
    (folder / ".gitmodules").write_text(
        '[submodule "nested"]\n\tpath = nested\n\turl = ./nested\n\tignore = none\n', encoding="utf-8"
    )
    git(folder, "update-index", "--add", "--cacheinfo", f"160000,{head},nested")  # the folder's own index


def _core_worktree(folder: Path, git_dir: Path, marks: Path) -> None:
    elsewhere = folder.parent / f"{folder.name}-elsewhere"
    elsewhere.mkdir(exist_ok=True)
    (elsewhere / "tracked.txt").write_text("elsewhere\n", encoding="utf-8")
    (elsewhere / ".gitattributes").write_text("* filter=far\n", encoding="utf-8")
    _config(git_dir, "filter.far.clean", _mark(marks, "worktree-clean"))
    _config(git_dir, "core.worktree", str(elsewhere))


def _gitdir_redirect(folder: Path, git_dir: Path, marks: Path) -> None:
    """Row 2's move: a bare repository of the agent's with an fsmonitor, and ``.git`` pointing to it."""
    evil = folder / ".evil"
    git(folder, "init", "-q", "--bare", str(evil))
    _config(evil, "core.fsmonitor", _mark(marks, "evil-fsmonitor"))
    _config(evil, "core.hooksPath", str(_hooks(folder, marks)))
    dot_git = folder / ".git"
    if dot_git.is_dir():
        dot_git.rename(folder.parent / f"{folder.name}-old-git")
    dot_git.write_text("gitdir: .evil\n", encoding="utf-8")


ATTACKS: dict[str, Attack] = {
    "core.fsmonitor": _fsmonitor,
    "core.hooksPath": _hooks_path,
    "hooks in .git/hooks": _hooks_in_git_dir,
    "sshCommand, gitProxy, uploadpack, askPass, credential.helper": _transport,
    "pager, pager.<cmd>, editor, sequence.editor": _pager_and_editors,
    "gpg programs": _signatures,
    "diff.external": _diff_external,
    "diff.<driver>.command and textconv": _diff_driver,
    "filter.<driver>.clean and smudge": _filter_driver,
    "filter.<driver>.process from info/attributes": _filter_process,
    "a driver named with '='": _strange_driver_name,
    "merge.<driver>.driver": _merge_driver,
    "include.path": _include,
    "includeIf": _include_if,
    "nested repository (submodule)": _nested_repository,
    "core.worktree": _core_worktree,
    "gitdir redirect": _gitdir_redirect,
}


def _folder_repo(root: Path) -> Path:
    """A line's folder that is a repository: a commit, then a modified tracked file and an untracked one."""
    folder = make_repo(root / "line", {"tracked.txt": "one\n"})
    (folder / "tracked.txt").write_text("one\ntwo\n", encoding="utf-8")
    (folder / "new.txt").write_text("fresh\n", encoding="utf-8")
    return folder


def _assert_no_mark(marks: Path) -> None:
    left = {path.name: path.read_text(errors="replace") for path in marks.iterdir()}
    assert left == {}, f"git ran the agent's command: {left}"


@pytest.mark.parametrize("attack", list(ATTACKS.values()), ids=list(ATTACKS))
def test_the_folders_own_repository_runs_nothing_the_agent_planted(tmp_path: Path, attack: Attack) -> None:
    """FolderRepo (``changes --uncommitted``) and every ShadowRepo operation on the planted folder."""
    marks = tmp_path / "marks"
    marks.mkdir()
    folder = _folder_repo(tmp_path)
    attack(folder, folder / ".git" if (folder / ".git").is_dir() else folder / ".evil", marks)

    uncommitted = FolderRepo(folder)
    try:
        uncommitted.changes()
        uncommitted.patch("tracked.txt")
        uncommitted.patch("new.txt")
    except Exception as exc:  # refusing is allowed; running the agent's command is not
        assert "\n" not in str(exc)
    _assert_no_mark(marks)

    shadow = ShadowRepo(tmp_path / "data" / "checkpoints" / "line.git", folder)
    first = shadow.snapshot("before")
    (folder / "tracked.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (folder / "other.txt").write_text("other\n", encoding="utf-8")
    second = shadow.snapshot("after")
    shadow.changes(first.commit, second.commit)
    patch = shadow.patch(first.commit, second.commit, "tracked.txt")
    assert shadow.differs() is False
    shadow.apply_reverse(patch, "tracked.txt")
    shadow.snapshot("reverted")
    shadow.restore_path(second.commit, "tracked.txt")
    shadow.checkout_tree(first.tree)
    shadow.export_tree(second.commit, tmp_path / "fork")
    _assert_no_mark(marks)


def _worktree_line(tmp_path: Path) -> tuple[Path, Path]:
    repo = make_repo(tmp_path / "project", {"tracked.txt": "one\n"})
    folder = tmp_path / "workspace" / ".xworkmate" / "threads" / "line"
    add_worktree(repo, folder, "xworkmate/line", new_branch=True)
    return repo, folder


@pytest.mark.parametrize(
    "attack",
    [a for n, a in ATTACKS.items() if n != "gitdir redirect"],
    ids=[n for n in ATTACKS if n != "gitdir redirect"],
)
def test_a_worktree_lines_status_archive_and_unarchive_run_nothing_planted(tmp_path: Path, attack: Attack) -> None:
    """The worktree's repository config (shared with the person's repository) and its folder, planted."""
    marks = tmp_path / "marks"
    marks.mkdir()
    repo, folder = _worktree_line(tmp_path)
    attack(folder, repo / ".git", marks)
    (folder / "tracked.txt").write_text("one\ntwo\n", encoding="utf-8")

    changed = uncommitted_paths(repo, folder)
    assert "tracked.txt" in changed
    remove_worktree(repo, folder, force=True)
    assert not folder.exists()
    add_worktree(repo, folder, "xworkmate/line", new_branch=False)
    assert (folder / "tracked.txt").is_file()
    _assert_no_mark(marks)


def test_a_redirected_worktree_is_refused_in_one_line_and_force_removes_it_unread(tmp_path: Path) -> None:
    """Row 2: ``.git`` rewritten to ``gitdir: .evil`` (a bare repository with an fsmonitor)."""
    marks = tmp_path / "marks"
    marks.mkdir()
    repo, folder = _worktree_line(tmp_path)
    _gitdir_redirect(folder, repo / ".git", marks)

    with pytest.raises(WorktreeRedirectedError) as refused:
        uncommitted_paths(repo, folder)
    message = str(refused.value)
    assert "\n" not in message and "changed to point to .evil" in message and "will not run git there" in message
    with pytest.raises(WorktreeRedirectedError):
        remove_worktree(repo, folder)
    assert folder.is_dir()
    remove_worktree(repo, folder, force=True)
    assert not folder.exists()
    assert "xworkmate/line" in git(repo, "branch", "--list", "xworkmate/line")
    assert str(folder) not in git(repo, "worktree", "list", "--porcelain")
    _assert_no_mark(marks)


def test_row_1_changes_uncommitted_does_not_run_the_folders_fsmonitor(home: Path, tmp_path: Path) -> None:
    """Row 1: ``core.fsmonitor`` in the line's repository, then ``xworkmate changes KEY --uncommitted``."""
    marks = tmp_path / "marks"
    marks.mkdir()
    folder = _folder_repo(tmp_path)
    _fsmonitor(folder, folder / ".git", marks)
    _filter_driver(folder, folder / ".git", marks)
    line = ok_json(home, "thread", "new", "--title", "hostile", "--workspace", str(folder))

    shown = run_cli(home, "changes", line["session_key"], "--uncommitted")
    assert shown.returncode == 0, shown.stderr
    assert "tracked.txt" in shown.stdout and "new.txt" in shown.stdout
    _assert_no_mark(marks)


def test_row_2_thread_archive_of_a_redirected_worktree_runs_nothing(home: Path, tmp_path: Path) -> None:
    """``git init --bare .evil``, fsmonitor there, ``.git`` -> ``gitdir: .evil``, then ``xworkmate thread archive``."""
    marks = tmp_path / "marks"
    marks.mkdir()
    repo = make_repo(tmp_path / "project")
    line = ok_json(home, "thread", "new", "--worktree", str(repo), "--branch", "hostile", "--title", "hostile")
    folder = Path(line["workspace_path"])
    _gitdir_redirect(folder, repo / ".git", marks)

    refused = run_cli(home, "thread", "archive", line["session_key"])
    assert_one_line_error(refused, "changed to point to .evil", "will not run git there", "--force")
    assert folder.is_dir()
    archived = ok_json(home, "thread", "archive", line["session_key"], "--force")
    assert archived["archived"] and not folder.exists()
    assert "hostile" in git(repo, "branch", "--list", "hostile")
    _assert_no_mark(marks)


def test_core_worktree_cannot_move_what_uncommitted_reads(tmp_path: Path) -> None:
    """``core.worktree`` set by the agent: ``changes --uncommitted`` still reads the line's folder, not elsewhere."""
    marks = tmp_path / "marks"
    marks.mkdir()
    folder = _folder_repo(tmp_path)
    _core_worktree(folder, folder / ".git", marks)
    assert {change.path for change in FolderRepo(folder).changes()} == {"tracked.txt", "new.txt"}
    _assert_no_mark(marks)
