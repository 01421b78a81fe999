"""The app's asyncio loop (``xworkmate.ui.event_loop.AppEventLoop``; issue 34 item 1, LOOP-1).

Each test runs a real loop on the tests' ``qapp`` with real descriptors (socket pairs, pipes, a real
subprocess), never a fake notifier. None times a step: the reads are counted against the writes.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication

from xworkmate.ui.event_loop import GUI_SWITCH_INTERVAL_S, READ_REST_S, AppEventLoop


@pytest.fixture
def app_loop(qapp: QApplication) -> Iterator[AppEventLoop]:
    loop = AppEventLoop(qapp)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def test_callbacks_run_in_order_and_those_they_make_ready_wait_for_qts_turn(app_loop: AppEventLoop) -> None:
    """One drained queue, as asyncio's own loop: FIFO; a callback made ready by a callback runs in the next
    drain, after the Qt events already posted (a zero timer started before it fires in between)."""
    seen: list[str] = []

    def first() -> None:
        seen.append("first")
        QTimer.singleShot(0, lambda: seen.append("qt"))
        app_loop.call_soon(seen.append, "made ready by first")

    async def main() -> None:
        app_loop.call_soon(first)
        app_loop.call_soon(seen.append, "second")
        cancelled = app_loop.call_soon(seen.append, "cancelled")
        cancelled.cancel()
        for _ in range(5):
            await asyncio.sleep(0)
        await asyncio.sleep(0.05)

    app_loop.run_until_complete(main())
    assert seen == ["first", "second", "qt", "made ready by first"]


def test_a_descriptors_callback_can_be_removed_replaced_and_added_again(app_loop: AppEventLoop) -> None:
    """The notifier lasts; the callback does not: a removed reader is not called for data that arrives after,
    a replaced one calls only the new callback, and a descriptor number reused by a new socket is watched."""
    calls: list[tuple[str, bytes]] = []

    def reader(name: str, sock: socket.socket) -> None:
        calls.append((name, sock.recv(100)))

    async def settle() -> None:
        await asyncio.sleep(3 * READ_REST_S + 0.05)

    async def main() -> None:
        a, b = socket.socketpair()
        a.setblocking(False)
        app_loop.add_reader(a.fileno(), reader, "one", a)
        b.send(b"x")
        await settle()
        app_loop.add_reader(a.fileno(), reader, "two", a)  # replaces "one"
        b.send(b"y")
        await settle()
        assert app_loop.remove_reader(a.fileno()) and not app_loop.remove_reader(a.fileno())
        b.send(b"z")
        await settle()
        number = a.fileno()
        a.close()
        b.close()
        c, d = socket.socketpair()  # the lowest free numbers: most likely a's again
        c.setblocking(False)
        app_loop.add_reader(c.fileno(), reader, "three" if c.fileno() == number else "three (new number)", c)
        d.send(b"w")
        await settle()
        app_loop.remove_reader(c.fileno())
        c.close()
        d.close()

    app_loop.run_until_complete(main())
    assert [c for c in calls if c[0] != "three (new number)"][:2] == [("one", b"x"), ("two", b"y")]
    assert ("two", b"z") not in calls and calls[-1][1] == b"w"


def test_a_busy_stream_is_read_in_batches_not_once_per_chunk(app_loop: AppEventLoop) -> None:
    """A stream written in many small pieces, faster than the rest between reads, is read in far fewer reads
    than pieces, and every byte arrives in order. Reads are counted, not timed: at most one read a rest
    (``READ_REST_S``) plus the first, whatever the machine's speed; a loop that reads each piece as it lands
    makes about one read per piece here."""
    pieces, spacing_s = 200, 0.001
    reads: list[bytes] = []

    async def main() -> bytes:
        a, b = socket.socketpair()
        a.setblocking(False)
        done = asyncio.Event()

        def on_readable() -> None:
            data = a.recv(1 << 16)
            reads.append(data)
            if not data or sum(map(len, reads)) >= pieces * 4:
                done.set()

        def write() -> None:
            for i in range(pieces):
                b.send(f"{i:03d},".encode())
                time.sleep(spacing_s)

        app_loop.add_reader(a.fileno(), on_readable)
        writer = threading.Thread(target=write)
        started = time.monotonic()
        writer.start()
        await asyncio.wait_for(done.wait(), 30)
        elapsed = time.monotonic() - started
        writer.join()
        app_loop.remove_reader(a.fileno())
        a.close()
        b.close()
        assert len(reads) <= elapsed / READ_REST_S + 2, (len(reads), elapsed)
        return b"".join(reads)

    got = app_loop.run_until_complete(main())
    assert got == b"".join(f"{i:03d},".encode() for i in range(pieces))
    assert len(reads) < pieces / 2, f"{len(reads)} reads for {pieces} pieces"


def test_a_subprocess_talks_through_pipes_on_the_loop(app_loop: AppEventLoop) -> None:
    """Pipes (an ACP agent's stdio) read and written on the loop: a real child echoes each line back."""
    script = "import sys\nfor line in sys.stdin:\n    print(line.strip().upper(), flush=True)\n"

    async def main() -> list[bytes]:
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        assert child.stdin is not None and child.stdout is not None
        answers = []
        for word in (b"one", b"two", b"three"):
            child.stdin.write(word + b"\n")
            await child.stdin.drain()
            answers.append(await asyncio.wait_for(child.stdout.readline(), 30))
        child.stdin.close()
        await child.wait()
        return answers

    assert app_loop.run_until_complete(main()) == [b"ONE\n", b"TWO\n", b"THREE\n"]


def test_callbacks_qt_runs_between_two_runs_find_the_loop_running(qapp: QApplication) -> None:
    """A test processes Qt events between ``run_until_complete`` calls (qtbot): a ready callback and a reader's
    callback run then still find this loop as the running one, as they always do in the app."""
    loop = AppEventLoop(qapp)
    asyncio.set_event_loop(loop)
    found: list[object] = []
    r, w = os.pipe()
    try:
        loop.call_soon(lambda: found.append(asyncio.get_running_loop()))
        loop.add_reader(r, lambda: (found.append(asyncio.get_running_loop()), os.read(r, 10)))
        os.write(w, b"x")
        deadline = time.monotonic() + 10
        while len(found) < 2 and time.monotonic() < deadline:
            QCoreApplication.processEvents()
        loop.remove_reader(r)
    finally:
        os.close(r)
        os.close(w)
        loop.close()
        asyncio.set_event_loop(None)
    assert found == [loop, loop]


def test_the_gui_loop_has_other_threads_hand_the_interpreter_lock_back_within_half_a_millisecond(
    app_loop: AppEventLoop,
) -> None:
    """Issue 34 item 1: PySide6 lets go of the lock around each Qt call; a store thread running Python would keep
    it up to Python's default 5 ms each time the GUI thread wants it back."""
    assert sys.getswitchinterval() <= GUI_SWITCH_INTERVAL_S == 0.0005
