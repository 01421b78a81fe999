"""Turns that survive a crash (issue 31 item 4, SPEC ERR-1, ERR-2, ISO-4, LOOP-2).

* ``TurnLease``: while a turn runs, its line's ``turn_owners`` row names this process and keeps its
  lease fresh; the reply being streamed is flushed into it every ``PARTIAL_FLUSH_S`` (so a kill -9
  keeps what had streamed). The row goes when the turn ends, however it ends.
* ``recover_interrupted_turns``: on start (every controller opened: the window's and each CLI
  command's), a row whose process is gone is a turn a crash interrupted. The line is told so, with
  what was kept: the streamed reply as an interrupted message, a result for every tool call left
  without one (ERR-2), and a notice that offers Resume. The line stops being running; nothing runs
  again until the person resumes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from xworkmate.domain.interruptions import INTERRUPTED_TOOL_RESULT, INTERRUPTED_TURN, PARTIAL_REPLY
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.tool_errors import ToolErrorKind
from xworkmate.domain.turn_endings import TurnEnding
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import turn_owners

if TYPE_CHECKING:
    from types import TracebackType

    from xworkmate.controllers.context import ControllerContext

log = logging.getLogger(__name__)

PARTIAL_FLUSH_S = 1.0
"""How often a streamed reply that grew is written to the turn's row (what a kill -9 keeps)."""
RECENT_MESSAGES = 500
"""How many of a line's newest messages recovery reads for the dead turn's unanswered tool calls."""


class TurnLease:
    """This process owns a line's turn while the ``async with`` runs (see the module's notes)."""

    def __init__(self, ctx: ControllerContext, key: str, *, mode: str) -> None:
        self._ctx = ctx
        self._key = key
        self._mode = mode
        self._partial: list[str] = []
        self._dirty = False
        self._task: asyncio.Task[None] | None = None
        self._claimed = False

    def streamed(self, text: str) -> None:
        """A piece of the reply streamed (on the loop)."""
        self._partial.append(text)
        self._dirty = True

    def reply_ended(self) -> None:
        """The streamed reply is stored as a message (or a tool step began): nothing is partial now."""
        if self._partial:
            self._partial.clear()
            self._dirty = True

    async def __aenter__(self) -> TurnLease:
        ctx, key, mode = self._ctx, self._key, self._mode

        def claim() -> None:
            newest = ctx.store.messages.page_ids(key, viewer=DESKTOP, limit=1)
            turn_owners.claim(ctx.store, key, mode=mode, after_message_id=max(newest, default=0))

        try:
            await ctx.store_thread.call(claim)
            self._claimed = True
        except Exception:  # the turn runs anyway; only its crash would go unnoticed (logged)
            log.warning("could not record the owner of the turn on %s", key, exc_info=True)
            return self
        self._task = asyncio.get_running_loop().create_task(self._beat(), name=f"turn lease {key}")
        return self

    async def _beat(self) -> None:
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            await asyncio.sleep(PARTIAL_FLUSH_S)
            if not self._dirty and loop.time() - last < turn_owners.HEARTBEAT_S:
                continue
            partial = "".join(self._partial) if self._dirty else None
            self._dirty = False
            last = loop.time()
            try:
                await self._write_beat(partial)
            except Exception:
                log.warning("could not renew the lease of the turn on %s", self._key, exc_info=True)

    async def _write_beat(self, partial: str | None) -> None:
        store, key = self._ctx.store, self._key
        await self._ctx.store_thread.call(lambda: turn_owners.beat(store, key, partial_text=partial))

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if not self._claimed:
            return
        ctx, key = self._ctx, self._key
        try:
            await asyncio.shield(ctx.store_thread.call(lambda: turn_owners.release(ctx.store, key)))
        except Exception:
            log.warning("could not clear the owner of the turn on %s", key, exc_info=True)


def recover_interrupted_turns(ctx: ControllerContext) -> list[str]:
    """Find the turns whose process died and record each as interrupted; the keys recovered.

    A turn this process runs, or one whose process is alive (here or, by its lease, on another host),
    is left alone. Two processes starting at once record each interruption once (``turn_owners.take``).
    """
    recovered: list[str] = []
    for dead in turn_owners.dead_turns(ctx.store):
        if dead.key in ctx.running or not turn_owners.take(ctx.store, dead):
            continue
        try:
            record_interruption(ctx, dead)
        except Exception:  # ERR-1: the start goes on; the line is no longer running either way
            log.error("could not record the interrupted turn on %s", dead.key, exc_info=True)
        recovered.append(dead.key)
    return recovered


