"""LOOP-1: the shadow repository's plumbing on real files with real git (no database)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.checkpoints.support import dot_git_state, make_repo, tree_state
from xworkmate.agents.checkpoints import HunkDoesNotApply, ShadowRepo, split_hunks
from xworkmate.domain.checkpoints import FileChange, FileChangeKind

BINARY = bytes(range(256)) * 4


def shadow(tmp_path: Path, folder: Path, **kwargs: object) -> ShadowRepo:
    return ShadowRepo(tmp_path / "data" / "checkpoints" / "line.git", folder, **kwargs)  # type: ignore[arg-type]


def commits(repo: ShadowRepo) -> int:
    return int(repo.git("rev-list", "--count", "refs/xworkmate/snapshots").decode())


@pytest.mark.parametrize("together", [False, True], ids=["diff-tree after", "read beside the tree (issue 34)"])
def test_change_set_is_exact_binary_exec_bit_ignores_and_size_cap(tmp_path: Path, together: bool) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "keep.txt").write_text("one\ntwo\nthree\n")
    (folder / "gone.txt").write_text("bye\n")
    (folder / "tool.sh").write_text("#!/bin/sh\necho hi\n")
    (folder / "blob.bin").write_bytes(BINARY)
    (folder / ".gitignore").write_text("*.log\nbuild/\n")
    (folder / "noise.log").write_text("ignored\n")
    (folder / "private").mkdir()
    (folder / "private" / "notes.txt").write_text("line-excluded\n")
    (folder / "huge.dat").write_bytes(b"h" * 5000)
    repo = shadow(tmp_path, folder, excludes=["private/"], max_file_bytes=4096)
    before = repo.snapshot()
    assert before.created and set(before.too_large) == {"huge.dat"}
    stored = repo.git("ls-tree", "-r", "--name-only", before.commit).decode().split()
    assert sorted(stored) == [".gitignore", "blob.bin", "gone.txt", "keep.txt", "tool.sh"]

    (folder / "keep.txt").write_text("one\nTWO\nthree\nfour\n")
    (folder / "gone.txt").unlink()
    (folder / "tool.sh").chmod(0o755)
    (folder / "blob.bin").write_bytes(BINARY[::-1])
    (folder / "new.bin").write_bytes(b"\0\1\2")
    (folder / "build").mkdir()
    (folder / "build" / "out.o").write_bytes(b"ignored")
    (folder / "private" / "notes.txt").write_text("still excluded\n")
    (folder / "huge.dat").write_bytes(b"H" * 6000)
    (folder / "huge2.dat").write_bytes(b"x" * 4097)
    if together:
        after, found = repo.snapshot_and_changes("after", before.commit)
    else:
        after = repo.snapshot()
        found = repo.changes(before.commit, after.commit)
    assert found == (
        FileChange(path="blob.bin", kind=FileChangeKind.MODIFIED, additions=0, deletions=0, binary=True),
        FileChange(path="gone.txt", kind=FileChangeKind.DELETED, additions=0, deletions=1),
        FileChange(path="huge.dat", kind=FileChangeKind.MODIFIED, additions=0, deletions=0, too_large=True),
        FileChange(path="huge2.dat", kind=FileChangeKind.ADDED, additions=0, deletions=0, too_large=True),
        FileChange(path="keep.txt", kind=FileChangeKind.MODIFIED, additions=2, deletions=1),
        FileChange(path="new.bin", kind=FileChangeKind.ADDED, additions=0, deletions=0, binary=True),
        FileChange(path="tool.sh", kind=FileChangeKind.MODIFIED, additions=0, deletions=0, mode_changed=True),
    )
    patch = repo.patch(before.commit, after.commit, "keep.txt")
    assert "-two\n+TWO\n" in patch and "+four\n" in patch
    assert repo.patch(before.commit, after.commit, "blob.bin") == ""


def test_nothing_changed_makes_no_commit(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.txt").write_text("a\n")
    repo = shadow(tmp_path, folder)
    first = repo.snapshot()
    os.utime(folder / "a.txt")  # a new mtime, the same bytes
    again = repo.snapshot()
    assert not again.created and again.commit == first.commit and commits(repo) == 1
    (folder / "a.txt").write_text("b\n")
    assert repo.snapshot().created and commits(repo) == 2


def test_restore_and_back_are_byte_identical_with_exec_bits(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "run.sh").write_text("#!/bin/sh\n")
    (folder / "sub" / "run.sh").chmod(0o755)
    (folder / "data.bin").write_bytes(BINARY)
    (folder / "text.txt").write_text("alpha\n")
    repo = shadow(tmp_path, folder)
    before = repo.snapshot()
    state_before = tree_state(folder)
    (folder / "sub" / "run.sh").chmod(0o644)
    (folder / "data.bin").write_bytes(b"\0" * 10)
    (folder / "text.txt").unlink()
    (folder / "added.txt").write_text("new\n")
    (folder / "deep" / "er").mkdir(parents=True)
    (folder / "deep" / "er" / "x.bin").write_bytes(b"\xff\xfe")
    after = repo.snapshot()
    state_after = tree_state(folder)
    repo.checkout_tree(repo.tree_of(before.commit))
    assert tree_state(folder) == state_before
    repo.snapshot()
    repo.checkout_tree(repo.tree_of(after.commit))
    assert tree_state(folder) == state_after


def test_a_repositorys_own_git_is_untouched(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    make_repo(folder)
    (folder / "nested").mkdir()
    subprocess.run(["git", "init", "-q", str(folder / "nested")], check=True)
    before_git = dot_git_state(folder)
    repo = shadow(tmp_path, folder)
    first = repo.snapshot()
    stored = repo.git("ls-tree", "-r", "--name-only", first.commit).decode().split()
    assert sorted(stored) == ["staged.txt", "tracked.txt"]  # no .git, no nested repository
    (folder / "tracked.txt").write_text("agent\n")
    (folder / "new.txt").write_text("agent\n")
    second = repo.snapshot()
    repo.changes(first.commit, second.commit)
    repo.patch(first.commit, second.commit, "tracked.txt")
    repo.checkout_tree(repo.tree_of(first.commit))
    repo.snapshot()
    assert dot_git_state(folder) == before_git
    assert (folder / "tracked.txt").read_text() == "v1\n" and not (folder / "new.txt").exists()


def test_shadow_repository_lives_outside_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a").write_text("a")
    repo = shadow(tmp_path, folder)
    repo.snapshot()
    assert sorted(p.name for p in folder.iterdir()) == ["a"]
    assert (tmp_path / "data" / "checkpoints" / "line.git" / "HEAD").is_file()


def test_one_hunk_is_taken_back_and_a_moved_on_file_refuses(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    lines = [f"line {i}\n" for i in range(40)]
    (folder / "f.txt").write_text("".join(lines))
    repo = shadow(tmp_path, folder)
    before = repo.snapshot()
    changed = list(lines)
    changed[2] = "CHANGED 2\n"
    changed[30] = "CHANGED 30\n"
    (folder / "f.txt").write_text("".join(changed))
    after = repo.snapshot()
    header, hunks = split_hunks(repo.patch(before.commit, after.commit, "f.txt"))
    assert len(hunks) == 2 and header.startswith("diff --git a/f.txt b/f.txt")
    repo.apply_reverse(header + hunks[1], "f.txt")
    text = (folder / "f.txt").read_text()
    assert "CHANGED 2\n" in text and "CHANGED 30" not in text and "line 30\n" in text
    with pytest.raises(HunkDoesNotApply):
        repo.apply_reverse(header + hunks[1], "f.txt")  # already taken back
    assert (folder / "f.txt").read_text() == text
