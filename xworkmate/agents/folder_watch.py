"""Has anything in a line's folder changed since a point in time? inotify, asked without a scan (issue 34 item 3).

A turn's checkpoint is a snapshot before it and one after it, each a ``git status`` of the shadow
repository: a stat of every file. Between two turns the folder usually does not change at all, and a
turn changes a few files. :class:`FolderWatch` says whether anything changed since a point in time and
which paths the changes named, without stat-ing a single file: the snapshot before a turn is then the
last one, and the one after it scans only the paths the turn touched (``agents.checkpoints``).

It is XWorkmate's own watcher, in this process: inotify on every folder of the work tree (every line's
folders in one inotify instance, whose one event queue overflowing means "changed" for all), armed
before the scan whose result it vouches for. It is not git's ``core.fsmonitor`` (a command named in
config, which stays off everywhere, SBX-3) and runs nothing. The folder is the agent's, so the watcher
trusts nothing in it: it follows no link (``IN_DONT_FOLLOW``; a folder swapped for a link fails to be
watched), a folder made or moved in is watched before the next scan, and what it cannot account for
(a folder moved away, a queue overflow, a watch it could not add) only makes it say "changed" and
watch the tree anew: that costs the scan a snapshot cost anyway.
Folders named ``.git`` are not watched: git never snapshots anything under one.

It says "changed" when in doubt, and is not made at all (``None``: every snapshot scans, as before)
where inotify cannot be trusted to see every change: a file system other than a local one (a network
or FUSE mount sees no event for a change made elsewhere), a mount point inside the folder, more than
``MAX_FOLDERS`` folders, or no inotify. What it cannot see by design, like git's own fsmonitor: a write
through a hard link whose other name is outside the folder, or through a shared memory map (the
checkpoints scan the whole folder every so often for those).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct
import sys
import threading
from pathlib import Path

from xworkmate.agents.sandbox import below

__all__ = ["LOCAL_FILE_SYSTEMS", "MAX_FOLDERS", "MAX_TOUCHED", "FolderWatch", "watchable"]

MAX_FOLDERS = 20_000
"""A folder tree with more folders than this is not watched (inotify watches are a per-user resource)."""
MAX_TOUCHED = 500
"""More paths named by events than this since the last scan: the next scan is of the whole folder."""
WHOLE_FOLDER_NAMES = frozenset({b".git", b".gitignore", b".gitattributes"})
"""Names whose change can change what git makes of other paths (ignored, a nested repository): a whole scan."""

_IN_MODIFY = 0x00000002
_IN_ATTRIB = 0x00000004
_IN_CLOSE_WRITE = 0x00000008
_IN_MOVED_FROM = 0x00000040
_IN_MOVED_TO = 0x00000080
_IN_CREATE = 0x00000100
_IN_DELETE = 0x00000200
_IN_DELETE_SELF = 0x00000400
_IN_MOVE_SELF = 0x00000800
_IN_UNMOUNT = 0x00002000
_IN_Q_OVERFLOW = 0x00004000
_IN_IGNORED = 0x00008000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_ISDIR = 0x40000000
_MASK = (
    _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
    | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR
)  # fmt: skip
_REBUILD = _IN_Q_OVERFLOW | _IN_UNMOUNT
"""Events after which the watches may no longer cover the tree: it is watched anew before the next scan."""
_GIVE_UP = frozenset({errno.ENOSPC, errno.ENOMEM, errno.EACCES, errno.EPERM})
"""Why a watch could not be added that would fail again each time: the folder is then not watched (it scans)."""
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then the name, len bytes (NUL-padded)

LOCAL_FILE_SYSTEMS = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "f2fs", "zfs", "bcachefs", "jfs", "reiserfs", "nilfs2", "overlay"}
)
"""File systems whose every change, made by any process of this machine, comes with an inotify event."""


class _Inotify:
    """The libc calls (``_load``: ``None`` where there is no inotify, off Linux)."""

    def __init__(self, libc: ctypes.CDLL) -> None:
        self.init1 = libc.inotify_init1
        self.init1.argtypes = [ctypes.c_int]
        self.init1.restype = ctypes.c_int
        self.add_watch = libc.inotify_add_watch
        self.add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self.add_watch.restype = ctypes.c_int
        self.rm_watch = libc.inotify_rm_watch
        self.rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
        self.rm_watch.restype = ctypes.c_int


def _load() -> _Inotify | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return _Inotify(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True))
    except (OSError, AttributeError):
        return None


_INOTIFY = _load()


def _unescape(field: str) -> str:
    """A mountinfo path field: space, tab, newline and backslash are written as octal escapes."""
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def _mounts() -> list[tuple[str, str]]:
    """(mount point, file system type) of every mount this process sees."""
    try:
        text = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return []
    mounts = []
    for line in text.splitlines():
        fields = line.split(" ")
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split(" ")
        mounts.append((_unescape(fields[4]), after[0]))
    return mounts


def watchable(folder: Path, mounts: list[tuple[str, str]] | None = None) -> bool:
    """Does every change to ``folder``'s files come with an inotify event? A local file system, no mount inside.

    ``mounts``: (mount point, file system type) of every mount, this process's by default."""
    real = os.path.realpath(folder)
    mounts = _mounts() if mounts is None else mounts
    holding = [(point, kind) for point, kind in mounts if real == point or below(real, point)]
    if not holding:
        return False
    _point, kind = max(holding, key=lambda mount: len(mount[0]))
    if kind not in LOCAL_FILE_SYSTEMS:
        return False
    return not any(below(point, real) for point, _kind in mounts)


