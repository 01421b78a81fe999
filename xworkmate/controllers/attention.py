"""Every line's attention state, kept from the controller's change records (SPEC LOOP-2, ISO-9).

``AttentionTracker`` gathers the facts the domain rule (``domain.attention``)
decides from — approvals and sign-ins waiting (``TurnRunner``), running, how the
last turn ended (``RunFinished``), the newest message against the newest one the
person has seen — and reports each change as ``AttentionChanged``. What the
person has seen, the last outcome, a line's mute and its composer draft are
kept in ``line_marks`` (migration 0013), so they survive a restart.

"Seen": the window tells the tracker which line the person is looking at
(``watch``: the shown line while the window is active, else none); messages
arriving on that line are seen as they arrive.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from xworkmate.controllers.changes import (
    ApprovalRequested,
    ApprovalSettled,
    AttentionChanged,
    Change,
    LineUpdated,
    MessagesAppended,
    RunFinished,
    RunStarted,
    SignInRequested,
    SignInSettled,
)
from xworkmate.domain.attention import (
    Attention,
    LineFacts,
    LineMark,
    Needing,
    attention_of,
    inbox_order,
    needs_you,
)

if TYPE_CHECKING:
    from xworkmate.store import Store

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class AttentionTracker:
    """Attention per line, in memory, from change records; marks persisted in ``line_marks``.

    Built by ``SessionController.attention`` (which passes what it needs: no private reach-ins):
    ``emit`` reports ``AttentionChanged``; ``running``, ``pending_approvals`` and
    ``waiting_for_sign_in`` are the controller's own answers.
    """

    def __init__(
        self,
        store: Store,
        *,
        emit: Callable[[Change], None],
        running: Callable[[str], bool],
        pending_approvals: Callable[[str], list[int]],
        waiting_for_sign_in: Callable[[str], bool],
        elsewhere: Callable[[str], str | None] = lambda key: None,
        write: Callable[[Callable[[], object], str], None] | None = None,
    ) -> None:
        self._store = store
        # LOOP-4: a mark is stored off the loop, in order (``StoreThread.submit``); at once without one.
        self._write = write or (lambda work, _what: work())
        self._emit = emit
        self._running = running
        self._pending_approvals = pending_approvals
        self._waiting_for_sign_in = waiting_for_sign_in
        self._elsewhere = elsewhere  # issue 19: the run status of a turn another process runs on the line
        self._marks: dict[str, LineMark] = store.line_marks.all()
        # The newest message per line: from the marks at start (no scan of the messages), then as they arrive.
        self._newest: dict[str, int] = {
            k: m.outcome_message_id for k, m in self._marks.items() if m.outcome_message_id is not None
        }
        self._approvals: dict[str, set[int]] = {}
        self._states: dict[str, Attention] = {}
        self._since: dict[str, datetime] = {}
        self._unsaved_seen: set[str] = set()
        self._watched: str | None = None
        for key, mark in self._marks.items():
            state = attention_of(self._facts(key))
            if state is not Attention.NONE:
                self._states[key] = state
                self._since[key] = mark.last_outcome_at or _EPOCH

    # -- reading ------------------------------------------------------------

    def state(self, key: str) -> Attention:
        return self._states.get(key, Attention.NONE)

    def since(self, key: str) -> datetime | None:
        """When the line came to need the person (None: it does not)."""
        return self._since.get(key) if needs_you(self.state(key)) else None

    def inbox(self) -> list[str]:
        """The lines that need the person, the one waiting longest first ("Needs you", Ctrl+J)."""
        return inbox_order(Needing(k, s, self._since.get(k, _EPOCH)) for k, s in self._states.items())

    def count(self) -> int:
        return sum(1 for s in self._states.values() if needs_you(s))

    def mark(self, key: str) -> LineMark:
        return self._marks.get(key) or LineMark(key=key)

    def muted(self, key: str) -> bool:
        return self.mark(key).notifications_muted

    def draft(self, key: str) -> str:
        return self.mark(key).draft

    # -- the person's marks -------------------------------------------------

    def watch(self, key: str | None) -> None:
        """The line the person is looking at now (None: the window is not active); it is seen at once."""
        self._watched = key
        if key is not None:
            self._see(key)
            self.flush()

    def set_muted(self, key: str, muted: bool) -> None:
        self._write(lambda: self._store.line_marks.set_muted(key, muted), "a line's mute")
        self._marks[key] = replace(self.mark(key), notifications_muted=muted)

    def save_draft(self, key: str, text: str) -> None:
        if text == self.draft(key):
            return
        self._write(lambda: self._store.line_marks.set_draft(key, text), "a line's draft")
        self._marks[key] = replace(self.mark(key), draft=text)

    def flush(self) -> None:
        """Write the seen marks not yet stored (the window calls it debounced, and on closing)."""
        keys, self._unsaved_seen = self._unsaved_seen, set()
        for key in keys:
            seen = self.mark(key).last_seen_message_id
            if seen is not None:
                self._write(functools.partial(self._store.line_marks.set_seen, key, seen), "what was seen on a line")

    def _see(self, key: str) -> None:
        newest = self._newest.get(key)
        mark = self.mark(key)
        if newest is not None and (mark.last_seen_message_id is None or newest > mark.last_seen_message_id):
            self._marks[key] = replace(mark, last_seen_message_id=newest)
            self._unsaved_seen.add(key)
        self._update(key)

    # -- change records -----------------------------------------------------

    def on_change(self, change: Change) -> None:
        if isinstance(change, MessagesAppended):
            if change.message_ids:
                self._newest[change.key] = max(self._newest.get(change.key, 0), *change.message_ids)
            if change.key == self._watched:
                self._see(change.key)
                return
        elif isinstance(change, ApprovalRequested):
            self._approvals.setdefault(change.key, set()).add(change.approval_id)
        elif isinstance(change, ApprovalSettled):
            self._approvals.get(change.key, set()).discard(change.approval_id)
        elif isinstance(change, RunFinished):
            self._approvals.pop(change.key, None)
            now, newest = datetime.now(UTC), self._newest.get(change.key)
            key, status = change.key, change.status
            self._write(lambda: self._store.line_marks.set_outcome(key, status, now, newest), "a turn's outcome")
            self._marks[change.key] = replace(
                self.mark(change.key), last_outcome=change.status, last_outcome_at=now, outcome_message_id=newest
            )
            if change.key in self._unsaved_seen:
                self.flush()
        elif not isinstance(change, (RunStarted, SignInRequested, SignInSettled, LineUpdated)):
            return
        self._update(change.key)

    def _facts(self, key: str) -> LineFacts:
        mark = self.mark(key)
        # An approval counts while the runner still waits on it and the window has not answered it.
        waiting = self._approvals.get(key, set()) & set(self._pending_approvals(key)) if key in self._approvals else ()
        elsewhere = self._elsewhere(key)
        return LineFacts(
            pending_approvals=len(waiting) or int(elsewhere == "needs_approval"),
            waiting_for_sign_in=self._waiting_for_sign_in(key) or elsewhere == "needs_sign_in",
            running=self._running(key) or elsewhere is not None,
            last_outcome=mark.last_outcome,
            newest_message_id=self._newest.get(key),
            last_seen_message_id=mark.last_seen_message_id,
        )

    def _update(self, key: str) -> None:
        before = self.state(key)
        after = attention_of(self._facts(key))
        if after is before:
            return
        if after is Attention.NONE:
            self._states.pop(key, None)
        else:
            self._states[key] = after
        if needs_you(after) and not needs_you(before):
            self._since[key] = datetime.now(UTC)
        elif not needs_you(after):
            self._since.pop(key, None)
        self._emit(AttentionChanged(key=key, before=before.value, after=after.value))
