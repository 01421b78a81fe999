"""An ACP agent's own login program, run under a pseudo-terminal for a person (issue 32 item 4, ``auth.terminal``).

A terminal sign-in method is the agent's command plus the method's ``args``, with its ``env``; the program must
see a TTY. It runs in the agent's own sandbox (SBX-1: the same state folders writable; SBX-4: the same network
allow-list and proxy) with the agent's environment. The pty is read on the event loop (``add_reader``: under
qasync a socket notifier on the GUI thread, never a blocking read); the window shows the text and writes lines.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xworkmate.agents.acp.errors import AcpAgentError, AcpCommandNotFound
from xworkmate.agents.sandbox import Sandbox, SandboxUnavailable
from xworkmate.terminal_text import plain_terminal_output

if TYPE_CHECKING:
    from xworkmate.agents.acp.reports import AcpAuthMethod

_READ = 4096
TEXT_KEPT = 1_000_000
"""``text`` keeps the program's last this many characters (a window opened late shows them; a flood of output
does not grow without end)."""
_EOF_GRACE = 1.0  # seconds to drain what the program wrote before it exited


class LoginTerminal:
    """One running login program. ``text`` is what it printed so far, as plain text; ``listen`` is told each
    new piece; ``status`` is its exit status once it ended (a signal: minus its number)."""

    end_grace = 5.0
    """Seconds a stopped program has to end before its process group is killed."""

    def __init__(self, command: Sequence[str], title: str) -> None:
        self.command = tuple(command)  # as the person reads it: the agent's command and the method's args
        self.title = title
        self._pieces: list[str] = []  # ``text``, in pieces (joined when asked: appending is not quadratic)
        self._kept = 0
        self.status: int | None = None
        self._listeners: list[Callable[[str], None]] = []
        self._exit_listeners: list[Callable[[int], None]] = []
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._master: int | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._eof: asyncio.Future[None] | None = None
        self._draining = False  # stopped: what it still writes is read and dropped until the pty has no writer
        self._ending: set[asyncio.Task[None]] = set()

    async def start(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], sandbox: Sandbox | None) -> None:
        """Start ``argv`` on a new pty (in ``sandbox`` when it is usable, as the agent itself runs)."""
        run = list(argv)
        if sandbox is not None and sandbox.available:
            try:
                run = sandbox.wrap(run)
            except SandboxUnavailable as exc:
                raise AcpAgentError(self.command, str(exc)) from None
        master, slave = os.openpty()
        try:
            self._process = await asyncio.create_subprocess_exec(
                *run,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=cwd,
                env=dict(env),
                start_new_session=True,  # its own group: Stop ends it and what it started
            )
        except FileNotFoundError as exc:
            os.close(master)
            raise AcpCommandNotFound(self.command, str(exc)) from None
        except OSError as exc:
            os.close(master)
            raise AcpAgentError(self.command, f"cannot start the sign-in program: {exc.strerror or exc}") from None
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self._master = master
        loop = asyncio.get_running_loop()
        self._eof = loop.create_future()
        loop.add_reader(master, self._readable)

    @property
    def text(self) -> str:
        """What the program printed so far, as plain text (its last ``TEXT_KEPT`` characters, at the least)."""
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    def _keep(self, piece: str) -> None:
        self._pieces.append(piece)
        self._kept += len(piece)
        if self._kept > 2 * TEXT_KEPT:  # once the kept text doubles: a copy per TEXT_KEPT characters read
            self._pieces = [self.text[-TEXT_KEPT:]]
            self._kept = TEXT_KEPT

    def listen(self, on_text: Callable[[str], None], on_exit: Callable[[int], None]) -> None:
        self._listeners.append(on_text)
        self._exit_listeners.append(on_exit)

    def _readable(self) -> None:
        assert self._master is not None
        try:
            data = os.read(self._master, _READ)
        except BlockingIOError:
            return
        except OSError:  # EIO: every writer of the pty is gone
            data = b""
        if not data:
            self._stop_reading()
            return
        if self._draining:
            return
        piece = plain_terminal_output(self._decoder.decode(data))
        if piece:
            self._keep(piece)
            for listener in list(self._listeners):
                listener(piece)

    def _stop_reading(self) -> None:
        if self._master is not None:
            asyncio.get_running_loop().remove_reader(self._master)
        if self._eof is not None and not self._eof.done():
            self._eof.set_result(None)

    def write_line(self, line: str) -> None:
        """The person's line, with Enter, to the program's terminal."""
        if self._master is None or self.status is not None:
            raise RuntimeError("the sign-in program has ended")
        data = (line + "\r").encode()
        while data:  # never waits: a program that stopped reading gets a one-line refusal, not a frozen window
            try:
                written = os.write(self._master, data)
            except BlockingIOError:
                raise RuntimeError("the sign-in program is not reading what is typed") from None
            data = data[written:]

    def stop(self) -> None:
        """End the program (and everything it started)."""
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)

    async def wait(self) -> int:
        """Its exit status, once it ended and its last output was read; the pty is closed then."""
        assert self._process is not None and self._eof is not None
        try:
            status = await self._process.wait()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._eof), _EOF_GRACE)
        finally:
            self.close()
        self.status = status
        for listener in list(self._exit_listeners):
            listener(status)
        return status

    def close(self) -> None:
        """Stop it if it still runs and release the pty (idempotent; a cancelled turn calls it, and the window
        is told the program was stopped).

        A program still running keeps its pty until every process holding it has ended: closing the pty first
        would hand the program an end of input before the signal reaches it (in the sandbox the signal reaches
        it only as bubblewrap ends), and a login program acts on that end of input as on a typed empty line."""
        running = self._process is not None and self._process.returncode is None
        self.stop()
        if self._master is not None and not self._draining:
            if running:
                self._draining = True
                task = asyncio.get_running_loop().create_task(self._release_when_ended())
                self._ending.add(task)
                task.add_done_callback(self._ending.discard)
            else:
                self._release()
        if running and self.status is None:
            self.status = -signal.SIGTERM
            for listener in list(self._exit_listeners):
                listener(self.status)

    async def _release_when_ended(self) -> None:
        """Close the pty once the program has ended and nothing holds its pty (killed after a grace)."""
        assert self._process is not None and self._eof is not None
        try:
            ended = asyncio.gather(self._process.wait(), asyncio.shield(self._eof))
            try:
                await asyncio.wait_for(ended, self.end_grace)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self._process.pid, signal.SIGKILL)
        finally:
            self._release()

    def _release(self) -> None:
        self._stop_reading()
        if self._master is not None:
            os.close(self._master)
            self._master = None


LoginShower = Callable[[LoginTerminal], None]
"""The window's part: show a started login program to the person (it may write lines and stop it)."""
LoginLauncher = Callable[["AcpAuthMethod"], Awaitable[LoginTerminal]]
"""The runner's part: start a terminal method's login program where the agent runs."""
