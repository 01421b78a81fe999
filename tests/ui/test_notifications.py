"""Issue 17 item 2 (LOOP-2): desktop notifications through the one ``Notifier``.

The decision is the real one, in the real window, on real turns against the
scripted OpenAI-compatible server. What shows the notification is the
notifier's pluggable backend: a recording one, the real ``QSystemTrayIcon``
(its ``messageClicked`` signal), and a real freedesktop server on a private
D-Bus session bus when ``dbus-daemon`` is installed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PySide6.QtWidgets import QSystemTrayIcon, QWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.attention import Attention
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.testing.openai_server import ErrorReply, OpenAIServer, TextReply, ToolCallReply
from xworkmate.ui import MainWindow
from xworkmate.ui.lines.needs_you import NOTIFICATIONS_STATE
from xworkmate.ui.lines.notifier import FreedesktopNotifications, TrayNotifications

from .conftest import OFFSCREEN_NOISE, open_window
from .support import click_line, finished, settled
from .support_runs import call, run, turn_on, wait_until

ROOT = Path(__file__).resolve().parents[2]
# Opening a line from a notification raises the window; the offscreen platform says it cannot.
RAISES = pytest.mark.qt_log_ignore(OFFSCREEN_NOISE, r"This plugin does not support raise\(\)")


@dataclass
class RecordingBackend:
    """The notifier's backend interface, recording what it was asked to show."""

    name: str = "recording"
    clicked: Callable[[str], None] | None = None
    shown: list[tuple[str, str, str]] = field(default_factory=list)

    def show(self, key: str, title: str, body: str) -> None:
        self.shown.append((key, title, body))

    def click(self, key: str) -> None:
        assert self.clicked is not None
        self.clicked(key)


@pytest.fixture
def recorded(agent_window: MainWindow) -> RecordingBackend:
    backend = RecordingBackend()
    agent_window.needs_you.notifier.use_backend(backend)
    agent_window.needs_you.notifier.enabled = True
    return backend


def activate(qtbot: QtBot, widget: QWidget) -> None:
    widget.activateWindow()
    qtbot.waitUntil(widget.isActiveWindow, timeout=3000)


def elsewhere(qtbot: QtBot) -> QWidget:
    """Another window takes the focus: XWorkmate's window is no longer active."""
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    activate(qtbot, other)
    return other


@RAISES
def test_a_finish_on_another_line_is_notified_and_clicking_opens_it(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    recorded: RecordingBackend,
) -> None:
    window = agent_window
    activate(qtbot, window)
    line = agent_controller.lines.create_line("Report")
    turn_on(loop, openai_server, agent_controller, line.thread_id, "write the report", TextReply(["Here it is."]))
    assert recorded.shown == [(line.thread_id, "XWorkmate: Report", "“Report” finished — a new answer to read.")]
    assert window.shown_key == "main"

    recorded.click(line.thread_id)
    settled(qtbot, window)  # opened as a list click opens it: an operation on the store worker (issue 33 item 3)
    assert window.shown_key == line.thread_id and window.isActiveWindow()


def test_the_shown_line_in_the_focused_window_is_not_notified_but_in_an_unfocused_one_it_is(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    recorded: RecordingBackend,
) -> None:
    window = agent_window
    activate(qtbot, window)
    openai_server.script(TextReply(["Seen as it came."]), ErrorReply(401, {"error": {"message": "bad key"}}))
    run(loop, agent_controller.turns.run_turn("main", "first"))
    assert recorded.shown == []  # the person was looking at it

    elsewhere(qtbot)
    assert not window.isActiveWindow()
    run(loop, agent_controller.turns.run_turn("main", "second"))
    assert [(key, body) for key, _title, body in recorded.shown] == [
        ("main", "“Main” failed — its run stopped with an error.")
    ]
    assert window.windowTitle() == "(1) Main — XWorkmate"  # not seen: the window was elsewhere
    activate(qtbot, window)  # back: the shown line is seen
    settled(qtbot, window)  # the seen mark is stored by an operation on the store worker (issue 19)
    assert window.windowTitle() == "Main — XWorkmate"


def test_an_approval_on_another_line_is_notified(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    recorded: RecordingBackend,
) -> None:
    activate(qtbot, agent_window)
    line = agent_controller.lines.create_line("Writer")
    openai_server.script(
        ToolCallReply([call("write_file", path="a.txt", content="a\n", quote="create a.txt")]), TextReply(["ok"])
    )
    agent_controller.turns.start_turn(line.thread_id, "Please create a.txt")
    run(loop, wait_until(lambda: bool(recorded.shown), what="the notification"))
    assert recorded.shown == [(line.thread_id, "XWorkmate: Writer", "“Writer” waits for your approval.")]
    agent_controller.turns.stop(line.thread_id)
    run(loop, wait_until(finished(agent_controller, line.thread_id)))


