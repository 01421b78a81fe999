"""Turns a crash interrupted, as the conversation records them (issue 31 item 4, ERR-2, ISO-4).

When a turn's process died (kill -9, power loss), the next process to open the store stores, on the
line: the reply it was streaming (an interrupted assistant message marked ``partial``), a result for
each tool call left without one, and a notice with the ``interrupted_turn`` payload. Resume stores a
notice with ``resumed_turn``. One rule says whether a line has an interruption still to resume.
"""

from __future__ import annotations

from collections.abc import Sequence

from xworkmate.domain.messages import Message, MessageSource

INTERRUPTED_TURN = "interrupted_turn"
"""Payload key of the notice that says a crash interrupted the line's turn (its value: what was kept)."""
RESUMED_TURN = "resumed_turn"
"""Payload key of the notice that says the person resumed it."""
PARTIAL_REPLY = "partial"
"""Payload key of the assistant message holding the reply streamed when the process died (never sent to a model)."""

INTERRUPTED_TOOL_RESULT = (
    "This tool call was interrupted: the process running the turn stopped before it answered (a crash, a kill"
    " or a power loss). It may or may not have taken effect."
)


def pending_interruption(messages: Sequence[Message]) -> Message | None:
    """The interruption notice Resume would continue from, in ``messages`` (oldest first), or None.

    None once the line moved on: the person wrote again, or the turn was resumed.
    """
    for message in reversed(messages):
        payload = message.payload or {}
        if INTERRUPTED_TURN in payload:
            return message
        if RESUMED_TURN in payload or message.source is MessageSource.HUMAN:
            return None
    return None
