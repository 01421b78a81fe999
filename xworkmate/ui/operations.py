"""Operations, not calls: what the window starts runs on the store worker, never on the GUI thread
(issue 19, item 1; SPEC LOOP-4). Modelled on Anki's ``CollectionOp`` / ``QueryOp``:

* ``StoreOperations.run(work, done=..., failed=...)`` (the ``CollectionOp``): ``work()`` — a controller
  call that changes something — runs on ONE worker thread, so operations run one at a time and in the
  order the person started them (the controller's own state, such as the current key, is only ever
  changed there or on the GUI thread before an operation starts). The change records the controller
  emits meanwhile are *collected*, not delivered (``ui/bridge`` asks ``collecting()``); the worker then
  reads what applying them needs (``controllers/views.read_ahead``), and the GUI thread applies the
  records in order and calls ``done(result)``. No Qt object is touched off the GUI thread.
* ``StoreOperations.query(read, done=..., ...)`` (the ``QueryOp``): a read with no change records.
* ``StoreOperations.deliver(changes, ...)``: records from outside an operation (a running turn's, emitted on
  the GUI loop; another process's, from the external watch), applied the same way (their reads ahead on the
  worker first), so neither reads on the GUI thread.
* A failure reaches ``failed(error)`` on the GUI thread; ``failure_line`` says an unexpected one in one
  line as the window's error boundary does (ERR-1).
* A turn the call starts (``SessionController.send``) is made on the GUI loop (``_GuiLoop``) and only
  steps once the operation's records are applied, so "running" never shows before the message it runs on.

Without a qasync loop (a widget driven by a test without one) the work runs at once on the calling
thread, as ``run_off_thread`` does, so every view still works.

One store scope per operation (``Store.operation``, through ``SessionController.operation``): the work
and its read-ahead check out one connection per pool (pinged at most once) instead of one per repository
call; each write still commits at the end of its own block (see ``Store.operation`` for why).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QCoreApplication, QObject

from xworkmate.controllers import SessionController
from xworkmate.controllers.failures import describe_failure
from xworkmate.controllers.views import ReadAhead, read_ahead
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.background import qasync_loop, run_off_thread

log = logging.getLogger(__name__)

T = TypeVar("T")
STORE_WORKER = "xworkmate-store"
CLOSE_WAIT_S = 10.0  # how long a closing window waits for its last writes on the worker
TURN_HANDOVER_S = 10.0  # how long the worker waits for the GUI loop to take a turn it started

_collecting = threading.local()


def collecting() -> list[object] | None:
    """The change records of the operation running on this thread (``None`` outside one)."""
    sink: list[object] | None = getattr(_collecting, "sink", None)
    return sink


def failure_line(error: BaseException, database_url: str) -> str:
    """An unexpected failure as the one line the window shows (ERR-1); its traceback goes to the log."""
    return QCoreApplication.translate("MainWindow", "That did not work — {error}").format(
        error=plain_words(describe_failure(error, database_url))
    )


@dataclass
class Outcome(Generic[T]):
    """What an operation hands back to the GUI thread."""

    result: T
    changes: list[object] = field(default_factory=list)
    ahead: ReadAhead = field(default_factory=ReadAhead)


class _GuiLoop(asyncio.AbstractEventLoop):
    """The store worker's event loop as the controller sees it: ``create_task`` makes the task on the GUI
    loop (handed over thread-safely) and holds its first step until the operation is applied."""

    def __init__(self, gui: asyncio.AbstractEventLoop) -> None:
        self._gui = gui

    def create_task(self, coro: Coroutine[Any, Any, T], **kwargs: Any) -> asyncio.Task[T]:  # type: ignore[override]
        gates = getattr(_collecting, "gates", None)
        made: Future[asyncio.Task[T]] = Future()

        def make() -> None:
            try:
                gate: asyncio.Future[None] = self._gui.create_future()
                if gates is not None:
                    gates.append(gate)
                else:
                    gate.set_result(None)
                made.set_result(self._gui.create_task(_after(gate, coro), **kwargs))
            except BaseException as exc:  # handed back to the worker, which raises it in the controller
                made.set_exception(exc)

        self._gui.call_soon_threadsafe(make)
        return made.result(timeout=TURN_HANDOVER_S)

    def is_closed(self) -> bool:
        return self._gui.is_closed()


async def _after(gate: asyncio.Future[None], coro: Coroutine[Any, Any, T]) -> T:
    try:
        await gate
    except asyncio.CancelledError:
        coro.close()
        raise
    return await coro


class StoreOperations(QObject):
    """A window's operations on the store: one worker thread, answers applied on the GUI thread.

    ``apply(changes, ahead)`` is the window's: it applies an operation's change records in order, using
    what the worker read ahead instead of reading again. ``first_page()``: how many messages a line
    shown by an operation needs; ``shown()``: the line the window shows (both asked on the GUI thread
    when the operation starts).
    """

    def __init__(
        self,
        controller: SessionController,
        apply: Callable[[list[object], ReadAhead], None],
        parent: QObject | None = None,
        *,
        first_page: Callable[[], int] = lambda: 1,
        shown: Callable[[], str | None] = lambda: None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("storeOperations")
        self._controller = controller
        self._apply = apply
        self._first_page = first_page
        self._shown = shown
        self.applying = False  # True while an operation's records are being applied
        self._executor: ThreadPoolExecutor | None = None
        self._running = 0
        self._batch: list[object] = []  # records waiting for the delivery on the worker to be applied
        self._batch_failed: Callable[[BaseException], None] = lambda _error: None
        self._delivering = False
        self._queued: set[asyncio.Future[Any]] = set()  # operations on the worker, their answers to come
        self._finished = False  # the window closed (``finish``): nothing more runs and no answer is applied

    def first_page(self) -> int:
        """How many messages a read of a line's panes asks for now (the conversation's height)."""
        return self._first_page()

    @property
    def running(self) -> int:
        """Operations started and not yet applied (tests wait for 0)."""
        return self._running

    def _worker(self) -> ThreadPoolExecutor | None:
        loop = qasync_loop()
        if loop is None:
            return None  # no loop: run_off_thread runs the work at once
        if self._executor is None:

            def install_loop() -> None:
                # Only create_task and is_closed are asked of it; the rest raise NotImplementedError, as
                # AbstractEventLoop's own bodies do (typeshed declares them abstract).
                asyncio.set_event_loop(_GuiLoop(loop))  # type: ignore[abstract]

            self._executor = ThreadPoolExecutor(1, thread_name_prefix=STORE_WORKER, initializer=install_loop)
        return self._executor

    def run(
        self,
        work: Callable[[], T],
        *,
        done: Callable[[T], None] | None = None,
        failed: Callable[[BaseException], None],
    ) -> None:
        """``work()`` on the worker; its change records applied, then ``done(result)``, on the GUI thread.
        Once the window has closed (``finish``) nothing more runs and no answer is applied."""
        if self._finished:
            log.debug("the window has closed: %s not run", getattr(work, "__qualname__", work))
            return  # e.g. what was seen as the closing window loses focus: finish wrote the last of it
        executor = self._worker()
        gates: list[asyncio.Future[None]] = []
        first_page, shown = self._first_page(), self._shown()

        def operation() -> Outcome[T]:
            sink: list[object] = []
            with self._controller.operation():  # one store connection per pool for the work and its read-ahead
                _collecting.sink, _collecting.gates = sink, gates
                try:
                    result = work()
                except BaseException as exc:
                    _collecting.sink = _collecting.gates = None
                    exc._xw_changes = sink  # type: ignore[attr-defined]  # applied on the GUI thread with the failure
                    exc._xw_ahead = self._ahead_of_failed(sink, first_page, shown)  # type: ignore[attr-defined]
                    raise
                finally:
                    _collecting.sink = _collecting.gates = None
                ahead = read_ahead(self._controller, sink, first_page=first_page, shown=shown) if sink else ReadAhead()
            return Outcome(result, sink, ahead)

        def open_gates() -> None:
            for gate in gates:
                if not gate.done():
                    gate.set_result(None)

        def on_result(outcome: Outcome[T]) -> None:
            self._running -= 1
            if self._finished:
                open_gates()
                return  # come after the window closed: nobody shows it
            try:
                if outcome.changes:
                    self._applying(outcome.changes, outcome.ahead)
                if done is not None:
                    done(outcome.result)
            finally:
                open_gates()

        def on_error(error: BaseException) -> None:
            self._running -= 1
            if self._finished:
                open_gates()
                return  # come after the window closed: nobody shows it
            changes: list[object] = getattr(error, "_xw_changes", [])
            try:
                if changes:  # what the call did change before it failed is still shown (read ahead on the worker)
                    self._applying(changes, getattr(error, "_xw_ahead", None) or ReadAhead())
                failed(error)
            finally:
                open_gates()

        self._running += 1
        future = run_off_thread(operation, on_result, on_error, parent=self, executor=executor)
        if future is not None:
            self._queued.add(future)
            future.add_done_callback(self._queued.discard)

    def _ahead_of_failed(self, changes: list[object], first_page: int, shown: str | None) -> ReadAhead:
        """On the worker: what applying a failed operation's records needs, read as for one that ended (LOOP-4);
        a failing read too (the store gone) leaves nothing read ahead, and the window skips those rows."""
        if not changes:
            return ReadAhead()
        try:
            return read_ahead(self._controller, changes, first_page=first_page, shown=shown)
        except Exception:
            log.warning("the records of a failed operation could not be read ahead", exc_info=True)
            return ReadAhead()

    def _applying(self, changes: list[object], ahead: ReadAhead) -> None:
        self.applying = True
        try:
            self._apply(changes, ahead)
        finally:
            self.applying = False

    def query(
        self,
        read: Callable[[], T],
        *,
        done: Callable[[T], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        """A read with no change records, on the same worker, in order with the operations."""
        self.run(read, done=done, failed=failed)

    def deliver(self, changes: list[object], *, failed: Callable[[BaseException], None]) -> None:
        """Change records from outside an operation (a turn's, on the GUI loop; another process's) that need
        reads to be applied: those reads run on the worker as an operation's read-ahead would, and the records
        are applied after it, in order with the operations. Records delivered while a delivery is on the
        worker wait for it and then go together (another desktop's burst of messages is one read, not one
        per message); what the window shows is asked when they go, so the read is of the line shown then."""
        if not self._batch:
            self._running += 1  # the batch counts as an operation on its way (``settled`` waits for it)
        self._batch.extend(changes)
        self._batch_failed = failed
        if not self._delivering:
            self._deliver_batch()

    def _deliver_batch(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        self._running -= 1
        self._delivering = True

        def collected() -> None:
            sink = collecting()
            if sink is not None:
                sink.extend(batch)

        def delivered(_result: object = None) -> None:
            self._delivering = False
            self._deliver_batch()  # what came meanwhile

        def failed(error: BaseException) -> None:
            try:
                self._batch_failed(error)
            finally:
                delivered()

        self.run(collected, done=delivered, failed=failed)

    def finish(self, work: Callable[[], object], *, timeout: float = CLOSE_WAIT_S) -> bool:
        """The window's last writes as it closes (its layout, drafts, what was seen; issue 33 item 2): operations
        not started yet are dropped, then ``work`` runs on the worker after the one running, and the worker stops.
        The window is hidden by then (nothing waits to be painted); the closing waits at most ``timeout`` for
        the write, and a failure or a timeout is logged, never raised (the layout is a convenience). Returns
        whether ``work`` ended in time. With no qasync loop it runs at once, as every operation does."""
        self._finished = True
        for future in list(self._queued):
            # Not started: never runs; running: its answer is dropped with the window. Either way no answer
            # comes to count it back, so it stops counting here (a closed window has nothing running).
            if future.cancel():
                self._running -= 1
        if self._batch:  # records waiting for a delivery that will not come
            self._batch = []
            self._running -= 1
        executor = self._worker()
        self._executor = None
        if executor is None:
            try:
                work()
            except Exception:
                log.warning("the window's closing writes failed", exc_info=True)
                return False
            return True

        def scoped() -> object:
            with self._controller.operation():
                return work()

        ended = executor.submit(scoped)
        executor.shutdown(wait=False)
        try:
            ended.result(timeout=timeout)
        except TimeoutError:
            log.warning("the window's closing writes took longer than %.0f s; not waited for", timeout)
            return False
        except Exception:
            log.warning("the window's closing writes failed", exc_info=True)
            return False
        return True

    def shutdown(self) -> None:
        """Stop taking work; what runs finishes on its own and its answer is dropped with this object."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