class _Shared:
    """The process's one inotify instance (a per-user resource: 128 by default), shared by every folder's watch:
    each event is handed to the watches that own its watch descriptor. Every call holds ``LOCK``."""

    def __init__(self, inotify: _Inotify) -> None:
        self.inotify = inotify
        self.fd = -1
        self.owners: dict[int, list[FolderWatch]] = {}

    def ready(self) -> bool:
        if self.fd < 0:
            self.fd = self.inotify.init1(os.O_NONBLOCK | os.O_CLOEXEC)
        return self.fd >= 0

    def add(self, watch: FolderWatch, path: bytes, flags: int) -> int:
        """A watch on ``path`` for ``watch``; its descriptor, or -1 (``ctypes.get_errno()`` says why)."""
        wd: int = self.inotify.add_watch(self.fd, path, flags)
        if wd >= 0:
            owners = self.owners.setdefault(wd, [])
            if watch not in owners:
                owners.append(watch)
        return wd

    def drop(self, watch: FolderWatch, wds: list[int]) -> None:
        """``watch`` no longer owns these descriptors; one that nobody owns is removed."""
        for wd in wds:
            owners = self.owners.get(wd)
            if owners is None or watch not in owners:
                continue
            owners.remove(watch)
            if not owners:
                del self.owners[wd]
                self.inotify.rm_watch(self.fd, wd)  # already gone (its folder removed): an error, and no matter

    def pump(self) -> None:
        """Read every queued event and hand each to the watches that own it."""
        while self.fd >= 0:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                self._everyone(_IN_Q_OVERFLOW)
                return
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
                offset += _EVENT.size + length
                if mask & _IN_Q_OVERFLOW:
                    self._everyone(mask)
                    continue
                for watch in list(self.owners.get(wd, ())):
                    watch._event(wd, mask, name)
                if mask & _IN_IGNORED:
                    self.owners.pop(wd, None)

    def _everyone(self, mask: int) -> None:
        for watch in {id(w): w for owners in self.owners.values() for w in owners}.values():
            watch._event(-1, mask, b"")


LOCK = threading.RLock()
"""Held around every watch's calls: the shared instance hands one folder's events to another's watch."""
_SHARED = _Shared(_INOTIFY) if _INOTIFY is not None else None


