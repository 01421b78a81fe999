"""Task dispatch: starting tasks, follow-ups, frozen provenance, relabels and forks (SPEC §3, §4).

``DispatchService`` is what the controller, the command line and the native
agent's ``task_start``/``task_send`` tools call. It decides a task's category
(CAT-5), checks how it may run (CAT-6), and has the store create the task's
identity and freeze its dispatch sources in one transaction (PROV-1). Reading
the sources re-applies the visibility predicate for the task as it is *now*
(PROV-3, CAT-8).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xworkmate.agents.write_gate import EvidenceMessage
from xworkmate.domain.categories import (
    NOT_PASSED,
    DeclaredCategory,
    TaskCategoryError,
    check_task_execution,
    normal_task_reminder,
    task_category_choice,
)
from xworkmate.domain.keys import InvalidSessionKeyError, allocate_draft_key, normalize_session_key
from xworkmate.domain.messages import Message, MessageSource
from xworkmate.domain.secrets import redact
from xworkmate.domain.threads import (
    BoundBy,
    ContextState,
    ExecutionBinding,
    ExecutionMode,
    TaskThread,
    ThreadKind,
    WorkspaceBinding,
)
from xworkmate.domain.viewers import (
    DESKTOP,
    QuarantineVerdict,
    Viewer,
    assert_delivery_flow,
    quarantine_placeholder,
)
from xworkmate.llm.errors import UnknownProviderError
from xworkmate.llm.providers import ProviderConfig
from xworkmate.llm.router import ModelRouter
from xworkmate.store import Store
from xworkmate.store.folders import new_line_folder
from xworkmate.store.repositories import (
    DEFAULT_CAPTURE_LIMIT,
    DispatchRepository,
    SessionGeneration,
    ThreadLabels,
    utcnow,
)

log = logging.getLogger(__name__)

RouterSource = ModelRouter | Callable[[], ModelRouter]
"""A router, or a callable returning the current one (providers change while the app runs)."""

FORK_KINDS = frozenset({ThreadKind.FORK, ThreadKind.BRANCH, ThreadKind.CLONE, ThreadKind.SIDE_CHAT})
MAX_TITLE = 80


class DispatchError(ValueError):
    """A dispatch request that cannot be carried out; the message says why and what to do instead."""


class UnknownThreadError(LookupError):
    """No thread has this key."""

    def __init__(self, key: str) -> None:
        super().__init__(f"no task line with session key {key!r}")
        self.key = key


@dataclass(frozen=True)
class TaskStarted:
    """A task that now exists, with the sources it was frozen with and the CAT-9 reminder, if any."""

    task: TaskThread
    dispatcher_key: str
    category_own: bool
    seal_level: int
    source_ids: tuple[int, ...]
    goal_message_id: int
    reminder: str | None

    @property
    def key(self) -> str:
        return self.task.thread_id


@dataclass(frozen=True)
class FollowupSent:
    task_key: str
    message: Message
    source_ids: tuple[int, ...]
    """The replaced snapshot (PROV-4)."""


def task_goal_text(goal: str, context: str = "") -> str:
    """The task's first message: its goal, then the context the dispatcher wrote."""
    goal = goal.strip()
    context = context.strip()
    return f"{goal}\n\nContext:\n{context}" if context else goal


def _default_title(goal: str) -> str:
    goal = redact(goal)  # SEC-1: a title is derived text
    first = goal.strip().splitlines()[0] if goal.strip() else "task"
    title = f"Task: {first}"
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 1] + "…"


