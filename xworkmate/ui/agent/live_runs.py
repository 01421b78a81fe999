"""What the running turns are doing right now, per line, for the window (SPEC §5, §6).

The controller reports a turn as change records: ``RunStarted``, many
``RunDelta`` (text not stored yet), ``ToolRunning``, ``ApprovalRequested`` /
``ApprovalSettled``, ``MessagesAppended`` when a message is stored, and
``RunFinished``. ``LiveRuns`` keeps, for every line (shown or not), the text
streamed since the last stored message, the tool being run, and the approvals
waiting, so switching to a running line shows where it is. Streamed text is
buffered and announced at most once per ``interval_ms`` per line: two
thousand tokens a second must not mean two thousand repaints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from PySide6.QtCore import QObject, QTimer, Signal

from xworkmate.controllers import (
    ApprovalRequested,
    ApprovalSettled,
    MessagesAppended,
    RunDelta,
    RunFinished,
    RunStarted,
    ToolRunning,
)

DEFAULT_INTERVAL_MS = 40
MAX_INTERVAL_MS = 250

LiveKind = Literal["stream", "tool"]


@dataclass(frozen=True)
class LiveRow:
    """A transient row at the bottom of a running line's conversation.

    ``revision`` changes whenever the row's text does, so the delegate can
    cache the rendered document per revision.
    """

    kind: LiveKind
    text: str
    revision: int


@dataclass
class _LineState:
    running: bool = False
    text: str = ""
    pending: list[str] = field(default_factory=list)
    tool: str | None = None
    approvals: dict[int, ApprovalRequested] = field(default_factory=dict)
    revision: int = 0

    def flush(self) -> str:
        if self.pending:
            self.text += "".join(self.pending)
            self.pending.clear()
        return self.text


class LiveRuns(QObject):
    """Per-line live state of running turns, fed with the controller's change records.

    Signals:
        text_grew(str): the streamed text of this line grew; coalesced to at
            most one emission per line every ``interval_ms``.
    """

    text_grew = Signal(str)

    def __init__(self, parent: QObject | None = None, *, interval_ms: int = DEFAULT_INTERVAL_MS) -> None:
        super().__init__(parent)
        self._lines: dict[str, _LineState] = {}
        self._dirty: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._base_interval = interval_ms
        self._timer.timeout.connect(self._on_flush_due)
        self.deltas_received = 0
        self.announced_only: str | None = None
        """Issue 34 item 1: the one line whose growing text is announced (the shown one; ``None``: every line).
        Another line's deltas are only buffered: no flush is due for them, nothing is emitted; its rows are
        built from the buffer when it is shown (``rows``)."""

    # -- feeding ------------------------------------------------------------------

    def add_delta(self, key: str, text: str) -> None:
        """A ``RunDelta``: buffer it; the repaint comes with the next flush."""
        state = self._lines.setdefault(key, _LineState(running=True))
        state.pending.append(text)
        self.deltas_received += 1
        if self.announced_only is not None and key != self.announced_only:
            return
        self._dirty.add(key)
        if not self._timer.isActive():
            self._timer.start()

    def apply(self, change: object, *, answered: bool = True) -> str | None:
        """Take any run-related change record; returns the key whose live rows changed shape, if any.

        For ``MessagesAppended``, ``answered`` says whether one of the stored messages is the
        agent's answer: only then is the streamed text replaced. An ACP agent stores its whole
        answer at the end of the turn, after its thoughts, plans and tool calls, so until then
        its text keeps streaming below them.
        """
        if isinstance(change, RunDelta):
            self.add_delta(change.key, change.text)
            return None
        if isinstance(change, RunStarted):
            state = self._lines.setdefault(change.key, _LineState())
            state.running = True
            state.text, state.tool = "", None
            state.pending.clear()
            state.revision += 1
            return change.key
        if isinstance(change, MessagesAppended):
            # The controller stores the assistant message as soon as its stream ends, and
            # a tool's message when the tool is done: what was live is now in the list.
            stored = self._lines.get(change.key)
            if stored is None:
                return None
            stored.tool = None
            if answered:
                stored.text = ""
                stored.pending.clear()
                self._dirty.discard(change.key)
            stored.revision += 1
            return change.key
        if isinstance(change, ToolRunning):
            state = self._lines.setdefault(change.key, _LineState(running=True))
            state.tool = change.summary
            state.revision += 1
            return change.key
        if isinstance(change, ApprovalRequested):
            self._lines.setdefault(change.key, _LineState(running=True)).approvals[change.approval_id] = change
            return change.key
        if isinstance(change, ApprovalSettled):
            settled = self._lines.get(change.key)
            if settled is not None:
                settled.approvals.pop(change.approval_id, None)
            return change.key
        if isinstance(change, RunFinished):
            # The buffer is dropped: whatever streamed was stored (or marked interrupted) by now.
            self._lines.pop(change.key, None)
            self._dirty.discard(change.key)
            return change.key
        return None

    # -- reading ------------------------------------------------------------------

    @property
    def interval_ms(self) -> int:
        return self._timer.interval()

    def pace(self, render_ms: float) -> None:
        """Slow the flushes down when rendering the streamed text gets expensive (a long answer).

        Rendering then takes at most about a fifth of the time, whatever the token rate.
        """
        self._timer.setInterval(int(min(MAX_INTERVAL_MS, max(self._base_interval, render_ms * 5))))

    def is_running(self, key: str) -> bool:
        state = self._lines.get(key)
        return state is not None and state.running

    def running_keys(self) -> list[str]:
        return [key for key, state in self._lines.items() if state.running]

    def has_text(self, key: str) -> bool:
        """Whether text streamed on this line is waiting to be replaced by the stored answer."""
        state = self._lines.get(key)
        return state is not None and bool(state.text or state.pending)

    def streamed_text(self, key: str) -> str:
        """Everything streamed on this line since its last stored message (flushed on read)."""
        state = self._lines.get(key)
        return state.flush() if state is not None else ""

    def running_tool(self, key: str) -> str | None:
        state = self._lines.get(key)
        return state.tool if state is not None else None

    def approvals(self, key: str) -> list[ApprovalRequested]:
        state = self._lines.get(key)
        return sorted(state.approvals.values(), key=lambda a: a.approval_id) if state is not None else []

    def rows(self, key: str) -> list[LiveRow]:
        """The transient rows for the bottom of this line's conversation."""
        state = self._lines.get(key)
        if state is None or not state.running:
            return []
        text = state.flush()
        rows: list[LiveRow] = []
        if text:
            rows.append(LiveRow("stream", text, state.revision * 1_000_000 + len(text)))
        if state.tool is not None:
            rows.append(LiveRow("tool", state.tool, state.revision))
        elif not text and not state.approvals:
            rows.append(LiveRow("stream", "", state.revision))  # "working…" until the first token
        return rows

    # -- internals ----------------------------------------------------------------

    def _on_flush_due(self) -> None:
        dirty, self._dirty = self._dirty, set()
        for key in dirty:
            state = self._lines.get(key)
            if state is not None and state.pending:
                self.text_grew.emit(key)
