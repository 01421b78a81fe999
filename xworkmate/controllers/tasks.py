"""Tasks and categories: dispatch, follow-ups, forks, provenance (SPEC §3, §4; issue 14).

``TaskController`` is the tasks section of ``SessionController`` over the
``DispatchService``; ``FollowupPolicy`` is the one follow-up policy: the window's
Send on a task, ``xworkmate task send``, and an agent's ``task_send`` all end there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from xworkmate.controllers.changes import LineCreated, LineUpdated
from xworkmate.controllers.context import ControllerContext
from xworkmate.controllers.outcomes import FollowupOutcome
from xworkmate.controllers.turns import NO_PROVIDER_NOTICE, NoAgentProviderError, TurnController
from xworkmate.domain.messages import Message
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.threads import TaskThread, ThreadKind

if TYPE_CHECKING:
    from xworkmate.controllers.queue import FollowupQueue
    from xworkmate.dispatch.service import DispatchService, FollowupSent, TaskStarted
    from xworkmate.llm.router import ModelRouter
    from xworkmate.store.repositories import ThreadLabels


class TaskController:
    """Tasks under lines, categories of subtrees, compaction and forks (through the dispatch service)."""

    def __init__(
        self, ctx: ControllerContext, *, workspace_for: Callable[[str], Path], router: Callable[[], ModelRouter]
    ) -> None:
        self._ctx = ctx
        self._workspace_for = workspace_for
        self._router = router
        self._dispatch: DispatchService | None = None

    @property
    def dispatch(self) -> DispatchService:
        if self._dispatch is None:
            from xworkmate.dispatch.service import DispatchService

            self._dispatch = DispatchService(self._ctx.store, workspace_for=self._workspace_for, router=self._router)
        return self._dispatch

    def task_labels(self, key: str) -> ThreadLabels | None:
        """The line's labels when ``key`` names a dispatched task, else ``None`` (no such line included)."""
        canonical = self._ctx.canonical_or_none(key)
        labels = self._ctx.store.threads.labels(canonical) if canonical else None
        if labels is None or labels.kind is not ThreadKind.TASK or labels.parent_key is None:
            return None
        return labels

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
        self._ctx.emit(LineCreated(key=started.key))
        return started

    def send_followup(self, task_key: str, text: str) -> FollowupSent:
        """The person sends a task a follow-up: stored as theirs, and the task's snapshot is re-captured (PROV-4)."""
        sent = self.dispatch.send_followup(task_key, text)
        self._ctx.emit_messages(sent.task_key, (sent.message.id,), (sent.message,))
        self._ctx.emit(LineUpdated(key=sent.task_key))
        return sent

    def task_sources(self, task_key: str) -> list[Message]:
        """The human messages a task was dispatched on, as the task itself may see them (PROV-3)."""
        return self.dispatch.task_sources(task_key)

    def set_category(self, key: str, category: str | None) -> list[str]:
        """Re-label a line and its whole subtree (CAT-10): a human decision; ``None`` clears, ``""`` is refused."""
        from xworkmate.domain.categories import requested_category

        moved = self.dispatch.set_category(key, requested_category(category))
        for moved_key in moved:
            self._ctx.emit(LineUpdated(key=moved_key))
        return moved

    def compact(self, key: str) -> str:
        """Rotate the line's session generation; dispatch snapshots are kept (PROV-2)."""
        generation = self.dispatch.compact(key)
        self._ctx.emit(LineUpdated(key=self._ctx.canonical(key)))
        return str(generation.id)

    def fork(self, key: str, *, title: str | None = None) -> TaskThread:
        forked = self.dispatch.fork(key, title=title)
        self._ctx.emit(LineCreated(key=forked.thread_id))
        return forked

    def messages_as(self, key: str, viewer_key: str | None = None) -> list[Message]:
        """A line's messages as another line may read them (CAT-4)."""
        return self.dispatch.messages_as(key, viewer_key)


