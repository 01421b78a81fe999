"""Keep the native agent's file tools inside its thread's working directory (SPEC WR-1, ISO-6, SBX-2).

``resolve_inside`` is the one place that turns a path the model wrote into a real
path on disk. It resolves ``..``, every symbolic link (also a symlinked parent
directory and a dangling link whose target does not exist) and, because the
containment test compares directory *identity* (device and inode) rather than
spelling, case variants on case-insensitive file systems and other aliases of
the working directory. Paths that do not exist yet (the target of a write) are
resolved through their nearest existing ancestor.

SBX-2 adds one rule for reading and writing alike: a regular file with more
than one hard link is refused, because another name for the same file may live
outside the folder and no path check can see it. ``resolve_file_inside`` (a
path the model names) and ``open_confined_file`` (the open itself, which checks
the file it really got) are the two places that apply it; every file tool, the
write gate and the ACP client file system go through them.

SBX-2 also limits what a line may be bound to: "inside the folder" means
nothing when the folder is ``/``, the person's home folder, or holds
XWorkmate's own data folder. ``binding_refusal`` is that rule, shared by every
way a line gets a folder (the controller turns its answer into the one-line
``WorkspaceBindingError`` the window and the CLI show).

SBX-2 and SBX-3 also make the file tools and the sandbox share one list of what
is hidden: ``refuse_hidden`` asks the line's ``SandboxPolicy`` (other lines'
folders nested in this one, the data folder, the database, the credentials that
always stay hidden) and refuses a path the sandbox hides, or, for a write, a
path it keeps read-only (the repository's hooks and config).

The errors here are ``ToolError`` subclasses: their message is meant for the
model, which sees it as the tool result and can correct its call.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import ClassVar

from xworkmate.agents.folder_writes import FolderWriter, UnsafePath
from xworkmate.agents.sandbox import Access, SandboxPolicy, always_hidden
from xworkmate.code_cache import CACHE_FOLDER as CODE_CACHE_FOLDER
from xworkmate.domain.tool_errors import ToolErrorKind

__all__ = [
    "EscapeReason",
    "HiddenPathError",
    "InvalidPathError",
    "InvalidPathReason",
    "LinkedFileError",
    "PathEscapeError",
    "ToolError",
    "WorkingDirectoryError",
    "binding_refusal",
    "display_path",
    "has_other_names",
    "open_confined_file",
    "real_working_directory",
    "refuse_hidden",
    "refuse_linked_file",
    "resolve_file_inside",
    "resolve_inside",
]


class ToolError(Exception):
    """A failure the model should read and can act on; its message becomes the tool result.

    Anything that is not a ``ToolError`` raised by a tool is an internal error:
    it is logged and the model only learns that the tool failed.
    """

    kind: ClassVar[str] = "tool_error"


class WorkingDirectoryError(ToolError):
    """The thread's working directory itself is missing or not a directory (ISO-4 ``needs_workspace``)."""

    kind: ClassVar[str] = ToolErrorKind.WORKING_DIRECTORY


class InvalidPathReason(StrEnum):
    EMPTY = "empty"
    NUL_BYTE = "nul_byte"
    HOME_RELATIVE = "home_relative"
    DRIVE_RELATIVE = "drive_relative"
    UNRESOLVED_LINK = "unresolved_link"


class InvalidPathError(ToolError):
    """The requested path cannot name a file at all (empty, NUL byte, ``~``, link loop)."""

    kind: ClassVar[str] = ToolErrorKind.INVALID_PATH

    def __init__(self, requested: str, reason: InvalidPathReason, message: str) -> None:
        super().__init__(message)
        self.requested = requested
        self.reason = reason


class EscapeReason(StrEnum):
    ABSOLUTE_ELSEWHERE = "absolute_elsewhere"
    PARENT_TRAVERSAL = "parent_traversal"
    SYMLINK = "symlink"


class PathEscapeError(ToolError):
    """The requested path resolves outside the working directory (WR-1)."""

    kind: ClassVar[str] = ToolErrorKind.PATH_ESCAPE

    def __init__(self, requested: str, working_directory: Path, resolved: Path, reason: EscapeReason) -> None:
        why = {
            EscapeReason.ABSOLUTE_ELSEWHERE: "it is an absolute path outside it",
            EscapeReason.PARENT_TRAVERSAL: "its '..' components lead out of it",
            EscapeReason.SYMLINK: f"a symbolic link on the way points outside it (to {resolved})",
        }[reason]
        super().__init__(
            f"path {requested!r} is outside the working directory {working_directory}: {why}. "
            "Use a path relative to the working directory that stays inside it."
        )
        self.requested = requested
        self.working_directory = working_directory
        self.resolved = resolved
        self.reason = reason


