"""A turn's session updates become the shared turn events (SPEC §5 ACP mode)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.acp import AgentHarness, assert_reaped
from xworkmate.agents.acp import AcpSessionReady
from xworkmate.agents.events import (
    AssistantDelta,
    AssistantDone,
    PlanUpdated,
    ProviderChosen,
    ThoughtDelta,
    ToolDone,
    ToolStarted,
)
from xworkmate.domain.messages import MessageState


@pytest.fixture
def harness(tmp_path: Path) -> AgentHarness:
    return AgentHarness(tmp_path)


def test_a_turn_streams_text_thoughts_plan_and_tool_calls(harness: AgentHarness) -> None:
    edited = harness.workspace / "notes.md"
    script = harness.script(
        turn=[
            {"say": "Looking at "},
            {"think": "the notes need a title"},
            {"plan": [["read notes", "completed"], ["add a title", "in_progress"]]},
            {
                "tool": {
                    "id": "call-1",
                    "title": "Edit notes.md",
                    "kind": "edit",
                    "status": "in_progress",
                    "locations": [str(edited)],
                    "raw_input": {"path": "notes.md"},
                }
            },
            {
                "tool_update": {
                    "id": "call-1",
                    "status": "completed",
                    "diff": {"path": str(edited), "old": "body\n", "new": "# Title\nbody\n"},
                }
            },
            {"say": "the notes."},
            {"echo_cwd": True},
        ]
    )
    out = harness.run(script)

    assert out.error is None, out.error
    assert out.result is not None
    assert out.result.stop_reason == "end_turn"
    cwd = str(harness.workspace)
    assert out.result.text == "Looking at the notes." + cwd

    # Text before the thought and the tool card streams before them; what follows them, after (issue 34
    # item 1: text read in one loop step may go out as one delta, never across another event).
    kinds = [type(e).__name__ for e in out.events]
    first_tool = kinds.index("ToolStarted")
    assert [e.text for e in out.events[:first_tool] if isinstance(e, AssistantDelta)] == ["Looking at "]
    assert "".join(e.text for e in out.events[first_tool:] if isinstance(e, AssistantDelta)) == "the notes." + cwd
    assert [e.text for e in out.of(ThoughtDelta)] == ["the notes need a title"]
    assert out.of(PlanUpdated) == [PlanUpdated((("read notes", "completed"), ("add a title", "in_progress")))]
    (chosen,) = out.of(ProviderChosen)
    assert chosen.model == "scripted-agent 1.0"
    (ready,) = out.of(AcpSessionReady)
    assert ready.session_id == out.result.session_id and not ready.resumed and ready.note is None

    (started,) = out.of(ToolStarted)
    assert started.call.id == "call-1" and started.call.name == "edit"
    args = json.loads(started.call.arguments)
    assert args["title"] == "Edit notes.md" and args["input"] == {"path": "notes.md"}
    (done,) = out.of(ToolDone)
    assert done.result.ok and done.result.tool_name == "edit"
    assert done.result.changed_path == edited
    assert done.result.diff is not None
    assert "--- a/notes.md" in done.result.diff and "+# Title" in done.result.diff

    # Exactly one AssistantDone, last, holding the whole text.
    finals = out.of(AssistantDone)
    assert len(finals) == 1 and out.events[-1] is finals[0]
    assert finals[0].text == out.result.text and finals[0].state is MessageState.COMPLETE

    # The agent ran in the line's working directory and was told that directory.
    (new_session,) = harness.report("new_session")
    assert new_session["cwd"] == cwd and new_session["process_cwd"] == cwd
    (init,) = harness.report("initialize")
    assert init["fs_read"] and init["fs_write"] and init["terminal"] and init["client"] == "xworkmate"
    assert harness.report("prompt")[0]["text"] == "do the thing"
    assert_reaped(harness.pid())


def test_a_burst_of_chunks_streams_as_far_fewer_deltas_with_all_text_in_order(harness: AgentHarness) -> None:
    # Issue 34 item 1: 300 agent_message_chunks written at once reach the client in one read; their text goes
    # out joined (one change record, one append in the window), not one delta per chunk.
    words = [f"w{i} " for i in range(300)]
    out = harness.run(harness.script(turn=[{"say": "start "}, {"burst": words}, {"sleep": 0.05}, {"say": "end"}]))

    assert out.error is None, out.error
    deltas = [e.text for e in out.of(AssistantDelta)]
    assert "".join(deltas) == "start " + "".join(words) + "end"
    assert len(deltas) <= 30, f"{len(deltas)} deltas for 302 chunks"
    (done,) = out.of(AssistantDone)
    assert done.text == "".join(deltas) and out.events[-1] is done


def test_a_burst_of_thought_chunks_streams_as_few_thought_deltas_each_in_its_place_among_the_text(
    harness: AgentHarness,
) -> None:
    # Issue 34 item 1: agent_thought_chunks written at once are joined like the reply's chunks (one rule,
    # agents/stream_text.py), and a run of thoughts keeps its place between the reply's text around it.
    def thought(text: str) -> dict[str, object]:
        return {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": text}}

    first, words, then = ([f"{p}{i} " for i in range(100)] for p in "twu")
    burst = [*map(thought, first), *words, *map(thought, then)]
    out = harness.run(harness.script(turn=[{"burst": burst}, {"sleep": 0.05}, {"say": "end"}]))

    assert out.error is None, out.error
    streamed = [e for e in out.events if isinstance(e, AssistantDelta | ThoughtDelta)]
    runs: list[tuple[type, list[str]]] = []
    for event in streamed:
        if runs and runs[-1][0] is type(event):
            runs[-1][1].append(event.text)
        else:
            runs.append((type(event), [event.text]))
    assert [(kind, "".join(texts)) for kind, texts in runs] == [
        (ThoughtDelta, "".join(first)),
        (AssistantDelta, "".join(words)),
        (ThoughtDelta, "".join(then)),
        (AssistantDelta, "end"),
    ]
    thoughts = out.of(ThoughtDelta)
    assert len(thoughts) <= 20, f"{len(thoughts)} thought deltas for 200 chunks"
    (done,) = out.of(AssistantDone)
    assert done.text == "".join(words) + "end" and out.events[-1] is done


def test_a_tool_call_amid_a_burst_keeps_the_text_before_and_after_it_in_order(harness: AgentHarness) -> None:
    # The tool card arrives in the same read as the text around it: the text before it goes out before its card,
    # the text after it after the card, and nothing streams after the turn's end.
    before, after = [f"b{i} " for i in range(50)], [f"a{i} " for i in range(50)]
    tool = {"sessionUpdate": "tool_call", "toolCallId": "t-1", "title": "Read notes.md", "kind": "read"}
    progress = {"sessionUpdate": "tool_call_update", "toolCallId": "t-1", "status": "completed"}
    out = harness.run(harness.script(turn=[{"burst": [*before, tool, progress, *after]}]))

    assert out.error is None, out.error
    kinds = [type(e).__name__ for e in out.events]
    started, done = kinds.index("ToolStarted"), kinds.index("ToolDone")
    assert started < done
    text_before = [e.text for e in out.events[:started] if isinstance(e, AssistantDelta)]
    text_after = [e.text for e in out.events[done:] if isinstance(e, AssistantDelta)]
    assert "".join(text_before) == "".join(before) and "".join(text_after) == "".join(after)
    assert len(text_before) + len(text_after) < 20
    assert kinds[-1] == "AssistantDone" and out.events[-1].text == "".join(before + after)


def test_failed_and_unfinished_tool_calls_are_closed(harness: AgentHarness) -> None:
    script = harness.script(
        turn=[
            {"tool": {"id": "t-fail", "title": "Run tests", "kind": "execute", "status": "in_progress"}},
            {"tool_update": {"id": "t-fail", "status": "failed", "text": "3 tests failed"}},
            {"tool": {"id": "t-open", "title": "Search", "kind": "search", "status": "pending"}},
            {"tool": {"id": "t-done", "title": "Read", "kind": "read", "status": "completed", "text": "contents"}},
            {"say": "done"},
        ]
    )
    out = harness.run(script)

    assert out.error is None, out.error
    done = {e.call.id: e.result for e in out.of(ToolDone)}
    assert not done["t-fail"].ok and done["t-fail"].error_kind == "failed"
    assert done["t-fail"].content == "3 tests failed"
    assert done["t-done"].ok and done["t-done"].content == "contents"
    assert not done["t-open"].ok and done["t-open"].error_kind == "unfinished"
    assert [e.call.id for e in out.of(ToolStarted)] == ["t-fail", "t-open", "t-done"]
    assert_reaped(harness.pid())


def test_unknown_and_uninteresting_updates_are_ignored(harness: AgentHarness) -> None:
    script = harness.script(
        turn=[
            {"raw_update": {"sessionUpdate": "something_from_the_future", "value": 1}},
            {"raw_update": {"sessionUpdate": "available_commands_update", "availableCommands": []}},
            {"raw_update": {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "echo"}}},
            {"say": "still here"},
        ]
    )
    out = harness.run(script)

    assert out.error is None, out.error
    assert out.result is not None and out.result.text == "still here"
    assert [type(e).__name__ for e in out.events] == [
        "AcpAgentReported",  # issue 15, item 8: agentInfo, for Settings and `provider list`
        "ProviderChosen",
        "AcpSessionReady",
        "AssistantDelta",
        "AssistantDone",
    ]


def test_the_agent_environment_has_no_secrets_but_what_the_provider_passes(
    harness: AgentHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XWM_OTHER_PROVIDER_API_KEY", "sk-not-for-agents")
    monkeypatch.setenv("XWM_PLAIN_SETTING", "visible")
    script = harness.script(
        turn=[
            {"echo_env": "XWM_OTHER_PROVIDER_API_KEY"},
            {"say": " "},
            {"echo_env": "XWM_AGENT_TOKEN"},
            {"say": " "},
            {"echo_env": "XWM_PLAIN_SETTING"},
        ]
    )
    out = harness.run(script, env={"XWM_AGENT_TOKEN": "given"})

    assert out.result is not None, out.error
    assert out.result.text == "XWM_OTHER_PROVIDER_API_KEY unset XWM_AGENT_TOKEN=given XWM_PLAIN_SETTING=visible"
