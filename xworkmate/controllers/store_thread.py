"""The controller's store thread: a turn's reads and writes, off the event loop (issue 19, item 1; LOOP-4).

A turn runs on the event loop (the window's, under qasync), but every store call it makes is
synchronous SQLAlchemy: behind a team PostgreSQL 20 ms away, one native turn with one tool call
held the loop for 32 statements. ``StoreThread.call(work)`` runs ``work()`` on one thread of the
controller's own and hands its result back to the loop; the change records ``work`` emits
meanwhile are *held* (``ControllerContext.emit`` asks ``held_changes()``) and delivered on the
loop, in order, once it returns, so no listener (the window's bridge, the attention marks) ever
runs off the loop.

``TurnWrites`` is one turn's queue on that thread. The agent's event sink is synchronous (a
streamed token must not wait for the database), so what an event stores is *queued*: the queue
runs its items strictly in order, store work on the store thread and loop work on the loop, so a
tool's running card never overtakes the answer that called it, and a read the turn makes next
(its inbox at a safe point, a tool result as the model may see it) runs after every write before
it on the same thread. A write that fails is logged and fails the turn at its next ``settle()``
(ERR-1); the writes queued after it are skipped, the change records still go out.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from xworkmate.foreground import step_aside

if TYPE_CHECKING:
    from xworkmate.controllers.changes import Change

log = logging.getLogger(__name__)

T = TypeVar("T")
STORE_THREAD = "xworkmate-turn-store"

_held = threading.local()


def held_changes() -> list[Change] | None:
    """The change records held for the store-thread work running on this thread (``None`` outside one)."""
    changes: list[Change] | None = getattr(_held, "changes", None)
    return changes


def _deliver_then_retrieve(deliver: Callable[[], None]) -> Callable[[asyncio.Future[Any]], None]:
    """For work a Stop left running: its records go out when it is done, and its error is retrieved (so
    asyncio does not log it as never retrieved; the turn already ended)."""

    def done(future: asyncio.Future[Any]) -> None:
        deliver()
        if not future.cancelled():
            future.exception()

    return done


class StoreThread:
    """One thread for a controller's turn store work; its change records are delivered on the loop."""

    def __init__(self, deliver: Callable[[Change], None]) -> None:
        self._deliver = deliver
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.calls = 0  # how many ``call``s were made (issue 34 item 1: a benchmark reports them per turn)

    def _thread(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the controller is closed: nothing more is stored")
            if self._executor is None:
                # An agent's work: below the window's CPU priority, as the agents' processes are (issue 34 item 1).
                from xworkmate.agents.priority import lower_this_thread

                self._executor = ThreadPoolExecutor(1, thread_name_prefix=STORE_THREAD, initializer=lower_this_thread)
            return self._executor

    async def call(self, work: Callable[[], T]) -> T:
        """``work()`` on the store thread; what it emitted is delivered here, before its result (or error)."""
        loop = asyncio.get_running_loop()
        self.calls += 1
        changes: list[Change] = []

        def held() -> T:
            step_aside()  # a switch the person waits on first (``xworkmate.foreground``)
            _held.changes = changes
            try:
                return work()
            finally:
                _held.changes = None

        def deliver() -> None:
            for change in changes:  # what it changed before it failed is still said
                self._deliver(change)

        future = asyncio.ensure_future(loop.run_in_executor(self._thread(), held))
        try:
            result = await asyncio.shield(future)
        except asyncio.CancelledError:  # Stop: the work itself runs on; its records go out when it is done
            future.add_done_callback(_deliver_then_retrieve(deliver))
            raise
        except BaseException:
            deliver()
            raise
        deliver()
        return result

    def submit(self, work: Callable[[], object], *, what: str) -> None:
        """``work()`` on the store thread, in order, waited for by nobody: a failure is logged as ``what``
        (a mark the person would set again; the turn or the click goes on). It must not emit."""

        def logged() -> None:
            step_aside()
            try:
                work()
            except Exception as exc:
                log.warning("could not store %s: %s", what, exc)

        self._thread().submit(logged)

    def wait(self) -> None:
        """Block until the work submitted so far has run (closing does; so may a test)."""
        with self._lock:
            executor = self._executor
        if executor is not None:
            executor.submit(lambda: None).result()

    def close(self) -> None:
        """Wait for the work already queued (a turn's last writes), then stop the thread."""
        with self._lock:
            executor, self._executor, self._closed = self._executor, None, True
        if executor is not None:
            executor.shutdown(wait=True)


class TurnWrites:
    """One turn's store work and change records, run strictly in the order they were queued."""

    def __init__(self, store: StoreThread) -> None:
        self._store = store
        self._queue: deque[tuple[Callable[[], object], str]] = deque()  # (work, where: loop|store|always)
        self._pump: asyncio.Task[None] | None = None
        self.error: BaseException | None = None

    def write(self, work: Callable[[], object], *, after_failure: bool = False) -> None:
        """Queue ``work()`` for the store thread; once a write has failed it is skipped, unless
        ``after_failure`` (the notice saying why the turn failed is still tried)."""
        self._queue.append((work, "always" if after_failure else "store"))
        self._start()

    def then(self, step: Callable[[], object]) -> None:
        """``step()`` on the loop, after everything queued so far (at once when nothing is)."""
        if self._pump is None:
            step()
            return
        self._queue.append((step, "loop"))

    def _start(self) -> None:
        if self._pump is None:
            self._pump = asyncio.get_running_loop().create_task(self._drain(), name="turn store writes")

    async def _drain(self) -> None:
        try:
            while self._queue:
                work, where = self._queue.popleft()
                if where == "loop":
                    try:
                        work()
                    except Exception:  # a listener's fault must not stop the turn's writes
                        log.error("a turn's change record could not be applied", exc_info=True)
                elif self.error is None or where == "always":
                    try:
                        await self._store.call(work)
                    except Exception as exc:  # ERR-1: the turn fails at its next settle, in one line
                        log.error("a turn's store write failed", exc_info=True)
                        self.error = self.error or exc
        finally:
            self._pump = None

    async def drained(self) -> None:
        """Wait until everything queued has run (a cancelled waiter leaves the queue running)."""
        while self._pump is not None:
            await asyncio.shield(self._pump)

    async def settle(self) -> None:
        """``drained()``, then raise the first failed write's error."""
        await self.drained()
        if self.error is not None:
            raise self.error

    async def read(self, work: Callable[[], T]) -> T:
        """``work()`` on the store thread after every write queued before it (it sees them)."""
        await self.settle()
        return await self._store.call(work)
