"""How a headless turn ends when it is not allowed to finish (issue 13, ERR-1, ERR-2).

Real signals to a real ``xworkmate run`` process while the real test server
streams, and a trickling stream that runs into the line's turn limit. Either
way the turn ends as Stop ends it: the person's message, the answer so far
(marked interrupted) and a notice saying why are kept, and the process says so
in one line.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.threads import DEFAULT_TURN_LIMIT_S, ThreadStatus
from xworkmate.testing.acp_scripts import report_events, scripted_agent
from xworkmate.testing.openai_server import HangReply, OpenAIServer, TextReply


def _env(home: Path, database_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    env.update({"XWORKMATE_HOME": str(home), "XWORKMATE_DATABASE_URL": database_url, "QT_QPA_PLATFORM": "offscreen"})
    return env


def _start_run(home: Path, database_url: str, key: str, prompt: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "xworkmate", "run", key, prompt],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(home, database_url),
    )


def _wait_until(condition: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    """Wait for ``condition``; ``timeout`` is a ceiling, not a figure: a ``xworkmate run`` started on a machine
    at load 18 (two cores) took past 30 s to stream its first chunk."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _add_server(controller: SessionController, server: OpenAIServer) -> None:
    controller.providers.add_provider(
        ProviderRecord(name="local", kind=ProviderKind.OPENAI, base_url=server.base_url, model="test-model")
    )


def _assert_stopped_like_stop(messages: list[Message], prompt: str, partial: str, notice_start: str) -> None:
    human, answer, notice = messages
    assert (human.role, human.source, human.content) == (MessageRole.USER, MessageSource.HUMAN, prompt)
    assert answer.role is MessageRole.ASSISTANT
    assert answer.content == partial and answer.state is MessageState.INTERRUPTED
    assert notice.role is MessageRole.SYSTEM and notice.source is MessageSource.FRAMEWORK_EVENT
    assert notice.content.startswith(notice_start) and notice.state is MessageState.INTERRUPTED


