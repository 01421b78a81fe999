"""ACP turns through the controller and the command line (SPEC §5 ACP mode, CAT-3, ISO-8)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from tests.acp import AGENT
from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from tests.support.sandboxing import answer_approvals
from xworkmate.controllers import SessionController
from xworkmate.controllers.session import RunRefused
from xworkmate.domain.messages import MessageRole, MessageState
from xworkmate.domain.threads import ThreadStatus
from xworkmate.testing.acp_scripts import agent_folder, report_events, scripted_agent


def test_acp_line_streams_into_its_conversation_in_its_folder(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, session_id="s-1", turn=[{"say": "Hello "}, {"echo_cwd": True}])
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "hi agent"))
    assert outcome.status == "finished", outcome.error
    [assistant] = [m for m in controller.lines.messages(line.thread_id) if m.role is MessageRole.ASSISTANT]
    folder = str(Path(line.workspace_binding.path or "").resolve())
    assert assistant.content.startswith("Hello ") and folder in assistant.content
    assert assistant.payload and assistant.payload["mode"] == "acp" and assistant.payload["category"] is None
    [new] = report_events(report, "new_session")
    assert new["cwd"] == folder
    assert controller.get_thread(line.thread_id).execution_binding.acp_session_id == "s-1"


def test_the_next_turn_resumes_the_agents_session(sqlite_controller: SessionController, tmp_path: Path) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, session_id="s-9", load_session=True, turn=[{"say": "ok"}])
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    asyncio.run(controller.turns.run_turn(line.thread_id, "first"))
    asyncio.run(controller.turns.run_turn(line.thread_id, "second"))
    assert [e["session_id"] for e in report_events(report, "load_session")] == ["s-9"]
    assert len(report_events(report, "new_session")) == 1


def test_category_line_cannot_choose_acp(sqlite_controller: SessionController, tmp_path: Path) -> None:
    """CAT-3: category content is never handed to an agent CLI."""
    controller = sqlite_controller
    scripted_agent(controller, tmp_path)
    line = controller.lines.create_line("A")
    controller._store.threads._update(line.thread_id, category="medical")
    with pytest.raises(ValueError, match="category 'medical'"):
        controller.line_settings.set_execution(line.thread_id, "acp", "scripted")


def test_category_line_already_in_acp_mode_refuses_before_any_process_starts(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """CAT-3: relabelled after choosing ACP: the gate refuses the turn with the reason (issue 13: before
    the provider, nothing stored) and no agent process runs."""
    controller = sqlite_controller
    scripted_agent(controller, tmp_path, turn=[{"say": "leak"}])
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    controller._store.threads._update(line.thread_id, category="medical")
    with pytest.raises(RunRefused, match=r"'medical'.*CAT-3"):
        asyncio.run(controller.turns.run_turn(line.thread_id, "confidential"))
    assert controller.lines.messages(line.thread_id) == []
    assert not (agent_folder(tmp_path) / "scripted.pid").exists()
    assert controller.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE


def test_agent_crash_keeps_the_conversation_and_the_line_runnable(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    scripted_agent(controller, tmp_path, turn=[{"say": "partial"}, {"exit": 7}])
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "go"))
    assert outcome.status == "failed" and outcome.error and "exit" in outcome.error.lower()
    contents = [m.content for m in controller.lines.messages(line.thread_id)]
    assert contents[0] == "go" and contents[-1].startswith("The run failed:")
    assert controller.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE


def test_permission_request_becomes_an_approval_the_window_answers(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(
        controller,
        tmp_path,
        turn=[{"permission": {"id": "t1", "title": "Edit notes.md", "kind": "edit", "locations": ["notes.md"]}}],
    )
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    asked = answer_approvals(controller, allowed=True)
    asyncio.run(controller.turns.run_turn(line.thread_id, "edit my notes"))
    assert len(asked) == 1
    [answer] = report_events(report, "permission")
    assert "allow" in str(answer["outcome"])


def test_headless_acp_run_answers_permissions_by_level(sqlite_controller: SessionController, tmp_path: Path) -> None:
    controller = sqlite_controller
    report = scripted_agent(
        controller, tmp_path, turn=[{"permission": {"id": "t1", "title": "Run tests", "kind": "execute"}}]
    )
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "run the tests", headless=True))
    [answer] = report_events(report, "permission")
    assert "reject" in str(answer["outcome"])
    assert outcome.refused_approvals and "--permission" in outcome.refused_approvals[0]


def test_stop_cancels_the_agent_turn(sqlite_controller: SessionController, tmp_path: Path) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, turn=[{"say": "working…"}, {"hang": True}])
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")

    async def scenario() -> None:
        task = controller.turns.start_turn(line.thread_id, "long job")
        while not report_events(report, "prompt"):
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)
        controller.turns.stop(line.thread_id)
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(scenario(), 20))
    assert report_events(report, "cancel")
    states = [m.state for m in controller.lines.messages(line.thread_id)]
    assert MessageState.INTERRUPTED in states
    assert controller.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE


def test_cli_acp_provider_and_headless_run(home: Path, tmp_path: Path) -> None:
    state = tmp_path / "fake-agent"
    state.mkdir()
    script = state / "cli.json"
    script.write_text(json.dumps({"turn": [{"say": "from the agent"}]}))
    cmd = f"{sys.executable} {AGENT} {script}"
    # The script is the agent's own configuration: in its sandbox it reads it from its state folder.
    ok_json(home, "provider", "add", "fake", "--acp-command", cmd, "--acp-state-dir", str(state))
    line = ok_json(home, "thread", "new")
    assert (
        ok_json(home, "thread", "set", line["session_key"], "--mode", "acp", "--provider", "fake")["execution_mode"]
        == "acp"
    )
    out = ok_json(home, "run", line["session_key"], "hello")
    assert out["status"] == "finished" and out["text"] == "from the agent"


def test_cli_missing_agent_binary_is_one_line(home: Path) -> None:
    ok_json(home, "provider", "add", "ghost", "--acp-command", "no-such-agent-binary --acp")
    line = ok_json(home, "thread", "new")
    ok_json(home, "thread", "set", line["session_key"], "--mode", "acp", "--provider", "ghost")
    assert_one_line_error(run_cli(home, "run", line["session_key"], "hi"), "no-such-agent-binary")


def test_stop_does_not_wait_out_the_cancel_grace_period(sqlite_controller: SessionController, tmp_path: Path) -> None:
    """An agent that ends its turn on session/cancel is let go at once, not after the grace period."""
    from xworkmate.agents.acp import AcpRunner, AcpTimeouts

    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, turn=[{"say": "working…"}, {"hang": True}])
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    controller.turns.runner._acp_runner = AcpRunner(AcpTimeouts(cancel_grace=120.0))

    async def scenario() -> None:
        task = controller.turns.start_turn(line.thread_id, "long job")
        while not report_events(report, "prompt"):
            await asyncio.sleep(0.02)
        controller.turns.stop(line.thread_id)
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(scenario(), 60))  # would take the whole 120 s grace if the runner waited it out
    assert report_events(report, "stopped_after_cancel")


def test_an_acp_task_is_sent_its_goal(sqlite_controller: SessionController, tmp_path: Path) -> None:
    """A dispatched task on an ACP agent gets its goal (labelled as the dispatcher's words) as the prompt."""
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, turn=[{"echo_prompt": True}])
    line = controller.lines.create_line("A")
    task = controller.tasks.start_task(line.thread_id, "list the files", mode="acp", model="scripted")
    outcome = asyncio.run(controller.turns.run_turn(task.key, None))
    assert outcome.status == "finished", outcome.error
    [prompt] = report_events(report, "prompt")
    assert "list the files" in str(prompt["text"]) and "not from the person" in str(prompt["text"])
