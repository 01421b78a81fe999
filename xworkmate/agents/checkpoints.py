"""Shadow git repositories: one per line, outside its folder, plumbing only (LOOP-1).

A line's folder is snapshotted into ``<data folder>/checkpoints/<dir name>.git`` with
``GIT_DIR`` / ``GIT_WORK_TREE`` / ``GIT_INDEX_FILE`` pointing there, so a folder that is a
repository of its own keeps its ``.git`` (HEAD, index, stash, refs) byte-identical: git
never looks at it (``.git`` is never added; nested repositories are skipped).

* The folder's ``.gitignore`` files apply as in any work tree; the line's own exclude list
  goes to the shadow repository's ``info/exclude``.
* Files over the size cap are not stored: the snapshot lists them (size and mtime, in the
  commit message) so a change set can still name them, as ``too_large``.
* A snapshot whose tree is the last one's makes no commit: the shadow index keeps the stat
  cache, so only files whose stat changed are read.
* The folder's watch (``agents.folder_watch``: inotify in this process, issue 34 item 3) vouches
  for what did not change since the last snapshot's scan began. A snapshot of a folder in which
  nothing happened since is that snapshot, with no git at all (the snapshot before a turn, when
  nothing changed between turns); otherwise its ``git status`` looks only at the paths the events
  named (literal pathspecs). So a turn costs what it changed, not what the folder holds. The whole
  folder is scanned when the watch cannot vouch (the first snapshot in a process, a network file
  system, an event it cannot account for, an ignore rule changed, many paths) and at least every
  ``WHOLE_SCAN_EVERY`` scans, for what inotify cannot see (a write through a hard link from outside).
* Every git call goes through ``agents.git_safe`` (SBX-3): nothing the folder names runs, fixed author.

This module knows no database and no controller; callers run it off the event loop thread.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISDIR, S_ISLNK

from xworkmate.agents.folder_watch import FolderWatch
from xworkmate.agents.folder_writes import FolderWriter, UnsafePath
from xworkmate.agents.git_safe import GitUnsafe, folder_gitdir, run_git, trusted_env
from xworkmate.domain.checkpoints import DEFAULT_MAX_FILE_BYTES, FileChange, FileChangeKind
from xworkmate.domain.diffs import HUNK_HEADER

__all__ = [
    "EMPTY_TREE",
    "FolderRepo",
    "GitFailed",
    "HunkDoesNotApply",
    "ShadowRepo",
    "Snapshot",
    "UnsafePath",
    "split_hunks",
]

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
SNAPSHOT_REF = "refs/xworkmate/snapshots"
UNDO_REF = "refs/xworkmate/undo"
_AUTHOR = ("XWorkmate", "checkpoints@xworkmate.invalid")
_SHADOW_ENV = {
    # The shadow index is ours: status may write back its refreshed stat cache and untracked cache
    # (git_safe turns optional locks off for a person's repository, whose index we never rewrite).
    "GIT_OPTIONAL_LOCKS": "1",
    "GIT_AUTHOR_NAME": _AUTHOR[0],
    "GIT_AUTHOR_EMAIL": _AUTHOR[1],
    "GIT_COMMITTER_NAME": _AUTHOR[0],
    "GIT_COMMITTER_EMAIL": _AUTHOR[1],
}
_SHADOW_HEAD = f"ref: {SNAPSHOT_REF}\n".encode()
_SHADOW_CONFIG = (
    ("core.autocrlf", "false"),
    ("core.filemode", "true"),
    ("core.symlinks", "true"),
    ("core.quotepath", "false"),
    ("core.untrackedCache", "true"),  # issue 34: a folder scan stats each folder, reads only changed ones
    ("status.showUntrackedFiles", "all"),  # the untracked cache is kept for the mode status runs in (-uall)
    ("core.bigFileThreshold", "512m"),
    ("status.renames", "false"),
    ("core.splitIndex", "true"),  # a snapshot's index writes rewrite the few changed entries, not all 10,000
    ("gc.auto", "0"),
)
_RAW_NUMSTAT = ("--raw", "--numstat")
_BESIDE = ThreadPoolExecutor(max_workers=4, thread_name_prefix="xworkmate-checkpoint-diff")
"""Where a change set is read while the tree is written (each waits for its own; never the event loop)."""
_LOCKS: dict[str, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


class GitFailed(RuntimeError):
    """A git command failed; the message is git's first line of complaint."""


class HunkDoesNotApply(GitFailed):
    """The folder's file no longer has the hunk's text (it changed after the turn)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One snapshot of the folder: its commit, its tree and the files left out for size."""

    commit: str
    tree: str
    too_large: Mapping[str, tuple[int, int]]  # path -> (size, mtime_ns)
    created: bool  # False: the tree was the last snapshot's, no commit was made


def _lock_for(git_dir: Path) -> threading.RLock:
    """One lock per shadow repository in this process: a restore holds it across its steps."""
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(str(git_dir), threading.RLock())