class LinkedFileError(ToolError):
    """A regular file with more than one hard link, refused for reading and writing (SBX-2)."""

    kind: ClassVar[str] = ToolErrorKind.HARD_LINK

    def __init__(self, shown: str, links: int) -> None:
        super().__init__(
            f"{shown} has {links} hard links: another name for the same file may be outside the working "
            "directory, so the file tools neither read nor write it. Leave it alone or ask the person "
            "to replace it with a plain copy."
        )
        self.shown = shown
        self.links = links


class HiddenPathError(ToolError):
    """A path the line's sandbox hides, or keeps read-only and a write asked for (SBX-2, SBX-3)."""

    kind: ClassVar[str] = ToolErrorKind.HIDDEN_PATH


def refuse_hidden(policy: SandboxPolicy | None, target: Path, shown: str, *, write: bool = False) -> None:
    """Raise ``HiddenPathError`` when the sandbox of ``policy`` hides ``target`` (or, for a write, does
    not let it be written): the file tools and the sandbox share this one rule (SBX-2, SBX-3)."""
    if policy is None:
        return
    access = policy.access(target)
    if access.hides:
        raise HiddenPathError(
            f"{shown} is hidden from this line (another line's folder, XWorkmate's data or a credential); "
            "the file tools neither read nor write it"
        )
    if write and access is not Access.WRITE:
        raise HiddenPathError(
            f"{shown} is read-only for this line: git runs a repository's hooks and config as the person, "
            "outside the sandbox, so the agent does not change them"
        )


def has_other_names(status: os.stat_result) -> bool:
    """SBX-2: a regular file that more than one directory entry names (directories always have several)."""
    return stat.S_ISREG(status.st_mode) and status.st_nlink > 1


def refuse_linked_file(status: os.stat_result, shown: str) -> None:
    """Raise ``LinkedFileError`` when ``status`` is that of a multiply linked regular file (SBX-2)."""
    if has_other_names(status):
        raise LinkedFileError(shown, status.st_nlink)


def real_working_directory(working_directory: str | os.PathLike[str]) -> Path:
    """The working directory with every link resolved; it must exist and be a directory."""
    given = os.fspath(working_directory)
    if not given or "\0" in given:
        raise WorkingDirectoryError(f"the working directory {given!r} is not a valid path")
    real = Path(os.path.realpath(given))
    if not real.is_dir():
        raise WorkingDirectoryError(
            f"the working directory {given} does not exist or is not a directory; "
            "the line needs a workspace before the agent can use files"
        )
    return real


def resolve_inside(working_directory: str | os.PathLike[str], user_path: str | os.PathLike[str]) -> Path:
    """Resolve ``user_path`` (relative to ``working_directory``, or absolute) to a real path inside it.

    The result has no symbolic links left in its existing part, spells the
    working-directory prefix the way the file system does, and may name a file
    that does not exist yet. Raises ``InvalidPathError`` for an unusable path,
    ``PathEscapeError`` when the path leads outside, ``WorkingDirectoryError``
    when the working directory is gone.
    """
    root = real_working_directory(working_directory)
    requested = _validated(user_path)
    candidate = Path(requested)
    joined = candidate if candidate.is_absolute() else root / candidate
    # realpath (non-strict) resolves links component by component, applies '..' to
    # the resolved parent (POSIX semantics), follows a dangling link to its
    # target, and keeps a non-existent tail as written: i.e. it resolves the
    # nearest existing ancestor.
    resolved = Path(os.path.realpath(joined))
    tail = _parts_below(root, resolved)
    if tail is None:
        raise PathEscapeError(
            requested, root, resolved, _escape_reason(root, Path(working_directory), candidate, joined)
        )
    _reject_remaining_links(requested, root, tail)
    return root.joinpath(*tail)


def resolve_file_inside(working_directory: str | os.PathLike[str], user_path: str | os.PathLike[str]) -> Path:
    """``resolve_inside``, then SBX-2's hard-link rule on the target if it exists.

    Raises what ``resolve_inside`` raises, and ``LinkedFileError`` for a regular
    file with more than one hard link. A target that does not exist yet passes.
    """
    target = resolve_inside(working_directory, user_path)
    try:
        status = os.lstat(target)
    except OSError:
        return target
    refuse_linked_file(status, display_path(working_directory, target))
    return target


