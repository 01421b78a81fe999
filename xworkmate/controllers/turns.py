"""Turns: the one gate into execution, Send, running, stopping (SPEC §2, ISO-4, ISO-6, ISO-7, issue 13).

``TurnController`` is the turns section of ``SessionController``. Every path into
execution goes through ``prepare_run``; everything that can refuse a turn runs
before anything is stored. The turn itself is ``runs.TurnRunner``, loaded on the
first turn (the agent, LLM and HTTP code are not paid for at start-up).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from xworkmate.controllers.agent_session import AGENT_INFO_STATE
from xworkmate.controllers.changes import LineUpdated, QueueChanged, RunFinished, RunStarted
from xworkmate.controllers.context import ControllerContext
from xworkmate.controllers.known_keys import register_provider_keys
from xworkmate.controllers.outcomes import SendOutcome, TurnOutcome
from xworkmate.controllers.providers import acp_agent_problem
from xworkmate.controllers.recovery import TurnLease
from xworkmate.domain.agent_session import AgentInfo
from xworkmate.domain.attachments import Attachment, attachments_payload, has_image, images_refused
from xworkmate.domain.interruptions import RESUMED_TURN, pending_interruption
from xworkmate.domain.keys import InvalidSessionKeyError, normalize_session_key
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.runs import NotRunnable, RunRequest
from xworkmate.domain.threads import ExecutionMode, LineState, TaskThread, ThreadKind, ThreadStatus
from xworkmate.domain.titles import is_default_title, title_from_message
from xworkmate.domain.turn_endings import TurnEnding
from xworkmate.domain.viewers import DESKTOP

if TYPE_CHECKING:
    from xworkmate.agents.events import Approver
    from xworkmate.controllers.runs import TurnContext, TurnRunner
    from xworkmate.dispatch.service import FollowupSent
    from xworkmate.store.repositories import ThreadLabels

RESUME_PROMPT = (
    "Your previous turn on this line was interrupted before it finished: the process running it stopped."
    " Continue where you left off."
)
"""What an ACP agent is sent on Resume (its session is resumed or loaded first, so it has the context)."""
RESUMED_NOTICE = "Resumed after an interruption: the last step runs again from what was kept."

NO_PROVIDER_NOTICE = (
    "No agent provider is configured, so nothing ran. Your message is saved on this line; "
    "add an OpenAI-compatible endpoint or an ACP agent to run it."
)


RESUME_LOOKBACK = 50
"""How many of a line's newest messages are read to find the interruption Resume continues."""


class RunRefused(ValueError):
    """The gate refused a turn for a rule of the product (a category rule, the provider); nothing was stored."""


class NoAgentProviderError(RunRefused):
    """A native line with no OpenAI-compatible provider at all: the window keeps the message and says so."""