@dataclass(slots=True)
class _Watched:
    """A folder's watch and the snapshot it vouches for: the folder as the last armed scan found it."""

    watch: FolderWatch
    last: Snapshot | None = None
    taken_with: tuple[tuple[str, ...], int] = field(default=((), 0))  # the excludes and size cap it was taken with
    partial_scans: int = 0  # scans of named paths alone since the last scan of the whole folder


@dataclass(frozen=True, slots=True)
class _Only:
    """The paths events named since the last snapshot, which holds the folder everywhere else."""

    paths: tuple[str, ...]
    last: Snapshot

    def covers(self, path: str) -> bool:
        return any(path == named or path.startswith(named + "/") for named in self.paths)

    def too_large_elsewhere(self) -> dict[str, tuple[int, int]]:
        return {path: stat for path, stat in self.last.too_large.items() if not self.covers(path)}


WHOLE_SCAN_EVERY = 16
"""At most this many scans of named paths alone, then one of the whole folder: what inotify cannot see (a write
through a hard link from outside the folder, or through a shared memory map) is in a snapshot within that many."""
_MAX_PATHSPEC_BYTES = 64 * 1024
"""Paths on one command line at most (a kernel's limit is near 2 MB, environment included): more, a whole scan."""

MAX_WATCHED = 32
"""Folders watched at once in this process (one inotify watch per folder in them, a per-user resource; all in
one inotify instance); the least recently snapshotted one beyond that is closed and scans again."""
_WATCHES: OrderedDict[tuple[str, str], _Watched | None] = OrderedDict()  # None: not watchable
_WATCHES_GUARD = threading.Lock()


