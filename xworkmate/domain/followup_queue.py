"""A line's queue of follow-ups (issue 31 item 3): what the person sent while a turn ran.

Positions are 1-based, as the window and ``xworkmate queue`` show them; the queue's order is
the order the items are delivered in, one turn each, once the running turn ends.

A change names its item by position (``xworkmate queue``: the person read the numbers) or by the
item itself (the window: the row the person clicked). The queue can change between the showing
and the click (the running turn takes its next item, another process edits it); an item named
itself is found by its id wherever it is now, or the change is refused saying so, never applied
to whichever item took its number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class QueuedFollowup:
    """One queued follow-up: not a message yet (it becomes the person's message when delivered)."""

    id: int
    key: str
    position: int
    text: str
    created_at: datetime


class QueueItemError(ValueError):
    """A queue position that the line's queue does not have, or an empty text (ERR-1: one line)."""


def check_position(key: str, position: int, length: int, *, what: str = "item") -> None:
    """``position`` names an item of a queue of ``length`` items, else one line saying what it has."""
    if length == 0:
        raise QueueItemError(f"line {key} has no queued follow-ups")
    if not 1 <= position <= length:
        raise QueueItemError(f"line {key} has no queued {what} {position}; its queue holds 1 to {length}")


Which = int | QueuedFollowup
"""A queued follow-up named by its 1-based position, or by the item as it was shown (its id)."""


def locate(key: str, ids: Sequence[int], which: Which, *, what: str = "item") -> int:
    """The 0-based index in the queue of ``ids`` (in delivery order) of ``which``; else one line."""
    if isinstance(which, QueuedFollowup):
        if which.id in ids:
            return list(ids).index(which.id)
        raise QueueItemError(
            f"follow-up {which.position} of line {key} is no longer queued: it was sent or removed meanwhile"
        )
    check_position(key, which, len(ids), what=what)
    return which - 1


def check_text(text: str) -> str:
    if not text or not text.strip():
        raise QueueItemError("nothing to queue: the follow-up is empty")
    return text
