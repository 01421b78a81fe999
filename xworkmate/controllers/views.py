"""What the window reads off the GUI thread for an operation (issue 19, item 1; LOOP-4).

An operation runs a controller call on the store worker, then reads here, on the same worker, what the
window will need to apply its change records: the list rows (``ThreadSummary``) of lines created or
updated, and the panes' view of a line (``LinePanes``). The window then applies them on the GUI thread
without another read. Qt-free, like every controller module; it uses the controller's public API only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from xworkmate.controllers.changes import (
    CurrentLineChanged,
    LineCreated,
    LineUpdated,
    MessagesAppended,
    MessagesChanged,
)
from xworkmate.controllers.context import UnknownSessionKeyError
from xworkmate.controllers.lines import LineController, LineView, summary_of
from xworkmate.domain.agent_session import LineUsage
from xworkmate.domain.messages import Message
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import ThreadKind, ThreadSummary


class LineReads(Protocol):
    """The part of ``SessionController``'s public API read here: its lines section (named, not imported: no
    section of the controllers imports the facade, tests/test_layers)."""

    @property
    def lines(self) -> LineController: ...


@dataclass(frozen=True)
class LinePanes:
    """One line as every pane shows it: the view (ISO-5), its newest messages, and for a task what it was
    dispatched on. ``first_page`` is how many messages were asked for."""

    view: LineView
    newest: tuple[Message, ...]
    first_page: int
    usage: LineUsage | None = None
    sources: tuple[Message, ...] | None = None
    dispatcher: ThreadSummary | None = None

    @property
    def key(self) -> str:
        return self.view.key


def read_line_panes(controller: LineReads, key: str, *, first_page: int, with_usage: bool = True) -> LinePanes:
    """Everything a switch shows for ``key``, read in one go on the calling (worker) thread; the usage
    meter's figures only ``with_usage`` (the window keeps them per line until they change).

    What ``line_view``, ``newest_messages``, ``line_usage`` and, for a task, ``task_sources`` and the
    dispatcher's ``line_summary`` answer, read in one round trip on PostgreSQL
    (``store/repositories/line_panes``; the issue 19 benchmark's fresh view waits for it)."""
    view, rows = controller.lines.line_panes_read(key, limit=max(1, first_page), with_usage=with_usage)
    sources: tuple[Message, ...] | None = None
    dispatcher: ThreadSummary | None = None
    if view.thread.kind is ThreadKind.TASK:
        sources = tuple(rows.sources or ())
        dispatcher = summary_of(rows.dispatcher) if rows.dispatcher is not None else None
    return LinePanes(
        view=view,
        newest=tuple(rows.newest),
        first_page=first_page,
        usage=rows.usage if with_usage else None,
        sources=sources,
        dispatcher=dispatcher,
    )


@dataclass
class ReadAhead:
    """The rows, views and messages an operation's change records will ask for, read on the worker."""

    summaries: dict[str, ThreadSummary] = field(default_factory=dict)
    views: dict[str, LineView] = field(default_factory=dict)
    panes: dict[str, LinePanes] = field(default_factory=dict)
    messages: dict[int, Message] = field(default_factory=dict)


def needs_reads(change: object) -> bool:
    """Whether applying ``change`` needs a read ``read_ahead`` makes: a line's row or view, or messages the
    record does not carry (another process's, a hidden one). A turn's own messages come with it."""
    if isinstance(change, LineCreated | LineUpdated | MessagesChanged):
        return True
    if isinstance(change, MessagesAppended):
        carried = {m.id for m in change.messages}
        return any(i not in carried for i in change.message_ids)
    return False


def read_ahead(controller: LineReads, changes: Iterable[object], *, first_page: int, shown: str | None) -> ReadAhead:
    """Read on the worker what applying ``changes`` needs: a row per created/updated line, the view of the
    ``shown`` line when it was updated, all the panes of the line switched to (``first_page`` messages),
    and the messages appended to the ``shown`` line. A line that is gone by now is simply not read."""
    ahead = ReadAhead()
    changes = list(changes)
    # The messages first, in one read however many records name them (another desktop's burst).
    carried = {m.id: m for c in changes if isinstance(c, MessagesAppended) for m in c.messages}
    # Hidden from the model or shown again: read as they are now. Appended: what the records do not carry,
    # on the shown line only (another line's rows are read when it is shown).
    wanted = [i for c in changes if isinstance(c, MessagesChanged) for i in c.message_ids]
    wanted += [
        i
        for c in changes
        if isinstance(c, MessagesAppended) and c.key == shown
        for i in c.message_ids
        if i not in carried
    ]
    ahead.messages.update(carried)
    if wanted:
        ahead.messages.update(controller.lines.messages_by_id(list(dict.fromkeys(wanted))))
    for change in changes:
        if isinstance(change, CurrentLineChanged) and change.key == controller.lines.current_key:
            with contextlib.suppress(UnknownSessionKeyError):  # gone by now: nothing to show
                ahead.panes[change.key] = read_line_panes(controller, change.key, first_page=first_page)
        if isinstance(change, LineCreated | LineUpdated) and change.key not in ahead.summaries:
            try:
                ahead.summaries[change.key] = controller.lines.line_summary(change.key)
            except UnknownSessionKeyError:
                continue
        if isinstance(change, LineUpdated) and change.key == shown and change.key not in ahead.views:
            try:
                ahead.views[change.key] = controller.lines.line_view(change.key)
            except UnknownSessionKeyError:
                continue
    return ahead


class ProviderReads(Protocol):
    """The part of ``SessionController.providers`` (``providers.ProviderController``) read here."""

    def records(self) -> list[ProviderRecord]: ...


class Inbox(Protocol):
    """The part of ``SessionController.attention`` (``attention.AttentionTracker``) read here."""

    def inbox(self) -> list[str]: ...


class FirstReads(LineReads, Protocol):
    """What a window's first read asks of ``SessionController`` besides ``LineReads``."""

    @property
    def providers(self) -> ProviderReads: ...

    @property
    def attention(self) -> Inbox: ...


@dataclass(frozen=True)
class FirstRead:
    """Everything a window reads to show itself the first time (issue 19, item 7): what its panes remember,
    the task list, the providers, and the current line's panes. Read on a worker right after the first
    paint, so the window is built from it without a read on the GUI thread (LOOP-4)."""

    ui_states: dict[str, str]
    lines: list[ThreadSummary]
    providers: list[ProviderRecord]
    panes: LinePanes
    complete: bool = True
    """``lines`` are every line; else a part of them (``LineController.first_lines``), the rest read once the
    window can be used (issue 34 item 2)."""


def read_first(controller: FirstReads, *, first_page: int) -> FirstRead:
    """The window's first read, on the calling (worker) thread. It also builds the attention tracker, which
    reads what each line last showed, so the window finds it ready.

    Issue 34 item 2: the lines are a bounded part of the list (``LineController.first_lines``: its ends, the
    current line, the lines that need the person), so the start reads as much at 20,000 lines as at 40."""
    attention = controller.attention
    lines = controller.lines.first_lines(attention.inbox())
    return FirstRead(
        ui_states=controller.lines.ui_states(),
        lines=lines.lines,
        providers=controller.providers.records(),
        panes=read_line_panes(controller, controller.lines.current_key, first_page=first_page),
        complete=lines.complete,
    )


def window_lines(controller: LineReads, first: FirstRead | None) -> tuple[list[ThreadSummary], bool]:
    """The lines a window's task list is built with, and whether they are only a part of them (issue 34 item 2:
    the rest are read once the window can be used): the first read's, else every line, read now (a window
    built over a controller already open, in tests)."""
    if first is None:
        return controller.lines.list_lines(include_archived=True), False
    return first.lines, not first.complete
