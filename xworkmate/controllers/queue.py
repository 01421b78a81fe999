"""The follow-up queue (issue 31 item 3; SPEC PROV-4, ERR-1, LOOP-4).

While a turn runs on a line, the person's Send (the window's Enter, ``xworkmate task send``)
queues the follow-up in ``queued_followups`` instead of being refused. The queue is the
person's to edit, reorder and remove from; it survives a restart. ``TurnController`` drains it
when a turn ends well, one item a turn, in order: each item becomes the person's message only
then (a task's dispatch snapshot re-captured at delivery, PROV-4).

"Send now" steers: the item leaves the queue and is stored as the person's message at once,
through the issue 14 path — a running native turn reads it at its next safe point (the end of
its current step); an ACP agent cannot take words mid-prompt, so it gets it as its very next
prompt, before the rest of the queue (nothing is cancelled). On an idle line it is an ordinary
Send. Every call reads or writes the store: the window runs them off the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable

from xworkmate.controllers.changes import QueueChanged
from xworkmate.controllers.context import ControllerContext
from xworkmate.controllers.outcomes import SendOutcome
from xworkmate.domain.followup_queue import QueuedFollowup, Which, check_text


class FollowupQueue:
    """Each line's queue of follow-ups: ``send`` is the controller's Send (used by Send now on an idle
    line), ``store_person_message`` the one place the person's words are stored (issue 14)."""

    def __init__(
        self,
        ctx: ControllerContext,
        *,
        send: Callable[[str, str], SendOutcome],
        store_person_message: Callable[[str, str], int],
    ) -> None:
        self._ctx = ctx
        self._send = send
        self._store_person_message = store_person_message

    def busy(self, key: str) -> bool:
        """A turn runs on the line, in this process or (by its stored run status) in another one:
        a Send now queues."""
        canonical = self._ctx.canonical(key)
        if self._ctx.is_running(canonical):
            return True
        from xworkmate.store.external_changes import ORIGIN, run_statuses

        mark = run_statuses(self._ctx.store, besides=ORIGIN).get(canonical)
        return mark is not None and mark.status == "running"

    def queue(self, key: str, text: str) -> QueuedFollowup:
        """Queue ``text`` last on the line (the line must exist; ERR-1: one line when it does not)."""
        canonical = self._ctx.get_thread(key).thread_id
        item = self._ctx.store.followup_queue.add(canonical, check_text(text))
        self._ctx.emit(QueueChanged(key=canonical))
        return item

    def items(self, key: str) -> list[QueuedFollowup]:
        return self._ctx.store.followup_queue.items(self._ctx.get_thread(key).thread_id)

    def remove(self, key: str, which: Which) -> QueuedFollowup:
        canonical = self._ctx.get_thread(key).thread_id
        item = self._ctx.store.followup_queue.remove(canonical, which)
        self._ctx.emit(QueueChanged(key=canonical))
        return item

    def edit(self, key: str, which: Which, text: str) -> QueuedFollowup:
        canonical = self._ctx.get_thread(key).thread_id
        item = self._ctx.store.followup_queue.edit(canonical, which, text)
        self._ctx.emit(QueueChanged(key=canonical))
        return item

    def move(self, key: str, which: Which, to: int) -> list[QueuedFollowup]:
        canonical = self._ctx.get_thread(key).thread_id
        items = self._ctx.store.followup_queue.move(canonical, which, to)
        self._ctx.emit(QueueChanged(key=canonical))
        return items

    def shift(self, key: str, which: Which, step: int) -> list[QueuedFollowup]:
        """``which`` ``step`` places from where it is now (the window's ↑ is -1, ↓ is 1)."""
        canonical = self._ctx.get_thread(key).thread_id
        items = self._ctx.store.followup_queue.shift(canonical, which, step)
        self._ctx.emit(QueueChanged(key=canonical))
        return items

    def send_now(self, key: str, which: Which) -> SendOutcome:
        """Item ``which`` now: steered into the running turn, or sent as an ordinary Send on an idle
        line. Refused (the gate's reasons) leaves it where it was in the queue."""
        queue = self._ctx.store.followup_queue
        canonical = self._ctx.get_thread(key).thread_id
        item = queue.remove(canonical, which)
        try:
            if self.busy(canonical):
                message_id = self._store_person_message(canonical, item.text)
                outcome = SendOutcome(key=canonical, ran=True, notice="", message_ids=(message_id,))
            else:
                outcome = self._send(canonical, item.text)
        except BaseException:
            back = queue.add(canonical, item.text)  # put back where it was: nothing the person wrote is lost
            if back.position > item.position:  # (the queue may have shortened meanwhile)
                queue.move(canonical, back, item.position)
            raise
        finally:
            self._ctx.emit(QueueChanged(key=canonical))
        return outcome