@pytest.mark.parametrize(
    ("signum", "exit_code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_a_signal_during_run_stops_the_turn_keeps_the_answer_so_far_and_exits_with_one_line(
    controller: SessionController,
    database_url: str,
    home: Path,
    openai_server: OpenAIServer,
    signum: int,
    exit_code: int,
) -> None:
    """SIGINT (Ctrl+C) and SIGTERM end a headless turn as Stop does: 130 / 143, one line, nothing lost."""
    _add_server(controller, openai_server)
    line = controller.lines.create_line("signalled")
    openai_server.script(HangReply(chunks=["Half an ", "answer"]))
    proc = _start_run(home, database_url, line.thread_id, "write the report")
    try:
        _wait_until(lambda: openai_server.chat_requests, "the turn to reach the model")
        time.sleep(1.0)  # the two chunks arrive at once; give the client time to read them
        proc.send_signal(signum)
        _stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == exit_code, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xworkmate: error: stopped by "), stderr
    assert signal.Signals(signum).name in lines[0]
    assert openai_server.wait_for_disconnect(timeout=5)  # the stream was closed, not left hanging
    _assert_stopped_like_stop(
        controller.lines.messages(line.thread_id), "write the report", "Half an answer", "Stopped."
    )
    assert controller.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE


def _agent_processes(marker: str) -> list[int]:
    """Live processes whose command line names ``marker`` (the scripted agent's own script file)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


@needs_bwrap
def test_sigterm_during_an_acp_run_reaps_the_agent(sqlite_controller: SessionController, home: Path) -> None:
    """The ACP agent is cancelled and reaped before ``run`` exits 143; no agent process outlives it (SBX-1)."""
    controller = sqlite_controller
    report = scripted_agent(controller, home.parent, turn=[{"say": "working"}, {"hang": True}])
    line = controller.lines.create_line("acp")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    script = str(home.parent / "scripted-agent" / "scripted.json")
    proc = _start_run(home, controller.settings.effective_database_url, line.thread_id, "long job")
    try:
        _wait_until(lambda: report_events(report, "prompt"), "the agent to get the prompt")
        time.sleep(0.5)
        assert _agent_processes(script)
        proc.send_signal(signal.SIGTERM)
        _stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 143, stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert report_events(report, "cancel")  # asked to stop first, as Stop asks
    assert _agent_processes(script) == []
    contents = [(m.role, m.state, m.content) for m in controller.lines.messages(line.thread_id)]
    assert contents[0] == (MessageRole.USER, MessageState.COMPLETE, "long job")
    assert (MessageRole.ASSISTANT, MessageState.INTERRUPTED, "working") in contents
    assert contents[-1][2].startswith("Stopped.")


def test_a_line_keeps_a_turn_limit_of_30_minutes_unless_set(home: Path) -> None:
    line = ok_json(home, "thread", "new")
    assert line["turn_limit_s"] == DEFAULT_TURN_LIMIT_S == 30 * 60
    assert ok_json(home, "thread", "set", line["session_key"], "--turn-limit", "45")["turn_limit_s"] == 45 * 60
    assert ok_json(home, "thread", "set", line["session_key"], "--turn-limit", "90s")["turn_limit_s"] == 90
    assert ok_json(home, "thread", "show", line["session_key"])["turn_limit_s"] == 90
    assert_one_line_error(run_cli(home, "thread", "set", line["session_key"], "--turn-limit", "soon"), "turn limit")
    assert_one_line_error(run_cli(home, "thread", "set", line["session_key"], "--turn-limit", "0"), "turn limit")


def test_a_trickling_stream_is_stopped_at_the_lines_turn_limit(
    controller: SessionController, database_url: str, home: Path, openai_server: OpenAIServer
) -> None:
    """A byte every half second never trips the gap timeout; the line's 2-second turn limit ends it like Stop."""
    _add_server(controller, openai_server)
    line = controller.lines.create_line("trickle")
    env = {"XWORKMATE_DATABASE_URL": database_url}
    shown = ok_json(home, "thread", "set", line.thread_id, "--turn-limit", "2s", env=env)
    assert shown["turn_limit_s"] == 2
    openai_server.script(TextReply(["x"] * 60, delay=0.5))  # 30 seconds of stream if nothing stops it
    started = time.monotonic()
    proc = run_cli(home, "run", line.thread_id, "take your time", env=env)
    elapsed = time.monotonic() - started
    assert_one_line_error(proc, "2-second turn limit")
    assert elapsed < 30, f"the turn ran {elapsed:.1f} s: the stream's own 30 s, not the 2 s limit, ended it"
    messages = controller.lines.messages(line.thread_id)
    partial = messages[1].content
    assert partial and set(partial) == {"x"} and len(partial) < 10
    _assert_stopped_like_stop(messages, "take your time", partial, "Stopped after the line's 2-second turn limit")
    assert controller.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE


@needs_bwrap
def test_an_acp_turn_is_stopped_at_the_lines_turn_limit_and_its_agent_reaped(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """The limit covers ACP turns too: the agent is cancelled and reaped, the notice names the limit."""
    import asyncio

    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, turn=[{"say": "working"}, {"hang": True}])
    line = controller.lines.create_line("acp")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    # 5 s, not 2: the agent must have started and been prompted before the limit, for there to be a
    # cancel to see; on a loaded machine, starting it in its sandbox alone took more than 2 s.
    controller.line_settings.set_turn_limit(line.thread_id, 5)
    outcome = asyncio.run(asyncio.wait_for(controller.turns.run_turn(line.thread_id, "long job", headless=True), 30))
    assert outcome.status == "stopped" and outcome.error and "5-second turn limit" in outcome.error
    assert report_events(report, "prompt")
    assert report_events(report, "cancel")
    assert _agent_processes(str(tmp_path / "scripted-agent" / "scripted.json")) == []
    last = controller.lines.messages(line.thread_id)[-1]
    assert last.content.startswith("Stopped after the line's 5-second turn limit")
    assert controller.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE
