"""The task line's plain facts: its kinds, its statuses and the ISO-4 status rule, the main line's title
and the permission levels (SPEC §2). ``domain.threads`` re-exports every name here.

No pydantic: the window's first task list is read and painted before the stack loads (issue 19, item 7:
``store/first_list``, ``ui/lines/first_list``), and the list's rules are these, there and in the full window.
"""

from __future__ import annotations

import os
import stat
from enum import StrEnum
from typing import NamedTuple, Protocol

from xworkmate.domain.keys import MAIN_KEY
from xworkmate.domain.translatable import QT_TRANSLATE_NOOP

MAIN_TITLE = QT_TRANSLATE_NOOP("CoreText", "Main")
"""The title the main line starts with (ISO-2); the window shows it in the person's language while the
line still has it (``ui/wording.line_title``)."""


def has_default_title(thread_id: str, title: str) -> bool:
    """True for the main line still under the title it started with (not one the person gave it)."""
    return thread_id == MAIN_KEY and title == MAIN_TITLE


class ThreadKind(StrEnum):
    CONVERSATION = "conversation"
    TASK = "task"
    BRANCH = "branch"
    FORK = "fork"
    CLONE = "clone"
    SIDE_CHAT = "side_chat"


class ThreadStatus(StrEnum):
    """ISO-4. Only ``runnable`` lines may execute."""

    RUNNABLE = "runnable"
    NEEDS_BINDING = "needs_binding"
    NEEDS_WORKSPACE = "needs_workspace"
    RUNNING = "running"
    ARCHIVED = "archived"


class PermissionLevel(StrEnum):
    ASK = "ask"
    AUTO_EDIT = "auto-edit"
    FULL = "full"


class LineSummary(Protocol):
    """What the task list shows of a line (ISO-9): ``ThreadSummary`` and the first list's rows have it."""

    @property
    def thread_id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def kind(self) -> ThreadKind: ...
    @property
    def parent_key(self) -> str | None: ...
    @property
    def category(self) -> str | None: ...
    @property
    def archived(self) -> bool: ...
    @property
    def workspace_path(self) -> str | None: ...
    @property
    def workspace_pin(self) -> str | None: ...


class FolderPin(NamedTuple):
    """SBX-3: which folder a line was bound to — its device and inode, and its real path, then.

    Stored as one text, ``device:inode:real path`` (``threads.workspace_pin``, migration 0015): both numbers
    are unsigned 64-bit, wider than PostgreSQL's ``bigint``, and the real path may hold ``:``.
    """

    device: int
    inode: int
    real_path: str

    @property
    def text(self) -> str:
        return f"{self.device}:{self.inode}:{self.real_path}"

    @classmethod
    def parse(cls, text: str | None) -> FolderPin | None:
        if not text:
            return None
        device, inode, real_path = text.split(":", 2)
        return cls(int(device), int(inode), real_path)


def pin_folder(path: str | None) -> str | None:
    """The pin (``FolderPin.text``) of the folder at ``path`` as it is now, when a line is bound to it; None when
    no directory is there, or ``path`` itself is a symbolic link (a line is never bound through one, SBX-3)."""
    if not path:
        return None
    try:
        found = os.lstat(path)
        real_path = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISDIR(found.st_mode):
        return None
    return FolderPin(found.st_dev, found.st_ino, real_path).text


FOLDER_LINKED = QT_TRANSLATE_NOOP(
    "CoreText",
    "the line's folder {path} was replaced by a symbolic link to {target} since it was bound;"
    " pick its folder again (Change folder…)",
)
FOLDER_REPLACED = QT_TRANSLATE_NOOP(
    "CoreText",
    "the line's folder {path} was replaced by another folder since it was bound;"
    " pick its folder again (Change folder…)",
)
FOLDER_MOVED = QT_TRANSLATE_NOOP(
    "CoreText",
    "the line's folder {path} now leads to {target}, not to the folder it was bound to;"
    " pick its folder again (Change folder…)",
)


