"""Turns that survive a crash (issue 31 item 4; SPEC ERR-1, ERR-2, ISO-4).

Real processes and real signals: ``xworkmate run`` runs a turn in a child process against a real
SQLite file while the scripted OpenAI-compatible server (or the scripted ACP agent) holds the
stream open; the child gets SIGKILL mid-turn; then the store is opened again, as the window or the
next command does. The line shows "interrupted" with what was kept, never running; nothing runs
again until Resume; a live turn of another process is never taken for a dead one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.cli.test_cli import ok_json, run_cli
from tests.cli.test_cli_turn_endings import _add_server, _agent_processes, _start_run, _wait_until
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.controllers.turns import RESUME_PROMPT, RESUMED_NOTICE
from xworkmate.domain.attention import Attention
from xworkmate.domain.interruptions import INTERRUPTED_TURN, PARTIAL_REPLY
from xworkmate.domain.messages import MessageRole, MessageSource, MessageState
from xworkmate.proc_stat import process_started
from xworkmate.settings import Settings
from xworkmate.store import open_store, turn_owners
from xworkmate.store.external_changes import run_statuses
from xworkmate.testing.acp_scripts import agent_folder, report_events, scripted_agent
from xworkmate.testing.openai_server import HangReply, OpenAIServer, TextReply


def _reopened(settings: Settings, database_url: str | None = None) -> SessionController:
    """The store opened again, as a restarted window or the next command opens it."""
    return SessionController(open_store(database_url or settings.effective_database_url), settings)


def _partial_stored(controller: SessionController, key: str, text: str) -> bool:
    return any(o.key == key and o.partial_text == text for o in turn_owners.owners(controller._store))


def _kill_9(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def test_kill_9_mid_native_turn_shows_interrupted_with_the_partial_reply_and_resume_finishes_it(
    controller: SessionController, database_url: str, settings: Settings, home: Path, openai_server: OpenAIServer
) -> None:
    """On both databases: the killed turn's line is interrupted (not running), its streamed reply kept."""
    env = {"XWORKMATE_DATABASE_URL": database_url}
    _add_server(controller, openai_server)
    key = controller.lines.create_line("crash").thread_id
    openai_server.script(HangReply(chunks=["Half an ", "answer"]))
    proc = _start_run(home, database_url, key, "write the report")
    try:
        _wait_until(lambda: _partial_stored(controller, key, "Half an answer"), "the streamed reply to be kept")
        # A restart while the turn is alive in its own process: it is not taken for a dead one.
        alive_check = _reopened(settings, database_url)
        try:
            assert alive_check.recovered == []
            assert alive_check.turns.interruption(key) is None
        finally:
            alive_check.close()
        assert proc.poll() is None
        _kill_9(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()

    # The next command opens the store: the line is interrupted, with what was kept, not running.
    shown = ok_json(home, "thread", "show", key, env=env)
    assert shown["status"] == "runnable" and shown["interrupted_turn"] is True
    messages = controller.lines.messages(key)
    human, partial, notice = messages
    assert (human.source, human.content) == (MessageSource.HUMAN, "write the report")
    assert (partial.role, partial.state, partial.content) == (
        MessageRole.ASSISTANT,
        MessageState.INTERRUPTED,
        "Half an answer",
    )
    assert (partial.payload or {}).get(PARTIAL_REPLY) is True
    assert notice.source is MessageSource.FRAMEWORK_EVENT and notice.state is MessageState.INTERRUPTED
    assert "interrupted by a crash" in notice.content and "the reply the agent was writing" in notice.content
    assert f"xworkmate run {key} --resume" in notice.content
    assert INTERRUPTED_TURN in (notice.payload or {})
    assert run_statuses(controller._store)[key].status == "stopped"  # other windows stop showing it running
    assert turn_owners.owners(controller._store) == []

    # Opening again records nothing twice and runs nothing: only Resume does.
    again = _reopened(settings, database_url)
    try:
        assert again.recovered == []
        assert again.attention.state(key) is Attention.FINISHED_UNREAD  # LOOP-2: "Needs you" until seen
    finally:
        again.close()
    assert len(controller.lines.messages(key)) == 3
    assert len(openai_server.chat_requests) == 1

    # Resume: the last step runs again from what is stored (the partial reply is not sent).
    openai_server.script(TextReply(["The whole ", "report."]))
    proc_resume = run_cli(home, "run", key, "--resume", env=env)
    assert proc_resume.returncode == 0, proc_resume.stderr
    assert len(openai_server.chat_requests) == 2
    sent = openai_server.chat_requests[1].body["messages"]
    assert sent[-1] == {"role": "user", "content": "write the report"}
    assert all("Half an answer" not in str(m.get("content")) for m in sent)
    tail = controller.lines.messages(key)[3:]
    assert [(m.source, m.content) for m in tail] == [
        (MessageSource.FRAMEWORK_EVENT, RESUMED_NOTICE),
        (MessageSource.AGENT, "The whole report."),
    ]
    assert controller.turns.interruption(key) is None
    refused = run_cli(home, "run", key, "--resume", env=env)
    assert refused.returncode == 1 and "no interrupted turn to resume" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_a_restart_leaves_a_live_turn_of_another_process_alone_and_a_stopped_turn_leaves_no_owner(
    sqlite_controller: SessionController, settings: Settings, home: Path, openai_server: OpenAIServer
) -> None:
    """Two processes on one database: opening it while another process streams a turn records nothing;
    that turn then ends normally (SIGINT, as Stop) and its owner row goes with it."""
    controller = sqlite_controller
    _add_server(controller, openai_server)
    key = controller.lines.create_line("alive").thread_id
    openai_server.script(HangReply(chunks=["Still ", "going"]))
    proc = _start_run(home, settings.effective_database_url, key, "keep going")
    try:
        _wait_until(lambda: _partial_stored(controller, key, "Still going"), "the streamed reply to be kept")
        [owner] = turn_owners.owners(controller._store)
        assert owner.owner.pid == proc.pid and owner.owner.host == turn_owners.current_owner().host
        for _ in range(2):  # the window and a command, opened while the turn runs elsewhere
            other = _reopened(settings)
            try:
                assert other.recovered == [] and other.turns.interruption(key) is None
            finally:
                other.close()
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert turn_owners.owners(controller._store) == []
    after = _reopened(settings)
    try:
        assert after.recovered == []
    finally:
        after.close()
    notices = [m.content for m in controller.lines.messages(key) if m.source is MessageSource.FRAMEWORK_EVENT]
    assert len(notices) == 1 and notices[0].startswith("Stopped.")


@needs_bwrap
def test_kill_9_during_a_tool_call_leaves_no_call_without_a_result_and_resume_continues(
    sqlite_controller: SessionController, settings: Settings, home: Path, openai_server: OpenAIServer
) -> None:
    """ERR-2: the tool call the crash cut off gets a result saying it was interrupted; Resume sends it."""
    from xworkmate.testing.openai_server import ScriptedToolCall, ToolCallReply

    controller = sqlite_controller
    _add_server(controller, openai_server)
    key = controller.lines.create_line("tool crash").thread_id
    controller.line_settings.set_permission(key, "full")
    call = ScriptedToolCall(id="call-1", name="run_command", arguments=json.dumps({"command": "sleep 60"}))
    openai_server.script(ToolCallReply([call]))
    proc = _start_run(home, settings.effective_database_url, key, "run the long job")
    try:
        _wait_until(lambda: len(controller.lines.messages(key)) >= 2, "the tool call to be stored")
        time.sleep(0.5)
        _kill_9(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    reopened = _reopened(settings)
    try:
        assert reopened.recovered == [key]
    finally:
        reopened.close()
    messages = controller.lines.messages(key)
    result = next(m for m in messages if m.role is MessageRole.TOOL)
    assert (result.payload or {})["tool_call_id"] == "call-1"
    assert result.state is MessageState.ERROR and "interrupted" in result.content
    assert "1 message(s) the agent stored" in messages[-1].content

    openai_server.script(TextReply(["Started it again later."]))
    proc_resume = run_cli(home, "run", key, "--resume")
    assert proc_resume.returncode == 0, proc_resume.stderr
    sent = openai_server.chat_requests[1].body["messages"]
    assert sent[-1]["role"] == "tool" and sent[-1]["tool_call_id"] == "call-1"
    assert "interrupted" in sent[-1]["content"]
    assert controller.lines.messages(key)[-1].content == "Started it again later."


@needs_bwrap
def test_kill_9_mid_acp_turn_then_resume_resumes_the_agents_session_and_finishes(
    sqlite_controller: SessionController, settings: Settings, home: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(
        controller, home.parent, resume_session=True, turn=[{"say": "working on it"}, {"hang": True}]
    )
    key = controller.lines.create_line("acp crash").thread_id
    controller.line_settings.set_execution(key, "acp", "scripted")
    script_file = agent_folder(home.parent) / "scripted.json"
    proc = _start_run(home, settings.effective_database_url, key, "long job")
    try:
        _wait_until(lambda: _partial_stored(controller, key, "working on it"), "the streamed reply to be kept")
        session_id = controller.get_thread(key).execution_binding.acp_session_id
        assert session_id
        _kill_9(proc)
        _wait_until(lambda: not _agent_processes(str(script_file)), "the orphaned agent to exit", timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    shown = ok_json(home, "thread", "show", key)
    assert shown["status"] == "runnable" and shown["interrupted_turn"] is True
    contents = [(m.role, m.state, m.content) for m in controller.lines.messages(key)]
    assert (MessageRole.ASSISTANT, MessageState.INTERRUPTED, "working on it") in contents
    assert "interrupted by a crash" in contents[-1][2]
    assert len(report_events(report, "prompt")) == 1  # nothing ran again on its own

    script = json.loads(script_file.read_text())
    script_file.write_text(json.dumps({**script, "turn": [{"say": "done now"}]}))
    proc_resume = run_cli(home, "run", key, "--resume")
    assert proc_resume.returncode == 0, proc_resume.stderr
    resumed = report_events(report, "resume_session")
    assert resumed and resumed[-1]["session_id"] == session_id  # session/resume with the id the line kept
    prompts = report_events(report, "prompt")
    assert len(prompts) == 2 and prompts[-1]["text"] == RESUME_PROMPT
    last = controller.lines.messages(key)[-1]
    assert (last.role, last.content) == (MessageRole.ASSISTANT, "done now")


def test_a_turn_owned_on_another_host_is_dead_only_once_its_lease_ran_out() -> None:
    """PostgreSQL shared by a team: another host's process cannot be asked, so its heartbeat decides."""
    here = turn_owners.current_owner()
    now = datetime.now(UTC)
    elsewhere = turn_owners.ProcessOwner("another-host", here.pid, here.started)

    def owned(owner: turn_owners.ProcessOwner, beat_age_s: float) -> turn_owners.TurnOwner:
        return turn_owners.TurnOwner("main", owner, "native", 0, "", now, now - timedelta(seconds=beat_age_s))

    assert not owned(elsewhere, 5).dead(here=here, now=now)
    assert owned(elsewhere, turn_owners.LEASE_S + 1).dead(here=here, now=now)
    # On this host the OS is asked, whatever the heartbeat: this process is alive, a finished one is not.
    assert not owned(here, 10_000).dead(here=here, now=now)
    gone = turn_owners.ProcessOwner(here.host, 2**22 + 1, "1")
    assert owned(gone, 0).dead(here=here, now=now)
    # A process that died and was not reaped yet (a zombie) owns nothing; a live one with a reused pid neither.
    child = subprocess.Popen(["sleep", "30"])
    try:
        started = process_started(child.pid)
        live = turn_owners.ProcessOwner(here.host, child.pid, started)
        assert not owned(live, 0).dead(here=here, now=now)
        assert owned(turn_owners.ProcessOwner(here.host, child.pid, "1"), 0).dead(here=here, now=now)
        child.kill()
        _wait_until(lambda: Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z", "a zombie")
        assert owned(live, 0).dead(here=here, now=now)
    finally:
        child.kill()
        child.wait()


def test_commands_started_at_once_on_a_dead_turn_record_its_interruption_once(
    sqlite_controller: SessionController, settings: Settings, home: Path
) -> None:
    """A turn owned by a process that really ran and is gone; four commands open the database together."""
    from xworkmate.store.tables import TurnOwnerRow

    controller = sqlite_controller
    key = controller.lines.create_line("raced").thread_id
    human = controller._store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content="go")
    child = subprocess.Popen(["sleep", "30"])
    started = process_started(child.pid)
    child.kill()
    child.wait()  # reaped: its pid names nobody now
    now = datetime.now(UTC)
    with controller._store.session() as session:
        session.add(
            TurnOwnerRow(
                thread_id=key,
                host=turn_owners.current_owner().host,
                pid=child.pid,
                process_started=started,
                mode="native",
                after_message_id=human.id,
                partial_text="",
                started_at=now,
                heartbeat_at=now,
            )
        )
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    env.update({"XWORKMATE_HOME": str(home), "QT_QPA_PLATFORM": "offscreen"})
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "xworkmate", "thread", "show", key, "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(4)
    ]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), outputs
    # None shows the line running; one that raced the recording may not show the notice yet, the next one does.
    assert all(json.loads(out)["status"] == "runnable" for out, _err in outputs)
    assert ok_json(home, "thread", "show", key)["interrupted_turn"] is True
    notices = [m for m in controller.lines.messages(key) if INTERRUPTED_TURN in (m.payload or {})]
    assert len(notices) == 1
    assert "your message; the agent had stored nothing yet" in notices[0].content
