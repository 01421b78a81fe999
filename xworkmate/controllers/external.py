"""Other processes' changes as this controller's own change records (issue 19, item 6).

``ExternalLines`` sits beside ``SessionController`` (which builds it with what
it needs: the store, its ``emit`` and whether a line runs here) and does two things:

* **Tells the others.** It hears every record the controller reports, and writes
  the line's run status into ``line_runs`` (on a worker of its own, in order) (``running``, ``needs_approval``,
  ``needs_sign_in``, then how the turn ended), so another window can show the
  badge; it remembers the ids of the messages this process stored, so their
  echo from the database is not reported twice.
* **Hears the others.** ``apply(change)`` (on the thread the records are for,
  the GUI thread in the window) turns an ``ExternalChange`` from
  ``store.external_changes`` into the records a local change would have made:
  ``LineCreated``, ``LineUpdated``, ``MessagesAppended`` and, for a run status,
  ``LineUpdated`` (the attention tracker and the list re-read the line's facts,
  where ``status_elsewhere`` now says "running" or "needs approval") or, when
  the turn ended, ``RunFinished``. The window applies them as it applies its own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from xworkmate.controllers.changes import (
    ApprovalRequested,
    ApprovalSettled,
    Change,
    LineCreated,
    LineUpdated,
    MessagesAppended,
    QueueChanged,
    RunFinished,
    RunStarted,
    SignInRequested,
    SignInSettled,
)
from xworkmate.controllers.store_thread import StoreThread
from xworkmate.domain.turn_endings import TURN_ENDINGS, TurnEnding

if TYPE_CHECKING:
    from xworkmate.store import Store
    from xworkmate.store.external_changes import ChangeWatcher, ExternalChange

log = logging.getLogger(__name__)

ACTIVE_ELSEWHERE = frozenset({"running", "needs_approval", "needs_sign_in"})
"""Run statuses of a turn still going on in another process."""
_OWN_MESSAGES_KEPT = 10_000


class ExternalLines:
    """See the module's notes. ``emit`` reports a record as the controller's own."""

    def __init__(
        self,
        store: Store,
        *,
        emit: Callable[[Change], None],
        running_here: Callable[[str], bool],
        store_thread: StoreThread | None = None,
    ) -> None:
        self._store = store
        self._emit = emit
        self._running_here = running_here
        self._watcher: ChangeWatcher | None = None
        self._elsewhere: dict[str, str] = {}
        self._own_messages: set[int] = set()
        self._applying = False
        # One thread writes the statuses, in their order (the controller's store thread when given).
        self._writer = store_thread or StoreThread(lambda _change: None)
        store.before_close(self.flush)  # the statuses written before the pools go

    # -- what runs elsewhere ------------------------------------------------------

    def status_elsewhere(self, key: str) -> str | None:
        """``running``, ``needs_approval`` or ``needs_sign_in`` while another process runs the line's turn."""
        return self._elsewhere.get(key)

    def running_elsewhere(self, key: str) -> bool:
        return key in self._elsewhere

    @property
    def anything_elsewhere(self) -> bool:
        """Some line has a turn another process runs (the window then looks for dead ones, issue 31)."""
        return bool(self._elsewhere)

    def ended_elsewhere(self, key: str) -> None:
        """The other process's turn on ``key`` is over: it died, and this process recorded it (issue 31)."""
        self._elsewhere.pop(key, None)

    # -- telling the others ---------------------------------------------------------

    def on_change(self, change: Change) -> None:
        """A record this controller reported (subscribed by ``SessionController``)."""
        if self._applying:
            return  # an outside change being re-reported: not ours to tell
        if isinstance(change, MessagesAppended):
            if len(self._own_messages) > _OWN_MESSAGES_KEPT:
                self._own_messages.clear()  # echoes not heard (no watcher): forget them
            self._own_messages.update(change.message_ids)
            return
        status = _run_status(change)
        if status is None:
            return
        key = change.key
        self._writer.submit(lambda: self._write(key, status), what=f"the run status of {key}")

    def _write(self, key: str, status: str) -> None:
        """On the writer's thread: the turn (on the GUI thread in the window) never waits for this write."""
        from xworkmate.store.external_changes import mark_run

        if self._store.closed:
            return  # the window or the command is done with the store: nobody is left to tell
        mark_run(self._store, key, status)  # a failure is logged: other windows miss a badge, the turn goes on

    def flush(self) -> None:
        """Wait until the run statuses reported so far are written (``close`` does; so may a test)."""
        self._writer.wait()

    # -- hearing the others -----------------------------------------------------------

    @property
    def watcher(self) -> ChangeWatcher:
        if self._watcher is None:
            from xworkmate.store.external_changes import ChangeWatcher

            self._watcher = ChangeWatcher(self._store)
            self._elsewhere = self._read_elsewhere()
        return self._watcher

    def _read_elsewhere(self) -> dict[str, str]:
        from xworkmate.store.external_changes import ORIGIN, run_statuses

        statuses = run_statuses(self._store, besides=ORIGIN)  # this process's own turns say more themselves
        return {k: mark.status for k, mark in statuses.items() if mark.status in ACTIVE_ELSEWHERE}

    @property
    def listening(self) -> bool:
        return self._watcher is not None and self._watcher.listening

    def wake(self) -> None:
        """Look now (SQLite); a no-op before ``watcher.listen``."""
        if self._watcher is not None:
            self._watcher.wake()

    def poll(self) -> ExternalChange:
        """What other processes changed since the last call (cheap when nothing changed; any thread)."""
        return self.watcher.poll()

    def records(self, change: ExternalChange) -> list[Change]:
        """The change records ``change`` stands for; updates what runs elsewhere (call where ``apply`` runs)."""
        records: list[Change] = [LineCreated(key=k) for k in change.created]
        records += [LineUpdated(key=k) for k in change.updated]
        by_line: dict[str, list[int]] = {}
        for key, message_id in change.messages:
            if message_id in self._own_messages:
                self._own_messages.discard(message_id)  # this process stored it and said so already
                continue
            by_line.setdefault(key, []).append(message_id)
        records += [MessagesAppended(key=k, message_ids=tuple(ids)) for k, ids in by_line.items()]
        records += [QueueChanged(key=k) for k in change.queues]  # issue 31: the strip reads the queue again
        if change.everything:  # the notices were lost for a while: what runs elsewhere is read again
            before, self._elsewhere = self._elsewhere, self._read_elsewhere()
            changed = {k for k in before.keys() | self._elsewhere.keys() if before.get(k) != self._elsewhere.get(k)}
            records += [LineUpdated(key=k) for k in sorted(changed) if not self._running_here(k)]
        for run in change.runs:
            if self._running_here(run.key):
                continue  # the turn runs in this process: its own records say more
            if run.status in ACTIVE_ELSEWHERE:
                self._elsewhere[run.key] = run.status
                records.append(LineUpdated(key=run.key))
            elif self._elsewhere.pop(run.key, None) is not None or run.status in TURN_ENDINGS:
                if run.status in TURN_ENDINGS:  # first: the tracker records the outcome, then the row repaints
                    records.append(RunFinished(key=run.key, status=TurnEnding(run.status)))
                records.append(LineUpdated(key=run.key))
        return records

    def apply(self, change: ExternalChange) -> list[Change]:
        """Report ``change`` as this controller's records (to its subscribers: the window, the tracker)."""
        records = self.records(change)
        self._applying = True
        try:
            for record in records:
                self._emit(record)
        finally:
            self._applying = False
        return records

    def close(self) -> None:
        self.flush()
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None


def _run_status(change: Change) -> str | None:
    """The run status a record of this process's own turn means, if any."""
    if isinstance(change, RunStarted | ApprovalSettled | SignInSettled):
        return "running"
    if isinstance(change, ApprovalRequested):
        return "needs_approval"
    if isinstance(change, SignInRequested):
        return "needs_sign_in"
    if isinstance(change, RunFinished):
        return change.status
    return None