def test_a_muted_line_and_the_global_switch_keep_quiet_and_both_are_kept(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    recorded: RecordingBackend,
    settings: Settings,
) -> None:
    window = agent_window
    activate(qtbot, window)
    muted = agent_controller.lines.create_line("Quiet")
    loud = agent_controller.lines.create_line("Loud")
    menu = window.task_list.task_line_menu(muted.thread_id)
    [mute] = [a for a in menu.actions() if a.objectName() == "muteNotificationsAction"]
    assert mute.text() == "Mute notifications" and not mute.isChecked()
    mute.trigger()
    settled(qtbot, window)  # the mute is stored by an operation on the store worker (issue 33 item 2)
    assert agent_controller.attention.muted(muted.thread_id)

    openai_server.script(TextReply(["one"]), TextReply(["two"]), TextReply(["three"]))
    run(loop, agent_controller.turns.run_turn(muted.thread_id, "go"))
    assert recorded.shown == []
    assert agent_window.task_model.attention_of(muted.thread_id).value == "finished_unread"  # the badge still shows

    action = window.needs_you.notifications_action
    assert action.objectName() == "desktopNotificationsAction" and action.isChecked()
    action.trigger()  # Settings → Desktop notifications: off
    run(loop, agent_controller.turns.run_turn(loud.thread_id, "go"))
    assert recorded.shown == []
    assert agent_controller.lines.ui_state(NOTIFICATIONS_STATE) == "false"  # issue 33: one boolean form written
    action.trigger()
    run(loop, agent_controller.turns.run_turn(loud.thread_id, "again"))
    assert [key for key, _t, _b in recorded.shown] == [loud.thread_id]
    action.trigger()  # off again, for the restart below

    window.close()
    agent_controller.close()
    store = open_store(settings.effective_database_url)
    try:
        reopened = open_window(qtbot, SessionController(store, settings))
        assert not reopened.needs_you.notifications_action.isChecked() and not reopened.needs_you.notifier.enabled
        [again] = [
            a
            for a in reopened.task_list.task_line_menu(muted.thread_id).actions()
            if a.objectName() == "muteNotificationsAction"
        ]
        assert again.isChecked()
        reopened.close()
    finally:
        store.close()


@RAISES
def test_the_tray_backend_shows_a_message_and_its_click_opens_the_line(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """The real ``QSystemTrayIcon``: its ``messageClicked`` signal (what a click on the balloon emits)."""
    window = agent_window
    activate(qtbot, window)
    tray = QSystemTrayIcon(window.windowIcon(), window)
    notifier = window.needs_you.notifier
    backend = TrayNotifications(tray, notifier)
    notifier.use_backend(backend)
    notifier.tray = tray
    notifier.enabled = True
    line = agent_controller.lines.create_line("Tray line")
    turn_on(loop, openai_server, agent_controller, line.thread_id, "go", TextReply(["done"]))
    assert tray.toolTip() == "XWorkmate (1)"
    with qtbot.waitSignal(notifier.line_requested, timeout=2000):
        tray.messageClicked.emit()
    settled(qtbot, window)  # opened as a list click opens it (issue 33 item 3)
    assert window.shown_key == line.thread_id
    # Seen now: the mark is cleared on the controller's store thread, then the tray says so (issue 19).
    qtbot.waitUntil(lambda: tray.toolTip() == "XWorkmate", timeout=5000)


@pytest.fixture
def session_bus(tmp_path: Path) -> Iterator[str]:
    """A private D-Bus session bus (``dbus-daemon``), its address; skipped where it is not installed."""
    daemon = shutil.which("dbus-daemon")
    if daemon is None:
        pytest.skip("dbus-daemon is not installed, so no session bus can be started for a real D-Bus test")
    proc = subprocess.Popen(
        [daemon, "--session", "--nofork", "--print-address=1", f"--address=unix:dir={tmp_path}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        address = proc.stdout.readline().strip()
        if not address:
            pytest.skip("dbus-daemon started but gave no bus address")
        yield address
    finally:
        proc.terminate()
        proc.wait(timeout=5)
        if proc.stdout is not None:
            proc.stdout.close()


ServerStarter = Callable[..., tuple[FreedesktopNotifications, Path]]


@pytest.fixture
def notification_server(session_bus: str, agent_window: MainWindow, tmp_path: Path) -> Iterator[ServerStarter]:
    """Starts ``tests.support.notification_server`` on the private bus (``NOTIFY_*`` settings as keywords) and
    gives the backend the window would use for it, and the server's log of ``Notify`` calls."""
    from PySide6.QtDBus import QDBusConnection

    servers: list[subprocess.Popen[bytes]] = []
    name = f"xworkmate-test-{id(tmp_path)}"

    def start(**settings: str) -> tuple[FreedesktopNotifications, Path]:
        log = tmp_path / "notifications.jsonl"
        env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": session_bus, "QT_QPA_PLATFORM": "offscreen"}
        env.update({f"NOTIFY_{setting.upper()}": value for setting, value in settings.items()})
        servers.append(
            subprocess.Popen([sys.executable, "-m", "tests.support.notification_server", str(log)], cwd=ROOT, env=env)
        )
        connection = QDBusConnection.connectToBus(session_bus, name)
        assert connection.isConnected()
        deadline = time.monotonic() + 10
        backend = None
        while backend is None and time.monotonic() < deadline:
            backend = FreedesktopNotifications.connect_to(connection, agent_window)
            if backend is None:
                time.sleep(0.1)
        assert backend is not None, "the notification server did not come up on the bus"
        return backend, log

    yield start
    for server in servers:
        server.terminate()
        server.wait(timeout=5)
    QDBusConnection.disconnectFromBus(name)


def notified(log: Path) -> list[dict[str, object]]:
    """The ``Notify`` calls the server answered, in order."""
    return [json.loads(text) for text in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


@RAISES
def test_freedesktop_notifications_over_a_real_session_bus(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    notification_server: ServerStarter,
) -> None:
    """Notify reaches a real notification server (with ``replaces_id`` as a uint32, or it would refuse);
    its ActionInvoked "default" (a click) opens the line."""
    backend, log = notification_server(click_after_ms="200")
    window = agent_window
    notifier = window.needs_you.notifier
    notifier.use_backend(backend)
    notifier.enabled = True
    assert notifier.backend_name == "freedesktop"
    activate(qtbot, window)
    line = agent_controller.lines.create_line("Over D-Bus")
    turn_on(
        loop,
        openai_server,
        agent_controller,
        line.thread_id,
        "hello?",
        ErrorReply(401, {"error": {"message": "bad key"}}),
    )
    run(loop, wait_until(lambda: window.shown_key == line.thread_id, what="the click to open the line"))
    [entry] = notified(log)
    assert entry["app"] == "XWorkmate" and entry["summary"] == "XWorkmate: Over D-Bus"
    assert entry["actions"] == ["default", "Open the line"] and "failed" in str(entry["body"])
    click_line(qtbot, window, "main")


@RAISES
def test_a_slow_notification_server_never_holds_the_window_and_a_burst_shows_one_bubble(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    notification_server: ServerStarter,
    tmp_path: Path,
) -> None:
    """Issue 34 (twenty agents at once): the server's answer is waited for off the GUI thread (it waited up to
    1.5 s a notification on it: twenty lines finishing with a stuck server held the window for 30 s); lines
    that come to need the person while a notification is on its way make one more, the newest, which replaces
    the bubble on the desktop and says how many lines need the person; its click opens the newest line."""
    hold = tmp_path / "hold"
    hold.touch()
    backend, log = notification_server(hold=str(hold))
    backend.timeout_ms = 60_000  # the server is held as long as this test needs, never timed out
    window = agent_window
    notifier = window.needs_you.notifier
    notifier.use_backend(backend)
    notifier.enabled = True
    keys = [agent_controller.lines.create_line(f"Build {n}").thread_id for n in range(4)]

    def finish(n: int) -> None:
        notifier.show_count(n + 1)
        shown = notifier.consider(
            keys[n],
            Attention.RUNNING,
            Attention.FINISHED_UNREAD,
            title=f"Build {n}",
            shown_key="main",
            window_active=True,
            muted=False,
        )
        assert shown

    for n in range(3):
        finish(n)  # each returns at once: the server answers nothing while held
    qtbot.wait(50)  # the window's events go on
    assert notified(log) == []
    assert backend.waiting
    hold.unlink()
    run(loop, wait_until(lambda: not backend.waiting, what="the first notification and the newest answered"))
    first, newest = notified(log)
    assert first["summary"] == "XWorkmate: Build 0" and first["replaces"] == 0
    assert newest["summary"] == "XWorkmate: Build 2" and newest["replaces"] == newest["id"] == first["id"]
    assert newest["body"] == "“Build 2” finished — a new answer to read.\n3 lines need you."
    finish(3)  # after the answers: sent at once, replacing the same bubble; "Build 1" never was
    run(loop, wait_until(lambda: not backend.waiting, what="the next notification's answer"))
    assert len(notified(log)) == 3
    assert [entry["summary"] for entry in notified(log)][2] == "XWorkmate: Build 3"
    backend.on_action_invoked(int(str(first["id"])), "default")  # the one bubble's click, as D-Bus delivers it
    run(loop, wait_until(lambda: window.shown_key == keys[3], what="the newest line opened"))


def test_with_no_desktop_to_show_on_the_badges_alone_say_it(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """Offscreen there is neither a notification server to reach nor a tray: in-app only, nothing fails."""
    notifier = agent_window.needs_you.notifier
    assert notifier.backend is None and notifier.backend_name == "in-app" and notifier.tray is None
    assert "in-app" in agent_window.needs_you.notifications_action.toolTip()
    line = agent_controller.lines.create_line("Quietly")
    turn_on(loop, openai_server, agent_controller, line.thread_id, "go", TextReply(["done"]))
    assert agent_window.task_model.attention_of(line.thread_id).value == "finished_unread"
    assert agent_window.windowTitle().startswith("(1) ")