class ShadowRepo:
    """The shadow repository of one line's folder."""

    def __init__(
        self,
        git_dir: Path,
        work_tree: Path,
        *,
        excludes: Sequence[str] = (),
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        self.git_dir = git_dir
        self.work_tree = work_tree
        self.excludes = tuple(excludes)
        self.max_file_bytes = max_file_bytes
        self.lock = _lock_for(git_dir)

    # -- git -----------------------------------------------------------------

    def git(
        self,
        *args: str,
        stdin: bytes | None = None,
        index_file: Path | None = None,
        check: bool = True,
    ) -> bytes:
        """One git call on the shadow repository through ``agents.git_safe`` (SBX-3).

        Its config is ours (not listed for agent-named drivers); its work tree is the agent's.
        """
        try:
            result = run_git(
                args,
                cwd=self.work_tree if self.work_tree.is_dir() else self.git_dir,
                git_dir=self.git_dir,
                work_tree=self.work_tree,
                index_file=index_file or self.git_dir / "index",
                extra_env=_SHADOW_ENV,
                stdin=stdin,
                timeout=None,
                trusted_config=True,
            )
        except GitUnsafe as exc:
            raise GitFailed(str(exc)) from None
        if check and result.returncode != 0:
            message = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitFailed(message[0] if message else f"git {args[0]} failed with exit code {result.returncode}")
        return result.stdout

    def _ensure(self) -> None:
        head = self.git_dir / "HEAD"
        if head.is_file() and head.read_bytes() == _SHADOW_HEAD:
            self._write_excludes()
            return
        if not head.is_file():
            # A new repository: init, then our settings and HEAD written in the files git would write (one
            # git process, not a dozen: the first turn of a line waits for this, issue 34).
            self.git_dir.parent.mkdir(parents=True, exist_ok=True)
            self.git("init", "--quiet")
            sections: dict[str, list[str]] = {}
            for name, value in _SHADOW_CONFIG:
                section, key = name.split(".")
                sections.setdefault(section, []).append(f"\t{key} = {value}\n")
            with open(self.git_dir / "config", "a", encoding="utf-8") as config:
                config.writelines(f"[{section}]\n" + "".join(keys) for section, keys in sections.items())
            head.write_bytes(_SHADOW_HEAD)  # status compares the index with the last snapshot
        else:
            # Set here, on our repository, never read from the folder (SBX-3). A repository made before
            # issue 34 gets the ones it lacks on its next snapshot (its HEAD still names a branch).
            for name, value in _SHADOW_CONFIG:
                self.git("config", name, value)
            # HEAD is the snapshot ref: status compares the index with the last snapshot, not an unborn branch.
            self.git("symbolic-ref", "HEAD", SNAPSHOT_REF)
        self._write_excludes()

    def _write_excludes(self) -> None:
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        text = "".join(f"{pattern}\n" for pattern in ("/.git", *self.excludes))
        path = info / "exclude"
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")

    # -- snapshots -------------------------------------------------------------

    def head(self) -> str | None:
        out = self.git("rev-parse", "--verify", "--quiet", SNAPSHOT_REF + "^{commit}", check=False).strip()
        return out.decode() if out else None

    def _stage(
        self,
        sized: Callable[[int, int], None] | None = None,
        diff_from: str | None = None,
        only: _Only | None = None,
    ) -> tuple[str, dict[str, tuple[int, int]], str | None, bytes | None]:
        """Bring the shadow index up to the folder and write its tree: (tree, too-large files, last snapshot,
        the raw change set from ``diff_from`` to the tree when one was asked for and read).

        One scan of the folder (issue 34 item 3): ``git status`` refreshes the shadow index's stat
        cache and writes it back, as git does for a person's repository, and reads untracked files
        through the untracked cache (both set on the shadow repository by ``_ensure``, never read
        from the folder). Only the paths it names are hashed (``update-index``); a status that
        names nothing but the too-large files means the last snapshot's tree, with no git call more.
        The change set from ``diff_from`` is read from the index (``diff-index --cached``) while
        ``write-tree`` writes the same index's tree, in a second process beside it.

        ``only``: the folder is known to be the last snapshot but for these paths (the folder's watch
        says so): the scan is of them alone, as literal pathspecs, and the last snapshot's too-large
        files elsewhere are still there.
        """
        self._ensure()
        status_args = (
            "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--no-renames",
            "--ignore-submodules=all", "--no-ahead-behind",
        )  # fmt: skip
        if only is None:
            out = self.git(*status_args)
        else:
            out = self.git("--literal-pathspecs", *status_args, "--", *only.paths)
        status = _parse_status(out)
        too_large: dict[str, tuple[int, int]] = {} if only is None else only.too_large_elsewhere()
        update: list[str] = []
        lengths: list[int] = []
        remove: list[str] = []
        with FolderWriter(self.work_tree) as folder:  # SBX-3: no stat through a link the agent left
            for path in (*status.tracked, *status.untracked):
                now = folder.lstat(path)
                if now is None or S_ISDIR(now.st_mode):
                    # Deleted, now beyond a link or a file (git's --remove refuses those), or a file that became
                    # a folder (whose own files are listed on their own): out of the index.
                    remove.append(path)
                elif now.st_size > self.max_file_bytes and not S_ISLNK(now.st_mode):
                    # Over the cap: never added, so status lists it every time and each snapshot names it.
                    too_large[path] = (now.st_size, now.st_mtime_ns)
                    remove.append(path)
                else:
                    update.append(path)
                    lengths.append(now.st_size)
        if sized is not None:  # how much is left to hash: (files, bytes)
            sized(len(update), sum(lengths))
        known = _COMMITS.get(status.head) if status.head is not None else None
        if known is not None and not status.staged and not status.tracked and not update and known[1] == too_large:
            return known[0], too_large, status.head, None  # nothing but the same too-large files: the last tree
        if remove:
            self.git("update-index", "-z", "--force-remove", "--stdin", stdin=_z(remove))
        if update:
            # --replace: a folder that became a file (or back) in one turn is one change, not a conflict.
            self.git("update-index", "-z", "--add", "--replace", "--stdin", stdin=_z(update))
        if diff_from is None:
            return self.git("write-tree").decode().strip(), too_large, status.head, None
        # The index is the tree write-tree writes (or it fails): its change set is diff-tree's, read meanwhile.
        context = contextvars.copy_context()  # a turn's git stays below the window's CPU priority (agents.priority)
        args = ("diff-index", "--cached", "-z", "--no-renames", *_RAW_NUMSTAT, diff_from)
        diff = _BESIDE.submit(lambda: context.run(self.git, *args))
        try:
            tree = self.git("write-tree").decode().strip()
        finally:
            try:
                raw: bytes | None = diff.result()
            except GitFailed:  # the snapshot stands; ``changes`` says what is wrong with ``diff_from``
                raw = None
        return tree, too_large, status.head, raw

    # -- the folder's watch (issue 34 item 3) ----------------------------------------

    def _watched(self) -> _Watched | None:
        """This folder's watch in this process, made on first use (a walk of its folders); the caller holds the lock."""
        key = (str(self.git_dir), str(self.work_tree))
        with _WATCHES_GUARD:
            if key in _WATCHES:
                _WATCHES.move_to_end(key)
                return _WATCHES[key]
        watch = FolderWatch.make(self.work_tree)
        watched = _Watched(watch) if watch is not None else None
        with _WATCHES_GUARD:
            _WATCHES[key] = watched
            beyond = [k for k in list(_WATCHES)[: max(0, len(_WATCHES) - MAX_WATCHED)] if k != key]
        for old in beyond:
            _forget_watch(old)
        return watched

    def _vouched(self, watched: _Watched) -> Snapshot | None:
        """The last snapshot this process's watch was armed for, if the index still holds it: the shadow
        repository's settings are the same and no other process took a snapshot since (its index is not
        ours to vouch for)."""
        last = watched.last
        if last is None or watched.taken_with != (self.excludes, self.max_file_bytes):
            return None
        return last if self._snapshot_ref() == last.commit else None

    def _unchanged(self, watched: _Watched | None) -> Snapshot | None:
        """The last snapshot, when the watch vouches that the folder is still what its scan found; else None."""
        last = self._vouched(watched) if watched is not None else None
        if watched is None or last is None or watched.watch.changed():
            return None
        return Snapshot(commit=last.commit, tree=last.tree, too_large=dict(last.too_large), created=False)

    def _snapshot_ref(self) -> str | None:
        """The snapshot ref as its loose file says (ours: never packed), without a process."""
        try:
            return (self.git_dir / SNAPSHOT_REF).read_bytes().decode("ascii", "replace").strip() or None
        except OSError:
            return None

    def _forget_folder(self) -> None:
        """The index is about to hold what no scan found (a restore): the next snapshot scans."""
        with _WATCHES_GUARD:
            watched = _WATCHES.get((str(self.git_dir), str(self.work_tree)))
        if watched is not None:
            watched.last = None

    def has_snapshot(self) -> bool:
        """Has a snapshot been taken? (A loose ref: ``update-ref`` writes one, and nothing packs ours.)"""
        return (self.git_dir / SNAPSHOT_REF).is_file() or self.head() is not None

    def turn_mark(self) -> int:
        """A mark of now on the file-system clock, before a turn may write (issue 34 item 3).

        A file's ctime cannot be set back by its writer: one older than the mark proves the file
        was last changed before the mark. The mark is a file's own ctime, so it is on the same
        coarse clock the kernel stamps the folder's files with.
        """
        self._ensure()
        mark = self.git_dir / "turn-mark"
        mark.write_bytes(b"")
        return os.stat(mark).st_ctime_ns

    def unchanged_since(self, mark_ns: int) -> bool:
        """Was every file of the index, and every folder holding one, last changed before ``mark_ns``?

        True proves the index (the snapshot just taken) holds the folder as it was at the mark: a file
        written, made or removed since changes its own or its folder's ctime. Paths are looked at
        without following a link (SBX-3). False may be a change made after the scan read the file.
        """
        names = [raw.decode("utf-8", "surrogateescape") for raw in self.git("ls-files", "-z").split(b"\0") if raw]
        folders = {""}
        with FolderWriter(self.work_tree) as folder:
            for path in names:
                now = folder.lstat(path)
                if now is None or now.st_ctime_ns >= mark_ns:
                    return False
                folders.update("/".join(path.split("/")[:i]) for i in range(1, path.count("/") + 1))
            for path in folders:
                now = os.lstat(self.work_tree) if path == "" else folder.lstat(path)
                if now is None or now.st_ctime_ns >= mark_ns:
                    return False
        return True

    def differs(self) -> bool:
        """Does the folder differ from the last snapshot (changes made since, e.g. by hand)? No commit."""
        with self.lock:
            if self._unchanged(self._watched()) is not None:
                return False
            tree, too_large, head, _ = self._stage()
            return head is not None and self._commit_info(head) != (tree, too_large)

    def snapshot(self, message: str = "snapshot", *, sized: Callable[[int, int], None] | None = None) -> Snapshot:
        """Snapshot the folder; a tree equal to the last snapshot's makes no commit.

        ``sized(files, bytes)``: told, after the scan, how much is left to hash (a first snapshot's cost)."""
        return self._snapshot(message, sized, None)[0]

    def snapshot_and_changes(self, message: str, before: str) -> tuple[Snapshot, tuple[FileChange, ...]]:
        """``snapshot(message)`` and the files changed since ``before`` (``changes``), as a turn ends.

        The change set is read beside the writing of the tree, not after it (issue 34 item 3)."""
        snapshot, raw = self._snapshot(message, None, before)
        if snapshot.commit == before:
            return snapshot, ()
        if raw is None:
            return snapshot, self.changes(before, snapshot.commit)
        return snapshot, self._changes_from(raw, before, snapshot.commit)

    def _snapshot(
        self, message: str, sized: Callable[[int, int], None] | None, diff_from: str | None
    ) -> tuple[Snapshot, bytes | None]:
        with self.lock:
            watched = self._watched()
            unchanged = self._unchanged(watched)
            if unchanged is not None:
                return unchanged, None  # nothing happened in the folder since the last snapshot's scan began: no git
            armed, only = False, None
            if watched is not None:
                last = self._vouched(watched)
                watched.last = None
                armed, touched = watched.watch.arm()  # before the scan: whatever happens during it shows next time
                if (
                    armed
                    and last is not None
                    and touched
                    and sum(map(len, touched)) <= _MAX_PATHSPEC_BYTES
                    and watched.partial_scans < WHOLE_SCAN_EVERY
                ):
                    only = _Only(tuple(sorted(os.fsdecode(path) for path in touched)), last)
            snapshot, raw = self._take(message, sized, diff_from, only)
            if watched is not None and armed:
                watched.last, watched.taken_with = snapshot, (self.excludes, self.max_file_bytes)
                watched.partial_scans = 0 if only is None else watched.partial_scans + 1
            return snapshot, raw

    def _take(
        self,
        message: str,
        sized: Callable[[int, int], None] | None,
        diff_from: str | None,
        only: _Only | None = None,
    ) -> tuple[Snapshot, bytes | None]:
        tree, too_large, parent, raw = self._stage(sized, diff_from, only)
        if parent is not None and self._commit_info(parent) == (tree, too_large):
            return Snapshot(commit=parent, tree=tree, too_large=too_large, created=False), raw
        body = message + "\n\n" + json.dumps({"too_large": {p: list(v) for p, v in sorted(too_large.items())}})
        commit = self._write_commit(tree, parent, body.encode())
        if commit is None:
            args = ["commit-tree", tree, "-F", "-"]
            if parent is not None:
                args += ["-p", parent]
            commit = self.git(*args, stdin=body.encode()).decode().strip()
        self._set_snapshot_ref(commit)
        _remember(commit, (tree, dict(too_large)))
        return Snapshot(commit=commit, tree=tree, too_large=too_large, created=True), raw

    def _write_commit(self, tree: str, parent: str | None, message: bytes) -> str | None:
        """The snapshot's commit written as ``commit-tree`` writes it, a loose object, without a process (issue 34
        item 3): our fixed author, now, the message as given. ``None`` for a repository not on SHA-1: git writes it.

        The repository is ours and the object's bytes are ours (no path of the folder is in them but the
        message's too-large list, which is JSON)."""
        try:
            config = (self.git_dir / "config").read_text(encoding="utf-8", errors="replace").lower()
        except OSError:
            return None
        if "objectformat" in config or "compatobjectformat" in config:
            return None
        stamp = f"{int(time.time())} +0000".encode()
        ident = f"{_AUTHOR[0]} <{_AUTHOR[1]}> ".encode() + stamp
        lines = [b"tree " + tree.encode()]
        if parent is not None:
            lines.append(b"parent " + parent.encode())
        lines += [b"author " + ident, b"committer " + ident]
        data = b"\n".join(lines) + b"\n\n" + message
        raw = b"commit %d\0" % len(data) + data
        sha = hashlib.sha1(raw, usedforsecurity=False).hexdigest()
        folder = self.git_dir / "objects" / sha[:2]
        path = folder / sha[2:]
        if path.exists():
            return sha
        folder.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix="tmp_obj_", dir=folder)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(zlib.compress(raw, 1))
            os.chmod(tmp, 0o444)
            os.replace(tmp, path)  # the same name holds the same bytes: replacing an equal object changes nothing
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return sha

    def _set_snapshot_ref(self, commit: str) -> None:
        """Point the snapshot ref at ``commit`` as ``update-ref`` does (its lock file, then a rename), without
        a process: the ref is ours, loose and never packed. Its lock held by another git: ``update-ref``."""
        ref = self.git_dir / SNAPSHOT_REF
        ref.parent.mkdir(parents=True, exist_ok=True)
        lock = ref.with_name(ref.name + ".lock")
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            self.git("update-ref", SNAPSHOT_REF, commit)
            return
        try:
            os.write(fd, commit.encode() + b"\n")
        finally:
            os.close(fd)
        os.replace(lock, ref)

    def _commit_info(self, commit: str) -> tuple[str, dict[str, tuple[int, int]]]:
        cached = _COMMITS.get(commit)
        if cached is None:
            cached = _parse_commit(commit, self.git("cat-file", "commit", commit))
        return cached

    def tree_of(self, commit: str) -> str:
        return self._commit_info(commit)[0]

    def too_large_of(self, commit: str) -> dict[str, tuple[int, int]]:
        return dict(self._commit_info(commit)[1])

    # -- reading changes -----------------------------------------------------

    def changes(self, before: str | None, after: str) -> tuple[FileChange, ...]:
        """Files added, modified and deleted from ``before`` (``None``: nothing) to ``after``."""
        old = before or EMPTY_TREE
        out = self.git("diff-tree", "-r", "-z", "--no-renames", *_RAW_NUMSTAT, "--no-commit-id", old, after)
        return self._changes_from(out, before, after)

    def _changes_from(self, out: bytes, before: str | None, after: str) -> tuple[FileChange, ...]:
        """The change set from ``diff-tree``'s (or ``diff-index --cached``'s) raw and numstat records."""
        files = _file_changes(out)
        before_large = self.too_large_of(before) if before else {}
        after_large = self.too_large_of(after)
        for path, stat in after_large.items():
            if before_large.get(path) == stat:
                continue
            in_before = path in before_large or (before is not None and path in files)
            kind = FileChangeKind.MODIFIED if in_before else FileChangeKind.ADDED
            files[path] = FileChange(path=path, kind=kind, additions=0, deletions=0, too_large=True)
        for path in before_large.keys() - after_large.keys():
            if path in files:  # shrank under the cap: stored now
                files[path] = files[path].model_copy(update={"kind": FileChangeKind.MODIFIED})
                continue
            exists_now = self.has_path(after, path)
            if not exists_now:
                files[path] = FileChange(
                    path=path, kind=FileChangeKind.DELETED, additions=0, deletions=0, too_large=True
                )
        return tuple(files[path] for path in sorted(files))

    def has_path(self, commit: str, path: str) -> bool:
        return bool(self.git("ls-tree", "-z", commit, "--", path).strip())

    def patch(self, before: str | None, after: str, path: str) -> str:
        """A unified diff of one file, ``""`` when git sees it as binary."""
        out = self.git(
            "diff-tree", "-p", "--no-color", "--no-ext-diff", "--full-index", "--no-renames",
            "--no-commit-id", "-r", before or EMPTY_TREE, after, "--", path,
        )  # fmt: skip
        if b"\nBinary files " in out or b"\nGIT binary patch" in out:
            return ""
        return out.decode("utf-8", "replace")

    def working_patch(self, base: str, path: str) -> str:
        """A unified diff of one file from a snapshot to the folder as it is now (for hunk reverts)."""
        return self.patch(base, self.snapshot("before a revert").commit, path)

    # -- writing the folder (SBX-3: through ``FolderWriter``, never following a link) -----------

    def checkout_tree(self, target: str) -> None:
        """Make the folder hold ``target``; the index must hold the snapshot just taken.

        Every path the restore writes or removes is checked first: one whose folder is now a
        link or a file it does not itself replace raises ``UnsafePath`` before anything changes
        (SBX-3). Then ``read-tree --reset -u`` (what ``reset --hard`` does) removes the files of
        the index that ``target`` lacks and writes those that differ, modes included; ignored
        and too-large files that neither tree holds are left alone. Git itself never writes
        through a link on the way (it unlinks the link and makes the folder; tested).
        """
        with self.lock:
            current = self.git("write-tree").decode().strip()
            out = self.git("diff-tree", "-r", "-z", "--name-only", "--no-renames", current, target)
            changed = [raw.decode("utf-8", "surrogateescape") for raw in out.split(b"\0") if raw]
            replaced = frozenset(changed)
            with FolderWriter(self.work_tree) as folder:
                for path in changed:
                    folder.check(path, allowed=replaced)
            self._forget_folder()
            self.git("read-tree", "--reset", "-u", target)

    def export_tree(self, target: str, folder: Path) -> None:
        """Write ``target``'s files into another folder (a fork's), never following a link in it (SBX-3)."""
        folder.mkdir(parents=True, exist_ok=True)
        entries = _tree_entries(self.git("ls-tree", "-r", "-z", "--full-tree", target))
        with FolderWriter(folder) as out:
            for (mode, _sha, path), data in zip(entries, self._blobs(sha for _, sha, _ in entries), strict=True):
                _write_entry(out, path, mode, data)

    def _entry(self, commit: str, path: str) -> tuple[str, str] | None:
        """``path``'s (mode, blob) in ``commit``: ``None`` if it holds no file there (a folder is no file)."""
        out = self.git("--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--", path)
        for mode, sha, name in _tree_entries(out):
            if name == path and mode in _FILE_MODES:
                return mode, sha
        return None

    def _blobs(self, shas: Iterable[str]) -> Iterator[bytes]:
        """The blobs' bytes in order, from one ``cat-file --batch`` (a fork of a big tree is one process)."""
        with subprocess.Popen(
            ["git", "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=trusted_env(git_dir=self.git_dir, work_tree=self.work_tree, extra_env=_SHADOW_ENV),
            cwd=self.git_dir,
        ) as proc:
            assert proc.stdin is not None and proc.stdout is not None
            try:
                for sha in shas:
                    proc.stdin.write(sha.encode() + b"\n")
                    proc.stdin.flush()
                    header = proc.stdout.readline().split()
                    if len(header) != 3 or header[1] != b"blob":
                        raise GitFailed(f"the shadow repository has no blob {sha}")
                    data = proc.stdout.read(int(header[2]) + 1)
                    yield data[:-1]
            finally:
                proc.stdin.close()
                proc.wait()

    def restore_path(self, source: str, path: str) -> None:
        """One file back as it is in ``source`` (its bytes and mode), or removed if ``source`` lacks it.

        Refused with ``UnsafePath`` before anything changes when a folder on the way is now a link
        or a file (SBX-3): the old ``unlink``/``rmtree`` through such a link deleted the host's files.
        """
        entry = self._entry(source, path)
        self._forget_folder()
        with FolderWriter(self.work_tree) as folder:
            folder.check(path)
            if entry is None:
                now = folder.lstat(path)
                if now is not None and not S_ISDIR(now.st_mode):
                    folder.remove(path)
                return
            mode, sha = entry
            _write_entry(folder, path, mode, self.git("cat-file", "blob", sha))

    def apply_reverse(self, patch: str, path: str) -> None:
        """Apply the reverse of a one-file patch (of ``path``) to the folder (a hunk taken back).

        ``path``'s folders are checked first (``UnsafePath``, SBX-3); git apply itself also refuses
        a path "beyond a symbolic link" (tested). Plain ``git apply`` (no ``--index``) writes only the
        folder's files, relative to ``GIT_WORK_TREE`` (our cwd); it fails whole, touching nothing, if
        the text moved on.
        """
        with FolderWriter(self.work_tree) as folder:
            folder.check(path)
        self._forget_folder()
        try:
            self.git("apply", "-R", "--whitespace=nowarn", "-", stdin=patch.encode("utf-8", "surrogateescape"))
        except GitFailed as exc:
            raise HunkDoesNotApply(str(exc)) from None

    # -- refs ------------------------------------------------------------------

    def set_undo(self, commit: str) -> None:
        self.git("update-ref", UNDO_REF, commit)

    def undo_point(self) -> str | None:
        out = self.git("rev-parse", "--verify", "--quiet", UNDO_REF + "^{commit}", check=False).strip()
        return out.decode() if out else None

    def clear_undo(self) -> None:
        self.git("update-ref", "-d", UNDO_REF, check=False)

    def remove(self) -> None:
        """Delete the shadow repository (retention)."""
        with self.lock:
            _forget_watch((str(self.git_dir), str(self.work_tree)))
            shutil.rmtree(self.git_dir, ignore_errors=True)


def _forget_watch(key: tuple[str, str]) -> None:
    """Close a folder's watch, under its repository's lock (never while another thread reads it): one whose
    lock is busy now stays open, past the limit, until a later call."""
    lock = _lock_for(Path(key[0]))
    if not lock.acquire(blocking=False):
        return
    try:
        with _WATCHES_GUARD:
            watched = _WATCHES.pop(key, None)
        if watched is not None:
            watched.watch.close()
    finally:
        lock.release()


_NO_SUBMODULE_STATUS = "--ignore-submodules=dirty"
"""A submodule's commit is compared, not its work tree: git would run ``status`` in it, under its config (SBX-3)."""


class FolderRepo:
    """The folder's own repository, read only (UNCOMMITTED scope): ``git diff HEAD`` plus untracked files.

    ``GIT_OPTIONAL_LOCKS=0`` keeps git from refreshing (rewriting) the repository's index.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _git(self, *args: str) -> bytes:
        """git on the folder's own repository, which the agent wrote: nothing it names runs (SBX-3)."""
        try:
            result = run_git(args, cwd=self.folder, git_dir=folder_gitdir(self.folder), work_tree=self.folder)
        except GitUnsafe as exc:
            raise GitFailed(str(exc)) from None
        if result.returncode not in (0, 1):
            lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GitFailed(lines[0] if lines else "git failed on the folder's repository")
        return result.stdout

    def _base(self) -> str:
        out = self._git("rev-parse", "--verify", "--quiet", "HEAD^{tree}").strip()
        return out.decode() if out else EMPTY_TREE

    def changes(self) -> tuple[FileChange, ...]:
        base = self._base()
        files = _file_changes(
            self._git(
                "diff", "--no-ext-diff", "--no-textconv", _NO_SUBMODULE_STATUS, "--no-renames", "-z", "--raw",
                "--numstat", base,
            )
        )  # fmt: skip
        untracked = self._git("ls-files", "-z", "--others", "--exclude-standard").split(b"\0")
        with FolderWriter(self.folder) as folder:  # SBX-3: an untracked link to a host file is not read
            contents = {
                raw.decode("utf-8", "surrogateescape"): folder.read_file(raw.decode("utf-8", "surrogateescape"))
                for raw in untracked
                if raw and not raw.endswith(b"/")
            }
        for path, read in contents.items():
            data = read or b""
            binary = b"\0" in data[:8000]
            lines = 0 if binary else data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
            files[path] = FileChange(path=path, kind=FileChangeKind.ADDED, additions=lines, deletions=0, binary=binary)
        return tuple(files[p] for p in sorted(files))

    def patch(self, path: str) -> str:
        tracked = self._git("ls-files", "-z", "--", path).strip()
        in_head = self._git("ls-tree", "-z", "HEAD", "--", path).strip() if self._base() != EMPTY_TREE else b""
        if tracked or in_head:
            out = self._git(
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                _NO_SUBMODULE_STATUS,
                "--no-renames",
                "--full-index",
                self._base(),
                "--",
                path,
            )
        else:
            out = self._git(
                "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-index", "--", "/dev/null", path
            )
        if b"\nBinary files " in out or b"\nGIT binary patch" in out:
            return ""
        return out.decode("utf-8", "replace")


_COMMITS: dict[str, tuple[str, dict[str, tuple[int, int]]]] = {}
"""Commit id -> (tree, too-large files): a commit never changes, so what it says is kept (bounded)."""


def _remember(commit: str, info: tuple[str, dict[str, tuple[int, int]]]) -> None:
    if len(_COMMITS) > 4096:
        _COMMITS.clear()
    _COMMITS[commit] = info


def _parse_commit(commit: str, body: bytes) -> tuple[str, dict[str, tuple[int, int]]]:
    headers, _, message = body.partition(b"\n\n")
    tree = headers.split(b"\n", 1)[0].split(b" ", 1)[1].decode()
    too_large: dict[str, tuple[int, int]] = {}
    lines = message.decode("utf-8", "replace").strip().splitlines()
    if lines:
        try:
            data = json.loads(lines[-1])
        except ValueError:
            data = {}
        if isinstance(data, dict):
            too_large = {path: (int(v[0]), int(v[1])) for path, v in data.get("too_large", {}).items()}
    _remember(commit, (tree, too_large))
    return tree, dict(too_large)


@dataclass(frozen=True, slots=True)
class _Status:
    """What one ``git status --porcelain=v2 -z --branch`` of the shadow repository says."""

    head: str | None  # the last snapshot's commit (the shadow HEAD is the snapshot ref)
    staged: bool  # the index differs from it (a ``differs`` or a restore staged without a commit)
    tracked: tuple[str, ...]  # indexed paths whose folder file differs from the index
    untracked: tuple[str, ...]  # files not in the index (nested repositories left out)


def _parse_status(out: bytes) -> _Status:
    head: str | None = None
    staged = False
    tracked: list[str] = []
    untracked: list[str] = []
    for record in out.split(b"\0"):
        if record.startswith(b"# branch.oid "):
            oid = record[len(b"# branch.oid ") :].decode()
            head = None if oid == "(initial)" else oid
        elif record.startswith(b"? "):
            if not record.endswith(b"/"):  # a nested repository: not snapshotted
                untracked.append(record[2:].decode("utf-8", "surrogateescape"))
        elif record.startswith((b"1 ", b"u ")):
            fields = record.split(b" ", 10 if record.startswith(b"u ") else 8)
            xy = fields[1]
            staged = staged or xy[:1] != b"."
            if xy[1:2] != b".":  # "M." alone: the index already holds the folder's file
                tracked.append(fields[-1].decode("utf-8", "surrogateescape"))
    return _Status(head=head, staged=staged, tracked=tuple(dict.fromkeys(tracked)), untracked=tuple(untracked))


def _file_changes(out: bytes) -> dict[str, FileChange]:
    """The one parser of ``git diff``/``diff-tree -z --raw --numstat --no-renames`` output: the raw
    records (``:meta\0path\0``) give each file's kind and modes, the numstat ones (``a\td\tpath\0``,
    ``-`` for a binary file) its line counts."""
    fields = out.split(b"\0")
    raw: list[tuple[bytes, bytes]] = []
    counts: dict[bytes, tuple[int, int, bool]] = {}
    i = 0
    while i < len(fields):
        field = fields[i]
        if field.startswith(b":"):
            raw.append((field[1:], fields[i + 1]))
            i += 2
            continue
        if field:
            added_text, deleted_text, counted = field.split(b"\t", 2)
            binary = added_text == b"-"
            counts[counted] = (0 if binary else int(added_text), 0 if binary else int(deleted_text), binary)
        i += 1
    files: dict[str, FileChange] = {}
    for meta, path_bytes in raw:
        old_mode, new_mode, _, _, status = meta.decode().split(" ")
        path = path_bytes.decode("utf-8", "surrogateescape")
        kind = {"A": FileChangeKind.ADDED, "D": FileChangeKind.DELETED}.get(status[0], FileChangeKind.MODIFIED)
        added, deleted, binary = counts.get(path_bytes, (0, 0, False))
        files[path] = FileChange(
            path=path,
            kind=kind,
            additions=added,
            deletions=deleted,
            binary=binary,
            mode_changed=kind is FileChangeKind.MODIFIED and _exec(old_mode) != _exec(new_mode),
        )
    return files


_FILE_MODES = {"100644": 0o644, "100755": 0o755, "120000": 0}


def _tree_entries(out: bytes) -> list[tuple[str, str, str]]:
    """``ls-tree -z`` records as (mode, object, path)."""
    entries = []
    for record in out.split(b"\0"):
        if record:
            meta, _, name = record.partition(b"\t")
            mode, _kind, sha = meta.decode().split(" ")
            entries.append((mode, sha, name.decode("utf-8", "surrogateescape")))
    return entries


def _write_entry(folder: FolderWriter, path: str, mode: str, data: bytes) -> None:
    """One tree entry into the folder: a link made as a link, a file with its exec bit; a submodule skipped."""
    if mode == "120000":
        folder.write_link(path, os.fsdecode(data))
    elif mode in _FILE_MODES:
        folder.write_file(path, data, _FILE_MODES[mode])


def _z(paths: Iterable[str]) -> bytes:
    return b"".join(path.encode("utf-8", "surrogateescape") + b"\0" for path in paths)


def _exec(mode: str) -> bool:
    return mode == "100755"


def split_hunks(patch: str) -> tuple[str, list[str]]:
    """A one-file unified diff as (its header, its hunks), each hunk with its ``@@`` line."""
    header: list[str] = []
    hunks: list[list[str]] = []
    for line in patch.splitlines(keepends=True):
        if HUNK_HEADER.match(line):
            hunks.append([line])
        elif hunks:
            hunks[-1].append(line)
        else:
            header.append(line)
    return "".join(header), ["".join(hunk) for hunk in hunks]
