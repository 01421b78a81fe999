"""The task line's plain facts: its kinds, its statuses and the ISO-4 status rule, the main line's title
and the permission levels (SPEC §2). ``domain.threads`` re-exports every name here.

No pydantic: the window's first task list is read and painted before the stack loads (issue 19, item 7:
``store/first_list``, ``ui/first_list``), and the list's rules are these, there and in the full window.
"""

from __future__ import annotations

import os
from enum import StrEnum
from typing import Protocol

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


def thread_status(
    *,
    key: str | None,
    exists: bool,
    archived: bool,
    workspace_path: str | None,
    running: bool,
    path_exists: bool | None = None,
) -> ThreadStatus:
    """ISO-4, as a pure rule.

    ``path_exists`` lets callers that already checked the file system pass the
    answer; otherwise the path is checked here.
    """
    if not key or not exists:
        return ThreadStatus.NEEDS_BINDING
    if archived:
        return ThreadStatus.ARCHIVED
    if running:
        return ThreadStatus.RUNNING
    if not workspace_path:
        return ThreadStatus.NEEDS_WORKSPACE
    if path_exists is None:
        path_exists = os.path.isdir(workspace_path)  # not pathlib: the list asks this for every row it shows
    if not path_exists:
        return ThreadStatus.NEEDS_WORKSPACE
    return ThreadStatus.RUNNABLE


def line_status(line: LineSummary, *, running: bool) -> ThreadStatus:
    """ISO-4 for a line the list read (it exists: it was read): the task list's status, whoever read it."""
    return thread_status(
        key=line.thread_id,
        exists=True,
        archived=line.archived,
        workspace_path=line.workspace_path,
        running=running,
    )


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
