"""A loopback TCP proxy that delays every chunk by a fixed time each way (issue 19: the slow-database
benchmarks and the operations tests share this one copy).

It stands between XWorkmate and the PostgreSQL server on 127.0.0.1, so one
round trip costs about ``2 × delay`` more, as a team database across a network
would. Loopback only; it stops with its ``with`` block.

``turns`` counts round trips as the client makes them: how often it sends again
after an answer reached it (statements sent without waiting, as in psycopg's
pipeline mode, are one turn). ``reset_turns`` starts the count again.
"""

from __future__ import annotations

import contextlib
import heapq
import socket
import threading
import time
from types import TracebackType


class LatencyProxy:
    """``with LatencyProxy(5432, delay_s=0.02) as proxy: url uses proxy.port``."""

    def __init__(
        self, target_port: int, *, delay_s: float, target_host: str = "127.0.0.1", listen_host: str = "127.0.0.1"
    ) -> None:
        """``listen_host``: another of this machine's addresses stands for a remote host (SBX-4 tests)."""
        self.delay_s = delay_s
        self._target = (target_host, target_port)
        self._listener = socket.create_server((listen_host, 0))
        self.port: int = self._listener.getsockname()[1]
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._sockets: list[socket.socket] = []
        self.turns = 0
        self._answered = True
        self._turn_lock = threading.Lock()

    def reset_turns(self) -> None:
        with self._turn_lock:
            self.turns, self._answered = 0, True

    def __enter__(self) -> LatencyProxy:
        self._spawn(self._accept)
        return self

    def __exit__(self, *_exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._stopping.set()
        self._listener.close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _spawn(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        thread.start()
        self._threads.append(thread)

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self._target)
            for sock in (client, server):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._sockets.append(sock)
            self._pipe(client, server, answers=False)
            self._pipe(server, client, answers=True)

    def _pipe(self, source: socket.socket, sink: socket.socket, *, answers: bool) -> None:
        """Read from ``source`` at once; write each chunk to ``sink`` ``delay_s`` after it arrived, in order.
        ``answers``: this is the server's side (what it gives back ends a turn)."""
        queue: list[tuple[float, int, bytes]] = []
        ready = threading.Condition()
        counter = iter(range(1 << 62))

        def read() -> None:
            while True:
                try:
                    chunk = source.recv(65536)
                except OSError:
                    chunk = b""
                if chunk and not answers:
                    with self._turn_lock:
                        if self._answered:  # the client sends again after an answer came: a new turn
                            self.turns += 1
                            self._answered = False
                with ready:
                    heapq.heappush(queue, (time.monotonic() + self.delay_s, next(counter), chunk))
                    ready.notify()
                if not chunk:
                    return

        def write() -> None:
            while True:
                with ready:
                    while not queue:
                        ready.wait()
                    due, _, chunk = queue[0]
                    wait = due - time.monotonic()
                    if wait > 0:
                        ready.wait(wait)
                        continue
                    heapq.heappop(queue)
                if not chunk:
                    with contextlib.suppress(OSError):
                        sink.shutdown(socket.SHUT_WR)
                    return
                if answers:
                    with self._turn_lock:  # before it is given: the client's next statement may follow at once
                        self._answered = True
                try:
                    sink.sendall(chunk)
                except OSError:
                    return

        self._spawn(read)
        self._spawn(write)
