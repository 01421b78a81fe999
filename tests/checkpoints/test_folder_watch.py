"""A turn's checkpoint costs what the turn changed, not what the folder holds (issue 34 item 3; LOOP-1, SBX-3).

The snapshot before a turn, when nothing happened in the folder since the last snapshot, is that
snapshot with no git at all, and the snapshot after it scans only the paths the turn's file-system
events named: ``agents.folder_watch`` (inotify in this process) vouches for the rest. These tests pin
what that must never cost: every change made between turns or in a turn, of any kind, is in the next
snapshot (checked against a snapshot taken from scratch); a snapshot taken by another process is not
vouched for; a folder the watch cannot cover is scanned whole every time. And they pin the gain as an
order of growth, never a time: the git processes a turn of a few changed files runs, and the files
they stat, are the same for a folder of 40 files and one of 2,000. Real git, real folders, real
inotify (the tests' folders are on a local file system).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.checkpoints.support import shadow_env
from xworkmate.agents import checkpoints, folder_watch
from xworkmate.agents.checkpoints import GitFailed, ShadowRepo
from xworkmate.agents.folder_watch import FolderWatch, watchable


def _tree(folder: Path, files: int) -> list[Path]:
    paths = []
    for i in range(files):
        path = folder / f"d{i % 20:02d}" / f"e{i // 20 % 5}" / f"f{i:05d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"file {i}\n" * 4)
        paths.append(path)
    return paths


class Processes:
    """The git processes the shadow repository runs, counted from git's own trace (each one's ``start``)."""

    def __init__(self, trace: Path) -> None:
        self.trace = trace

        self.lstats = 0
        self.argv: list[list[str]] = []

    def count(self) -> list[str]:
        """The commands run since the last count, by name (``status``'s options before it left out); ``lstats``:
        how many files they stat-ed to find what changed (git's own count)."""
        self.lstats = 0
        if not self.trace.exists():
            return []
        events = [json.loads(line) for line in self.trace.read_text().splitlines() if line.strip()]
        self.trace.unlink()
        counted = [int(e["value"]) for e in events if e.get("event") == "data" and "sum_lstat" in e["key"]]
        self.lstats = max(counted, default=0)  # preload's and refresh's (each counts every file it stat-ed)
        starts = [event["argv"][2:] for event in events if event.get("event") == "start"]  # git --no-pager ...
        self.argv = starts
        return [next(arg for arg in argv if not arg.startswith("--")) for argv in starts]


@pytest.fixture
def processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Processes:
    trace = tmp_path / "git-trace.json"
    monkeypatch.setitem(checkpoints._SHADOW_ENV, "GIT_TRACE2_EVENT", str(trace))
    return Processes(trace)


CAP = 2_000
"""The size cap of the edits' folder: ``big.dat`` is over it, so each snapshot only names it."""


def _from_scratch(folder: Path, git_dir: Path) -> tuple[str, dict[str, tuple[int, int]]]:
    """The tree (and too-large files) a new shadow repository makes of the folder now: what a snapshot must hold."""
    repo = ShadowRepo(git_dir, folder, max_file_bytes=CAP)
    taken = repo.snapshot("oracle")
    repo.remove()
    return taken.tree, dict(taken.too_large)


def test_a_turn_of_a_few_changed_files_runs_the_same_few_git_processes_however_big_the_folder(
    tmp_path: Path, processes: Processes
) -> None:
    runs: dict[int, list[tuple[list[str], list[str], int]]] = {}
    for files in (40, 2_000):
        folder = tmp_path / f"folder-{files}"
        paths = _tree(folder, files)
        repo = ShadowRepo(tmp_path / f"line-{files}.git", folder)
        repo.snapshot("first")
        processes.count()
        runs[files] = []
        for turn in range(3):
            before = repo.snapshot("before a turn")
            before_git = processes.count()
            paths[turn].write_text(f"turn {turn}\n")  # the turn: one file changed, one made in a new folder
            (folder / f"new{turn}" / "deep").mkdir(parents=True)
            (folder / f"new{turn}" / "deep" / "made.txt").write_text("made\n")
            after, changes = repo.snapshot_and_changes("after a turn", before.commit)  # as a turn ends
            assert {change.path for change in changes} == {
                paths[turn].relative_to(folder).as_posix(),
                f"new{turn}/deep/made.txt",
            }
            assert not before.created and after.created
            runs[files].append((before_git, sorted(processes.count()), processes.lstats))  # two run side by side
    assert runs[40] == runs[2_000]  # constant in the folder's size: processes and files stat-ed alike
    for before_git, after_git, lstats in runs[2_000]:
        assert before_git == []  # nothing changed between turns: the snapshot before the turn is the last one
        assert after_git == ["diff-index", "status", "update-index", "write-tree"]  # the commit is ours
        assert lstats == 1  # status looked at what the turn's events named, not at the folder's 2,000 files


Edit = Callable[[Path, Path], None]


def _modify_in_place(folder: Path, _outside: Path) -> None:
    with open(folder / "d00" / "e0" / "f00000.txt", "r+b") as file:
        file.write(b"FILE")  # same size, same name: only the content


def _chmod(folder: Path, _outside: Path) -> None:
    os.chmod(folder / "d01" / "e0" / "f00001.txt", 0o755)


def _nested_folder_made(folder: Path, _outside: Path) -> None:
    (folder / "n" / "m").mkdir(parents=True)
    (folder / "n" / "m" / "new.txt").write_text("new\n")


def _file_in_the_new_folder_changed(folder: Path, _outside: Path) -> None:
    (folder / "n" / "m" / "new.txt").write_text("changed in a folder made after the watch began\n")


def _folder_renamed(folder: Path, _outside: Path) -> None:
    (folder / "n").rename(folder / "n2")


def _file_in_the_renamed_folder_changed(folder: Path, _outside: Path) -> None:
    (folder / "n2" / "m" / "new.txt").write_text("changed after its folder moved\n")


def _folder_moved_in(folder: Path, outside: Path) -> None:
    (outside / "brought" / "inner").mkdir(parents=True)
    (outside / "brought" / "inner" / "b.txt").write_text("brought\n")
    (outside / "brought").rename(folder / "brought")


def _file_in_the_moved_in_folder_changed(folder: Path, _outside: Path) -> None:
    (folder / "brought" / "inner" / "b.txt").write_text("changed where it was moved in\n")


def _folder_moved_out_and_a_new_one_made_in_its_place(folder: Path, outside: Path) -> None:
    (folder / "d02").rename(outside / "d02")
    (folder / "d02" / "e9").mkdir(parents=True)
    (folder / "d02" / "e9" / "fresh.txt").write_text("fresh\n")


def _file_in_the_folder_made_in_its_place_changed(folder: Path, _outside: Path) -> None:
    (folder / "d02" / "e9" / "fresh.txt").write_text("fresh, changed\n")


def _file_deleted(folder: Path, _outside: Path) -> None:
    (folder / "d03" / "e0" / "f00003.txt").unlink()


def _file_became_a_link(folder: Path, outside: Path) -> None:
    target = folder / "d04" / "e0" / "f00004.txt"
    target.unlink()
    target.symlink_to(outside / "victim")


def _folder_removed(folder: Path, _outside: Path) -> None:
    shutil.rmtree(folder / "d05")


def _file_at_the_top(folder: Path, _outside: Path) -> None:
    (folder / "top.txt").write_text("top\n")


def _renamed_over(folder: Path, _outside: Path) -> None:
    (folder / "d06" / "e0" / "tmp").write_text("saved as an editor saves\n")
    (folder / "d06" / "e0" / "tmp").rename(folder / "d06" / "e0" / "f00006.txt")


EDITS: tuple[Edit, ...] = (
    _modify_in_place,
    _chmod,
    _nested_folder_made,
    _file_in_the_new_folder_changed,
    _folder_renamed,
    _file_in_the_renamed_folder_changed,
    _folder_moved_in,
    _file_in_the_moved_in_folder_changed,
    _folder_moved_out_and_a_new_one_made_in_its_place,
    _file_in_the_folder_made_in_its_place_changed,
    _file_deleted,
    _file_became_a_link,
    _folder_removed,
    _file_at_the_top,
    _renamed_over,
)


def _big_file_changed(folder: Path, _outside: Path) -> None:
    (folder / "big.dat").write_bytes(b"B" * (CAP + 500))


def _big_file_shrank_under_the_cap(folder: Path, _outside: Path) -> None:
    (folder / "big.dat").write_bytes(b"small now\n")


def _file_grew_over_the_cap(folder: Path, _outside: Path) -> None:
    (folder / "d07" / "e0" / "f00007.txt").write_bytes(b"G" * (CAP + 1))


def _file_in_an_ignored_folder(folder: Path, _outside: Path) -> None:
    (folder / "ignored" / "more.log").write_text("ignored\n")


def _ignore_rules_changed(folder: Path, _outside: Path) -> None:
    (folder / ".gitignore").write_text("*.tmp\n")  # ignored/ is not ignored any more: its files are untracked now


EDITS += (
    _big_file_changed,
    _big_file_shrank_under_the_cap,
    _file_grew_over_the_cap,
    _file_in_an_ignored_folder,
    _ignore_rules_changed,
)


def _edits_folder(tmp_path: Path) -> tuple[Path, ShadowRepo]:
    folder = tmp_path / "folder"
    _tree(folder, 40)
    (folder / "turn.txt").write_text("turn 0\n")
    (folder / "big.dat").write_bytes(b"b" * (CAP + 100))
    (folder / ".gitignore").write_text("ignored/\n")
    (folder / "ignored").mkdir()
    (folder / "ignored" / "out.log").write_text("ignored\n")
    return folder, ShadowRepo(tmp_path / "line.git", folder, max_file_bytes=CAP)


def test_every_change_made_between_turns_is_in_the_next_snapshot_before_a_turn(
    tmp_path: Path, outside: Path, processes: Processes
) -> None:
    folder, repo = _edits_folder(tmp_path)
    last = repo.snapshot("first")
    for turn, edit in enumerate(EDITS, start=1):
        edit(folder, outside)  # by hand, between turns
        before = repo.snapshot("before a turn")
        assert (before.tree, dict(before.too_large)) == _from_scratch(folder, tmp_path / f"oracle-{turn}.git"), edit
        (folder / "turn.txt").write_text(f"turn {turn}\n")  # the turn
        last, changes = repo.snapshot_and_changes("after a turn", before.commit)
        assert [change.path for change in changes] == ["turn.txt"], edit.__name__
        assert changes == repo.changes(before.commit, last.commit)
        processes.count()
        assert repo.snapshot("before the next turn").commit == last.commit
        assert processes.count() == [], edit.__name__  # and then nothing happened: no git


def test_every_change_a_turn_makes_is_in_its_snapshot_and_change_set(
    tmp_path: Path, outside: Path, processes: Processes
) -> None:
    folder, repo = _edits_folder(tmp_path)
    repo.snapshot("first")
    processes.count()
    for turn, edit in enumerate(EDITS, start=1):
        before = repo.snapshot("before a turn")
        assert processes.count() == [], edit.__name__  # nothing happened between turns: no git
        edit(folder, outside)  # the turn
        after, changes = repo.snapshot_and_changes("after a turn", before.commit)
        assert (after.tree, dict(after.too_large)) == _from_scratch(folder, tmp_path / f"oracle-{turn}.git"), edit
        assert changes == repo.changes(before.commit, after.commit), edit.__name__
        processes.count()


def test_a_turn_naming_more_than_a_command_line_holds_is_scanned_whole(tmp_path: Path, processes: Processes) -> None:
    folder = tmp_path / "folder"
    _tree(folder, 20)
    deep = folder.joinpath(*["x" * 200] * 9)  # watched from the first snapshot on: each file in it is an event
    deep.mkdir(parents=True)
    repo = ShadowRepo(tmp_path / "line.git", folder)
    before = repo.snapshot("first")
    processes.count()
    for i in range(40):  # 40 paths of about 1,960 bytes each: 78 KB of pathspecs
        (deep / f"{i:03d}{'y' * 150}").write_text(f"{i}\n")
    after, changes = repo.snapshot_and_changes("after a turn", before.commit)
    processes.count()
    assert len(changes) == 40
    assert (after.tree, dict(after.too_large)) == _from_scratch(folder, tmp_path / "oracle.git")
    status = next(argv for argv in processes.argv if "status" in argv)
    assert "--literal-pathspecs" not in status and "--" not in status  # the whole folder, not 76 KB of arguments


def test_a_write_the_watch_cannot_see_is_in_a_snapshot_within_the_whole_scan_interval(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write through a hard link whose other name is outside the folder comes with no event in it."""
    monkeypatch.setattr(checkpoints, "WHOLE_SCAN_EVERY", 3)
    folder = tmp_path / "folder"
    _tree(folder, 10)
    (folder / "turn.txt").write_text("turn 0\n")
    os.link(folder / "d00" / "e0" / "f00000.txt", outside / "other-name")
    repo = ShadowRepo(tmp_path / "line.git", folder)
    repo.snapshot("first")  # a whole scan
    (outside / "other-name").write_text("written through the other name\n")
    held = []
    for turn in range(1, 5):
        (folder / "turn.txt").write_text(f"turn {turn}\n")
        after = repo.snapshot("after a turn")
        held.append(b"other name" in repo.git("cat-file", "-p", f"{after.commit}:d00/e0/f00000.txt"))
    assert held == [False, False, False, True]  # three scans of named paths alone, then the whole folder


def test_the_persons_own_git_in_the_folder_costs_no_scan(tmp_path: Path, processes: Processes) -> None:
    folder = tmp_path / "folder"
    _tree(folder, 20)
    env = {"PATH": os.environ["PATH"], "HOME": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (("init", "-q"), ("add", "-A"), ("-c", "user.name=P", "-c", "user.email=p@p", "commit", "-qm", "x")):
        subprocess.run(["git", "-C", str(folder), *args], env=env, capture_output=True, check=True)
    repo = ShadowRepo(tmp_path / "line.git", folder)
    last = repo.snapshot("first")
    subprocess.run(["git", "-C", str(folder), "status", "--porcelain"], env=env, capture_output=True, check=True)
    processes.count()
    assert repo.snapshot("before a turn").commit == last.commit
    assert processes.count() == []  # .git is never snapshotted, so it is not watched


def test_a_snapshot_another_process_took_is_not_vouched_for(tmp_path: Path, processes: Processes) -> None:
    """Another XWorkmate (the command line) moved the snapshot ref: its index is not what our scan found."""
    folder = tmp_path / "folder"
    _tree(folder, 20)
    repo = ShadowRepo(tmp_path / "line.git", folder)
    first = repo.snapshot("first")
    (folder / "later.txt").write_text("later\n")
    second = repo.snapshot("second")
    env = shadow_env(repo)
    subprocess.run(["git", "update-ref", "refs/xworkmate/snapshots", first.commit], env=env, check=True)
    processes.count()
    again = repo.snapshot("before a turn")
    assert "status" in processes.count()
    assert again.tree == second.tree and again.commit not in (first.commit, second.commit)


def test_a_folder_the_watch_cannot_cover_is_scanned_at_every_snapshot(
    tmp_path: Path, processes: Processes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(folder_watch, "MAX_FOLDERS", 5)
    folder = tmp_path / "folder"
    _tree(folder, 40)  # 20 x 5 folders
    assert FolderWatch.make(folder) is None
    repo = ShadowRepo(tmp_path / "line.git", folder)
    last = repo.snapshot("first")
    processes.count()
    assert repo.snapshot("before a turn").commit == last.commit
    assert processes.count() == ["status"]
    (folder / "d00" / "e0" / "f00000.txt").write_text("changed\n")
    assert repo.snapshot("before a turn").created


def test_only_a_local_file_system_with_no_mount_inside_is_watched(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    real = os.path.realpath(folder)
    assert watchable(folder, [("/", "ext4")])
    assert watchable(folder, [("/", "nfs4"), (real, "btrfs")])
    assert not watchable(folder, [("/", "nfs4")])  # a change made on another machine comes with no event
    assert not watchable(folder, [("/", "fuse.sshfs")])
    assert not watchable(folder, [("/", "ext4"), (os.path.join(real, "mnt"), "cifs")])  # a mount inside
    assert not watchable(folder, [])


def test_the_watch_follows_no_link_out_of_the_folder(tmp_path: Path, outside: Path) -> None:
    folder = tmp_path / "folder"
    (folder / "inner").mkdir(parents=True)
    (folder / "to-outside").symlink_to(outside / "sub")
    watch = FolderWatch.make(folder)
    assert watch is not None
    try:
        assert watch.arm() and not watch.changed()
        (outside / "sub" / "keep.txt").write_text("changed behind a link: not the folder's\n")
        assert not watch.changed()  # the snapshot holds the link, not what it points to
        (folder / "inner" / "x.txt").write_text("x\n")
        assert watch.changed()
    finally:
        watch.close()


def test_the_snapshot_commit_written_without_git_is_a_valid_commit(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    _tree(folder, 10)
    repo = ShadowRepo(tmp_path / "line.git", folder)
    first = repo.snapshot("first")
    (folder / "more.txt").write_text("more\n")
    second = repo.snapshot("after turn 1 (finished)")
    env = shadow_env(repo)
    fsck = ["git", "fsck", "--strict", "--no-dangling", second.commit]  # the object's own format checked
    subprocess.run(fsck, env=env, check=True, capture_output=True)
    body = subprocess.run(["git", "cat-file", "commit", second.commit], env=env, check=True, capture_output=True)
    headers, _, message = body.stdout.decode().partition("\n\n")
    assert headers.splitlines()[:2] == [f"tree {second.tree}", f"parent {first.commit}"]
    assert "author XWorkmate <checkpoints@xworkmate.invalid> " in headers
    assert message.startswith("after turn 1 (finished)\n\n")
    assert json.loads(message.splitlines()[-1]) == {"too_large": {}}


def test_a_change_set_from_an_unknown_commit_fails_as_diff_tree_does_and_the_snapshot_stands(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    _tree(folder, 5)
    repo = ShadowRepo(tmp_path / "line.git", folder)
    repo.snapshot("first")
    (folder / "new.txt").write_text("new\n")
    with pytest.raises(GitFailed):
        repo.snapshot_and_changes("after a turn", "0" * 40)
    assert repo.head() is not None and "new.txt" in repo.git("ls-tree", "--name-only", repo.head() or "").decode()


def _inotify_instances() -> int:
    found = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            found += os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify"
        except OSError:  # the listing's own descriptor, closed since
            continue
    return found


def test_every_folder_watched_shares_one_inotify_instance(tmp_path: Path) -> None:
    """Instances are a per-user resource (128 by default, shared with editors and other test runs)."""
    watches = []
    try:
        for i in range(6):
            folder = tmp_path / f"folder-{i}"
            _tree(folder, 5)
            watch = FolderWatch.make(folder)
            assert watch is not None
            watches.append(watch)
            assert watch.arm()[0]
        assert _inotify_instances() == 1
        (tmp_path / "folder-3" / "d00" / "e0" / "f00000.txt").write_text("changed\n")
        assert [watch.changed() for watch in watches] == [False, False, False, True, False, False]
    finally:
        for watch in watches:
            watch.close()
