"""``SessionController``: what the window and the CLI call (SPEC §2, issue 19), organised in sections.

Each section is a small class over one explicit ``ControllerContext`` (the store, the settings, the event
sink, the running turns), and a public, read-only attribute of the controller (issue 33 item 4, as Anki's
``col.decks``): callers write ``controller.lines.create_line(...)``, ``controller.turns.stop(key)``.

- ``lines`` (``lines.LineController``): create, switch, bind, rename, archive, read a line, ui state;
- ``line_settings`` (``line_settings.LineSettingsController``): permission, network, turn limit, how a line runs;
- ``turns`` (``turns.TurnController``): the one gate (``prepare_run``), running, stopping, resuming turns;
- ``approvals`` (``approvals.Approvals``): the approval, form and sign-in cards a turn waits on;
- ``tasks`` (``tasks.TaskController``): dispatch, categories, fork, compact, what a task reads;
- ``followups`` (``tasks.FollowupPolicy``): the one follow-up policy, ``auto_run_tasks``;
- ``queue`` (``queue.FollowupQueue``): what waits while a turn runs (issue 31);
- ``providers`` (``providers.ProviderController``): validation, discovery, the keyring, probing;
- ``agents`` (``agent_session.AgentSessionController``): the line's ACP agent, usage, MCP servers (issue 15);
- ``skills`` (``skills.SkillsController``): the skill catalogue and a line's skills (SKL-1);
- ``checkpoints`` (``checkpoints.CheckpointController``, built on first use): changes, revert, restore (LOOP-1);
- ``external`` (``external.ExternalLines``): other processes' changes as this controller's records;
- ``attention`` (``attention.AttentionTracker``, built on first use): which line needs the person.

The controller itself wires them and keeps only what spans sections: ``send`` (queue, follow-up or turn),
search and export, recovery, warm-up, closing, and the context's ``subscribe``/``get_thread``/``operation``.
No section touches another's private members or imports this module. The controller knows no widgets: it
reports what changed through small change records that one listener (the window's bridge) turns into a Qt
signal (STYLE 4).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final

from xworkmate.controllers.agent_session import AgentSessionController
from xworkmate.controllers.approvals import Approvals
from xworkmate.controllers.changes import LineUpdated, RunFinished
from xworkmate.controllers.context import ControllerContext, Listener, UnknownSessionKeyError
from xworkmate.controllers.external import ExternalLines
from xworkmate.controllers.first_list import CURRENT_KEY_STATE
from xworkmate.controllers.line_settings import LineSettingsController
from xworkmate.controllers.lines import LineController, LineView, WorkspaceBindingError
from xworkmate.controllers.outcomes import FollowupOutcome, SendOutcome, TurnOutcome
from xworkmate.controllers.providers import (
    LOCAL_ENDPOINTS,
    ProviderChoices,
    ProviderController,
    RouterFactory,
    acp_agent_problem,
)
from xworkmate.controllers.queue import FollowupQueue
from xworkmate.controllers.skills import SkillsController
from xworkmate.controllers.tasks import FollowupPolicy, TaskController
from xworkmate.controllers.turns import NO_PROVIDER_NOTICE, NoAgentProviderError, RunRefused, TurnController
from xworkmate.domain.attachments import Attachment
from xworkmate.domain.lines import MAIN_TITLE
from xworkmate.domain.messages import MessageState
from xworkmate.domain.providers import ProviderKind
from xworkmate.domain.search import DEFAULT_SEARCH_LIMIT, SearchResults
from xworkmate.domain.threads import (
    TaskThread,
)
from xworkmate.domain.turn_endings import TurnEnding
from xworkmate.settings import Settings
from xworkmate.store import Store

if TYPE_CHECKING:
    import asyncio

    from xworkmate.controllers.attention import AttentionTracker
    from xworkmate.controllers.checkpoints import CheckpointController
    from xworkmate.controllers.runs import TurnContext
    from xworkmate.domain.export import ExportFormat, LineExport  # issue 34 item 4: loaded at the first export

# Re-exported: the window, the CLI and the tests import these from here.
__all__ = [
    "CURRENT_KEY_STATE",
    "LOCAL_ENDPOINTS",
    "MAIN_TITLE",
    "NO_PROVIDER_NOTICE",
    "FollowupOutcome",
    "LineView",
    "Listener",
    "NoAgentProviderError",
    "ProviderChoices",
    "RunRefused",
    "SendOutcome",
    "SessionController",
    "UnknownSessionKeyError",
    "WorkspaceBindingError",
    "acp_agent_problem",
]

log = logging.getLogger(__name__)


class SessionController:
    """Task lines, their turns, tasks, providers and agents: the sections above, wired over one context."""

    def __init__(self, store: Store, settings: Settings, *, router_factory: RouterFactory | None = None) -> None:
        ctx = ControllerContext(store=store, settings=settings)
        self._ctx = ctx
        self._store = store  # the tests seed rows through it; the pieces use ctx.store
        # Issue 19, item 6: other processes' changes as this controller's records; this one's run statuses told.
        self.external: Final = ExternalLines(
            store, emit=ctx.emit, running_here=lambda key: key in ctx.running, store_thread=ctx.store_thread
        )
        ctx.subscribe(self.external.on_change)
        self._attention: AttentionTracker | None = None
        self._checkpoints: CheckpointController | None = None
        self.line_settings: Final = LineSettingsController(ctx)
        self.skills: Final = SkillsController(ctx)
        self.approvals: Final = Approvals(ctx, set_permission=self.line_settings.set_permission)
        self.lines: Final = LineController(
            ctx, needs_sign_in=self.approvals.waiting_for_sign_in, running_elsewhere=self.external.running_elsewhere
        )
        self.providers: Final = ProviderController(ctx, router_factory)
        self.tasks: Final = TaskController(
            ctx, workspace_for=self.lines.default_workspace_for, router=self.providers.router
        )
        self.turns: Final = TurnController(
            ctx,
            state_of=self.lines.state_of,
            has_agent_provider=self.providers.has_agent_provider,
            task_labels=self.tasks.task_labels,
            send_followup=self.tasks.send_followup,
            turn_context=self._turn_context,
        )
        self.queue: Final = FollowupQueue(ctx, send=self.send, store_person_message=self.turns.store_person_message)
        self.followups: Final = FollowupPolicy(ctx, tasks=self.tasks, turns=self.turns, queue=self.queue)
        self.agents: Final = AgentSessionController(
            ctx,
            live_acp_runner=lambda: self.turns.runner.acp_runner,
            acp_sandbox=lambda *args: self.turns.runner.acp_sandbox(*args),
            apply_execution_result=self.lines.apply_execution_result,
        )
        self.recovered = self.recover_interrupted_turns()

    def recover_interrupted_turns(self) -> list[str]:
        """Issue 31: turns whose process died (kill -9, power loss) are recorded as interrupted, with what
        was kept; never a live turn of another process. On opening, before anything reads the lines; the
        window asks again while a line runs in another process (it may die while the window is open)."""
        from xworkmate.controllers.recovery import recover_interrupted_turns

        try:
            keys = recover_interrupted_turns(self._ctx)
        except Exception:  # ERR-1: the window and the command still open; the log says why
            log.error("could not look for interrupted turns", exc_info=True)
            return []
        for key in keys:
            self.external.ended_elsewhere(key)
            self._ctx.emit(RunFinished(key=key, status=TurnEnding.STOPPED))
            self._ctx.emit(LineUpdated(key=key))
        return keys

    def _turn_context(self) -> TurnContext:
        """What a turn is handed: the context and the other pieces' public operations."""
        from xworkmate.controllers.runs import TurnContext

        return TurnContext(
            ctx=self._ctx,
            approvals=self.approvals,
            router=self.providers.router,
            dispatch=lambda: self.tasks.dispatch,
            checkpoints=lambda: self.checkpoints,
            agent_session=self.agents.agent_session,
            turn_mcp_servers=self.agents.turn_mcp_servers,
            apply_execution_result=self.lines.apply_execution_result,
            task_dispatched=self.followups.task_dispatched,
            task_followed_up=self.followups.task_followed_up,
        )

    def close(self) -> None:
        """Close the store's connections (the command or the window is done with it)."""
        self.external.close()
        self._ctx.store_thread.close()  # a turn's last writes land before the store closes
        self._ctx.store.close()

    def warm_up(self) -> None:
        """Load the turn code (agent, LLM client, HTTP) before the first turn needs it; any thread.

        It loads lazily so start-up does not pay for it, but loading it on the first Send
        stalled the window for 150–300 ms. ``run_gui`` calls this on a worker thread once the window shows.
        """
        from xworkmate.controllers.runs import TurnRunner  # noqa: F401
        from xworkmate.llm.openai_client import warm_up

        warm_up()  # what the first request would load: the HTTP transport and the TLS context
        if any(record.kind is ProviderKind.ACP for record in self.providers.records()):
            # Issue 34 item 1: the ACP SDK (its pydantic schema) took 0.7-1.1 s to import on the first ACP
            # turn, on the GUI thread, while twenty lines streamed. Only when an agent is configured.
            import xworkmate.agents.acp  # noqa: F401
        from xworkmate.agents.sandbox import detect_sandbox  # issue 34 item 4: imported at first use

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

            ctx = self._ctx
            self._checkpoints = CheckpointController(
                self,
                ctx.store,
                ctx.emit,
                notice=lambda key, text: ctx.store_thread.call(lambda: ctx.notice(key, text)),
                note=lambda key, text: ctx.notice(key, text, MessageState.COMPLETE),
                store_thread=ctx.store_thread,
            )
        return self._checkpoints

    @property
    def _turn_tasks(self) -> dict[str, asyncio.Task[TurnOutcome]]:
        """The running turns' event-loop tasks (tests wait on them)."""
        return self._ctx.turn_tasks

    # -- observation and reading ----------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._ctx.subscribe(listener)

    @property
    def settings(self) -> Settings:
        return self._ctx.settings

    @property
    def store_description(self) -> str:
        return self._ctx.store.description

    def operation(self) -> AbstractContextManager[None]:
        """One store scope for the work of one window operation on this thread (``Store.operation``)."""
        return self._ctx.store.operation()

    def get_thread(self, key: str) -> TaskThread:
        return self._ctx.get_thread(key)

    def send(
        self, key: str, prompt: str, *, provider: str | None = None, attachments: Sequence[Attachment] = ()
    ) -> SendOutcome:
        """Send a human message on a line (the window's Send); on a task line it is a follow-up (issue 14).
        While a turn runs on the line it is queued (issue 31): ``outcome.queued`` is its position."""
        if self.tasks.task_labels(key) is not None:
            if attachments:
                raise ValueError("attachments go on a line's own messages, not on a task's follow-up")
            followed = self.followups.follow_up(key, prompt, provider=provider, start=True)
            return SendOutcome(
                key=followed.key,
                ran=followed.delivery not in ("stored", "queued"),
                notice=followed.notice,
                message_ids=(followed.message_id,) if followed.message_id is not None else (),
                queued=followed.queued,
            )
        if self._ctx.canonical_or_none(key) is not None and self.queue.busy(key):
            if not prompt.strip():
                raise ValueError("nothing to send: the message is empty")
            if attachments:  # a queued item is text only (ATT-1 attachments belong to a stored message)
                raise ValueError("attachments cannot wait in the queue; send them when the running turn has finished")
            item = self.queue.queue(key, prompt)
            return SendOutcome(key=item.key, ran=False, notice="", message_ids=(), queued=item.position)
        return self.turns.send(key, prompt, provider=provider, attachments=attachments)

    # -- search and export (LOOP-3), other processes' changes, attention ----------------------

    def search(self, query: str, *, line: str | None = None, limit: int = DEFAULT_SEARCH_LIMIT) -> SearchResults:
        """Messages, tool output and titles of every line the person may see, archived included (CAT-4).

        Any thread: the window runs it off the GUI thread."""
        from xworkmate.controllers.search import search_lines

        scope = self.get_thread(line).thread_id if line is not None else None
        return search_lines(self._ctx.store, query, line=scope, limit=limit)

    def know_provider_keys(self) -> None:
        """SEC-1: read every configured provider's key once, so ``domain.secrets.redact`` replaces it too."""
        from xworkmate.controllers.known_keys import register_provider_keys

        register_provider_keys(self._ctx.store)

    def line_export(self, key: str, *, now: datetime | None = None, with_messages: bool = True) -> LineExport:
        """A line and its tasks, read as the person at the desktop, each task's sources as the task
        itself reads them (CAT-4, CAT-8: the one rule ``task_sources`` uses); SEC-1 scrubbed. Its
        ``categories`` name every category in it: callers ask before it leaves (CAT-4)."""
        from xworkmate.controllers.export import build_export

        canonical = self.get_thread(key).thread_id
        return build_export(
            self._ctx.store, canonical, sources=self.tasks.dispatch.task_sources, now=now, with_messages=with_messages
        )

    def write_line_export(self, export: LineExport, path: Path, fmt: ExportFormat) -> Path:
        """Write ``export`` (read ``with_messages=False``: its messages are read as they are written, issue 34
        item 2) to ``path``; any thread (the window calls it on its export worker)."""
        from xworkmate.controllers.export import write_export

        return write_export(self._ctx.store, export, path, fmt)

    def export_line(self, key: str, fmt: ExportFormat | str, *, now: datetime | None = None) -> str:
        """``line_export`` as Markdown or JSON text."""
        from xworkmate.controllers.export import export_text
        from xworkmate.domain.export import ExportFormat

        return export_text(self.line_export(key, now=now), ExportFormat(fmt))

    @property
    def attention(self) -> AttentionTracker:
        """Which line needs the person; built on first use (the window's), then it hears every change."""
        if self._attention is None:
            from xworkmate.controllers.attention import AttentionTracker

            tracker = AttentionTracker(
                self._ctx.store,
                emit=self._ctx.emit,
                running=lambda key: key in self._ctx.running,
                pending_approvals=self.approvals.pending_approvals,
                waiting_for_sign_in=self.approvals.waiting_for_sign_in,
                elsewhere=self.external.status_elsewhere,
                write=lambda work, what: self._ctx.store_thread.submit(work, what=what),
            )
            self.subscribe(tracker.on_change)
            self._attention = tracker
        return self._attention