class TurnController:
    """The gate, Send and the running turns of every line.

    ``state_of`` is the lines' status rule (with its reason), ``has_agent_provider`` the providers' question;
    ``task_labels`` and ``send_followup`` (the tasks') store the person's words on a task as a
    follow-up; ``turn_context`` is what a turn is handed.
    """

    def __init__(
        self,
        ctx: ControllerContext,
        *,
        state_of: Callable[[TaskThread], LineState],
        has_agent_provider: Callable[[], bool],
        task_labels: Callable[[str], ThreadLabels | None],
        send_followup: Callable[[str, str], FollowupSent],
        turn_context: Callable[[], TurnContext],
    ) -> None:
        self._ctx = ctx
        self._state_of = state_of
        self._has_agent_provider = has_agent_provider
        self._task_labels = task_labels
        self._send_followup = send_followup
        self._turn_context = turn_context
        self._runner: TurnRunner | None = None

    @property
    def runner(self) -> TurnRunner:
        """The turn code, loaded on the first turn, not at start-up."""
        if self._runner is None:
            from xworkmate.controllers.runs import TurnRunner

            self._runner = TurnRunner(self._turn_context())
        return self._runner

    def is_running(self, key: str) -> bool:
        return self._ctx.is_running(key)

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
        thread = self._ctx.store.threads.get(canonical)
        if thread is None:
            raise NotRunnable(canonical, ThreadStatus.NEEDS_BINDING, f"no task line has the session key {canonical!r}")
        status, reason = self._state_of(thread)
        if status is not ThreadStatus.RUNNABLE:
            raise NotRunnable(canonical, status, reason)  # SBX-3: a swapped folder says how it was swapped
        if thread.workspace_binding.pin is None:  # a line bound before migration 0015 (SBX-3): pinned as it runs
            thread = self._ctx.store.threads.pin_workspace(thread.thread_id)
        assert thread.workspace_binding.path is not None
        return RunRequest(
            session_id=thread.thread_id,
            thread_id=thread.thread_id,
            working_directory=thread.workspace_binding.path,
            prompt=prompt,
            execution=thread.execution_binding,
            category=thread.category,
        )

    def send(
        self, key: str, prompt: str, *, provider: str | None = None, attachments: Sequence[Attachment] = ()
    ) -> SendOutcome:
        """Send a human message on a line (the window's Send).

        The line must be runnable, else ``NotRunnable`` and nothing is stored.
        With an OpenAI-compatible provider configured, a native turn starts on
        the running event loop (on ``provider`` when one is named, as the
        window's provider picker does); without one the message is kept and
        the line says plainly that nothing ran: it never pretends to run.
        On a task line Send is a follow-up, which ``FollowupPolicy.follow_up`` decides (issue 14):
        ``SessionController.send`` sends it there.
        """
        request = self.begin_checks(key, prompt, provider=provider, attachments=attachments)
        try:
            self.check_runner(request, provider)
        except NoAgentProviderError:
            pass  # the message is kept and the line says that nothing ran
        else:
            self.start_begun(self.mark_begun(request, prompt, attachments), provider=provider)
            ids = tuple(self._ctx.store.messages.page_ids(request.thread_id, viewer=DESKTOP, limit=1))
            return SendOutcome(key=request.thread_id, ran=True, notice="", message_ids=ids)
        human = self.store_person_message(request.thread_id, prompt, attachments)
        notice = self._ctx.notice(request.thread_id, NO_PROVIDER_NOTICE)
        self._ctx.emit(LineUpdated(key=request.thread_id))
        return SendOutcome(key=request.thread_id, ran=False, notice=NO_PROVIDER_NOTICE, message_ids=(human, notice))

    def store_person_message(self, key: str, text: str, attachments: Sequence[Attachment] = ()) -> int:
        """Store the person's words on a line; every path that does goes through here (issue 14).

        On a task they are a follow-up: stored with the task's dispatch snapshot re-captured and
        replaced in the same transaction (PROV-4).
        """
        register_provider_keys(self._ctx.store)  # SEC-1: its index entry and title are made redacted
        if self._task_labels(key) is not None:
            return self._send_followup(key, text).message.id
        human = self._ctx.store.messages.append(
            key,
            role=MessageRole.USER,
            source=MessageSource.HUMAN,
            content=text,
            payload=attachments_payload(attachments) or None,  # ATT-1: stored with the message
        )
        self._ctx.emit_messages(key, (human.id,), (human,))
        self._title_from_first_message(key, text)
        return human.id

    def _title_from_first_message(self, key: str, text: str) -> None:
        """Issue 17: a line still called "Task line N" takes its title from the person's first message."""
        thread = self._ctx.store.threads.get(key)
        if thread is None or thread.is_main or not is_default_title(thread.title):
            return
        title = title_from_message(text)
        if title is not None:
            self._ctx.store.threads.set_title(key, title)
            self._ctx.emit(LineUpdated(key=key))

    def begin_checks(
        self, key: str, prompt: str | None, *, provider: str | None, attachments: Sequence[Attachment] = ()
    ) -> RunRequest:
        """The gate up to the provider, in its order: the key, the line's status, the category rules."""
        if prompt is None:
            # A task runs on what it was dispatched with (its goal, its follow-ups); nothing new is stored.
            thread = self._ctx.store.threads.get(self._ctx.canonical_or_none(key) or "")
            if thread is not None and thread.kind is not ThreadKind.TASK:
                raise ValueError(f"{thread.thread_id} is not a task: a turn on it needs a message")
            request = self.prepare_run(key, "")
        else:
            if not prompt.strip():
                raise ValueError("nothing to send: the message is empty")
            request = self.prepare_run(key, prompt)
        self._check_category_rules(request, provider)
        if has_image(attachments):
            self._check_takes_images(request, provider)
        return request

    def _check_takes_images(self, request: RunRequest, provider: str | None) -> None:
        """ATT-1: an image goes only to a model that takes it; refused here, before anything is stored (ERR-2).
        The model is the one the router would choose for the line (CAT-2). An ACP agent says what it takes
        when it starts (``promptCapabilities.image``): refused here when it said no when it last started;
        an agent not started yet is checked by its turn, before the prompt is sent."""
        if request.execution.mode is ExecutionMode.ACP:
            agent = request.execution.provider
            raw = self._ctx.store.app_state.get(f"{AGENT_INFO_STATE}{agent}") if agent else None
            if raw and AgentInfo.model_validate_json(raw).takes_images is False:
                raise RunRefused(
                    f"ACP agent {agent} does not take images (its promptCapabilities.image is not true when it last"
                    " started); remove the image"
                )
            return
        name, record = self._chosen_provider(request, provider)
        if record is None:
            from xworkmate.controllers.providers import ProviderConfigError, provider_config
            from xworkmate.llm.router import ModelRouter

            configs = []
            for stored in self._ctx.store.providers.list():
                if stored.kind is ProviderKind.OPENAI:
                    try:
                        configs.append(provider_config(stored))
                    except ProviderConfigError:
                        continue
            allowed = ModelRouter(configs).allowed(request.category)
            if not allowed:
                return  # the provider check says that nothing can run
            name, record = allowed[0].name, self._ctx.store.providers.get(allowed[0].name)
        if record is not None and record.kind is ProviderKind.OPENAI and not record.vision:
            raise RunRefused(images_refused(str(name)))

    def _chosen_provider(self, request: RunRequest, provider: str | None) -> tuple[str | None, ProviderRecord | None]:
        """The provider a native turn is pinned to (``--provider``, else the line's own), and its record."""
        name = provider or request.execution.provider
        return name, self._ctx.store.providers.get(name) if name else None

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

    def check_runner(self, request: RunRequest, provider: str | None) -> None:
        """The last step of the gate: something can run this turn (an ACP agent, or a provider)."""
        key = request.thread_id
        if request.execution.mode is ExecutionMode.ACP:
            name = request.execution.provider
            problem = acp_agent_problem(key, name, self._ctx.store.providers.get(name) if name else None)
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
        if not self._has_agent_provider():
            tagged = f" tagged {request.category!r}" if request.category else ""
            raise NoAgentProviderError(
                f"no agent provider is configured; add one{tagged} with `xworkmate provider add`"
                " (or set the line to an ACP agent)"
            )

    def gate(
        self, key: str, prompt: str | None, *, provider: str | None, attachments: Sequence[Attachment] = ()
    ) -> RunRequest:
        """Everything that can refuse a turn, before anything is stored (issue 13: one gate, in this order:
        unknown key, not runnable, category rules, provider). It reads the store: off the loop, a caller
        on the loop runs it on the store thread (``FollowupPolicy``)."""
        request = self.begin_checks(key, prompt, provider=provider, attachments=attachments)
        self.check_runner(request, provider)
        return request

    def _begin_turn(
        self, key: str, prompt: str | None, *, provider: str | None, attachments: Sequence[Attachment] = ()
    ) -> RunRequest:
        return self.mark_begun(self.gate(key, prompt, provider=provider, attachments=attachments), prompt, attachments)

    def mark_begun(self, request: RunRequest, prompt: str | None, attachments: Sequence[Attachment] = ()) -> RunRequest:
        self._ctx.running.add(request.thread_id)
        if prompt is not None:
            try:
                self.store_person_message(request.thread_id, prompt, attachments)
            except BaseException:
                self._ctx.running.discard(request.thread_id)
                raise
        self._ctx.emit(RunStarted(key=request.thread_id))
        self._ctx.emit(LineUpdated(key=request.thread_id))
        return request

    def _end_turn(self, key: str, outcome: TurnOutcome | None) -> None:
        self._ctx.running.discard(key)
        self._ctx.turn_tasks.pop(key, None)
        if outcome is None:
            self._ctx.emit(RunFinished(key=key, status=TurnEnding.STOPPED))
        else:
            self._ctx.emit(RunFinished(key=key, status=outcome.status, error=outcome.error))
        self._ctx.emit(LineUpdated(key=key))

    async def run_turn(
        self,
        key: str,
        prompt: str | None,
        *,
        provider: str | None = None,
        approver: Approver | None = None,
        headless: bool = False,
        attachments: Sequence[Attachment] = (),
        answers: Mapping[str, str] | None = None,
    ) -> TurnOutcome:
        """One turn on a line; the conversation is kept whatever happens.

        ``prompt`` ``None`` runs a task on what it was dispatched with.
        ``headless`` (``xworkmate run``): actions that need approval at this
        line's permission level are refused with a clear reason; ``answers`` (``--answer NAME=VALUE``) fill
        an agent's form (issue 32 item 3).
        """
        request = await self._begun_on_store_thread(
            lambda: self._begin_turn(key, prompt, provider=provider, attachments=attachments)
        )
        return await self._run_begun(request, provider=provider, approver=approver, headless=headless, answers=answers)

    async def _begun_on_store_thread(self, begin: Callable[[], RunRequest]) -> RunRequest:
        """``begin()`` (the gate, the person's message, the line running) on the store thread, not on the loop
        (LOOP-4, issue 33 item 2); its change records are delivered on the loop as it returns. A Stop while it
        runs there still ends the turn it began, once it has begun (the turn itself never starts)."""
        begun = asyncio.ensure_future(self._ctx.store_thread.call(begin))
        try:
            return await asyncio.shield(begun)
        except asyncio.CancelledError:
            begun.add_done_callback(self._end_begun_unstarted)
            raise

    def _end_begun_unstarted(self, begun: asyncio.Future[RunRequest]) -> None:
        if not begun.cancelled() and begun.exception() is None:
            self._end_turn(begun.result().thread_id, None)

    async def _run_begun(
        self,
        request: RunRequest,
        *,
        provider: str | None,
        approver: Approver | None,
        headless: bool,
        answers: Mapping[str, str] | None = None,
    ) -> TurnOutcome:
        """The turn after ``_begin_turn``: run it, and end it (running flag, change records) whatever happens."""
        outcome: TurnOutcome | None = None
        mode = request.execution.mode.value
        try:
            async with TurnLease(self._ctx, request.thread_id, mode=mode) as lease:  # issue 31: a crash is found
                outcome = await self._run_leased(
                    request, provider=provider, approver=approver, headless=headless, lease=lease, answers=answers
                )
            return outcome
        finally:
            self._end_turn(request.thread_id, outcome)

    async def _run_leased(
        self,
        request: RunRequest,
        *,
        provider: str | None,
        approver: Approver | None,
        headless: bool,
        lease: TurnLease,
        answers: Mapping[str, str] | None = None,
    ) -> TurnOutcome:
        """The turn and the follow-ups it leaves, while this process holds the line's lease."""
        turn = await self.runner.run(
            request, provider=provider, approver=approver, headless=headless, lease=lease, answers=answers
        )
        key = request.thread_id
        while turn.status is TurnEnding.FINISHED:
            followups = await self._next_followups(key, turn.followups)
            if not followups:
                break
            self._ctx.emit(RunFinished(key=key, status=turn.status))
            self._ctx.emit(RunStarted(key=key))
            following = await self.runner.run(
                request.model_copy(update={"prompt": ""}),
                provider=provider,
                approver=approver,
                headless=headless,
                followups=followups,
                lease=lease,
                answers=answers,
            )
            turn = following.model_copy(
                update={
                    "message_ids": turn.message_ids + following.message_ids,
                    "refused_approvals": turn.refused_approvals + following.refused_approvals,
                    "warnings": turn.warnings + following.warnings,
                }
            )
        return turn

    async def _next_followups(self, key: str, left: tuple[int, ...]) -> tuple[int, ...]:
        """What the line's next turn answers after a turn that finished, in one trip to the store thread; nothing
        ends the line's turns.

        SBX-3: a follow-up turn runs without the gate, so its folder is checked again first; when it is no longer
        the folder the line was bound to, nothing runs (the line's next turn is refused by the gate, saying why).
        Issue 14: the follow-ups stored after the turn's last safe point (``left``) start the next turn, on them
        (an ACP agent gets them as its next prompt); the line stays running in between. Issue 31: else the first
        item of the line's queue, taken out and stored as the person's message (a task's snapshot re-captured,
        PROV-4) only now, as it is delivered; one item a turn, in order. A turn that failed or was stopped
        leaves the queue as it is: the person decides (Send now, or the line's next turn)."""

        def next_followups() -> tuple[int, ...]:
            if self._ctx.get_thread(key).workspace_binding.problem() is not None:
                return ()
            if left:
                return left
            item = self._ctx.store.followup_queue.take_first(key)
            if item is None:
                return ()
            message_id = self.store_person_message(key, item.text)
            self._ctx.emit(QueueChanged(key=key))  # the window's queue strip loses the item
            return (message_id,)

        return await self._ctx.store_thread.call(next_followups)

    def start_turn(self, key: str, prompt: str | None, *, provider: str | None = None) -> asyncio.Task[TurnOutcome]:
        """Start a turn on the event loop and return at once (the window stays responsive)."""
        return self.start_begun(self._begin_turn(key, prompt, provider=provider), provider=provider)

    def start_begun(self, request: RunRequest, *, provider: str | None) -> asyncio.Task[TurnOutcome]:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        task = loop.create_task(
            self._run_begun(request, provider=provider, approver=None, headless=False),
            name=f"turn {request.thread_id}",
        )
        self._ctx.turn_tasks[request.thread_id] = task
        task.add_done_callback(self._end_unstarted_turn)
        return task

    def _end_unstarted_turn(self, task: asyncio.Task[TurnOutcome]) -> None:
        """Stop right after Send cancels the turn before its first step, so its ``finally`` never ran:
        end it here, or the line would stay running forever (found by the issue 21 driver tests)."""
        key = next((k for k, t in self._ctx.turn_tasks.items() if t is task), None)
        if key is not None:
            self._end_turn(key, None)

    def stop(self, key: str) -> bool:
        """Stop the running turn at once (Stop). Returns whether one was running."""
        task = self._ctx.turn_tasks.get(self._ctx.canonical(key))
        if task is None or task.done():
            return False
        task.cancel()
        return True

    # -- Resume (issue 31 item 4) ------------------------------------------------------------------

    def interruption(self, key: str) -> Message | None:
        """The crash notice a Resume would continue from on this line, or None (store thread)."""
        canonical = self._ctx.canonical(key)
        return pending_interruption(self._ctx.store.messages.newest(canonical, limit=RESUME_LOOKBACK, viewer=DESKTOP))

    def begin_resume(self, key: str, *, provider: str | None = None) -> RunRequest:
        """The gate for Resume, then the line running with a "resumed" notice. Only an interrupted turn
        resumes, and only when the person asks (nothing re-runs on its own)."""
        canonical = self._ctx.canonical(key)
        if self.interruption(canonical) is None:
            raise ValueError(f"line {canonical} has no interrupted turn to resume")
        request = self.prepare_run(canonical, RESUME_PROMPT)
        self._check_category_rules(request, provider)
        self.check_runner(request, provider)
        self.mark_begun(request, None)
        try:
            notice = self._ctx.store.messages.append(
                canonical,
                role=MessageRole.SYSTEM,
                source=MessageSource.FRAMEWORK_EVENT,
                content=RESUMED_NOTICE,
                state=MessageState.COMPLETE,
                payload={RESUMED_TURN: True},
            )
        except BaseException:
            self._end_turn(canonical, None)
            raise
        self._ctx.emit_messages(canonical, (notice.id,), (notice,))
        return request

    async def run_resume(
        self,
        key: str,
        *,
        provider: str | None = None,
        approver: Approver | None = None,
        headless: bool = False,
        answers: Mapping[str, str] | None = None,
    ) -> TurnOutcome:
        """Resume an interrupted turn and wait for it (``xworkmate run KEY --resume``).

        Native: the last step runs again from the stored messages (the partial reply is not sent; a tool
        call the crash cut off has its "interrupted" result). ACP: the agent's session is resumed (or
        loaded) with the session id the line kept, and asked to continue.
        """
        request = await self._begun_on_store_thread(lambda: self.begin_resume(key, provider=provider))
        return await self._run_begun(request, provider=provider, approver=approver, headless=headless, answers=answers)

    def resume(self, key: str, *, provider: str | None = None) -> asyncio.Task[TurnOutcome]:
        """Resume on the event loop and return at once (the window's Resume)."""
        return self.start_begun(self.begin_resume(key, provider=provider), provider=provider)
