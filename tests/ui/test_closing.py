"""Closing the window from its terminal (Ctrl+C, SIGTERM), and while its store is still opening (issue 19).

The signal tests start the real ``xworkmate gui`` as a process and signal it; the opening tests use a server
that accepts and never answers, with a connect timeout far longer than the close may take.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xworkmate.cli.run import run_window
from xworkmate.controllers import SessionController
from xworkmate.controllers.runs import CLOSED_NOTICE
from xworkmate.domain.messages import MessageRole
from xworkmate.logfile import log_file_path
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store, turn_owners
from xworkmate.testing.openai_server import OpenAIServer, TextReply
from xworkmate.ui import build_main_window
from xworkmate.ui.app import OPENING_THREAD
from xworkmate.ui.shell import GEOMETRY_STATE
from xworkmate.ui.start import run_event_loop
from xworkmate.ui.theme import theme_manager

from .support_opening import HeldOpen, opening_for, shown_opening
from .support_runs import run, wait_until

READY_LOG_LINE = "the window is ready over"  # StoreOpening logs it once the window has its panes
CONNECT_TIMEOUT_S = 30  # far longer than a close may take: the close must not wait for it
STARTUP_TIMEOUT_S = 60.0


class SilentServer:
    """A TCP server on 127.0.0.1 that accepts connections and never says a word: a PostgreSQL that hangs."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, name="silent-server", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):  # the listener closed
            while True:
                connection, _address = self._listener.accept()
                self.accepted.append(connection)

    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/test?connect_timeout={CONNECT_TIMEOUT_S}"

    def close(self) -> None:
        """Every held connection closes: a connect still waiting on one fails at once."""
        self._listener.close()
        for connection in self.accepted:
            connection.close()
        self._thread.join(timeout=5)


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    server = SilentServer()
    try:
        yield server
    finally:
        server.close()


