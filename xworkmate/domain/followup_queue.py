"""A line's queue of follow-ups (issue 31 item 3): what the person sent while a turn ran.

Positions are 1-based, as the window and ``xworkmate queue`` show them; the queue's order is
the order the items are delivered in, one turn each, once the running turn ends.
"""

from __future__ import annotations

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


def check_text(text: str) -> str:
    if not text or not text.strip():
        raise QueueItemError("nothing to queue: the follow-up is empty")
    return text
