"""``SessionController``: the current key, switching, binding and run gating (SPEC §2).

Every path into execution goes through ``prepare_run``. The controller knows
no widgets; it reports what changed through small change records that one
listener (the window's bridge) turns into a Qt signal (STYLE 4).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from xworkmate.agents.sandbox import SandboxStatus, command_env_name_problem, detect_sandbox
from xworkmate.controllers import worktrees
from xworkmate.controllers.agent_session import AgentSessionMixin
from xworkmate.controllers.changes import (
    Change,
    CurrentLineChanged,
    LineCreated,
    LineUpdated,
    MessagesAppended,
    MessagesChanged,
    RunFinished,
    RunStarted,
)
from xworkmate.controllers.external import ExternalLines
from xworkmate.domain.export import ExportFormat
from xworkmate.domain.keys import (
    MAIN_KEY,
    InvalidSessionKeyError,
    allocate_draft_key,
    key_to_dir_name,
    normalize_session_key,
)
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.runs import ExecutionResult, NotRunnable, RunRequest
from xworkmate.domain.search import DEFAULT_SEARCH_LIMIT, SearchResults
from xworkmate.domain.threads import (
    MAX_TURN_LIMIT_S,
    STATUS_EXPLANATIONS,
    BoundBy,
    ExecutionBinding,
    ExecutionMode,
    NetworkAccess,
    PermissionLevel,
    TaskThread,
    ThreadKind,
    ThreadStatus,
    ThreadSummary,
    WorkspaceBinding,
    WorkspaceKind,
    parse_turn_limit,
    thread_status,
)
from xworkmate.domain.titles import default_title, is_default_title, title_from_message
from xworkmate.domain.viewers import DESKTOP
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.store.folders import new_line_folder
from xworkmate.store.repositories import ProviderExistsError, utcnow

if TYPE_CHECKING:
    from xworkmate.agents.events import Approver
    from xworkmate.controllers.attention import AttentionTracker
    from xworkmate.controllers.checkpoints import CheckpointController
    from xworkmate.controllers.runs import RouterFactory, TurnOutcome, TurnRunner
    from xworkmate.dispatch.service import DispatchService, FollowupSent, TaskStarted
    from xworkmate.store.external_changes import ExternalChange
    from xworkmate.store.repositories import ThreadLabels

log = logging.getLogger(__name__)

CURRENT_KEY_STATE = "current_session_key"
MAIN_TITLE = "Main"
NO_PROVIDER_NOTICE = (
    "No agent provider is configured, so nothing ran. Your message is saved on this line; "
    "add an OpenAI-compatible endpoint or an ACP agent to run it."
)


LOCAL_ENDPOINTS = ("http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1")


class UnknownSessionKeyError(LookupError):
    """No task line has this key. The current line is left as it was."""

    def __init__(self, key: str) -> None:
        super().__init__(f"no task line with session key {key!r}")
        self.key = key


class WorkspaceBindingError(ValueError):
    """A folder that cannot be bound, with the reason."""


class RunRefused(ValueError):
    """The gate refused a turn for a rule of the product (a category rule, the provider); nothing was stored."""


class NoAgentProviderError(RunRefused):
    """A native line with no OpenAI-compatible provider at all: the window keeps the message and says so."""


Listener = Callable[[Change], None]


def acp_agent_problem(key: str, name: str | None, record: ProviderRecord | None) -> str | None:
    """Why a line in ACP mode has no agent to start, or ``None`` when its agent is usable."""
    if record is not None and record.kind is ProviderKind.ACP and record.acp_command:
        return None
    if record is not None:
        what = f"provider {name!r} is not an ACP agent"
    else:
        what = f"no provider named {name!r}" if name else "no ACP agent is chosen"
    return (
        f"line {key} is set to run an ACP agent, but {what};"
        f" pick one with `xworkmate thread set {key} --mode acp --provider NAME`"
    )


@dataclasses.dataclass(frozen=True)
class ProviderChoices:
    """What a line's provider picker offers (issue 18): the providers it may use, and the one that runs."""

    allowed: tuple[ProviderRecord, ...]
    will_run: str | None


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


class SendOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    ran: bool
    notice: str
    message_ids: tuple[int, ...]


class FollowupOutcome(BaseModel):
    """What became of a follow-up to a task (``SessionController.follow_up``, issue 14)."""

    model_config = ConfigDict(frozen=True)

    key: str
    message_id: int
    source_ids: tuple[int, ...]
    """The task's dispatch snapshot, re-captured with the follow-up (PROV-4)."""
    delivery: Literal["running", "started", "stored"]
    """``running``: the task's running turn takes it; ``started``: a turn started on it; ``stored``:
    kept for the task's next run."""
    notice: str = ""
    """Why nothing ran, when it was kept for want of a provider."""