def open_confined_file(
    target: str | os.PathLike[str], shown: str, *, within: str | os.PathLike[str], write: bool = False
) -> int:
    """Open a resolved path and return the descriptor, re-checking the file actually opened (SBX-2).

    ``target`` lies inside the folder ``within``; every folder from there down to the file is opened
    one component at a time without following a link (``agents.folder_writes``), and for a write the
    missing ones are made the same way. An ACP agent runs beside its own file requests and can swap
    a folder on the path for a link between the check and the open (SBX-3): that link is refused
    instead of followed out of the folder. The last component is not followed if it became a
    symbolic link after the path was checked (``ELOOP``). The hard-link rule is applied to the open
    file itself, so a link made after ``resolve_file_inside`` is caught too.
    For writing the file is created if missing and truncated only after that
    check, so a refused file is left exactly as it was. Reading never blocks on
    a pipe, and anything but a regular file is refused. Raises ``OSError`` from
    the open, ``LinkedFileError``, or ``ToolError``.
    """
    flags = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= os.O_WRONLY | os.O_CREAT if write else os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    root = real_working_directory(within)
    relative = os.path.relpath(os.fspath(target), root)
    if relative == os.curdir or relative.startswith(os.pardir):
        raise ToolError(f"{shown} is not a file inside the working directory {root}")
    try:
        with FolderWriter(root) as folder:
            parent = folder.folder_of(Path(relative).as_posix(), create=write)
    except UnsafePath as exc:
        raise ToolError(f"{shown} was refused: {exc} since the path was checked") from None
    if parent is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), shown)
    try:
        fd = os.open(os.path.basename(relative), flags, 0o666, dir_fd=parent)
    finally:
        os.close(parent)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise ToolError(f"{shown} is not a regular file")
        refuse_linked_file(status, shown)
        if write:
            os.ftruncate(fd, 0)
        elif flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def binding_refusal(
    folder: str | os.PathLike[str], *, user_home: str | os.PathLike[str], data_folder: str | os.PathLike[str]
) -> str | None:
    """Why a line must not be bound to ``folder`` (SBX-2), or None when it may be.

    Refused: the root of a file system, the person's home folder or a folder
    that contains it, and XWorkmate's data folder or a folder that contains it
    (its database holds every line's conversation). Real paths are compared by
    identity (device, inode), so a symbolic link, ``..`` or another spelling
    of one of these folders is refused too. A folder *inside* the home or the
    data folder is fine: that is where lines' own folders live; but not one inside
    a credential folder that the sandbox always hides (``~/.ssh``, SBX-3): the
    line could neither run nor use its file tools there.
    """
    real = Path(os.path.realpath(os.fspath(folder)))
    if real.parent == real or _same_directory(real, Path(real.anchor or os.sep)):
        return "it is the root of the file system, so every file on the disk would count as inside the line's folder"
    home = Path(os.path.realpath(os.fspath(user_home)))
    below_home = _parts_below(real, home)
    if below_home is not None:
        which = "it is your home folder" if not below_home else f"it contains your home folder {home}"
        return f"{which}, so all of your files would count as inside the line's folder; choose a project folder"
    for denied in always_hidden(home):
        if _parts_below(Path(os.path.realpath(denied)), real) is not None:
            return f"it is inside {denied}, which every line's sandbox keeps hidden"
    for shared in _socket_folders():
        below_shared = _parts_below(real, shared)
        if below_shared is not None:
            which = "it is" if not below_shared else "it contains"
            return (
                f"{which} {shared}, where other programs keep their sockets (ssh-agent, the display, other lines'"
                " network proxies) that the line's sandbox would reach; choose a folder inside it"
            )
    data = Path(os.path.realpath(os.fspath(data_folder)))
    below_data = _parts_below(real, data)
    if below_data is not None:
        which = "it is" if not below_data else "it contains"
        return (
            f"{which} XWorkmate's data folder {data}, which holds every line's conversation; choose a folder outside it"
        )
    kept_code = data / CODE_CACHE_FOLDER
    if _parts_below(Path(os.path.realpath(kept_code)), real) is not None:
        # An agent writes its line's folder; what it left here would run as the person at the next start.
        return f"it is inside {kept_code}, where XWorkmate keeps code it runs at start; choose a folder outside it"
    return None