def _wait_for(condition: Callable[[], object], what: str, timeout: float = STARTUP_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _start_gui(home: Path, database_url: str | None = None) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    env.update({"XWORKMATE_HOME": str(home), "QT_QPA_PLATFORM": "offscreen", "QT_API": "pyside6"})
    if database_url is not None:
        env["XWORKMATE_DATABASE_URL"] = database_url
    return subprocess.Popen(
        [sys.executable, "-m", "xworkmate", "gui"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _ready(home: Path) -> bool:
    log = log_file_path(home)
    return log.exists() and READY_LOG_LINE in log.read_text(encoding="utf-8")


def _finish(proc: subprocess.Popen[str], timeout: float) -> tuple[int, str]:
    try:
        _out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        _out, err = proc.communicate()
        raise AssertionError(f"the window did not close within {timeout} s; stderr: {err}") from None
    return proc.returncode, err


@pytest.mark.parametrize(("signum", "code", "name"), [(signal.SIGINT, 130, "SIGINT"), (signal.SIGTERM, 143, "SIGTERM")])
def test_a_signal_to_a_running_window_closes_it_as_closing_does_with_its_exit_code_and_no_traceback(
    home: Path, signum: int, code: int, name: str
) -> None:
    """Ctrl+C in the terminal (or SIGTERM): the window closes as when the person closes it (its layout is
    saved through its store), the command ends with 128 + the signal and one line, never a traceback."""
    proc = _start_gui(home)
    try:
        _wait_for(lambda: _ready(home) or proc.poll() is not None, "the window to be ready")
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signum)
        returncode, err = _finish(proc, timeout=STARTUP_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert returncode == code, err
    assert f"xworkmate: error: interrupted by {name}; the window was closed\n" in err
    store = open_store(Settings(home=home).effective_database_url)
    try:
        assert SessionController(store, Settings(home=home)).lines.ui_state(GEOMETRY_STATE), "the layout was not saved"
    finally:
        store.close()


def test_closing_while_postgresql_has_not_answered_ends_the_process_before_the_connect_times_out(
    home: Path, silent_server: SilentServer
) -> None:
    """The store opens on a worker after the first paint; a server that never answers keeps that connect
    waiting for its whole timeout. Closing the window then (here by Ctrl+C, which closes it as closing does)
    abandons the open: the process ends long before the connect would have given up, with no traceback."""
    proc = _start_gui(home, silent_server.url())
    try:
        _wait_for(lambda: silent_server.accepted or proc.poll() is not None, "the store's connect to reach the server")
        assert proc.poll() is None
        asked = time.monotonic()
        proc.send_signal(signal.SIGINT)
        returncode, err = _finish(proc, timeout=CONNECT_TIMEOUT_S)
        took = time.monotonic() - asked
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert took < CONNECT_TIMEOUT_S / 3, f"closing took {took:.1f} s: it waited on the connect"
    assert returncode == 130, err
    assert "Traceback" not in err


def test_closing_the_window_while_postgresql_has_not_answered_returns_before_the_connect_times_out(
    settings: Settings, silent_server: SilentServer, qapp: QApplication, capsys: pytest.CaptureFixture[str]
) -> None:
    """``xworkmate gui``'s own path, in this process: the person closes the window while the connect waits;
    the command returns 0 at once, says nothing about a failure nobody waits for, and the abandoned
    connect ends on its own once the server hangs up."""
    slow = settings.model_copy(update={"database_url": silent_server.url()})
    closed_at: list[float] = []

    def close_once_connecting() -> None:
        if silent_server.accepted:
            closed_at.append(time.monotonic())
            qapp.closeAllWindows()
        else:
            QTimer.singleShot(20, close_once_connecting)

    icon, stylesheet = qapp.windowIcon(), qapp.styleSheet()
    QTimer.singleShot(0, close_once_connecting)
    try:
        code = run_window(argparse.Namespace(smoke_test=False), slow, None)
        took = time.monotonic() - closed_at[0]
    finally:
        qapp.setWindowIcon(icon)
        theme_manager().set_template("")  # the manager then knows the stylesheet it put on is gone
        qapp.setStyleSheet(stylesheet)
    assert took < CONNECT_TIMEOUT_S / 3, f"closing took {took:.1f} s: it waited on the connect"
    assert code == 0
    openings = [t for t in threading.enumerate() if t.name == OPENING_THREAD]
    assert openings and all(t.daemon for t in openings)  # still connecting: nothing waited for it
    silent_server.close()
    _wait_for(lambda: not any(t.is_alive() for t in openings), "the abandoned connect to end", timeout=10)
    assert capsys.readouterr().err == ""


def test_a_store_that_opens_after_its_window_closed_is_closed_and_never_attached(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, settings: Settings
) -> None:
    held = HeldOpen(settings, wait_s=30)
    failures: list[BaseException] = []
    attached: list[SessionController] = []
    window, opening = shown_opening(
        qtbot, opening_for(settings, held, failures), attached=attached.append, failed=lambda _: None
    )
    try:
        run(loop, wait_until(held.asked.is_set, timeout=10, what="the open to be asked for"))
        window.close()  # returns at once: nothing waits for the open
        held.release.set()
        worker = opening.worker
        assert worker is not None and worker.name == OPENING_THREAD and worker.daemon
        run(loop, wait_until(lambda: not worker.is_alive(), timeout=10, what="the open to end"))
        run(loop, wait_until(lambda: held.store is not None and held.store.closed, timeout=10, what="its store closed"))
        assert attached == [] and failures == [] and not window.attached
    finally:
        held.release.set()
        for controller in attached:
            controller.close()


def test_a_connect_that_fails_after_its_window_closed_is_dropped_quietly(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, settings: Settings, silent_server: SilentServer
) -> None:
    """The window closes while the connect waits; the server then hangs up: the failure nobody waits for
    is neither shown nor counted (the window that would have said it is gone)."""
    slow = settings.model_copy(update={"database_url": silent_server.url()})
    failures: list[BaseException] = []
    codes: list[int] = []

    def open_slow() -> SessionController:
        store = open_store(slow.effective_database_url)
        return SessionController(store, slow)

    window, opening = shown_opening(
        qtbot, opening_for(slow, open_slow, failures), attached=lambda _: None, failed=codes.append
    )
    run(loop, wait_until(lambda: bool(silent_server.accepted), timeout=10, what="the connect to reach the server"))
    window.close()
    worker = opening.worker
    assert worker is not None and worker.is_alive()  # the connect still waits: the close did not
    silent_server.close()
    run(loop, wait_until(lambda: not worker.is_alive(), timeout=10, what="the connect to fail"))
    assert failures == [] and codes == []


def test_closing_the_window_while_a_turn_streams_stops_it_keeping_what_streamed_and_never_calls_it_a_crash(
    qapp: QApplication, agent_controller: SessionController, sqlite_store: Store, openai_server: OpenAIServer
) -> None:
    """ERR-1, ISO-4: closing the window (Ctrl+Q, the title bar's close) while a turn streamed closed the loop
    under the turn. Its lease stayed, so the next start said "interrupted by a crash: killed, crashed or the power
    went", and what streamed since the last flush (up to a second) was lost. Now the turn stops as Stop stops it,
    on the loop, before the store closes: what streamed is kept whole, the notice says the window closed, and
    nothing is left for crash recovery."""
    key = agent_controller.lines.create_line("Closed on").thread_id
    agent_controller.lines.switch_session(key)  # the window opens on it
    chunks = [f"Paragraph {n} of a long answer.\n\n" for n in range(400)]
    openai_server.script(TextReply(chunks, delay=0.02))  # 8 s: still streaming when the window closes
    window = build_main_window(agent_controller)
    window.show()
    shown: list[str] = []

    def start(done: asyncio.Future[int]) -> None:
        window.composer.setPlainText("a long answer, please")
        QTimer.singleShot(0, window.send_button.click)  # Send, as a person sends it

        def close_once_streaming() -> None:
            text = window.live.streamed_text(key) or ""
            if text.count("\n\n") < 5:
                QTimer.singleShot(20, close_once_streaming)
                return
            shown.append(text)
            window.close()
            done.set_result(0)  # as the last window's closing quits the app

        QTimer.singleShot(20, close_once_streaming)

    assert run_event_loop(qapp, start=start) == 0

    assert not agent_controller.turns.is_running(key)
    assert turn_owners.owners(sqlite_store) == []  # the lease ended as a turn's does: no crash to find
    messages = agent_controller.lines.messages(key)
    assert messages[-1].content == CLOSED_NOTICE
    answer = next(m for m in reversed(messages) if m.role is MessageRole.ASSISTANT)
    assert answer.content.startswith(shown[0].rstrip())  # at least all it showed when it closed, kept whole