class FollowupPolicy:
    """The one follow-up policy (issue 14, PROV-4), and what becomes of tasks an agent dispatches.

    ``auto_run_tasks`` (the window sets it): a task an agent dispatches, or an idle task that gets a
    follow-up, starts running in the background at once.
    """

    def __init__(
        self, ctx: ControllerContext, *, tasks: TaskController, turns: TurnController, queue: FollowupQueue
    ) -> None:
        self._ctx = ctx
        self._tasks = tasks
        self._turns = turns
        self._queue = queue
        self.auto_run_tasks = False

    async def task_dispatched(self, task_key: str) -> None:
        """An agent's ``task_start`` made ``task_key``; when this process runs tasks, a turn starts on it."""
        self._ctx.emit(LineCreated(key=task_key))
        if self.auto_run_tasks:
            await self._start_task(task_key, "The task could not start: {reason}")

    async def task_followed_up(self, task_key: str) -> None:
        """An agent's ``task_send`` reached a task (PROV-4, issue 14), under ``follow_up``'s policy: a running
        task takes it when its current step ends; an idle one starts a turn on it when this process runs
        tasks (``auto_run_tasks``), else its next run answers it."""
        key = self._ctx.canonical(task_key)
        self._ctx.emit(LineUpdated(key=key))
        if self._delivery(key, None) == "start":  # the follow-up is stored already (the dispatch tool)
            await self._start_task(key, "The task could not start on the follow-up: {reason}")

    async def _start_task(self, key: str, refusal: str) -> None:
        """A turn on an idle task an agent dispatched or followed up, from the dispatching turn on the loop:
        the gate reads the line and the providers on the store thread (issue 19, LOOP-4), and a refusal is a
        notice on the task, stored there too; the turn itself is made on the loop."""
        store_thread = self._ctx.store_thread
        try:
            request = await store_thread.call(lambda: self._turns.gate(key, None, provider=None))
        except (NotRunnable, ValueError) as exc:
            text = refusal.format(reason=exc)
            await store_thread.call(lambda: self._ctx.notice(key, text))
            return
        if self._turns.is_running(key):
            return  # a turn started on it meanwhile (the person's Send): that turn reads what is stored
        self._turns.start_begun(self._turns.mark_begun(request, None), provider=None)

    def follow_up(
        self, task_key: str, text: str, *, provider: str | None = None, start: bool | None = None
    ) -> FollowupOutcome:
        """The one follow-up policy (issue 14): the window's Send on a task, ``send`` on a task line,
        ``xworkmate task send``. The follow-up is stored with the task's snapshot re-captured (PROV-4), then:

        - the task is running (here or in another process): it is queued (issue 31), not stored as a
          message yet; the running turn's end delivers the queue one turn an item, each re-captured as it
          is delivered (PROV-4). "Send now" (``FollowupQueue.send_now``) steers instead: stored at once,
          a native agent reads it at its next safe point, an ACP agent gets it as its next prompt.
        - the task is idle and ``start`` (default ``auto_run_tasks``: the window): a turn starts on it,
          after the same gate as any turn (a refusal stores nothing); with no provider at all it is
          kept, and the outcome's ``notice`` says that nothing ran.
        - idle and not ``start`` (headless ``task send``: the command ends at once and cannot keep a turn
          running): stored; the task's next run (``xworkmate task run KEY``) answers it.
        """
        labels = self._tasks.task_labels(task_key)
        if labels is None:
            sent = self._tasks.send_followup(task_key, text)  # refuses: no such line, or not a task
            return self._followed(sent, "stored")
        key = labels.thread_id
        if not text or not text.strip():
            raise ValueError("nothing to send: the follow-up is empty")
        delivery = "running" if self._queue.busy(key) else self._delivery(key, start)
        if delivery == "running":
            item = self._queue.queue(key, text)
            return FollowupOutcome(key=key, message_id=None, source_ids=(), delivery="queued", queued=item.position)
        if delivery != "start":
            return self._followed(self._tasks.send_followup(key, text), delivery)
        # A task runs on what is stored (its goal, its follow-ups), so the request carries no prompt.
        request = self._turns.begin_checks(key, None, provider=provider)
        try:
            self._turns.check_runner(request, provider)
        except NoAgentProviderError:
            return self._followed(self._tasks.send_followup(key, text), "stored", notice=NO_PROVIDER_NOTICE)
        sent = self._tasks.send_followup(key, text)
        self._turns.start_begun(self._turns.mark_begun(request, None), provider=provider)
        return self._followed(sent, "started")

    def _delivery(self, key: str, start: bool | None) -> Literal["running", "start", "stored"]:
        """The policy's one decision, for the person's follow-ups and an agent's ``task_send`` alike: a
        running task's turn takes it; an idle task starts a turn on it when ``start`` (by default
        ``auto_run_tasks``); else it waits for the task's next run."""
        if self._turns.is_running(key):
            return "running"
        return "start" if (self.auto_run_tasks if start is None else start) else "stored"

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