def _socket_folders() -> list[Path]:
    """SBX-2, SBX-4: the shared folders where programs of every session put their Unix sockets (ssh-agent,
    X11, D-Bus, the allow-list proxies of other lines). The sandbox gives a line a private ``/tmp`` and
    ``/run``; bound as the line's folder, one would be shown writable, sockets and all."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    found = [
        "/tmp",
        "/var/tmp",
        "/dev/shm",
        "/run",
        tempfile.gettempdir(),
        *([runtime] if os.path.isabs(runtime) else []),
    ]
    return [Path(os.path.realpath(path)) for path in dict.fromkeys(found) if os.path.isdir(path)]


def _same_directory(a: Path, b: Path) -> bool:
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def display_path(working_directory: str | os.PathLike[str], path: str | os.PathLike[str]) -> str:
    """``path`` relative to the working directory in POSIX spelling (``.`` for the directory itself).

    Falls back to the absolute path when ``path`` is not inside; only used for messages.
    """
    root = Path(os.path.realpath(os.fspath(working_directory)))
    tail = _parts_below(root, Path(os.path.realpath(os.fspath(path))))
    if tail is None:
        return os.fspath(path)
    return "/".join(tail) if tail else "."


def _validated(user_path: str | os.PathLike[str]) -> str:
    raw = os.fspath(user_path)
    if not raw.strip():
        raise InvalidPathError(raw, InvalidPathReason.EMPTY, "the path is empty; pass a file or directory path")
    if "\0" in raw:
        raise InvalidPathError(
            raw,
            InvalidPathReason.NUL_BYTE,
            f"the path {raw!r} contains a NUL byte, which no file name may hold",
        )
    if raw == "~" or raw.startswith(("~/", "~\\")):
        raise InvalidPathError(
            raw,
            InvalidPathReason.HOME_RELATIVE,
            f"the path {raw!r} is relative to a home directory; use a path relative to the working directory",
        )
    candidate = Path(raw)
    if candidate.drive and not candidate.is_absolute():
        raise InvalidPathError(
            raw,
            InvalidPathReason.DRIVE_RELATIVE,
            f"the path {raw!r} is relative to another drive; use a path relative to the working directory",
        )
    return raw


def _parts_below(root: Path, resolved: Path) -> tuple[str, ...] | None:
    """The components of ``resolved`` below the directory that *is* ``root``, or None if none is.

    Identity (device, inode) instead of string prefix: on a case-insensitive file
    system ``/Work/Proj`` and ``/work/proj`` are the same directory, and on a
    case-sensitive one ``../PROJ`` next to ``proj`` is a different one.
    """
    try:
        root_stat = os.stat(root)
    except OSError:
        return None
    identity = (root_stat.st_dev, root_stat.st_ino)
    current = resolved
    below: list[str] = []
    while True:
        try:
            st = os.stat(current)
        except (OSError, ValueError):
            st = None
        if st is not None and (st.st_dev, st.st_ino) == identity:
            return tuple(reversed(below))
        parent = current.parent
        if parent == current:
            return None
        below.append(current.name)
        current = parent


def _reject_remaining_links(requested: str, root: Path, tail: tuple[str, ...]) -> None:
    # realpath leaves a link in place only for a loop (or when the tree changed
    # under us); such a path cannot be written safely.
    current = root
    for part in tail:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except OSError:
            return
        if stat.S_ISLNK(mode):
            raise InvalidPathError(
                requested,
                InvalidPathReason.UNRESOLVED_LINK,
                f"the path {requested!r} goes through a symbolic link that cannot be resolved "
                f"({current.relative_to(root)} is a link loop or changed while resolving)",
            )


def _escape_reason(root: Path, given_root: Path, candidate: Path, joined: Path) -> EscapeReason:
    lexical = os.path.normcase(os.path.normpath(joined))
    roots = {os.path.normcase(os.fspath(root)), os.path.normcase(os.path.abspath(given_root))}
    lexically_inside = any(lexical == r or lexical.startswith(r.rstrip(os.sep) + os.sep) for r in roots)
    if lexically_inside:
        return EscapeReason.SYMLINK
    if candidate.is_absolute():
        return EscapeReason.ABSOLUTE_ELSEWHERE
    return EscapeReason.PARENT_TRAVERSAL
