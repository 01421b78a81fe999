"""Change records to the parts that show them: one table, from the record's type to its handlers (issue 33
item 1; Anki's ``on_operation_did_execute``, each screen deciding what to redraw from the record).

Two kinds of record, two tables:

* **Run records** (a turn's streamed text, tools, approvals, sign-ins, usage, attention) carry all they
  need and are applied as they come.
* **Store records** (a line created or updated, the current line changed, messages appended or changed)
  may need reads: outside an operation they are first read on the store worker and applied when that
  read is back (LOOP-4, ``StoreOperations.deliver``); inside one, the worker read ahead of them
  (``ReadAhead``). Their handlers get that read, run with the list's selection guarded (rows a record
  removes are not the person picking a line), and the selection follows the shown line afterwards.

A record of a type in neither table changes nothing but the selection, as a store record with no handler.
``route_records`` is the window's table.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from PySide6.QtCore import QObject, Slot

from xworkmate.controllers import (
    ApprovalRequested,
    ApprovalSettled,
    AttentionChanged,
    ChangesRecorded,
    CurrentLineChanged,
    LineCreated,
    LineUpdated,
    MessagesAppended,
    MessagesChanged,
    RunDelta,
    RunFinished,
    RunStarted,
    SignInRequested,
    SignInSettled,
    SignInTerminalOpened,
    ToolRunning,
    UnknownSessionKeyError,
)
from xworkmate.controllers.changes import AgentMcpFailed, AgentSessionChanged, QueueChanged, UsageChanged
from xworkmate.controllers.views import ReadAhead, needs_reads
from xworkmate.ui.agent.live_runs import LiveRuns
from xworkmate.ui.lines.needs_you import NeedsYou
from xworkmate.ui.operations import StoreOperations
from xworkmate.ui.window.agent import AgentActions
from xworkmate.ui.window.conversation import ConversationActions
from xworkmate.ui.window.run_cards import RunCards
from xworkmate.ui.window.services import Failure
from xworkmate.ui.window.shown import ShownLine
from xworkmate.ui.window.task_list import TaskListActions
from xworkmate.ui.window.workspace import WorkspaceActions

RunHandler = Callable[[Any], None]
StoreHandler = Callable[[Any, ReadAhead], None]


class ChangeRouter(QObject):
    """The window's change records, each to the handlers registered for its type, in registration order.

    ``guarded()`` is the list's selection guard, ``sync_selection()`` puts the selection back on the shown
    line, ``unreadable`` says a record whose line could not be read (on the worker, or here).
    Signals: none; ``route`` is the bridge's slot.
    """

    def __init__(
        self,
        operations: StoreOperations,
        *,
        guarded: Callable[[], AbstractContextManager[None]],
        sync_selection: Callable[[], None],
        unreadable: Failure,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._operations = operations
        self._guarded = guarded
        self._sync_selection = sync_selection
        self._unreadable = unreadable
        self._runs: dict[type, list[RunHandler]] = {}
        self._stores: dict[type, list[StoreHandler]] = {}
        self._ahead = ReadAhead()

    def on_run(self, kind: type, *handlers: RunHandler) -> None:
        """Apply run records of type ``kind`` with ``handlers``, in order."""
        self._runs.setdefault(kind, []).extend(handlers)

    def on_store(self, kind: type, *handlers: StoreHandler) -> None:
        """Apply store records of type ``kind`` with ``handlers``, in order, each given what was read ahead."""
        self._stores.setdefault(kind, []).extend(handlers)

    def kinds(self) -> set[type]:
        """Every record type some part handles."""
        return set(self._runs) | set(self._stores)

    @Slot(object)
    def route(self, change: object) -> None:
        runs = self._runs.get(type(change))
        if runs is not None:
            for handler in runs:
                handler(change)
            return
        with self._guarded():
            try:
                if not self._operations.applying and needs_reads(change):
                    # Another process's record, or a turn's that names rows it does not carry: read on the
                    # worker, then applied (LOOP-4).
                    self._operations.deliver([change], failed=self._unreadable)
                else:
                    for store in self._stores.get(type(change), ()):
                        store(change, self._ahead)
            except UnknownSessionKeyError as exc:
                self._unreadable(exc)  # said as for a record whose read on the worker failed
            self._sync_selection()

    def apply(self, changes: list[object], ahead: ReadAhead) -> None:
        """An operation's change records, in order, on the GUI thread, with what its worker read ahead."""
        self._ahead = ahead
        try:
            # Rows the records remove or filter out (a line seen leaves "Needs you") are not the person
            # picking another line: the selection follows the shown line afterwards.
            with self._guarded():
                for change in changes:
                    self.route(change)
        finally:
            self._ahead = ReadAhead()
        self._sync_selection()


def route_records(
    router: ChangeRouter,
    live: LiveRuns,
    needs_you: NeedsYou,
    shown: ShownLine,
    lines: TaskListActions,
    talk: ConversationActions,
    cards: RunCards,
    agent: AgentActions,
    folder: WorkspaceActions,
) -> None:
    """The window's table: each change record's type, and the parts that show it, in order."""

    def queue_changed(change: QueueChanged) -> None:
        if change.key == shown.shown_key:  # another line's queue is read when that line is shown
            talk.read_queue(change.key)

    router.on_run(RunDelta, lambda change: live.add_delta(change.key, change.text))
    router.on_run(QueueChanged, queue_changed)
    router.on_run(AttentionChanged, needs_you.on_attention_changed)
    router.on_run(SignInRequested, cards.on_sign_in_requested)
    router.on_run(SignInTerminalOpened, cards.on_sign_in_terminal_opened)
    router.on_run(SignInSettled, cards.on_sign_in_settled)
    router.on_run(ChangesRecorded, folder.on_changes_recorded)
    router.on_run(AgentSessionChanged, agent.on_agent_session_changed)
    router.on_run(UsageChanged, agent.on_usage_changed)
    router.on_run(AgentMcpFailed, agent.on_mcp_failed)
    for run_record in (RunStarted, ToolRunning, ApprovalRequested, ApprovalSettled, RunFinished):
        router.on_run(run_record, cards.on_run_record)
    router.on_store(LineCreated, lines.on_line_created)
    router.on_store(LineUpdated, lines.on_line_updated, shown.on_line_updated)
    router.on_store(CurrentLineChanged, shown.on_current_line_changed)
    router.on_store(MessagesChanged, talk.on_messages_changed, shown.on_messages_changed, lines.lines_ahead.on_messages)
    router.on_store(
        MessagesAppended,
        cards.on_messages_appended,
        talk.on_messages_appended,
        folder.on_messages_appended,
        shown.on_messages_appended,
        lines.lines_ahead.on_messages,
    )
