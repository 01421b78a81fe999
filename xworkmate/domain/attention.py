"""Which line needs the person, as pure rules (SPEC LOOP-2, ISO-9).

A line's attention state is decided from a few facts the controller gathers:
approvals waiting, a sign-in waiting, whether a turn runs, how its last turn
ended and whether the person has seen its newest message since. The list's
badges, the "Needs you" filter, Ctrl+J, the window title's count and the
desktop notifications all read the state from here; none of them decide it.
Like the derived task list (ISO-9), attention never decides which line is current.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from xworkmate.domain.translatable import QT_TRANSLATE_NOOP
from xworkmate.domain.turn_endings import LEAVES_AN_ANSWER, TurnEnding


class Attention(StrEnum):
    """What a line asks of the person, most urgent first."""

    NEEDS_APPROVAL = "needs_approval"
    NEEDS_SIGN_IN = "needs_sign_in"
    FAILED = "failed"
    FINISHED_UNREAD = "finished_unread"
    RUNNING = "running"
    NONE = "none"


ATTENTION_LABELS: dict[Attention, str] = {
    Attention.NEEDS_APPROVAL: QT_TRANSLATE_NOOP("CoreText", "needs approval"),
    Attention.NEEDS_SIGN_IN: QT_TRANSLATE_NOOP("CoreText", "needs sign-in"),
    Attention.FAILED: QT_TRANSLATE_NOOP("CoreText", "failed"),
    Attention.FINISHED_UNREAD: QT_TRANSLATE_NOOP("CoreText", "new"),
    Attention.RUNNING: QT_TRANSLATE_NOOP("CoreText", "running"),
    Attention.NONE: "",
}
"""The badge each state shows in the task list (the one home of these words; the window shows them
translated, issue 20)."""

NEEDS_YOU: frozenset[Attention] = frozenset(
    {Attention.NEEDS_APPROVAL, Attention.NEEDS_SIGN_IN, Attention.FAILED, Attention.FINISHED_UNREAD}
)
"""The states that wait for the person: the "Needs you" filter, Ctrl+J and the title's count."""

NOTIFIED: frozenset[Attention] = frozenset({Attention.NEEDS_APPROVAL, Attention.FAILED, Attention.FINISHED_UNREAD})
"""The states a desktop notification announces (issue 17: approval, failure, finish)."""


@dataclass(frozen=True, slots=True)
class LineFacts:
    """What the controller knows about one line when it asks for its attention state."""

    pending_approvals: int = 0
    waiting_for_sign_in: bool = False
    running: bool = False
    last_outcome: str | None = None
    """How the last turn ended: ``finished``, ``step_limit``, ``failed``, ``stopped``; None: no turn recorded."""
    newest_message_id: int | None = None
    last_seen_message_id: int | None = None


def is_unread(facts: LineFacts) -> bool:
    """The line has a message newer than the newest one the person has seen on it."""
    newest = facts.newest_message_id
    if newest is None:
        return False
    return facts.last_seen_message_id is None or newest > facts.last_seen_message_id


def attention_of(facts: LineFacts) -> Attention:
    """LOOP-2: the one rule. A waiting approval or sign-in outranks "running" (the turn cannot go on
    without the person); a failure or a finish counts only while the person has not seen it."""
    if facts.pending_approvals > 0:
        return Attention.NEEDS_APPROVAL
    if facts.waiting_for_sign_in:
        return Attention.NEEDS_SIGN_IN
    if facts.running:
        return Attention.RUNNING
    if not is_unread(facts):
        return Attention.NONE
    if facts.last_outcome == TurnEnding.FAILED:
        return Attention.FAILED
    if facts.last_outcome in LEAVES_AN_ANSWER:
        return Attention.FINISHED_UNREAD
    return Attention.NONE


def needs_you(state: Attention) -> bool:
    return state in NEEDS_YOU


def worth_notifying(before: Attention, after: Attention) -> bool:
    """A change a desktop notification announces: the line has just come to need the person for this."""
    return after in NOTIFIED and after is not before


@dataclass(frozen=True, slots=True)
class Needing:
    """A line that needs the person, and since when (the inbox's order)."""

    key: str
    state: Attention
    since: datetime


def inbox_order(lines: Iterable[Needing]) -> list[str]:
    """The keys of the lines that need the person, the one waiting longest first (ties: by key)."""
    return [n.key for n in sorted((n for n in lines if needs_you(n.state)), key=lambda n: (n.since, n.key))]


def next_needing(order: list[str], current: str | None) -> str | None:
    """Ctrl+J: the line after ``current`` in the inbox order, wrapping round; None when none needs the person.

    When only the current line needs the person, it is the answer (the jump stays put).
    """
    if not order:
        return None
    if current not in order:
        return order[0]
    return order[(order.index(current) + 1) % len(order)]


@dataclass(frozen=True, slots=True)
class LineMark:
    """What is remembered per line for the person across restarts (stored in ``line_marks``)."""

    key: str
    last_seen_message_id: int | None = None
    last_outcome: str | None = None
    last_outcome_at: datetime | None = None
    outcome_message_id: int | None = None
    """The line's newest message when its last turn ended: what must be seen for the ending to be read."""
    notifications_muted: bool = False
    draft: str = ""