def folder_problem(path: str, pin: str | None, *, thorough: bool = False) -> str | None:
    """Why the line's folder at ``path`` may not be run in (ISO-4 ``needs_workspace``), or None.

    SBX-3: a folder that is gone, that became a symbolic link (pinned or not), or that is another inode than the
    one pinned when the line was bound. One ``os.lstat``: the task list asks this for every row it shows.
    ``thorough`` (one line, before it runs or is checkpointed) also compares the real path, so a parent folder
    swapped for a link is seen too. The same inode on another device at the same real path is the same folder
    mounted again (btrfs subvolumes, network file systems number their devices anew at each mount).
    """
    try:
        found = os.lstat(path)
    except (OSError, ValueError):
        return STATUS_EXPLANATIONS[ThreadStatus.NEEDS_WORKSPACE]
    if stat.S_ISLNK(found.st_mode):
        return FOLDER_LINKED.format(path=path, target=os.path.realpath(path))
    if not stat.S_ISDIR(found.st_mode):
        return STATUS_EXPLANATIONS[ThreadStatus.NEEDS_WORKSPACE]
    try:
        pinned = FolderPin.parse(pin)
    except ValueError:
        pinned = None  # not a pin this code wrote: the line is pinned again at its next run (its gate)
    if pinned is None:
        return None
    if found.st_ino != pinned.inode:
        return FOLDER_REPLACED.format(path=path)
    if thorough or found.st_dev != pinned.device:
        real_path = os.path.realpath(path)
        if real_path != pinned.real_path:
            return FOLDER_MOVED.format(path=path, target=real_path)
    return None


class LineState(NamedTuple):
    """A line's ISO-4 status and the one line that says why (the status's own explanation, or the folder's)."""

    status: ThreadStatus
    reason: str


def thread_state(
    *,
    key: str | None,
    exists: bool,
    archived: bool,
    workspace_path: str | None,
    running: bool,
    workspace_pin: str | None = None,
    thorough: bool = False,
) -> LineState:
    """ISO-4, as a pure rule (the folder checked by ``folder_problem``; ``thorough`` as there)."""
    status = ThreadStatus.RUNNABLE
    if not key or not exists:
        status = ThreadStatus.NEEDS_BINDING
    elif archived:
        status = ThreadStatus.ARCHIVED
    elif running:
        status = ThreadStatus.RUNNING
    elif not workspace_path:
        status = ThreadStatus.NEEDS_WORKSPACE
    else:
        problem = folder_problem(workspace_path, workspace_pin, thorough=thorough)
        if problem is not None:
            return LineState(ThreadStatus.NEEDS_WORKSPACE, problem)
    return LineState(status, STATUS_EXPLANATIONS[status])


def line_state(line: LineSummary, *, running: bool) -> LineState:
    """ISO-4 for a line the list read (it exists: it was read): the task list's status, whoever read it."""
    return thread_state(
        key=line.thread_id,
        exists=True,
        archived=line.archived,
        workspace_path=line.workspace_path,
        workspace_pin=line.workspace_pin,
        running=running,
    )


def restored_current_key(saved: str | None, archived: bool | None) -> str:
    """The line a window opens on at its start: the one it was on (``saved``), unless that line is archived or
    gone (``archived`` is ``None`` when no line has that key): then the main line."""
    return saved if saved and archived is False else MAIN_KEY


def line_status(line: LineSummary, *, running: bool) -> ThreadStatus:
    return line_state(line, running=running).status


# Marked for the window's catalogue (issue 20); the CLI says them in English.
STATUS_EXPLANATIONS: dict[ThreadStatus, str] = {
    ThreadStatus.RUNNABLE: QT_TRANSLATE_NOOP("CoreText", "ready"),
    ThreadStatus.NEEDS_BINDING: QT_TRANSLATE_NOOP(
        "CoreText", "this line has no session key or no thread record; create a new task line"
    ),
    ThreadStatus.NEEDS_WORKSPACE: QT_TRANSLATE_NOOP(
        "CoreText", "this line's folder is missing; choose one with “Change folder…”"
    ),
    ThreadStatus.RUNNING: QT_TRANSLATE_NOOP("CoreText", "a turn is already running on this line"),
    ThreadStatus.ARCHIVED: QT_TRANSLATE_NOOP("CoreText", "this line is archived"),
}
