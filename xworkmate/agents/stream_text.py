"""The text a turn streams in one step of the event loop goes out as one ``AssistantDelta`` (issue 34 item 1).

A burst of stream chunks that arrived together (an HTTP client's buffer, an ACP agent's lines read in one go)
becomes one change record and one append in the window, instead of one per chunk. The one rule, for the
native agent and ACP turns alike, for the reply's text (``AssistantDelta``) and for the reasoning an agent
shows (``ThoughtDelta``, ACP ``agent_thought_chunk``):

- text waits until the current step of the loop ends (``loop.call_soon``), then goes out joined: consecutive
  chunks of one kind as one delta of that kind (a thought between two replies' chunks keeps its place);
- any other event goes out after the text that came before it (it flushes the text first);
- once the turn's end is near (``close``), pending text goes out at once and later text is dropped: nothing
  streams after the turn's end is reported.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Generic, TypeVar

from xworkmate.agents.events import AssistantDelta, ThoughtDelta

log = logging.getLogger(__name__)

E = TypeVar("E")


class StreamedText(Generic[E]):
    """An event sink in front of ``emit`` that joins the ``AssistantDelta`` (and ``ThoughtDelta``) texts of one
    loop step.

    ``E`` is what ``emit`` takes besides the deltas (the native agent's events, an ACP turn's reports); every
    event passes through in the order it was given.
    """

    def __init__(self, emit: Callable[[E | AssistantDelta | ThoughtDelta], None]) -> None:
        self._emit = emit
        self._pending: list[str] = []
        self._kind: type[AssistantDelta | ThoughtDelta] = AssistantDelta
        self._due = False
        self._closed = False

    def __call__(self, event: E | AssistantDelta | ThoughtDelta) -> None:
        if isinstance(event, AssistantDelta | ThoughtDelta):
            self._text(type(event), event.text)
            return
        self.flush()
        self._emit(event)

    def text(self, text: str) -> None:
        """``text`` goes out with the rest of this loop step's text, when the step ends."""
        self._text(AssistantDelta, text)

    def _text(self, kind: type[AssistantDelta | ThoughtDelta], text: str) -> None:
        if self._closed:
            log.debug("text after the turn's end dropped (%d chars)", len(text))
            return
        if not text:
            return
        if kind is not self._kind:
            self._send()  # the other kind's text came first: it goes out first
            self._kind = kind
        self._pending.append(text)
        if not self._due:
            self._due = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """The pending text, now, as one delta."""
        self._due = False
        self._send()

    def _send(self) -> None:
        if self._pending:
            joined = "".join(self._pending)
            self._pending.clear()
            self._emit(self._kind(joined))

    def close(self) -> None:
        """The turn ends: pending text goes out now; text given later is dropped, other events still pass."""
        self.flush()
        self._closed = True
