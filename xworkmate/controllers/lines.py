"""Task lines: create, switch, bind, rename, archive, and what each line's status is (SPEC §2, ISO-1..8).

``LineController`` is the lines section of ``SessionController``; it holds the
current key. Worktree lines (issue 16) are made and released here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from xworkmate.controllers import worktrees
from xworkmate.controllers.changes import CurrentLineChanged, LineCreated, LineUpdated, MessagesChanged
from xworkmate.controllers.context import ControllerContext, UnknownSessionKeyError
from xworkmate.controllers.first_list import CURRENT_KEY_STATE, UI_STATE_PREFIX, ui_states_named
from xworkmate.domain.keys import MAIN_KEY, allocate_draft_key, key_to_dir_name, normalize_session_key
from xworkmate.domain.lines import LineSummary, restored_current_key
from xworkmate.domain.messages import Message
from xworkmate.domain.runs import ExecutionResult, NotRunnable
from xworkmate.domain.threads import (
    MAIN_TITLE,
    STATUS_EXPLANATIONS,
    BoundBy,
    LineState,
    TaskThread,
    ThreadStatus,
    ThreadSummary,
    WorkspaceBinding,
    WorkspaceKind,
    folder_problem,
    line_state,
    thread_state,
)
from xworkmate.domain.titles import default_title
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store.folders import new_line_folder
from xworkmate.store.repositories import utcnow
from xworkmate.store.repositories.line_panes import LinePanesRows, line_panes_read
from xworkmate.store.repositories.threads import FirstLines

log = logging.getLogger(__name__)


class WorkspaceBindingError(ValueError):
    """A folder that cannot be bound, with the reason."""


class LineView(BaseModel):
    """Everything the three panes show about one line, read in one go (ISO-5)."""

    model_config = ConfigDict(frozen=True)

    thread: TaskThread
    status: ThreadStatus
    explanation: str
    # Issue 15: the running turn waits for the person to pick how its agent signs in.
    needs_sign_in: bool = False

    @property
    def key(self) -> str:
        return self.thread.thread_id

    @property
    def runnable(self) -> bool:
        return self.status is ThreadStatus.RUNNABLE


def summary_of(thread: TaskThread) -> ThreadSummary:
    """The list's row of a line already read (ISO-9)."""
    return ThreadSummary(
        thread_id=thread.thread_id,
        title=thread.title,
        kind=thread.kind,
        parent_key=thread.parent_key,
        category=thread.category,
        archived=thread.archived,
        workspace_path=thread.workspace_binding.path,
        updated_at=thread.updated_at,
        workspace_pin=thread.workspace_binding.pin,
    )