class DispatchService:
    """Tasks and their provenance over one store. Holds no per-call state; safe to share."""

    def __init__(
        self,
        store: Store,
        *,
        workspace_for: Callable[[str], Path],
        router: RouterSource | None = None,
        capture_limit: int = DEFAULT_CAPTURE_LIMIT,
    ) -> None:
        self._store = store
        self._router = router
        self._workspace_for = workspace_for
        self._capture_limit = capture_limit
        self._dispatch = DispatchRepository(store)

    # -- reading ---------------------------------------------------------------------------

    def thread(self, key: str) -> TaskThread:
        canonical = self._canonical(key)
        thread = self._store.threads.get(canonical)
        if thread is None:
            raise UnknownThreadError(key)
        return thread

    def labels(self, key: str) -> ThreadLabels:
        labels = self._store.threads.labels(self._canonical(key))
        if labels is None:
            raise UnknownThreadError(key)
        return labels

    def viewer_for(self, key: str) -> Viewer:
        """The thread as a reader, with its category as it is now (CAT-4)."""
        return self.labels(key).viewer()

    def messages_as(self, key: str, viewer_key: str | None = None) -> list[Message]:
        """A thread's messages as another thread would read them (``messages KEY --as VIEWER``)."""
        viewer = DESKTOP if viewer_key is None else self.viewer_for(viewer_key)
        return self._store.messages.list_for_thread(self.thread(key).thread_id, viewer=viewer)

    # -- starting a task (CAT-5, CAT-6, PROV-1) --------------------------------------------------

    def start_task(
        self,
        dispatcher_key: str,
        goal: str,
        context: str = "",
        category: DeclaredCategory = NOT_PASSED,
        model: str | None = None,
        execution_mode: str | ExecutionMode = ExecutionMode.NATIVE,
        title: str | None = None,
    ) -> TaskStarted:
        """Create a task under ``dispatcher_key`` and freeze its dispatch sources, atomically.

        ``category``: ``NOT_PASSED`` inherits the dispatcher's category
        (internal flows), ``None`` asks for a normal task, a label must be the
        dispatcher's own (CAT-5). ``model`` names a configured provider (or the
        model one serves); a category task refuses an untagged one, refuses ACP,
        and without a model gets the first tagged provider of its group (CAT-6).
        The goal and context become the task's first message, stored as
        component input: the dispatcher's words, never the human's (PROV-3).
        """
        dispatcher = self.thread(dispatcher_key)
        if not goal or not goal.strip():
            raise DispatchError("a task needs a goal: say what the task should do")
        try:
            mode = ExecutionMode(execution_mode)
        except ValueError as exc:
            choices = ", ".join(m.value for m in ExecutionMode)
            raise DispatchError(f"unknown execution mode {execution_mode!r}; choose one of {choices}") from exc
        choice = task_category_choice(category, dispatcher.category)
        execution = self._task_execution(choice.category, mode, model)

        key = allocate_draft_key()
        folder = self._workspace_for(key)
        now = utcnow()
        task = TaskThread(
            thread_id=key,
            title=((title or "").strip() or _default_title(goal))[:500],
            kind=ThreadKind.TASK,
            parent_key=dispatcher.thread_id,
            category=choice.category,
            workspace_binding=WorkspaceBinding(path=str(folder), bound_by=BoundBy.EXPLICIT),
            execution_binding=execution,
            context_state=ContextState(
                model=execution.model, permission_level=dispatcher.context_state.permission_level
            ),
            created_at=now,
            updated_at=now,
        )
        with new_line_folder(folder):  # ERR-2: no row without its folder, no folder without its row
            created = self._dispatch.create_task(
                task,
                category_own=choice.own,
                goal_text=task_goal_text(goal, context),
                goal_source=MessageSource.COMPONENT_INPUT,
                capture_limit=self._capture_limit,
            )
        if created.thread.category != choice.category:  # the CAT-7 trigger disagreed: a bug, not a choice
            raise DispatchError(
                f"task {key} was stored with category {created.thread.category!r}, expected {choice.category!r}"
            )
        log.info(
            "task %s started from %s (category %s, %d dispatch sources)",
            key,
            dispatcher.thread_id,
            choice.category or "normal",
            len(created.source_ids),
        )
        return TaskStarted(
            task=created.thread,
            dispatcher_key=dispatcher.thread_id,
            category_own=created.category_own,
            seal_level=created.seal_level,
            source_ids=created.source_ids,
            goal_message_id=created.first_message.id,
            reminder=normal_task_reminder(dispatcher.category, choice.category),
        )

    def _task_execution(self, category: str | None, mode: ExecutionMode, model: str | None) -> ExecutionBinding:
        """CAT-3, CAT-6: how the new task may run."""
        if mode is ExecutionMode.ACP:
            check_task_execution(category, execution_mode=mode.value, chosen_provider=None, chosen_provider_tags=None)
            return ExecutionBinding(mode=mode, provider=model)
        chosen: ProviderConfig | None = None
        if model is not None:
            chosen = self._resolve_provider(model)
            check_task_execution(
                category, execution_mode=mode.value, chosen_provider=chosen.name, chosen_provider_tags=chosen.tags
            )
        elif category is not None:
            chosen = self.router().first_allowed(category)  # CategoryModelError when the group is empty
        if chosen is None:
            return ExecutionBinding(mode=mode)
        return ExecutionBinding(mode=mode, provider=chosen.name, model=chosen.model)

    def router(self) -> ModelRouter:
        if self._router is None:
            raise DispatchError("no model router is configured, so no model can be chosen for this task")
        return self._router if isinstance(self._router, ModelRouter) else self._router()

    def _resolve_provider(self, model: str) -> ProviderConfig:
        router = self.router()
        try:
            return router.provider(model)
        except UnknownProviderError:
            serving = [p for p in router.providers if p.model == model]
            if len(serving) == 1:
                return serving[0]
            names = ", ".join(p.name for p in router.providers) or "none"
            detail = f"it is served by {len(serving)} providers, name one" if serving else f"configured: {names}"
            raise DispatchError(f"no provider or model named {model!r} ({detail})") from None

    # -- follow-ups (PROV-4) -----------------------------------------------------------------

    def send_followup(self, task_key: str, text: str, *, source: MessageSource = MessageSource.HUMAN) -> FollowupSent:
        """Store ``text`` on the task and replace its snapshot from its dispatcher, atomically (PROV-4).

        ``source`` is ``HUMAN`` when the person sends it (window, ``task send``);
        the ``task_send`` tool passes ``COMPONENT_INPUT``, because an agent's
        words are not the human's and must never back a write (WR-1). A running
        native task sees the new snapshot at its next write check, since the
        gate reads the evidence afresh each time.
        """
        labels = self.labels(task_key)
        if labels.kind is not ThreadKind.TASK or labels.parent_key is None:
            raise DispatchError(f"{labels.thread_id} is not a task, so it takes no follow-up; use send instead")
        if not text or not text.strip():
            raise DispatchError("nothing to send: the follow-up is empty")
        recorded = self._dispatch.record_followup(
            labels.thread_id, text, source=source, capture_limit=self._capture_limit
        )
        return FollowupSent(task_key=labels.thread_id, message=recorded.message, source_ids=recorded.source_ids)

    # -- provenance (PROV-2, PROV-3, PROV-5, WR-1) -----------------------------------------------

    def task_sources(self, task_key: str, viewer: Viewer | None = None) -> list[Message]:
        """The frozen sources as ``viewer`` (by default the task itself, as it is now) may read them.

        Human messages only: framework events, component input and quarantined
        rows are dropped even when their role is ``user`` (PROV-3); rows of a
        category the reader does not hold are dropped (CAT-8).
        """
        key = self._canonical(task_key)
        if viewer is None:
            # The task reading its own sources: the predicate reads its category live in the same
            # query, so one round trip does (issue 7's evidence figure); an empty answer double-checks the key.
            sources = self._dispatch.sources(key, viewer=Viewer.of_thread(key, None))
            if not sources:
                self.labels(key)  # UnknownThreadError for a key with no thread
            return sources
        return self._dispatch.sources(self.labels(key).thread_id, viewer=viewer)

    def source_ids(self, task_key: str) -> list[int]:
        """The frozen ids as stored, unfiltered: for diagnostics, never for evidence."""
        return self._dispatch.source_ids(self.labels(task_key).thread_id)

    def evidence_for(self, task_key: str) -> list[Message]:
        """WR-1: the task's own recent human messages plus its visible dispatch snapshot, oldest first."""
        labels = self.labels(task_key)
        return self._dispatch.evidence(labels.thread_id, viewer=labels.viewer(), limit=self._capture_limit)

    def evidence_provider(self, task_key: str) -> Callable[[], list[EvidenceMessage]]:
        """For ``WriteGate``: fetched afresh on every check, so a follow-up takes effect at once."""
        key = self.labels(task_key).thread_id
        return lambda: [EvidenceMessage.from_message(m) for m in self.evidence_for(key)]

    def compact(self, thread_key: str, *, reason: str = "compaction") -> SessionGeneration:
        """Start the thread's next session generation (PROV-2).

        No message is rewritten (Q-1) and no snapshot is touched, the
        thread's own or its tasks': they belong to task identities.
        """
        return self._store.threads.rotate_session(self.labels(thread_key).thread_id, reason=reason)

    # -- relabel, forks and copies (CAT-7, CAT-10, Q-1) ------------------------------------------

    def set_category(self, thread_key: str, category: str | None) -> list[str]:
        """CAT-10: relabel the thread and its whole subtree (normal tasks included); returns the keys moved."""
        return self._store.threads.set_category(self.labels(thread_key).thread_id, category)

    def fork(
        self,
        thread_key: str,
        *,
        title: str | None = None,
        kind: ThreadKind = ThreadKind.FORK,
        before_id: int | None = None,
    ) -> TaskThread:
        """A fork (branch, clone, side chat) with its own folder.

        It inherits the category (``category_own`` false, CAT-7) and the seal
        level; messages are copied with their source, quarantine marks and
        frozen model-visible text (Q-1), and the dispatch sources are kept.
        ``before_id``: only the messages before it (a fork at a turn, LOOP-1).
        """
        if kind not in FORK_KINDS:
            raise DispatchError(f"cannot fork as {kind.value!r}; use one of {sorted(k.value for k in FORK_KINDS)}")
        source = self.thread(thread_key)
        key = allocate_draft_key()
        folder = self._workspace_for(key)
        now = utcnow()
        fork = TaskThread(
            thread_id=key,
            title=((title or "").strip() or f"{source.title} ({kind.value.replace('_', ' ')})")[:500],
            kind=kind,
            parent_key=source.thread_id,
            category=None,  # CAT-7: the trigger copies the source's category
            workspace_binding=WorkspaceBinding(path=str(folder), bound_by=BoundBy.EXPLICIT),
            execution_binding=source.execution_binding.model_copy(update={"acp_session_id": None}),
            context_state=source.context_state,
            created_at=now,
            updated_at=now,
        )
        with new_line_folder(folder):
            return self._dispatch.fork(source.thread_id, fork, before_id=before_id).thread

    def copy_messages(self, source_key: str, target_key: str, ids: list[int] | None = None) -> list[int]:
        """Copy messages between threads, keeping marks and frozen text; refused if the target may not read them."""
        return self._dispatch.copy_messages(self.labels(source_key).thread_id, self.labels(target_key).thread_id, ids)

    def check_result_flow(self, task_key: str) -> None:
        """CAT-4: may the task's result flow back into its dispatcher? Raises ``DeliveryFlowError`` if not."""
        task = self.thread(task_key)
        if task.parent_key is None:
            raise DispatchError(f"{task.thread_id} has no dispatcher to deliver a result to")
        assert_delivery_flow(task, self.thread(task.parent_key))

    def check_copy(self, message_id: int) -> QuarantineVerdict:
        """Q-1: may the model see this row's frozen text? Marked rows must name their source's
        placeholder (``mark.message_id or row.id``); an unmarked legacy copy passes only if its text is
        exactly the standard placeholder of an existing quarantined row."""
        verdicts = self._store.messages.quarantine_verdicts([message_id])
        if message_id not in verdicts:
            raise LookupError(f"no message {message_id}")
        return verdicts[message_id]

    @staticmethod
    def quarantine_placeholder(message_id: int) -> str:
        """Q-1: the standard text the model sees instead of a quarantined message."""
        return quarantine_placeholder(message_id)

    # -- internals ---------------------------------------------------------------------------

    @staticmethod
    def _canonical(key: str) -> str:
        try:
            return normalize_session_key(key)
        except InvalidSessionKeyError as exc:
            raise UnknownThreadError(key) from exc


__all__ = [
    "NOT_PASSED",
    "DispatchError",
    "DispatchService",
    "FollowupSent",
    "TaskCategoryError",
    "TaskStarted",
    "UnknownThreadError",
    "task_goal_text",
]
