"""An agent asks the person for input (ACP ``elicitation/create``, issue 32 item 3; ERR-1 for the refusals).

The scripted agent sends the request as a real agent writes it; every message both ways is validated
against the official v1 schema by the autouse ``acp_traffic_checked`` fixture.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.acp import AgentHarness
from xworkmate.agents.acp import permission_approver
from xworkmate.agents.events import ApprovalDecision, ApprovalRequest, ToolDone
from xworkmate.domain.elicitation import ElicitationAnswer, form_from_schema, typed_value
from xworkmate.domain.threads import PermissionLevel

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Project name"},
        "workers": {"type": "integer", "minimum": 1, "maximum": 8},
        "ratio": {"type": "number"},
        "tests": {"type": "boolean", "default": True},
        "db": {"type": "string", "enum": ["sqlite", "postgres"]},
    },
    "required": ["name", "workers"],
}
ELICIT = {"elicit": {"message": "Set up the project", "schema": SCHEMA}}


@pytest.fixture
def harness(tmp_path: Path) -> AgentHarness:
    return AgentHarness(tmp_path)


def test_the_client_advertises_form_elicitation(harness: AgentHarness) -> None:
    trace = Path(os.environ["XWORKMATE_ACP_TRACE"])  # the schema check's own trace (tests/conftest.py)
    out = harness.run(harness.script(turn=[{"say": "hi"}]))
    assert out.error is None, out.error
    sent = [json.loads(line)["msg"] for line in trace.read_text().splitlines()]
    init = next(m for m in sent if m.get("method") == "initialize")
    assert init["params"]["clientCapabilities"]["elicitation"] == {"form": {}}


def test_a_form_reaches_the_approver_typed_and_its_answer_goes_back_as_accept(harness: AgentHarness) -> None:
    seen: list[ApprovalRequest] = []

    async def answer(request: ApprovalRequest) -> ApprovalDecision:
        seen.append(request)
        content = {"name": "demo", "workers": 3, "tests": False, "db": "postgres"}
        return ApprovalDecision(allowed=True, answer=ElicitationAnswer("accept", content=content))

    out = harness.run(harness.script(turn=[ELICIT]), approver=answer)
    assert out.error is None, out.error
    (request,) = seen
    form = request.form
    assert form is not None and form.message == "Set up the project"
    kinds = {f.name: (f.kind, f.required) for f in form.fields}
    assert kinds == {
        "name": ("string", True),
        "workers": ("integer", True),
        "ratio": ("number", False),
        "tests": ("boolean", False),
        "db": ("enum", False),
    }
    (reported,) = harness.report("elicitation")
    assert reported["action"] == "accept"
    assert reported["content"] == {"name": "demo", "workers": 3, "tests": False, "db": "postgres"}
    (record,) = out.of(ToolDone)
    assert record.call.name == "elicitation" and record.result.ok
    assert "Set up the project" in record.result.content and "workers=3" in record.result.content


def test_a_declined_form_goes_back_as_decline_and_is_recorded(harness: AgentHarness) -> None:
    async def decline(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allowed=False, answer=ElicitationAnswer("decline"))

    out = harness.run(harness.script(turn=[ELICIT]), approver=decline)
    assert out.error is None, out.error
    assert harness.report("elicitation")[0]["action"] == "decline"
    (record,) = out.of(ToolDone)
    assert not record.result.ok and "declined" in record.result.content


def test_an_accept_missing_a_required_field_is_sent_as_cancel(harness: AgentHarness) -> None:
    async def half(request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision(allowed=True, answer=ElicitationAnswer("accept", content={"name": "x"}))

    out = harness.run(harness.script(turn=[ELICIT]), approver=half)
    assert out.error is None, out.error
    assert harness.report("elicitation")[0]["action"] == "cancel"


def test_headless_without_answers_refuses_in_one_line_and_with_answers_accepts(harness: AgentHarness) -> None:
    refused: list[str] = []
    out = harness.run(
        harness.script(turn=[ELICIT]), approver=permission_approver(PermissionLevel.FULL, refused=refused)
    )
    assert out.error is None, out.error
    assert harness.report("elicitation")[-1]["action"] == "cancel"
    (line,) = refused
    assert "\n" not in line and "no one is at the window" in line
    assert "--answer name=" in line and "--answer workers=" in line

    answers = {"name": "demo", "workers": "4", "tests": "no", "db": "sqlite", "ratio": "0.5"}
    approver = permission_approver(PermissionLevel.ASK, refused=[], answers=answers)
    out = harness.run(harness.script(turn=[ELICIT]), approver=approver)
    assert out.error is None, out.error
    assert harness.report("elicitation")[-1] == {
        "event": "elicitation",
        "action": "accept",
        "content": {"name": "demo", "workers": 4, "tests": False, "db": "sqlite", "ratio": 0.5},
    }


def test_a_bad_answer_value_is_one_line_and_nothing_is_accepted() -> None:
    form = form_from_schema("Set up", SCHEMA)
    request = ApprovalRequest(thread_id="k", call=_call(), summary="Set up", form=form)
    refused: list[str] = []
    approver = permission_approver(PermissionLevel.FULL, refused=refused, answers={"name": "x", "workers": "many"})
    decision = asyncio.run(approver(request))
    assert not decision.allowed and decision.answer is not None and decision.answer.action == "cancel"
    (line,) = refused
    assert "\n" not in line and "workers takes a whole number, not 'many'" in line
    workers = form.field("workers")
    assert workers is not None
    with pytest.raises(ValueError, match="at most 8"):
        typed_value(workers, "9")


def test_a_url_elicitation_is_refused_headless_with_its_url(harness: AgentHarness) -> None:
    refused: list[str] = []
    step = {"elicit_url": {"message": "Sign the licence", "url": "https://example.com/licence", "id": "lic"}}
    out = harness.run(harness.script(turn=[step]), approver=permission_approver(PermissionLevel.FULL, refused=refused))
    assert out.error is None, out.error
    assert harness.report("elicitation")[-1]["action"] == "cancel"
    assert "https://example.com/licence" in refused[0] and "\n" not in refused[0]


def _call() -> Any:
    from xworkmate.llm.events import ToolCall

    return ToolCall(id="elicitation-1", name="elicitation", arguments="{}")


def _cli_line(home: Path, tmp_path: Path, turn: list[dict[str, Any]], **script: Any) -> tuple[str, Path]:
    from tests.acp import AGENT
    from tests.cli.test_cli import ok_json

    state = tmp_path / "agent"
    state.mkdir(exist_ok=True)
    path = state / "s.json"
    path.write_text(json.dumps({"report": str(state / "report.jsonl"), "turn": turn, **script}))
    command = f"{sys.executable} {AGENT} {path}"
    ok_json(home, "provider", "add", "formy", "--acp-command", command, "--acp-state-dir", str(state))
    line = ok_json(home, "thread", "new")["session_key"]
    ok_json(home, "thread", "set", line, "--mode", "acp", "--provider", "formy")
    return line, state / "report.jsonl"


def _reported(report: Path, event: str) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in report.read_text().splitlines() if x.strip()]
    return [r for r in rows if r["event"] == event]


def test_run_refuses_a_form_in_one_line_naming_the_answers_to_give(home: Path, tmp_path: Path) -> None:
    from tests.cli.test_cli import run_cli

    line, report = _cli_line(home, tmp_path, [ELICIT, {"say": "done"}])
    proc = run_cli(home, "run", line, "set it up")
    assert proc.returncode == 1
    (error,) = proc.stderr.strip().splitlines()
    assert "the agent asked for input" in error and "no one is at the window" in error
    assert "--answer name=" in error and "--answer workers=" in error
    assert _reported(report, "elicitation")[0]["action"] == "cancel"


def test_run_answers_a_form_with_typed_answer_values(home: Path, tmp_path: Path) -> None:
    from tests.cli.test_cli import run_cli

    line, report = _cli_line(home, tmp_path, [ELICIT])
    proc = run_cli(home, "run", line, "set it up", "--answer", "name=demo", "--answer", "workers=2", "--json")
    assert proc.returncode == 0, proc.stderr
    assert _reported(report, "elicitation")[0] == {
        "event": "elicitation",
        "action": "accept",
        "content": {"name": "demo", "workers": 2},
    }
    out = json.loads(proc.stdout)
    assert '[elicitation accept {"name": "demo", "workers": 2}]' in out["text"]


def test_run_with_a_bad_answer_value_or_shape_fails_in_one_line(home: Path, tmp_path: Path) -> None:
    from tests.cli.test_cli import run_cli

    line, report = _cli_line(home, tmp_path, [ELICIT])
    proc = run_cli(home, "run", line, "set it up", "--answer", "name=demo", "--answer", "workers=lots")
    assert proc.returncode == 1
    (error,) = proc.stderr.strip().splitlines()
    assert "workers takes a whole number, not 'lots'" in error
    assert _reported(report, "elicitation")[0]["action"] == "cancel"

    proc = run_cli(home, "run", line, "again", "--answer", "workers")
    assert proc.returncode != 0
    (error,) = proc.stderr.strip().splitlines()
    assert "--answer takes NAME=VALUE, not 'workers'" in error


def test_the_conversation_record_of_an_answer_is_redacted(harness: AgentHarness) -> None:
    """SEC-1: the record is derived text; a key typed into a form is not kept in it (the agent still gets it)."""
    key = "sk-live-elicit-0123456789abcdef0123"

    async def answer(request: ApprovalRequest) -> ApprovalDecision:
        content = {"name": key, "workers": 1}
        return ApprovalDecision(allowed=True, answer=ElicitationAnswer("accept", content=content))

    out = harness.run(harness.script(turn=[ELICIT]), approver=answer)
    assert out.error is None, out.error
    assert harness.report("elicitation")[0]["content"]["name"] == key
    (record,) = out.of(ToolDone)
    assert key not in record.result.content and "workers=1" in record.result.content