def record_interruption(ctx: ControllerContext, dead: turn_owners.TurnOwner) -> None:
    """What the person sees of a turn a crash interrupted, stored on its line."""
    from xworkmate.agents.native import describe_call
    from xworkmate.llm.events import ToolCall
    from xworkmate.store.external_changes import mark_run

    store, key = ctx.store, dead.key
    ids = [i for i in store.messages.page_ids(key, viewer=DESKTOP, limit=RECENT_MESSAGES) if i > dead.after_message_id]
    found = store.messages.get_many(ids, viewer=DESKTOP)
    turn_messages = [found[i] for i in sorted(found)]
    kept = sum(1 for m in turn_messages if m.source is not MessageSource.FRAMEWORK_EVENT)
    stored: list[Message] = []
    partial = dead.partial_text
    if partial.strip():
        stored.append(
            store.messages.append(
                key,
                role=MessageRole.ASSISTANT,
                source=MessageSource.AGENT,
                content=partial,
                state=MessageState.INTERRUPTED,
                payload={PARTIAL_REPLY: True, **({"mode": "acp", "category": None} if dead.mode == "acp" else {})},
            )
        )
    answered = {(m.payload or {}).get("tool_call_id") for m in turn_messages if m.role is MessageRole.TOOL}
    for message in turn_messages:
        if message.role is not MessageRole.ASSISTANT:
            continue
        for call in (message.payload or {}).get("tool_calls") or []:
            if call.get("id") in answered:
                continue
            function = call.get("function") or {}
            tool_call = ToolCall(
                id=str(call.get("id")), name=str(function.get("name", "")), arguments=str(function.get("arguments", ""))
            )
            stored.append(
                store.messages.append(  # ERR-2: no tool call without a result
                    key,
                    role=MessageRole.TOOL,
                    source=MessageSource.TOOL,
                    content=INTERRUPTED_TOOL_RESULT,
                    state=MessageState.ERROR,
                    payload={
                        "tool_call_id": tool_call.id,
                        "name": tool_call.name,
                        "arguments": tool_call.arguments,
                        "summary": describe_call(tool_call),
                        "ok": False,
                        "error_kind": ToolErrorKind.INTERRUPTED.value,
                    },
                )
            )
    stored.append(
        store.messages.append(
            key,
            role=MessageRole.SYSTEM,
            source=MessageSource.FRAMEWORK_EVENT,
            content=interruption_notice(key, kept=kept, partial=bool(partial.strip())),
            state=MessageState.INTERRUPTED,
            payload={INTERRUPTED_TURN: {"kept": kept, "partial": bool(partial.strip()), "mode": dead.mode}},
        )
    )
    ctx.emit_messages(key, tuple(m.id for m in stored), tuple(stored))
    # LOOP-2: the turn ended (stopped, unread): the list and "Needs you" show the line until it is seen.
    store.line_marks.set_outcome(key, TurnEnding.STOPPED, datetime.now(UTC), stored[-1].id)
    mark_run(store, key, TurnEnding.STOPPED)  # other windows stop showing it running
    # LOOP-1 (issue 34): its checkpoint row ends too, with no after-snapshot, so restore does not take the line
    # for one still mid-turn; restoring to before the turn works, the killed turn's changes are in the next one's.
    from xworkmate.store.checkpoints import CheckpointRepository  # loaded once a turn was found dead (issue 34 item 4)

    CheckpointRepository(store).end_unfinished(key, "interrupted")


def interruption_notice(key: str, *, kept: int, partial: bool) -> str:
    """The notice's words: that a crash interrupted the turn, and what was kept."""
    if kept and partial:
        what = f"your message, {kept} message(s) the agent stored and the reply it was writing (above)"
    elif kept:
        what = f"your message and {kept} message(s) the agent stored (above)"
    elif partial:
        what = "your message and the reply the agent was writing (above)"
    else:
        what = "your message; the agent had stored nothing yet"
    return (
        "This turn was interrupted by a crash: the process running it stopped (killed, crashed or the power went)."
        f" Kept: {what}. Nothing runs again until you press Resume (or run `xworkmate run {key} --resume`)."
    )