class SessionController(AgentSessionMixin):
    """Task lines: create, switch, bind, archive, and gate every run."""

    def __init__(self, store: Store, settings: Settings, *, router_factory: RouterFactory | None = None) -> None:
        self._store = store
        self._settings = settings
        self._listeners: list[Listener] = []
        self._running: set[str] = set()
        self._switching_to: LineView | None = None
        self._tasks: dict[str, asyncio.Task[TurnOutcome]] = {}
        self._router_factory = router_factory
        self._turn_runner: TurnRunner | None = None
        # Issue 19, item 6: other processes' changes as this controller's records; this one's run statuses told.
        self.external = ExternalLines(store, emit=self._emit, running_here=lambda key: key in self._running)
        self._listeners.append(self.external.on_change)
        self._dispatch: DispatchService | None = None
        self._attention: AttentionTracker | None = None
        self._checkpoints: CheckpointController | None = None
        self._ensure_main_thread()
        self._current_key = self._restored_current_key()

    def close(self) -> None:
        """Close the store's connections (the command or the window is done with it)."""
        self.external.close()
        self._store.close()

    def warm_up(self) -> None:
        """Load the turn code (agent, LLM client, HTTP) before the first turn needs it; any thread.

        It loads lazily so start-up does not pay for it, but loading it on the first Send
        stalled the window for 150–300 ms. ``run_gui`` calls this on a worker thread once the window shows.
        """
        from xworkmate.controllers.runs import TurnRunner  # noqa: F401
        from xworkmate.llm.openai_client import warm_up

        warm_up()  # what the first request would load: the HTTP transport and the TLS context
        detect_sandbox()  # SBX-1: the probe runs bwrap once; not on the first command's GUI-thread path
        try:  # LOOP-1: checkpoints of lines archived longer ago than the retention period go
            self.checkpoints.prune()
        except Exception:
            log.warning("could not prune old checkpoints", exc_info=True)

    @property
    def checkpoints(self) -> CheckpointController:
        """LOOP-1: each turn's changes, revert, restore and undo."""
        if self._checkpoints is None:
            from xworkmate.controllers.checkpoints import CheckpointController

            self._checkpoints = CheckpointController(self, self._store, self._emit)
        return self._checkpoints

    @property
    def _turns(self) -> TurnRunner:
        # The agent, LLM and HTTP code load on the first turn, not at start-up.
        if self._turn_runner is None:
            from xworkmate.controllers.runs import TurnRunner, default_router

            self._turn_runner = TurnRunner(self, self._router_factory or default_router)
        return self._turn_runner

    # -- observation --------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _emit(self, change: Change) -> None:
        for listener in list(self._listeners):
            listener(change)

    def _emit_messages(self, key: str, ids: tuple[int, ...]) -> None:
        self._emit(MessagesAppended(key=key, message_ids=ids))

    def _notice(self, key: str, text: str, state: MessageState = MessageState.ERROR) -> int:
        """A framework notice on a line: shown to the person, never to the model."""
        message = self._store.messages.append(
            key, role=MessageRole.SYSTEM, source=MessageSource.FRAMEWORK_EVENT, content=text, state=state
        )
        self._emit_messages(key, (message.id,))
        return message.id

    # -- reading ------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def store_description(self) -> str:
        return self._store.description

    @property
    def current_key(self) -> str:
        return self._current_key

    def list_lines(self, *, include_archived: bool = False) -> list[ThreadSummary]:
        return self._store.threads.summaries(include_archived=include_archived)

    def get_thread(self, key: str) -> TaskThread:
        canonical = self._canonical(key)
        thread = self._store.threads.get(canonical)
        if thread is None:
            raise UnknownSessionKeyError(key)
        return thread

    def status_of(self, thread: TaskThread) -> ThreadStatus:
        return thread_status(
            key=thread.thread_id,
            exists=True,
            archived=thread.archived,
            workspace_path=thread.workspace_binding.path,
            running=thread.thread_id in self._running,
        )

    def summary_status(self, summary: ThreadSummary) -> ThreadStatus:
        return thread_status(
            key=summary.thread_id,
            exists=True,
            archived=summary.archived,
            workspace_path=summary.workspace_path,
            running=summary.thread_id in self._running or self.external.running_elsewhere(summary.thread_id),
        )

    def line_summary(self, key: str) -> ThreadSummary:
        """The list's view of one line, from a single-thread read."""
        thread = self.get_thread(key)
        return ThreadSummary(
            thread_id=thread.thread_id,
            title=thread.title,
            kind=thread.kind,
            parent_key=thread.parent_key,
            category=thread.category,
            archived=thread.archived,
            workspace_path=thread.workspace_binding.path,
            updated_at=thread.updated_at,
        )

    def line_view(self, key: str) -> LineView:
        thread = self.get_thread(key)
        status = self.status_of(thread)
        if self.waiting_for_sign_in(key):
            explanation = "its agent needs sign-in: pick a method on the card below"
            return LineView(thread=thread, status=status, explanation=explanation, needs_sign_in=True)
        return LineView(thread=thread, status=status, explanation=STATUS_EXPLANATIONS[status])

    def current_view(self) -> LineView:
        # While switch_session announces the switch, listeners get the view it just read (one read a switch).
        if self._switching_to is not None and self._switching_to.key == self._current_key:
            return self._switching_to
        return self.line_view(self._current_key)

    def default_workspace_for(self, key: str) -> Path:
        """``<workspace root>/.xworkmate/threads/<dir name>`` (ISO-3)."""
        return self._settings.threads_root / key_to_dir_name(key)

    # The window and the CLI read as the person at the desktop, who sees every line (CAT-4).

    def message_ids(self, key: str, *, before_id: int | None = None, limit: int = 200) -> list[int]:
        return self._store.messages.page_ids(self._canonical(key), viewer=DESKTOP, before_id=before_id, limit=limit)

    def newest_messages(self, key: str, *, limit: int) -> list[Message]:
        """A line's newest ``limit`` messages, oldest first: what opening it shows, in one read."""
        return self._store.messages.newest(self._canonical(key), limit=limit, viewer=DESKTOP)

    def messages_by_id(self, ids: list[int]) -> dict[int, Message]:
        return self._store.messages.get_many(ids, viewer=DESKTOP)

    def messages(self, key: str) -> list[Message]:
        return self._store.messages.list_for_thread(self.get_thread(key).thread_id, viewer=DESKTOP)

    # -- quarantine (Q-1) ---------------------------------------------------

    def quarantine_message(self, message_id: int) -> Message:
        """Hide a message from the model: the row stays whole for the person; the model, on this line and on
        every fork or copy made from now on, sees only the placeholder naming it (Q-1)."""
        message = self._store.messages.quarantine(message_id)
        self._emit(MessagesChanged(key=message.thread_id, message_ids=(message.id,)))
        return message

    def release_message(self, message_id: int) -> Message:
        """Show a hidden message to the model again: undo ``quarantine_message`` on this row (Q-1)."""
        message = self._store.messages.release(message_id)
        self._emit(MessagesChanged(key=message.thread_id, message_ids=(message.id,)))
        return message

    # -- lines --------------------------------------------------------------

    def create_line(self, title: str | None = None, workspace: str | Path | None = None) -> TaskThread:
        """Allocate a key, bind a folder, persist the row; only then does the line exist (ISO-1, ISO-2)."""
        key = allocate_draft_key()
        path = self._checked_folder(workspace) if workspace is not None else self.default_workspace_for(key)
        now = utcnow()
        clean_title = (title or "").strip() or default_title(self._store.threads.count())
        # ERR-2: a line's own new folder goes again if its row cannot be stored (read-only, full disk).
        with new_line_folder(path) if workspace is None else contextlib.nullcontext(path):
            thread = self._store.threads.insert(
                TaskThread(
                    thread_id=key,
                    title=clean_title[:500],
                    workspace_binding=WorkspaceBinding(path=str(path), bound_by=BoundBy.EXPLICIT),
                    created_at=now,
                    updated_at=now,
                )
            )
        log.info("created task line %s in %s", key, path)
        self._emit(LineCreated(key=key))
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
        """``create_worktree_line`` with git's checkout on a worker thread; the row is stored on the caller's."""
        key, plan = await asyncio.to_thread(self._add_line_worktree, repo, branch)
        return self._store_worktree_line(key, plan, title)

    def _add_line_worktree(self, repo: str | Path, branch: str | None) -> tuple[str, worktrees.WorktreePlan]:
        key = allocate_draft_key()
        plan = worktrees.plan_line_worktree(repo, branch, self.default_workspace_for(key))
        worktrees.add_line_worktree(plan)
        return key, plan

    def _store_worktree_line(self, key: str, plan: worktrees.WorktreePlan, title: str | None) -> TaskThread:
        now = utcnow()
        clean_title = (title or "").strip() or f"{plan.repo.name} · {plan.branch}"
        try:
            thread = self._store.threads.insert(
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
        self._emit(LineCreated(key=key))
        return thread

    def switch_session(self, key: str) -> LineView:
        """List selection → switch → read the thread → allow execution (ISO-5).

        An unknown key raises ``UnknownSessionKeyError`` and leaves the current line unchanged.
        """
        view = self.line_view(key)
        if view.key != self._current_key:
            self._current_key = view.key
            self._store.app_state.set(CURRENT_KEY_STATE, view.key)
            self._switching_to = view
            try:
                self._emit(CurrentLineChanged(key=view.key))
            finally:
                self._switching_to = None
        return view

    def bind_workspace(self, key: str, folder: str | Path) -> TaskThread:
        """An explicit bind ("Change folder…", ``thread bind``), one of two ways a binding changes (ISO-8)."""
        thread = self.get_thread(key)
        path = self._checked_folder(folder)
        updated = self._store.threads.set_workspace(
            thread.thread_id, WorkspaceBinding(path=str(path), bound_by=BoundBy.EXPLICIT)
        )
        self._emit(LineUpdated(key=thread.thread_id))
        return updated

    def restore_default_folder(self, key: str) -> TaskThread:
        """Recreate the line's own default folder and bind it explicitly; a worktree line's worktree is added
        again on its branch (issue 16)."""
        thread = self.get_thread(key)
        if worktrees.is_worktree(thread.workspace_binding):
            worktrees.recreate_line_worktree(thread.workspace_binding)
            self._emit(LineUpdated(key=thread.thread_id))
            return thread
        path = self.default_workspace_for(thread.thread_id)
        path.mkdir(parents=True, exist_ok=True)
        return self.bind_workspace(thread.thread_id, path)

    def recreate_folder(self, key: str) -> TaskThread:
        """ "Recreate folder" (issue 18): make the line's own bound folder again, at the path it is bound to.

        A line bound nowhere gets its default folder; binding elsewhere is "Change folder…" (ISO-8).
        """
        thread = self.get_thread(key)
        bound = thread.workspace_binding.path
        if not bound or worktrees.is_worktree(thread.workspace_binding):
            return self.restore_default_folder(key)  # a worktree line gets its worktree back, on its branch
        Path(bound).mkdir(parents=True, exist_ok=True)
        return self.bind_workspace(thread.thread_id, bound)

    def rename_line(self, key: str, title: str) -> TaskThread:
        thread = self.get_thread(key)
        clean = title.strip()
        if not clean:
            raise ValueError("a task line needs a non-empty title")
        updated = self._store.threads.set_title(thread.thread_id, clean[:500])
        self._emit(LineUpdated(key=thread.thread_id))
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
        """``archive_line`` with git's work (the status of a big tree, deleting it) on a worker thread."""
        thread = self._archivable(key)
        if worktrees.is_worktree(thread.workspace_binding):
            await asyncio.to_thread(worktrees.release_line_worktree, thread.workspace_binding, force=force)
        return self._archived(self._archivable(key))

    def _archivable(self, key: str) -> TaskThread:
        thread = self.get_thread(key)
        if thread.is_main:
            raise ValueError("the main line cannot be archived")
        if thread.thread_id in self._running:
            raise NotRunnable(thread.thread_id, ThreadStatus.RUNNING, "stop the running turn before archiving")
        return thread

    def _archived(self, thread: TaskThread) -> TaskThread:
        updated = self._store.threads.set_archived(thread.thread_id, True)
        self._emit(LineUpdated(key=thread.thread_id))
        if self._current_key == thread.thread_id:
            self.switch_session(MAIN_KEY)
        return updated

    def unarchive_line(self, key: str) -> TaskThread:
        """Unarchive a line; a worktree line gets its worktree again on the kept branch (issue 16)."""
        thread = self.get_thread(key)
        if thread.archived and worktrees.is_worktree(thread.workspace_binding):
            self._recreate_for_unarchive(thread)
        return self._unarchived(thread)

    async def unarchive_line_off_thread(self, key: str) -> TaskThread:
        """``unarchive_line`` with git's checkout of the kept branch on a worker thread."""
        thread = self.get_thread(key)
        if thread.archived and worktrees.is_worktree(thread.workspace_binding):
            await asyncio.to_thread(self._recreate_for_unarchive, thread)
        return self._unarchived(self.get_thread(key))

    @staticmethod
    def _recreate_for_unarchive(thread: TaskThread) -> None:
        try:
            worktrees.recreate_line_worktree(thread.workspace_binding)
        except worktrees.WorktreeError as exc:
            raise worktrees.WorktreeError(
                f"{exc}; the line stays archived (bind it to another folder first to unarchive it)"
            ) from exc

    def _unarchived(self, thread: TaskThread) -> TaskThread:
        updated = self._store.threads.set_archived(thread.thread_id, False)
        self._emit(LineUpdated(key=thread.thread_id))
        return updated

    # -- execution ----------------------------------------------------------

    def prepare_run(self, key: str | None, prompt: str) -> RunRequest:
        """The one gate into execution (ISO-4, ISO-6, ISO-7).

        The request's ``session_id``, ``thread_id`` and ``working_directory``
        come from the thread with this key and nothing else: the prompt is
        passed through untouched and never parsed for a folder.
        """
        if key is None or not key.strip():
            raise NotRunnable(None, ThreadStatus.NEEDS_BINDING, "this line has no session key; it never runs in main")
        try:
            canonical = normalize_session_key(key)
        except InvalidSessionKeyError as exc:
            raise NotRunnable(
                key,
                ThreadStatus.NEEDS_BINDING,
                f"no task line has the session key {key!r} (keys look like main, draft:<ULID> or agent:<id>:<key>)",
            ) from exc
        thread = self._store.threads.get(canonical)
        if thread is None:
            raise NotRunnable(canonical, ThreadStatus.NEEDS_BINDING, f"no task line has the session key {canonical!r}")
        status = self.status_of(thread)
        if status is not ThreadStatus.RUNNABLE:
            raise NotRunnable(canonical, status, STATUS_EXPLANATIONS[status])
        assert thread.workspace_binding.path is not None
        return RunRequest(
            session_id=thread.thread_id,
            thread_id=thread.thread_id,
            working_directory=thread.workspace_binding.path,
            prompt=prompt,
            execution=thread.execution_binding,
            category=thread.category,
        )

    def send(self, key: str, prompt: str, *, provider: str | None = None) -> SendOutcome:
        """Send a human message on a line (the window's Send).

        The line must be runnable, else ``NotRunnable`` and nothing is stored.
        With an OpenAI-compatible provider configured, a native turn starts on
        the running event loop (on ``provider`` when one is named, as the
        window's provider picker does); without one the message is kept and
        the line says plainly that nothing ran: it never pretends to run.
        On a task line, Send is a follow-up: ``follow_up`` decides (issue 14).
        """
        if self._task_labels(key) is not None:
            followed = self.follow_up(key, prompt, provider=provider, start=True)
            return SendOutcome(
                key=followed.key,
                ran=followed.delivery != "stored",
                notice=followed.notice,
                message_ids=(followed.message_id,),
            )
        request = self._begin_checks(key, prompt, provider=provider)
        try:
            self._check_runner(request, provider)
        except NoAgentProviderError:
            pass  # the message is kept and the line says that nothing ran
        else:
            self._start_begun(self._mark_begun(request, prompt), provider=provider)
            ids = tuple(self._store.messages.page_ids(request.thread_id, viewer=DESKTOP, limit=1))
            return SendOutcome(key=request.thread_id, ran=True, notice="", message_ids=ids)
        human = self._store_person_message(request.thread_id, prompt)
        notice = self._notice(request.thread_id, NO_PROVIDER_NOTICE)
        self._emit(LineUpdated(key=request.thread_id))
        return SendOutcome(key=request.thread_id, ran=False, notice=NO_PROVIDER_NOTICE, message_ids=(human, notice))

    def _task_labels(self, key: str) -> ThreadLabels | None:
        """The line's labels when ``key`` names a dispatched task, else ``None`` (no such line included)."""
        canonical = self._canonical_or_none(key)
        labels = self._store.threads.labels(canonical) if canonical else None
        if labels is None or labels.kind is not ThreadKind.TASK or labels.parent_key is None:
            return None
        return labels

    def _store_person_message(self, key: str, text: str) -> int:
        """Store the person's words on a line; every path that does goes through here (issue 14).

        On a task they are a follow-up: stored with the task's dispatch snapshot re-captured and
        replaced in the same transaction (PROV-4).
        """
        if self._task_labels(key) is not None:
            return self.send_followup(key, text).message.id
        human = self._store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=text)
        self._emit_messages(key, (human.id,))
        self._title_from_first_message(key, text)
        return human.id

    def _title_from_first_message(self, key: str, text: str) -> None:
        """Issue 17: a line still called "Task line N" takes its title from the person's first message."""
        thread = self._store.threads.get(key)
        if thread is None or thread.is_main or not is_default_title(thread.title):
            return
        title = title_from_message(text)
        if title is not None:
            self._store.threads.set_title(key, title)
            self._emit(LineUpdated(key=key))

    # -- turns ----------------------------------------------------------------

    def _has_runner_for(self, key: str) -> bool:
        try:
            thread = self.get_thread(key)
        except UnknownSessionKeyError:
            return False  # send() then refuses with NotRunnable, naming the key
        if thread.execution_binding.mode is ExecutionMode.ACP:
            return True  # the gate says clearly if the chosen agent is missing
        return self.has_agent_provider()

    def has_agent_provider(self) -> bool:
        return any(p.kind is ProviderKind.OPENAI for p in self._store.providers.list())

    def is_running(self, key: str) -> bool:
        return self._canonical(key) in self._running

    def _begin_checks(self, key: str, prompt: str | None, *, provider: str | None) -> RunRequest:
        """The gate up to the provider, in its order: the key, the line's status, the category rules."""
        if prompt is None:
            # A task runs on what it was dispatched with (its goal, its follow-ups); nothing new is stored.
            thread = self._store.threads.get(self._canonical_or_none(key) or "")
            if thread is not None and thread.kind is not ThreadKind.TASK:
                raise ValueError(f"{thread.thread_id} is not a task: a turn on it needs a message")
            request = self.prepare_run(key, "")
        else:
            if not prompt.strip():
                raise ValueError("nothing to send: the message is empty")
            request = self.prepare_run(key, prompt)
        self._check_category_rules(request, provider)
        return request

    def _chosen_provider(self, request: RunRequest, provider: str | None) -> tuple[str | None, ProviderRecord | None]:
        """The provider a native turn is pinned to (``--provider``, else the line's own), and its record."""
        name = provider or request.execution.provider
        return name, self._store.providers.get(name) if name else None

    def _check_category_rules(self, request: RunRequest, provider: str | None) -> None:
        """CAT-3 and CAT-6 at the gate: category content never reaches an agent CLI or an untagged model."""
        category = request.category
        if category is None:
            return
        key = request.thread_id
        if request.execution.mode is ExecutionMode.ACP:
            raise RunRefused(
                f"line {key} carries category {category!r} and cannot run in ACP mode: external agent CLIs do"
                f" not go through the router (CAT-3); switch it back with `xworkmate thread set {key} --mode native`"
            )
        name, record = self._chosen_provider(request, provider)
        if record is None:
            return  # nothing chosen (the group's first tagged provider is used), or the provider check names it
        if record.kind is ProviderKind.ACP:
            raise RunRefused(
                f"provider {name!r} is an ACP agent, and line {key} carries category {category!r}: its content"
                " never goes to external agent CLIs (CAT-3)"
            )
        if category not in record.tags:
            raise RunRefused(
                f"provider {name!r} is not tagged {category!r}, so it may not see line {key}'s content"
                f" (CAT-6); choose a provider tagged {category!r}"
            )

    def _check_runner(self, request: RunRequest, provider: str | None) -> None:
        """The last step of the gate: something can run this turn (an ACP agent, or a provider)."""
        key = request.thread_id
        if request.execution.mode is ExecutionMode.ACP:
            name = request.execution.provider
            problem = acp_agent_problem(key, name, self._store.providers.get(name) if name else None)
            if problem is not None:
                raise RunRefused(problem)
            return
        name, record = self._chosen_provider(request, provider)
        if name and record is None:
            raise RunRefused(f"no provider named {name!r}; see `xworkmate provider list`")
        if record is not None and record.kind is ProviderKind.ACP:
            raise RunRefused(
                f"provider {name!r} is an ACP agent and line {key} runs the built-in agent; switch the line to"
                f" ACP mode to use it: `xworkmate thread set {key} --mode acp --provider {name}`"
            )
        if not self.has_agent_provider():
            tagged = f" tagged {request.category!r}" if request.category else ""
            raise NoAgentProviderError(
                f"no agent provider is configured; add one{tagged} with `xworkmate provider add`"
                " (or set the line to an ACP agent)"
            )

    def _begin_turn(self, key: str, prompt: str | None, *, provider: str | None) -> RunRequest:
        """Everything that can refuse a turn happens here, before anything is stored (issue 13: one gate,
        in this order: unknown key, not runnable, category rules, provider)."""
        request = self._begin_checks(key, prompt, provider=provider)
        self._check_runner(request, provider)
        return self._mark_begun(request, prompt)

    def _mark_begun(self, request: RunRequest, prompt: str | None) -> RunRequest:
        self._running.add(request.thread_id)
        if prompt is not None:
            try:
                self._store_person_message(request.thread_id, prompt)
            except BaseException:
                self._running.discard(request.thread_id)
                raise
        self._emit(RunStarted(key=request.thread_id))
        self._emit(LineUpdated(key=request.thread_id))
        return request

    def _end_turn(self, key: str, outcome: TurnOutcome | None) -> None:
        self._running.discard(key)
        self._tasks.pop(key, None)
        if outcome is None:
            self._emit(RunFinished(key=key, status="stopped"))
        else:
            self._emit(RunFinished(key=key, status=outcome.status, error=outcome.error))
        self._emit(LineUpdated(key=key))

    async def run_turn(
        self,
        key: str,
        prompt: str | None,
        *,
        provider: str | None = None,
        approver: Approver | None = None,
        headless: bool = False,
    ) -> TurnOutcome:
        """One turn on a line; the conversation is kept whatever happens.

        ``prompt`` ``None`` runs a task on what it was dispatched with.
        ``headless`` (``xworkmate run``): actions that need approval at this
        line's permission level are refused with a clear reason.
        """
        request = self._begin_turn(key, prompt, provider=provider)
        return await self._run_begun(request, provider=provider, approver=approver, headless=headless)

    async def _run_begun(
        self, request: RunRequest, *, provider: str | None, approver: Approver | None, headless: bool
    ) -> TurnOutcome:
        """The turn after ``_begin_turn``: run it, and end it (running flag, change records) whatever happens."""
        outcome: TurnOutcome | None = None
        try:
            turn = await self._turns.run(request, provider=provider, approver=approver, headless=headless)
            while turn.status == "finished" and turn.followups:
                # Issue 14: follow-ups stored after the turn's last safe point start the next turn, on them
                # (an ACP agent gets them as its next prompt); the line stays running in between.
                key = request.thread_id
                self._emit(RunFinished(key=key, status=turn.status))
                self._emit(RunStarted(key=key))
                following = await self._turns.run(
                    request.model_copy(update={"prompt": ""}),
                    provider=provider,
                    approver=approver,
                    headless=headless,
                    followups=turn.followups,
                )
                turn = following.model_copy(
                    update={
                        "message_ids": turn.message_ids + following.message_ids,
                        "refused_approvals": turn.refused_approvals + following.refused_approvals,
                    }
                )
            outcome = turn
            return outcome
        finally:
            self._end_turn(request.thread_id, outcome)

    def start_turn(self, key: str, prompt: str | None, *, provider: str | None = None) -> asyncio.Task[TurnOutcome]:
        """Start a turn on the event loop and return at once (the window stays responsive)."""
        return self._start_begun(self._begin_turn(key, prompt, provider=provider), provider=provider)

    def _start_begun(self, request: RunRequest, *, provider: str | None) -> asyncio.Task[TurnOutcome]:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        task = loop.create_task(
            self._run_begun(request, provider=provider, approver=None, headless=False),
            name=f"turn {request.thread_id}",
        )
        self._tasks[request.thread_id] = task
        task.add_done_callback(self._end_unstarted_turn)
        return task

    def _end_unstarted_turn(self, task: asyncio.Task[TurnOutcome]) -> None:
        """Stop right after Send cancels the turn before its first step, so its ``finally`` never ran:
        end it here, or the line would stay running forever (found by the issue 21 driver tests)."""
        key = next((k for k, t in self._tasks.items() if t is task), None)
        if key is not None:
            self._end_turn(key, None)

    def stop(self, key: str) -> bool:
        """Stop the running turn at once (Stop). Returns whether one was running."""
        task = self._tasks.get(self._canonical(key))
        if task is None or task.done():
            return False
        task.cancel()
        return True

    def settle_approval(self, approval_id: int, allowed: bool, *, always: bool = False) -> None:
        self._turns.settle(approval_id, allowed, always=always)

    def pending_approvals(self, key: str) -> list[int]:
        if self._turn_runner is None:
            return []
        return self._turns.pending_approvals(self._canonical(key))

    def choose_sign_in(self, request_id: int, method_id: str | None) -> None:
        """Answer a sign-in card (issue 15): the method's id, or None to give up the turn."""
        self._turns.choose_sign_in(request_id, method_id)

    def waiting_for_sign_in(self, key: str) -> bool:
        if self._turn_runner is None:
            return False
        return self._turns.waiting_for_sign_in(self._canonical(key))

    def set_permission(self, key: str, level: PermissionLevel | str) -> TaskThread:
        thread = self.get_thread(key)
        try:
            chosen = PermissionLevel(level)
        except ValueError as exc:
            choices = ", ".join(p.value for p in PermissionLevel)
            raise ValueError(f"unknown permission level {level!r}; choose one of {choices}") from exc
        updated = self._store.threads.set_permission(thread.thread_id, chosen)
        self._emit(LineUpdated(key=thread.thread_id))
        return updated

    def set_network(self, key: str, network: NetworkAccess | str) -> TaskThread:
        """SBX-1: whether the line's sandboxed commands reach the network (``off`` by default)."""
        thread = self.get_thread(key)
        try:
            chosen = NetworkAccess(network)
        except ValueError as exc:
            raise ValueError(f"unknown network setting {network!r}; choose on or off") from exc
        updated = self._store.threads.set_sandbox(thread.thread_id, network=chosen)
        self._emit(LineUpdated(key=thread.thread_id))
        return updated

    def set_command_env(self, key: str, names: Sequence[str]) -> TaskThread:
        """SBX-1: the environment variables the person lets through to the line's commands.

        Refused, with the name: not a variable name, ``XWORKMATE_*``, or a name that looks like a secret.
        """
        thread = self.get_thread(key)
        chosen = tuple(dict.fromkeys(name.strip() for name in names if name.strip()))
        for name in chosen:
            problem = command_env_name_problem(name)
            if problem is not None:
                raise ValueError(problem)
        updated = self._store.threads.set_sandbox(thread.thread_id, command_env_names=chosen)
        self._emit(LineUpdated(key=thread.thread_id))
        return updated

    def set_turn_limit(self, key: str, limit: int | str) -> TaskThread:
        """How long one turn on the line may run: seconds, or text as the person writes it (``30``
        minutes, ``90s``, ``2h``). Past it the turn ends as Stop ends it (issue 13)."""
        thread = self.get_thread(key)
        seconds = parse_turn_limit(limit) if isinstance(limit, str) else limit
        if not 1 <= seconds <= MAX_TURN_LIMIT_S:
            raise ValueError(f"a turn limit must be between 1 second and {MAX_TURN_LIMIT_S // 86400} days")
        updated = self._store.threads.set_turn_limit(thread.thread_id, seconds)
        self._emit(LineUpdated(key=thread.thread_id))
        return updated

    def set_quarantine_untrusted(self, key: str, on: bool | str) -> TaskThread:
        """Q-1: quarantine the output of the line's untrusted tools (``domain.tool_trust``) as it is stored."""
        thread = self.get_thread(key)
        if isinstance(on, str):
            if on not in ("on", "off"):
                raise ValueError(f"quarantine of untrusted tools is 'on' or 'off', not {on!r}")
            on = on == "on"
        updated = self._store.threads.set_quarantine_untrusted(thread.thread_id, on)
        self._emit(LineUpdated(key=thread.thread_id))
        return updated

    def sandbox_status(self) -> SandboxStatus:
        """Which sandbox backend contains agent processes here, or why none can (``xworkmate doctor``)."""
        return detect_sandbox()

    def set_execution(self, key: str, mode: ExecutionMode | str, provider: str | None = None) -> TaskThread:
        """Choose how a line runs: the native agent (optionally pinned to a provider) or an ACP agent CLI."""
        thread = self.get_thread(key)
        try:
            chosen = ExecutionMode(mode)
        except ValueError as exc:
            raise ValueError(f"unknown execution mode {mode!r}; choose native or acp") from exc
        record = self._store.providers.get(provider) if provider else None
        if provider and record is None:
            raise LookupError(f"no provider named {provider!r}")
        if chosen is ExecutionMode.ACP:
            if thread.category is not None:
                # CAT-3: agent CLIs bypass the router, so category content never goes to them.
                raise ValueError(
                    f"line {thread.thread_id} carries category {thread.category!r}: its content may only reach"
                    " providers tagged with it, and external agent CLIs do not go through the router"
                )
            if record is None or record.kind is not ProviderKind.ACP:
                raise ValueError(
                    "ACP mode needs an ACP agent provider (add one with `xworkmate provider add NAME --acp-command`)"
                )
        elif record is not None and record.kind is not ProviderKind.OPENAI:
            raise ValueError(f"provider {provider!r} is an ACP agent; choose --mode acp for it")
        updated = self._store.threads.set_execution(
            thread.thread_id,
            ExecutionBinding(
                mode=chosen,
                provider=provider,
                model=record.model if record is not None else None,
                # A different agent cannot resume another agent's session.
                acp_session_id=thread.execution_binding.acp_session_id
                if provider == thread.execution_binding.provider
                else None,
            ),
        )
        self._emit(LineUpdated(key=thread.thread_id))
        return updated

    def discover_acp_agents(self) -> list[ProviderRecord]:
        """Agent CLIs found on PATH, as providers one could add (not stored). Nothing is hard-coded."""
        from xworkmate.agents.acp_discovery import discover_agents

        return [
            ProviderRecord(name=agent.name, kind=ProviderKind.ACP, acp_command=agent.command, model=agent.version)
            for agent in discover_agents()
        ]

    # -- tasks, categories, provenance (SPEC §3, §4) ---------------------------

    @property
    def dispatch(self) -> DispatchService:
        if self._dispatch is None:
            from xworkmate.dispatch.service import DispatchService

            self._dispatch = DispatchService(
                self._store, workspace_for=self.default_workspace_for, router=lambda: self._turns.router()
            )
        return self._dispatch

    def start_task(
        self,
        dispatcher_key: str,
        goal: str,
        *,
        context: str = "",
        category: object = None,
        model: str | None = None,
        mode: str = "native",
        title: str | None = None,
    ) -> TaskStarted:
        """Start a task under a line (CAT-5, CAT-6, PROV-1). ``category`` ``None`` is a normal task,
        as the agent's ``task_start`` tool; pass ``NOT_PASSED`` to inherit (internal flows)."""
        started = self.dispatch.start_task(
            dispatcher_key,
            goal,
            context,
            category=category,  # type: ignore[arg-type]
            model=model,
            execution_mode=mode,
            title=title,
        )
        self._emit(LineCreated(key=started.key))
        return started

    # When set (the window does), a task an agent dispatches starts running in the background at once.
    auto_run_tasks: bool = False

    def _task_dispatched(self, task_key: str) -> None:
        self._emit(LineCreated(key=task_key))
        if self.auto_run_tasks:
            try:
                self.start_turn(task_key, None)
            except (NotRunnable, ValueError) as exc:
                self._notice(task_key, f"The task could not start: {exc}")

    def _task_followed_up(self, task_key: str) -> None:
        """An agent's ``task_send`` reached a task (PROV-4, issue 14), under ``follow_up``'s policy: a running
        task takes it when its current step ends; an idle one starts a turn on it when this process runs
        tasks (``auto_run_tasks``), else its next run answers it."""
        key = self._canonical(task_key)
        self._emit(LineUpdated(key=key))
        if self.auto_run_tasks and not self.is_running(key):
            try:
                self.start_turn(key, None)
            except (NotRunnable, ValueError) as exc:
                self._notice(key, f"The task could not start on the follow-up: {exc}")

    def send_followup(self, task_key: str, text: str) -> FollowupSent:
        """The person sends a task a follow-up: stored as theirs, and the task's snapshot is re-captured (PROV-4)."""
        sent = self.dispatch.send_followup(task_key, text)
        self._emit_messages(sent.task_key, (sent.message.id,))
        self._emit(LineUpdated(key=sent.task_key))
        return sent

    def follow_up(
        self, task_key: str, text: str, *, provider: str | None = None, start: bool | None = None
    ) -> FollowupOutcome:
        """The one follow-up policy (issue 14): the window's Send on a task, ``send`` on a task line,
        ``xworkmate task send``. The follow-up is stored with the task's snapshot re-captured (PROV-4), then:

        - the task is running: its turn takes it. A native agent reads it when its current step ends
          (a streamed answer or a tool round) and answers it in the next step; an ACP agent gets it as
          its next prompt; a turn that ends before reading it starts the next turn on it.
        - the task is idle and ``start`` (default ``auto_run_tasks``: the window): a turn starts on it,
          after the same gate as any turn (a refusal stores nothing); with no provider at all it is
          kept, and the outcome's ``notice`` says that nothing ran.
        - idle and not ``start`` (headless ``task send``: the command ends at once and cannot keep a turn
          running): stored; the task's next run (``xworkmate task run KEY``) answers it.
        """
        labels = self._task_labels(task_key)
        if labels is None:
            sent = self.send_followup(task_key, text)  # refuses: no such line, or not a task
            return self._followed(sent, "stored")
        key = labels.thread_id
        if not text or not text.strip():
            raise ValueError("nothing to send: the follow-up is empty")
        if self.is_running(key):
            return self._followed(self.send_followup(key, text), "running")
        if not (self.auto_run_tasks if start is None else start):
            return self._followed(self.send_followup(key, text), "stored")
        # A task runs on what is stored (its goal, its follow-ups), so the request carries no prompt.
        request = self._begin_checks(key, None, provider=provider)
        try:
            self._check_runner(request, provider)
        except NoAgentProviderError:
            return self._followed(self.send_followup(key, text), "stored", notice=NO_PROVIDER_NOTICE)
        sent = self.send_followup(key, text)
        self._start_begun(self._mark_begun(request, None), provider=provider)
        return self._followed(sent, "started")

    @staticmethod
    def _followed(
        sent: FollowupSent, delivery: Literal["running", "started", "stored"], *, notice: str = ""
    ) -> FollowupOutcome:
        return FollowupOutcome(
            key=sent.task_key,
            message_id=sent.message.id,
            source_ids=sent.source_ids,
            delivery=delivery,
            notice=notice,
        )

    def task_sources(self, task_key: str) -> list[Message]:
        """The human messages a task was dispatched on, as the task itself may see them (PROV-3)."""
        return self.dispatch.task_sources(task_key)

    # -- search and export (LOOP-3) -------------------------------------------

    def search(self, query: str, *, line: str | None = None, limit: int = DEFAULT_SEARCH_LIMIT) -> SearchResults:
        """Messages, tool output and titles of every line the person may see, archived included (CAT-4).

        Any thread: the window runs it off the GUI thread."""
        from xworkmate.controllers.search import search_lines

        scope = self.get_thread(line).thread_id if line is not None else None
        return search_lines(self._store, query, line=scope, limit=limit)

    def export_line(self, key: str, fmt: ExportFormat | str, *, now: datetime | None = None) -> str:
        """A line and its tasks as Markdown or JSON text, read as the person at the desktop (SEC-1 scrubbed)."""
        from xworkmate.controllers.export import build_export, export_text

        canonical = self.get_thread(key).thread_id
        export = build_export(
            self._store,
            canonical,
            sources=lambda task: self.dispatch.task_sources(task, viewer=DESKTOP),
            now=now,
        )
        return export_text(export, ExportFormat(fmt))

    def set_category(self, key: str, category: str | None) -> list[str]:
        """Re-label a line and its whole subtree (CAT-10): a human decision; ``None`` clears, ``""`` is refused."""
        from xworkmate.domain.categories import requested_category

        moved = self.dispatch.set_category(key, requested_category(category))
        for moved_key in moved:
            self._emit(LineUpdated(key=moved_key))
        return moved

    def compact(self, key: str) -> str:
        """Rotate the line's session generation; dispatch snapshots are kept (PROV-2)."""
        generation = self.dispatch.compact(key)
        self._emit(LineUpdated(key=self._canonical(key)))
        return str(generation.id)

    def fork(self, key: str, *, title: str | None = None) -> TaskThread:
        forked = self.dispatch.fork(key, title=title)
        self._emit(LineCreated(key=forked.thread_id))
        return forked

    def messages_as(self, key: str, viewer_key: str | None = None) -> list[Message]:
        """A line's messages as another line may read them (CAT-4)."""
        return self.dispatch.messages_as(key, viewer_key)

    # -- providers ------------------------------------------------------------

    def providers(self) -> list[ProviderRecord]:
        return self._store.providers.list()

    def external_changes(self) -> ExternalChange:
        """What another process (the CLI) changed in the database since the last call (issue 18).

        Cheap when nothing changed (SQLite: one ``PRAGMA data_version``); safe from a worker thread.
        """
        return self.external.poll()

    def provider_choices(
        self, key: str, records: Sequence[ProviderRecord] | None = None, thread: TaskThread | None = None
    ) -> ProviderChoices:
        """The OpenAI-compatible providers the line may use (CAT-2, the router's one rule) and the one that runs.

        ``will_run`` is the line's own provider when it may use it, else the router's first allowed
        one (the default, or the category's first tagged provider), or None when none may run.
        """
        openai = [r for r in (self.providers() if records is None else records) if r.kind is ProviderKind.OPENAI]
        if not openai:
            return ProviderChoices(allowed=(), will_run=None)  # and the turn code is not imported on a switch
        from xworkmate.controllers.runs import ProviderConfigError, provider_config
        from xworkmate.llm.router import ModelRouter

        thread = thread if thread is not None and thread.thread_id == key else self.get_thread(key)
        configs = []
        for record in openai:
            try:
                configs.append(provider_config(record))
            except ProviderConfigError:
                continue
        router = ModelRouter(configs)
        allowed = [config.name for config in router.allowed(thread.category)]
        pinned = thread.execution_binding.provider
        will_run = pinned if pinned in allowed else (allowed[0] if allowed else None)
        by_name = {record.name: record for record in openai}
        return ProviderChoices(allowed=tuple(by_name[name] for name in allowed), will_run=will_run)

    def get_provider(self, name: str) -> ProviderRecord | None:
        return self._store.providers.get(name)

    def add_provider(
        self, record: ProviderRecord, *, replace: bool = False, api_key: str | None = None
    ) -> ProviderRecord:
        """Store a provider; with ``api_key``, keep that key in the OS keyring and point the provider at it.

        Every check runs before anything is written (SEC-1, ERR-2): a refused add leaves both the
        providers table and the keyring as they were.
        """
        record = self._check_provider(record, replace=replace)
        if api_key is None:
            return self._store.providers.add(record, replace=replace)
        if record.kind is not ProviderKind.OPENAI:
            raise ValueError(f"ACP agent {record.name!r} takes its secrets through acp_env_refs, not an API key")
        from xworkmate.llm.providers import api_key_stored

        with api_key_stored(record.name, api_key):
            return self._store.providers.add(record.model_copy(update={"api_key_keyring": True}), replace=replace)

    def _check_provider(self, record: ProviderRecord, *, replace: bool) -> ProviderRecord:
        """Everything checked before a provider is stored: the window's dialog and the CLI both come through here.

        The record's own rules (domain/providers.py) run again, for a record changed with ``model_copy``;
        then what needs this installation (the data folder, the providers already stored).
        """
        record = ProviderRecord.checked(**record.model_dump())
        if record.kind is ProviderKind.OPENAI:
            from xworkmate.controllers.runs import provider_config

            provider_config(record)  # a bad config names the field
        else:
            from xworkmate.controllers.containment import state_dir_problem

            for entry in record.acp_state_dirs or ():
                problem = state_dir_problem(entry, data_folder=self._settings.home)
                if problem is not None:
                    raise ValueError(f"ACP agent {record.name!r}: {entry} cannot be a writable folder: {problem}")
        if not replace and self._store.providers.get(record.name) is not None:
            raise ProviderExistsError(record.name)
        return record

    def set_provider_api_key(self, name: str, api_key: str) -> ProviderRecord:
        """Keep a provider's key in the OS keyring (never in the database) and point the provider at it."""
        from xworkmate.llm.providers import api_key_stored

        record = self._store.providers.get(name)
        if record is None:
            raise LookupError(f"no provider named {name!r}")
        with api_key_stored(name, api_key):
            return self._store.providers.add(record.model_copy(update={"api_key_keyring": True}), replace=True)

    async def list_provider_models(self, base_url: str, *, timeout_s: float = 2.0) -> list[str]:
        """The models an OpenAI-compatible endpoint offers; used to detect Ollama and fill the model picker."""
        from xworkmate.llm.openai_client import OpenAIChatClient, Timeouts

        client = OpenAIChatClient(
            base_url=base_url.rstrip("/"),
            model="",
            provider_name=base_url,
            timeouts=Timeouts(connect=timeout_s, read=timeout_s, write=timeout_s, pool=timeout_s),
        )
        async with client:
            return await client.list_models()

    async def detect_local_endpoints(self, candidates: tuple[str, ...] = LOCAL_ENDPOINTS) -> dict[str, list[str]]:
        """Local servers that answer (Ollama at 127.0.0.1:11434, LM Studio at :1234), with their models."""
        from xworkmate.llm.errors import LLMError

        async def probe(url: str) -> tuple[str, list[str] | None]:
            try:
                return url, await self.list_provider_models(url, timeout_s=1.0)
            except LLMError:
                return url, None

        results = await asyncio.gather(*(probe(url) for url in candidates))
        return {url: models for url, models in results if models is not None}

    def remove_provider(self, name: str) -> None:
        if not self._store.providers.remove(name):
            raise LookupError(f"no provider named {name!r}")

    def apply_execution_result(self, key: str, result: ExecutionResult) -> TaskThread:
        """Write a structured result back to the line that started the run, whichever is current (ISO-8)."""
        thread = self.get_thread(key)
        updated = thread
        if result.resolved_working_directory is not None:
            resolved = Path(result.resolved_working_directory).expanduser()
            if not resolved.is_absolute():
                raise WorkspaceBindingError(
                    f"execution result for {thread.thread_id} names a relative folder"
                    f" {result.resolved_working_directory!r}; it was not applied"
                )
            self._refuse_wide_folder(resolved)  # SBX-2 holds for result bindings too (ISO-8)
            updated = self._store.threads.set_workspace(
                thread.thread_id,
                WorkspaceBinding(
                    path=str(resolved),
                    kind=result.resolved_workspace_kind or WorkspaceKind.LOCAL,
                    bound_by=BoundBy.EXECUTION_RESULT,
                ),
            )
        if result.acp_session_id is not None:
            updated = self._store.threads.set_acp_session(thread.thread_id, result.acp_session_id)
        self._emit(LineUpdated(key=thread.thread_id))
        return updated

    # -- attention (issue 17, LOOP-2) ---------------------------------------

    @property
    def attention(self) -> AttentionTracker:
        """Which line needs the person; built on first use (the window's), then it hears every change."""
        if self._attention is None:
            from xworkmate.controllers.attention import AttentionTracker

            tracker = AttentionTracker(
                self._store,
                emit=self._emit,
                running=lambda key: key in self._running,
                pending_approvals=self.pending_approvals,
                waiting_for_sign_in=self.waiting_for_sign_in,
                elsewhere=self.external.status_elsewhere,
            )
            self.subscribe(tracker.on_change)
            self._attention = tracker
        return self._attention

    # -- UI state -----------------------------------------------------------

    def ui_state(self, name: str) -> str | None:
        return self._store.app_state.get(f"ui.{name}")

    def set_ui_state(self, name: str, value: str) -> None:
        self._store.app_state.set(f"ui.{name}", value)

    # -- internals ----------------------------------------------------------

    def _canonical_or_none(self, key: str | None) -> str | None:
        try:
            return normalize_session_key(key) if key else None
        except InvalidSessionKeyError:
            return None

    def _canonical(self, key: str) -> str:
        try:
            return normalize_session_key(key)
        except InvalidSessionKeyError as exc:
            raise UnknownSessionKeyError(key) from exc

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
        return path.resolve()

    def _refuse_wide_folder(self, path: Path) -> None:
        from xworkmate.agents.confinement import binding_refusal

        reason = binding_refusal(path, user_home=Path.home(), data_folder=self._settings.home)
        if reason is not None:
            raise WorkspaceBindingError(f"cannot bind {path}: {reason}")

    def _ensure_main_thread(self) -> None:
        key = normalize_session_key("", initialising_main=True)  # ISO-2: the one place "" means main
        if self._store.threads.exists(key):
            return
        # ERR-3: processes starting at once on a fresh database all get here. Making the folder
        # twice is harmless, and the row and its first generation go in once, whoever is first.
        path = self.default_workspace_for(key)
        path.mkdir(parents=True, exist_ok=True)
        now = utcnow()
        self._store.threads.insert_if_absent(
            TaskThread(
                thread_id=key,
                title=MAIN_TITLE,
                workspace_binding=WorkspaceBinding(path=str(path), bound_by=BoundBy.EXPLICIT),
                created_at=now,
                updated_at=now,
            )
        )

    def _restored_current_key(self) -> str:
        saved = self._store.app_state.get(CURRENT_KEY_STATE)
        if saved:
            thread = self._store.threads.get(saved)
            if thread is not None and not thread.archived:
                return thread.thread_id
        return MAIN_KEY