class LineController:
    """The task lines and the current one. ``needs_sign_in`` answers whether a line's turn waits for a sign-in."""

    def __init__(
        self,
        ctx: ControllerContext,
        *,
        needs_sign_in: Callable[[str], bool],
        running_elsewhere: Callable[[str], bool] = lambda key: False,
    ) -> None:
        self._ctx = ctx
        self._needs_sign_in = needs_sign_in
        self._running_elsewhere = running_elsewhere  # issue 19: a turn another process runs on the line
        self._switching_to: LineView | None = None
        self._ui_states: dict[str, str] | None = None  # during ``ui_state_read_once``
        self._ensure_main_thread()
        self._current_key = self._restored_current_key()

    @property
    def current_key(self) -> str:
        return self._current_key

    # -- reading ------------------------------------------------------------

    def list_lines(self, *, include_archived: bool = False) -> list[ThreadSummary]:
        return self._ctx.store.threads.summaries(include_archived=include_archived)

    def first_lines(self, wanted: Iterable[str] = ()) -> FirstLines:
        """The lines a window is built with before the rest (issue 34 item 2), archived too: a bounded part of
        ``list_lines(include_archived=True)`` holding both ends of the list, the current line and ``wanted``
        (the lines that need the person), with every line above them; all of it when the list is short."""
        return self._ctx.store.threads.first_summaries([self._current_key, *wanted])

    def state_of(self, thread: TaskThread) -> LineState:
        """ISO-4 for one line, its reason included; the folder checked thoroughly (SBX-3: its real path too)."""
        return thread_state(
            key=thread.thread_id,
            exists=True,
            archived=thread.archived,
            workspace_path=thread.workspace_binding.path,
            workspace_pin=thread.workspace_binding.pin,
            running=thread.thread_id in self._ctx.running,
            thorough=True,
        )

    def status_of(self, thread: TaskThread) -> ThreadStatus:
        return self.state_of(thread).status

    def summary_state(self, summary: LineSummary) -> LineState:
        """A listed line's status and its reason (one ``os.lstat`` of its folder: SBX-3's cheap check)."""
        key = summary.thread_id
        return line_state(summary, running=key in self._ctx.running or self._running_elsewhere(key))

    def summary_status(self, summary: LineSummary) -> ThreadStatus:
        return self.summary_state(summary).status

    def line_summary(self, key: str) -> ThreadSummary:
        """The list's view of one line, from a single-thread read."""
        return summary_of(self._ctx.get_thread(key))

    def line_view(self, key: str) -> LineView:
        return self.view_of(self._ctx.get_thread(key), key)

    def view_of(self, thread: TaskThread, key: str) -> LineView:
        """The panes' view of ``thread`` (asked for as ``key``), read already: its status and sign-in wait."""
        status, reason = self.state_of(thread)
        if self._needs_sign_in(key):
            explanation = "its agent needs sign-in: pick a method on the card below"
            return LineView(thread=thread, status=status, explanation=explanation, needs_sign_in=True)
        return LineView(thread=thread, status=status, explanation=reason)

    def line_panes_read(self, key: str, *, limit: int, with_usage: bool) -> tuple[LineView, LinePanesRows]:
        """A switch's fresh read of ``key`` in one go (one round trip on PostgreSQL): its view and the rows
        ``line_view``, ``newest_messages``, ``line_usage`` (``with_usage``) and, for a task, ``task_sources``
        and its dispatcher's ``line_summary`` would read. An unknown key raises ``UnknownSessionKeyError``."""
        rows = line_panes_read(self._ctx.store, self._ctx.canonical(key), limit=limit, with_usage=with_usage)
        if rows is None:
            raise UnknownSessionKeyError(key)
        return self.view_of(rows.thread, key), rows

    def current_view(self) -> LineView:
        # While switch_session announces the switch, listeners get the view it just read (one read a switch).
        if self._switching_to is not None and self._switching_to.key == self._current_key:
            return self._switching_to
        return self.line_view(self._current_key)

    def default_workspace_for(self, key: str) -> Path:
        """``<workspace root>/.xworkmate/threads/<dir name>`` (ISO-3)."""
        return self._ctx.settings.threads_root / key_to_dir_name(key)

    # The window and the CLI read as the person at the desktop, who sees every line (CAT-4).

    def message_ids(self, key: str, *, before_id: int | None = None, limit: int = 200) -> list[int]:
        return self._ctx.store.messages.page_ids(
            self._ctx.canonical(key), viewer=DESKTOP, before_id=before_id, limit=limit
        )

    def newest_messages(self, key: str, *, limit: int) -> list[Message]:
        """A line's newest ``limit`` messages, oldest first: what opening it shows, in one read."""
        return self._ctx.store.messages.newest(self._ctx.canonical(key), limit=limit, viewer=DESKTOP)

    def messages_by_id(self, ids: list[int]) -> dict[int, Message]:
        return self._ctx.store.messages.get_many(ids, viewer=DESKTOP)

    def messages(self, key: str) -> list[Message]:
        return self._ctx.store.messages.list_for_thread(self._ctx.get_thread(key).thread_id, viewer=DESKTOP)

    # -- quarantine (Q-1) ---------------------------------------------------

    def quarantine_message(self, message_id: int) -> Message:
        """Hide a message from the model: the row stays whole for the person; the model, on this line and on
        every fork or copy made from now on, sees only the placeholder naming it (Q-1)."""
        message = self._ctx.store.messages.quarantine(message_id)
        self._ctx.emit(MessagesChanged(key=message.thread_id, message_ids=(message.id,)))
        return message

    def release_message(self, message_id: int) -> Message:
        """Show a hidden message to the model again: undo ``quarantine_message`` on this row (Q-1)."""
        message = self._ctx.store.messages.release(message_id)
        self._ctx.emit(MessagesChanged(key=message.thread_id, message_ids=(message.id,)))
        return message

    # -- lines --------------------------------------------------------------

    def create_line(self, title: str | None = None, workspace: str | Path | None = None) -> TaskThread:
        """Allocate a key, bind a folder, persist the row; only then does the line exist (ISO-1, ISO-2)."""
        key = allocate_draft_key()
        path = self._checked_folder(workspace) if workspace is not None else self.default_workspace_for(key)
        now = utcnow()
        clean_title = (title or "").strip() or default_title(self._ctx.store.threads.count())
        # ERR-2: a line's own new folder goes again if its row cannot be stored (read-only, full disk).
        with new_line_folder(path) if workspace is None else contextlib.nullcontext(path):
            thread = self._ctx.store.threads.insert(
                TaskThread(
                    thread_id=key,
                    title=clean_title[:500],
                    workspace_binding=WorkspaceBinding(path=str(path), bound_by=BoundBy.EXPLICIT),
                    created_at=now,
                    updated_at=now,
                )
            )
        log.info("created task line %s in %s", key, path)
        self._ctx.emit(LineCreated(key=key))
        return thread

    def create_worktree_line(
        self, repo: str | Path, *, branch: str | None = None, title: str | None = None
    ) -> TaskThread:
        """A line in a new git worktree of ``repo`` on a new branch (default ``xworkmate/<dir name>``), bound with
        kind ``worktree`` (issue 16, ISO-3). Bad input (not a repository, a bad or taken branch name, a missing
        path) is refused with one line (``WorktreeError``) before anything is made."""
        key, plan = self._add_line_worktree(repo, branch)
        return self._store_worktree_line(key, plan, title)

    async def create_worktree_line_off_thread(
        self, repo: str | Path, *, branch: str | None = None, title: str | None = None
    ) -> TaskThread:
        """``create_worktree_line`` with git's checkout on a worker thread; the row is stored on the store thread
        (LOOP-4, issue 33 item 2: nothing on the caller's loop), its records delivered on the loop."""
        key, plan = await asyncio.to_thread(self._add_line_worktree, repo, branch)
        return await self._ctx.store_thread.call(lambda: self._store_worktree_line(key, plan, title))

    def _add_line_worktree(self, repo: str | Path, branch: str | None) -> tuple[str, worktrees.WorktreePlan]:
        key = allocate_draft_key()
        plan = worktrees.plan_line_worktree(repo, branch, self.default_workspace_for(key))
        worktrees.add_line_worktree(plan)
        return key, plan

    def _store_worktree_line(self, key: str, plan: worktrees.WorktreePlan, title: str | None) -> TaskThread:
        now = utcnow()
        clean_title = (title or "").strip() or f"{plan.repo.name} · {plan.branch}"
        try:
            thread = self._ctx.store.threads.insert(
                TaskThread(
                    thread_id=key,
                    title=clean_title[:500],
                    workspace_binding=plan.binding(),
                    created_at=now,
                    updated_at=now,
                )
            )
        except BaseException:
            worktrees.undo_line_worktree(plan)  # ERR-2: no worktree or branch without its line
            raise
        log.info("created worktree line %s in %s on branch %s of %s", key, plan.path, plan.branch, plan.repo)
        self._ctx.emit(LineCreated(key=key))
        return thread

    def switch_session(self, key: str) -> LineView:
        """List selection → switch → read the thread → allow execution (ISO-5).

        An unknown key raises ``UnknownSessionKeyError`` and leaves the current line unchanged.
        """
        view = self.line_view(key)
        if view.key != self._current_key:
            self._current_key = view.key
            self._ctx.store.app_state.set(CURRENT_KEY_STATE, view.key)
            self._switching_to = view
            try:
                self._ctx.emit(CurrentLineChanged(key=view.key))
            finally:
                self._switching_to = None
        return view

    def bind_workspace(self, key: str, folder: str | Path) -> TaskThread:
        """An explicit bind ("Change folder…", ``thread bind``), one of two ways a binding changes (ISO-8)."""
        thread = self._ctx.get_thread(key)
        path = self._checked_folder(folder)
        updated = self._ctx.store.threads.set_workspace(
            thread.thread_id, WorkspaceBinding(path=str(path), bound_by=BoundBy.EXPLICIT)
        )
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    def restore_default_folder(self, key: str) -> TaskThread:
        """Recreate the line's own default folder and bind it explicitly; a worktree line's worktree is added
        again on its branch (issue 16)."""
        thread = self._ctx.get_thread(key)
        if worktrees.is_worktree(thread.workspace_binding):
            if self._recreate_worktree(thread):
                thread = self._ctx.store.threads.pin_workspace(thread.thread_id)  # SBX-3: the new worktree
            self._ctx.emit(LineUpdated(key=thread.thread_id))
            return thread
        path = self.default_workspace_for(thread.thread_id)
        self._refuse_swapped(thread, path)
        path.mkdir(parents=True, exist_ok=True)
        return self.bind_workspace(thread.thread_id, path)

    def recreate_folder(self, key: str) -> TaskThread:
        """ "Recreate folder" (issue 18): make the line's own bound folder again, at the path it is bound to.

        A line bound nowhere gets its default folder; binding elsewhere is "Change folder…" (ISO-8).
        """
        thread = self._ctx.get_thread(key)
        bound = thread.workspace_binding.path
        if not bound or worktrees.is_worktree(thread.workspace_binding):
            return self.restore_default_folder(key)  # a worktree line gets its worktree back, on its branch
        self._refuse_swapped(thread, Path(bound))
        Path(bound).mkdir(parents=True, exist_ok=True)
        return self.bind_workspace(thread.thread_id, bound)

    @staticmethod
    def _refuse_swapped(thread: TaskThread, path: Path) -> None:
        """SBX-3: "Recreate folder" makes a missing folder again; it never binds (so follows) a link or another
        folder found at the path since the line was bound: that is "Change folder…", chosen by the person."""
        if not os.path.lexists(path):
            return
        binding = thread.workspace_binding
        pin = binding.pin if binding.path == str(path) else None  # another path: only a link is refused
        problem = folder_problem(str(path), pin, thorough=True)
        if problem is not None and problem != STATUS_EXPLANATIONS[ThreadStatus.NEEDS_WORKSPACE]:
            raise WorkspaceBindingError(problem)

    @staticmethod
    def _recreate_worktree(thread: TaskThread) -> bool:
        """The line's worktree added again on its branch unless something is at its path; True if it was added."""
        added = not os.path.lexists(thread.workspace_binding.path or "")
        worktrees.recreate_line_worktree(thread.workspace_binding)
        return added

    def rename_line(self, key: str, title: str) -> TaskThread:
        thread = self._ctx.get_thread(key)
        clean = title.strip()
        if not clean:
            raise ValueError("a task line needs a non-empty title")
        updated = self._ctx.store.threads.set_title(thread.thread_id, clean[:500])
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    def archive_line(self, key: str, *, force: bool = False) -> TaskThread:
        """Archive a line; a worktree line's worktree is removed first, its branch kept (issue 16).

        Uncommitted changes in that worktree refuse it (``WorktreeDirtyError``) unless ``force``.
        """
        thread = self._archivable(key)
        if worktrees.is_worktree(thread.workspace_binding):
            worktrees.release_line_worktree(thread.workspace_binding, force=force)
        return self._archived(thread)

    async def archive_line_off_thread(self, key: str, *, force: bool = False) -> TaskThread:
        """``archive_line`` with git's work (the status of a big tree, deleting it) on a worker thread, its reads
        and writes on the store thread (LOOP-4, issue 33 item 2)."""
        store_thread = self._ctx.store_thread
        thread = await store_thread.call(lambda: self._archivable(key))
        if worktrees.is_worktree(thread.workspace_binding):
            await asyncio.to_thread(worktrees.release_line_worktree, thread.workspace_binding, force=force)
        return await store_thread.call(lambda: self._archived(self._archivable(key)))

    def _archivable(self, key: str) -> TaskThread:
        thread = self._ctx.get_thread(key)
        if thread.is_main:
            raise ValueError("the main line cannot be archived")
        if thread.thread_id in self._ctx.running:
            raise NotRunnable(thread.thread_id, ThreadStatus.RUNNING, "stop the running turn before archiving")
        return thread

    def _archived(self, thread: TaskThread) -> TaskThread:
        updated = self._ctx.store.threads.set_archived(thread.thread_id, True)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        if self._current_key == thread.thread_id:
            self.switch_session(MAIN_KEY)
        return updated

    def unarchive_line(self, key: str) -> TaskThread:
        """Unarchive a line; a worktree line gets its worktree again on the kept branch (issue 16)."""
        thread = self._ctx.get_thread(key)
        added = False
        if thread.archived and worktrees.is_worktree(thread.workspace_binding):
            added = self._recreate_for_unarchive(thread)
        return self._unarchived(thread, added)

    async def unarchive_line_off_thread(self, key: str) -> TaskThread:
        """``unarchive_line`` with git's checkout of the kept branch on a worker thread, its reads and writes on
        the store thread (LOOP-4, issue 33 item 2)."""
        store_thread = self._ctx.store_thread
        thread = await store_thread.call(lambda: self._ctx.get_thread(key))
        added = False
        if thread.archived and worktrees.is_worktree(thread.workspace_binding):
            added = await asyncio.to_thread(self._recreate_for_unarchive, thread)
        return await store_thread.call(lambda: self._unarchived(self._ctx.get_thread(key), added))

    @classmethod
    def _recreate_for_unarchive(cls, thread: TaskThread) -> bool:
        try:
            return cls._recreate_worktree(thread)
        except worktrees.WorktreeError as exc:
            raise worktrees.WorktreeError(
                f"{exc}; the line stays archived (bind it to another folder first to unarchive it)"
            ) from exc

    def _unarchived(self, thread: TaskThread, worktree_added: bool) -> TaskThread:
        if worktree_added:  # SBX-3: the worktree added again is a new folder; pinned as the line's own
            self._ctx.store.threads.pin_workspace(thread.thread_id)
        updated = self._ctx.store.threads.set_archived(thread.thread_id, False)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    def apply_execution_result(self, key: str, result: ExecutionResult) -> TaskThread:
        """Write a structured result back to the line that started the run, whichever is current (ISO-8)."""
        thread = self._ctx.get_thread(key)
        updated = thread
        if result.resolved_working_directory is not None:
            resolved = Path(result.resolved_working_directory).expanduser()
            if not resolved.is_absolute():
                raise WorkspaceBindingError(
                    f"execution result for {thread.thread_id} names a relative folder"
                    f" {result.resolved_working_directory!r}; it was not applied"
                )
            self._refuse_wide_folder(resolved)  # SBX-2 holds for result bindings too (ISO-8)
            updated = self._ctx.store.threads.set_workspace(
                thread.thread_id,
                WorkspaceBinding(
                    path=str(resolved),
                    kind=result.resolved_workspace_kind or WorkspaceKind.LOCAL,
                    bound_by=BoundBy.EXECUTION_RESULT,
                ),
            )
        if result.acp_session_id is not None:
            updated = self._ctx.store.threads.set_acp_session(thread.thread_id, result.acp_session_id)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    # -- UI state -----------------------------------------------------------

    def ui_state(self, name: str) -> str | None:
        if self._ui_states is not None:
            return self._ui_states.get(name)
        return self._ctx.store.app_state.get(f"{UI_STATE_PREFIX}{name}")

    def set_ui_state(self, name: str, value: str) -> None:
        self._ctx.store.app_state.set(f"{UI_STATE_PREFIX}{name}", value)
        if self._ui_states is not None:
            self._ui_states[name] = value

    def set_ui_states(self, values: Mapping[str, str]) -> None:
        """Several values saved in one transaction (what a window remembers when it closes)."""
        self._ctx.store.app_state.set_many({f"{UI_STATE_PREFIX}{name}": value for name, value in values.items()})
        if self._ui_states is not None:
            self._ui_states.update(values)

    def ui_states(self) -> dict[str, str]:
        """Every ``ui_state`` value, in one read (a window's first read reads it on a worker, issue 19 item 7)."""
        return ui_states_named(self._ctx.store.app_state.with_prefix(UI_STATE_PREFIX))

    def ui_state_read_once(self, states: Mapping[str, str] | None = None) -> AbstractContextManager[None]:
        """While a window is built: every ``ui_state`` answered from one read of them all (issue 19: one
        round trip before the first paint, not one per pane that remembers something); from ``states``
        when they were read already (on a worker, item 7), without reading here."""
        return self._ui_states_read(states)

    @contextmanager
    def _ui_states_read(self, states: Mapping[str, str] | None) -> Iterator[None]:
        self._ui_states = dict(states) if states is not None else self.ui_states()
        try:
            yield
        finally:
            self._ui_states = None

    # -- folders ------------------------------------------------------------

    def _checked_folder(self, folder: str | Path) -> Path:
        """The one check of an explicit bind (create, ``thread bind``, "Change folder…"); SBX-2 refusals included."""
        raw = str(folder).strip()
        if not raw:
            raise WorkspaceBindingError("no folder given")
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        if not path.exists():
            raise WorkspaceBindingError(f"cannot bind {path}: the folder does not exist")
        if not path.is_dir():
            raise WorkspaceBindingError(f"cannot bind {path}: it is a file, not a folder")
        self._refuse_wide_folder(path)
        real = path.resolve()
        self._refuse_folder_under_a_running_turn(real)
        return real

    def _refuse_wide_folder(self, path: Path) -> None:
        from xworkmate.agents.confinement import binding_refusal

        reason = binding_refusal(path, user_home=Path.home(), data_folder=self._ctx.settings.home)
        if reason is not None:
            raise WorkspaceBindingError(f"cannot bind {path}: {reason}")

    def _refuse_folder_under_a_running_turn(self, path: Path) -> None:
        """SBX-1: a turn's sandbox is decided when the turn starts, with the other lines' folders of that moment.
        A folder inside the folder of a line whose turn runs now (here or in another process) would be seen
        by that turn's agent until the turn ends: it is bound once the turn has ended."""
        from xworkmate.agents.sandbox import below, real_path
        from xworkmate.store import turn_owners

        for owner in turn_owners.running_turns(self._ctx.store):
            thread = self._ctx.store.threads.get(owner.key)
            if thread is None or not thread.workspace_binding.path:
                continue
            folder = real_path(thread.workspace_binding.path)
            if below(path, folder):
                raise WorkspaceBindingError(
                    f"cannot bind {path} now: it is inside {folder}, where a turn of {thread.title!r} is running, "
                    "and that turn's agent would see this line's files; bind it once that turn has ended"
                )

    def _ensure_main_thread(self) -> None:
        key = normalize_session_key("", initialising_main=True)  # ISO-2: the one place "" means main
        if self._ctx.store.threads.exists(key):
            return
        # ERR-3: processes starting at once on a fresh database all get here. Making the folder
        # twice is harmless, and the row and its first generation go in once, whoever is first.
        path = self.default_workspace_for(key)
        path.mkdir(parents=True, exist_ok=True)
        now = utcnow()
        self._ctx.store.threads.insert_if_absent(
            TaskThread(
                thread_id=key,
                title=MAIN_TITLE,
                workspace_binding=WorkspaceBinding(path=str(path), bound_by=BoundBy.EXPLICIT),
                created_at=now,
                updated_at=now,
            )
        )

    def _restored_current_key(self) -> str:
        saved = self._ctx.store.app_state.get(CURRENT_KEY_STATE)
        thread = self._ctx.store.threads.get(saved) if saved else None
        return restored_current_key(saved, thread.archived if thread is not None else None)