class FolderWatch:
    """inotify on every folder under ``root``: ``changed()`` since the last ``arm()``?"""

    def __init__(self, root: Path, shared: _Shared) -> None:
        self.root = root
        self._shared = shared
        self._live = False
        self._paths: dict[int, bytes] = {}
        self._root_wd = -1
        self.given_up = False  # more than MAX_FOLDERS folders, or no inotify watch left: never watched again
        self._changed = True  # nothing vouched for until armed
        self._rebuild = True
        self._touched: set[bytes] | None = None  # paths named by events since the last arm; None: not known

    @classmethod
    def make(cls, root: Path) -> FolderWatch | None:
        """A watch on ``root``, or ``None`` where inotify would miss changes (see the module's docstring)."""
        if _SHARED is None or not root.is_dir() or not watchable(root):
            return None
        with LOCK:
            watch = cls(root, _SHARED)
            if not watch._build() and watch.given_up:
                watch.close()
                return None
            return watch  # one that failed for a moment (a folder removed while listed) is watched anew when armed

    def close(self) -> None:
        with LOCK:
            self._shared.drop(self, list(self._paths))
            self._paths.clear()
            self._live = False

    def _build(self) -> bool:
        """Watch every folder anew (each watched before it is listed, so a folder made meanwhile shows as an event)."""
        self.close()
        if not self._shared.ready():
            return False
        self._rebuild = False
        self._live = self._add_tree(os.fsencode(self.root), root=True)
        if not self._live:
            self.close()
        return self._live

    def _add_tree(self, top: bytes, *, root: bool = False) -> bool:
        """Watch ``top`` and every folder under it, following no link; False: a watch could not be added."""
        stack = [top]
        while stack:
            path = stack.pop()
            flags = _MASK if root and path == top else _MASK | _IN_DONT_FOLLOW
            wd = self._shared.add(self, path, flags)
            if wd < 0:
                if ctypes.get_errno() in _GIVE_UP:
                    self.given_up = True  # out of the user's inotify watches, or a folder it may not read
                return False  # gone, swapped for a link or a file: not vouched for until watched anew
            self._paths[wd] = path
            if root and path == top:
                self._root_wd = wd
            if len(self._paths) > MAX_FOLDERS:
                self.given_up = True
                return False
            try:
                with os.scandir(path) as entries:
                    stack.extend(
                        entry.path for entry in entries if entry.name != b".git" and entry.is_dir(follow_symlinks=False)
                    )
            except OSError as exc:
                self.given_up = self.given_up or exc.errno in _GIVE_UP
                return False
        return True

    def _pump(self) -> None:
        """Read every queued event (the shared instance's): any event of this folder is a change."""
        self._shared.pump()

    def _event(self, wd: int, mask: int, name: bytes) -> None:
        """One event of this folder's (wd -1: an overflow, or the instance failing: not known)."""
        self._changed = True
        self._note(wd, mask, name)
        if mask & _REBUILD or (mask & _IN_MOVED_FROM and mask & _IN_ISDIR):
            self._rebuild = True  # a folder moved away: the paths of its watches may be stale
        elif mask & _IN_IGNORED:  # the folder went (removed, moved out): so did its watch
            self._paths.pop(wd, None)
            self._rebuild = self._rebuild or wd == self._root_wd
        elif mask & (_IN_DELETE_SELF | _IN_MOVE_SELF) and wd == self._root_wd:
            self._rebuild = True
        elif mask & (_IN_CREATE | _IN_MOVED_TO) and mask & _IN_ISDIR and not self._rebuild and name != b".git":
            # A folder made or moved in: it and every folder under it watched now (one already watched keeps its
            # watch and gets its new path).
            parent = self._paths.get(wd)
            if parent is None or not self._add_tree(os.path.join(parent, name)):
                self._rebuild = True

    def _note(self, wd: int, mask: int, name: bytes) -> None:
        """The path an event names, relative to the root, into the paths touched since the last arm."""
        if self._touched is None:
            return
        if not name:
            if wd != self._root_wd and mask & (_IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF):
                return  # a folder's own removal or move: its parent's event names it
            self._touched = None  # the root itself, an overflow: not known
            return
        parent = self._paths.get(wd)
        if parent is None or name in WHOLE_FOLDER_NAMES or len(self._touched) >= MAX_TOUCHED:
            self._touched = None
            return
        root = os.fsencode(self.root)
        self._touched.add(name if wd == self._root_wd else parent[len(root) + 1 :] + b"/" + name)

    def changed(self) -> bool:
        """Has anything under the folder changed since the last ``arm()`` (or could it have)?"""
        with LOCK:
            self._pump()
            return self._changed or self._rebuild or not self._live

    def arm(self) -> tuple[bool, frozenset[bytes] | None]:
        """From now on, vouch for the folder: call it just before the scan whose result ``changed()`` keeps.

        Returns whether it is armed (False: the folder could not be watched now, it stays "changed") and
        the paths (relative, as bytes) that events named since the last arm: nothing outside them changed
        since then. ``None``: not known (the first arm, the tree watched anew, too many, a name in
        ``WHOLE_FOLDER_NAMES``): the scan must be of the whole folder."""
        with LOCK:
            self._pump()
            touched = None if self._touched is None or self._rebuild or not self._live else frozenset(self._touched)
            if self.given_up:
                return False, None
            if self._rebuild or not self._live:
                touched = None
                if not self._build():
                    self._changed = True
                    return False, None
                self._pump()  # events of the folder while it was watched anew: the scan that follows sees them
            self._changed = False
            self._touched = set()
            return True, touched
