"""Writing into a line's folder without following anything an agent left there (SBX-3).

The folder is written by an adversary: between two turns any folder in it may have become a
symbolic link to ``$HOME`` or to another line. Revert, restore and checkpoint writes therefore
open the folder once (``O_NOFOLLOW``) and every path below it one component at a time, relative
to the parent's file descriptor, never through a link: missing folders are made with
``mkdir(dir_fd=)``, files are written to a new name (``O_CREAT|O_EXCL|O_NOFOLLOW``) and renamed
over the old one, links are made with ``symlink(dir_fd=)`` and removals are
``unlink(dir_fd=)`` / ``rmtree(dir_fd=)``. A path whose parent is a link (or a file) is refused
with ``UnsafePath`` before anything is written.

No Qt, no store, no git: the shadow repository (``agents/checkpoints.py``) hands the bytes over.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType

from xworkmate.terminal_text import shown

__all__ = ["FolderWriter", "UnsafePath"]

_Maker = Callable[[int, str], None]  # makes an entry under a name, in the folder of that descriptor

# Linux and macOS have them all; getattr keeps the import working elsewhere (no dir_fd there: writes fail).
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NO_FOLLOW
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW


class UnsafePath(ValueError):
    """A path below the folder passes through a symbolic link or a file where a folder should be.

    ``path`` is the path asked for, ``folder`` the component in the way (both relative to the
    line's folder) and ``link`` its target, or ``None`` when it is a file.
    """

    def __init__(self, path: str, folder: str, link: str | None) -> None:
        self.path = path
        self.folder = folder
        self.link = link
        what = f"a symbolic link (to {shown(link)})" if link is not None else "a file"
        super().__init__(f"its folder {shown(folder)} is now {what}")


def _parts(path: str) -> list[str]:
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"{shown(path)!r} is not a path inside the line's folder")
    return parts


class FolderWriter:
    """A line's folder opened without following links; paths below it are ``/``-separated, relative.

    Use as a context manager: the folder's descriptor is closed on exit.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fd = os.open(root, _DIR_FLAGS)

    def __enter__(self) -> FolderWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    # -- walking ----------------------------------------------------------------

    def _open_dir(self, path: str, parts: list[str], *, create: bool, allowed: frozenset[str]) -> int | None:
        """The folder holding ``parts``' last component, opened component by component.

        ``None``: a folder on the way is missing and ``create`` is false. A link or a file on the
        way raises ``UnsafePath`` unless its path is in ``allowed`` (it is itself about to be
        replaced, so nothing below it is reached through it); then ``None`` as for a missing one.
        """
        fd = os.dup(self._fd)
        try:
            for depth, name in enumerate(parts[:-1]):
                try:
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        return None
                    os.mkdir(name, 0o777, dir_fd=fd)
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    where = "/".join(parts[: depth + 1])
                    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    link = os.readlink(name, dir_fd=fd) if stat.S_ISLNK(info.st_mode) else None
                    if where in allowed and not create:
                        return None
                    raise UnsafePath(path, where, link) from None
                os.close(fd)
                fd = child
            return fd
        except BaseException:
            os.close(fd)
            raise

    def folder_of(self, path: str, *, create: bool) -> int | None:
        """A new descriptor of the folder that holds ``path``'s last component, reached without following a
        link (made when missing and ``create``); ``None`` when missing. ``UnsafePath`` for a link on the way."""
        return self._open_dir(path, _parts(path), create=create, allowed=frozenset())

    def check(self, path: str, allowed: Iterable[str] = ()) -> None:
        """Raise ``UnsafePath`` if writing ``path`` would pass through a link or a file; writes nothing."""
        fd = self._open_dir(path, _parts(path), create=False, allowed=frozenset(allowed))
        if fd is not None:
            os.close(fd)

    def lstat(self, path: str) -> os.stat_result | None:
        """The entry itself (a link is not followed), ``None`` when it or a real folder on the way is missing."""
        parts = _parts(path)
        try:
            fd = self._open_dir(path, parts, create=False, allowed=frozenset())
        except UnsafePath:
            return None
        if fd is None:
            return None
        try:
            return os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        finally:
            os.close(fd)

    def read_file(self, path: str) -> bytes | None:
        """A regular file's bytes, ``None`` for anything else (a link is not followed, a pipe never waited on)."""
        parts = _parts(path)
        try:
            fd = self._open_dir(path, parts, create=False, allowed=frozenset())
        except UnsafePath:
            return None
        if fd is None:
            return None
        try:
            try:
                file = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
            except OSError:
                return None
            try:
                if not stat.S_ISREG(os.fstat(file).st_mode):
                    return None
                with os.fdopen(file, "rb", closefd=False) as stream:
                    return stream.read()
            finally:
                os.close(file)
        finally:
            os.close(fd)

    # -- writing ----------------------------------------------------------------

    def remove(self, path: str) -> None:
        """Remove the entry at ``path`` (a folder with what it holds); a missing one is no error."""
        parts = _parts(path)
        fd = self._open_dir(path, parts, create=False, allowed=frozenset())
        if fd is None:
            return
        try:
            _remove_entry(fd, parts[-1])
        finally:
            os.close(fd)

    def write_file(self, path: str, data: bytes, mode: int) -> None:
        """``path`` holds ``data`` with permission bits ``mode``, replacing whatever was there."""
        self._replace(path, lambda fd, name: _new_file(fd, name, data, mode))

    def write_link(self, path: str, target: str) -> None:
        """``path`` is a symbolic link to ``target`` (made, never followed)."""
        self._replace(path, lambda fd, name: os.symlink(target, name, dir_fd=fd))

    def _replace(self, path: str, make: _Maker) -> None:
        parts = _parts(path)
        fd = self._open_dir(path, parts, create=True, allowed=frozenset())
        assert fd is not None
        temporary = f".xwm-{secrets.token_hex(6)}.tmp"
        try:
            make(fd, temporary)
            try:
                current = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                current = None
            if current is not None and stat.S_ISDIR(current.st_mode):
                shutil.rmtree(parts[-1], dir_fd=fd)  # a folder where the file goes: rename cannot replace it
            os.rename(temporary, parts[-1], src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            _remove_entry(fd, temporary)
            raise
        finally:
            os.close(fd)


def _new_file(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    fd = os.open(name, _NEW_FILE_FLAGS, 0o600, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _remove_entry(dir_fd: int, name: str) -> None:
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)  # fd-based: never leaves the folder through a link
    else:
        os.unlink(name, dir_fd=dir_fd)
