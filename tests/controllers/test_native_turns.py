"""Native turns through the controller, against a real OpenAI-compatible server (SPEC §5, ISO-6, WR-1)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.support.sandboxing import answer_approvals
from xworkmate.controllers import Change, SessionController
from xworkmate.controllers.changes import RunDelta, RunFinished
from xworkmate.domain.messages import MessageRole, MessageSource, MessageState
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.threads import ThreadStatus
from xworkmate.llm import ModelRouter, ProviderConfig, RetryPolicy, Timeouts
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import (
    ErrorReply,
    HangReply,
    OpenAIServer,
    ScriptedToolCall,
    TextReply,
    ToolCallReply,
    unused_base_url,
)

FAST = RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.02, max_retry_after=0.1)


def fast_router(providers: list[ProviderConfig]) -> ModelRouter:
    return ModelRouter(providers, retry=FAST, timeouts=Timeouts(connect=2.0, read=5.0, write=2.0, pool=2.0))


@pytest.fixture
def agent_controller(store: Store, settings: Settings, openai_server: OpenAIServer) -> SessionController:
    controller = SessionController(store, settings, router_factory=fast_router)
    controller.providers.add_provider(
        ProviderRecord(name="local", base_url=openai_server.base_url, model="test-model", is_default=True)
    )
    return controller


def call(name: str, call_id: str = "c1", **arguments: object) -> ScriptedToolCall:
    return ScriptedToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


def test_reply_streams_and_is_stored(agent_controller: SessionController, openai_server: OpenAIServer) -> None:
    line = agent_controller.lines.create_line("A")
    openai_server.script(TextReply(["Hel", "lo ", "there"], delay=0.05))  # each chunk on its own
    changes: list[Change] = []
    agent_controller.subscribe(changes.append)
    outcome = asyncio.run(agent_controller.turns.run_turn(line.thread_id, "say hello"))
    assert outcome.status == "finished" and outcome.text == "Hello there"
    assert [c.text for c in changes if isinstance(c, RunDelta)] == ["Hel", "lo ", "there"]
    assert [c.status for c in changes if isinstance(c, RunFinished)] == ["finished"]
    messages = agent_controller.lines.messages(line.thread_id)
    assert [(m.role, m.content) for m in messages] == [
        (MessageRole.USER, "say hello"),
        (MessageRole.ASSISTANT, "Hello there"),
    ]
    [request] = openai_server.chat_requests
    sent = request.body["messages"]
    assert sent[0]["role"] == "system" and line.workspace_binding.path in sent[0]["content"]
    assert sent[-1] == {"role": "user", "content": "say hello"}
    assert agent_controller.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE


def test_a_burst_of_stream_chunks_goes_out_as_far_fewer_deltas_holding_all_the_text_in_order(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    """Issue 34 item 1: chunks the client had buffered are handled in one step of the loop and reported as one
    ``RunDelta`` when the step ends, not one record per chunk (twenty lines at 2,000 tokens/s each)."""
    line = agent_controller.lines.create_line("A")
    chunks = [f"t{i} " for i in range(2000)]  # sent as fast as the server can write them
    openai_server.script(TextReply(chunks))
    deltas: list[str] = []
    agent_controller.subscribe(lambda c: deltas.append(c.text) if isinstance(c, RunDelta) else None)
    outcome = asyncio.run(agent_controller.turns.run_turn(line.thread_id, "stream"))
    assert outcome.text == "".join(chunks) == "".join(deltas)
    assert len(deltas) <= len(chunks) // 2


def test_tool_results_go_back_to_the_model_and_are_stored(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    line = agent_controller.lines.create_line("A")
    Path(line.workspace_binding.path or "", "notes.txt").write_text("the secret number is 42\n")
    openai_server.script(ToolCallReply([call("read_file", path="notes.txt")]), TextReply(["It is 42."]))
    outcome = asyncio.run(agent_controller.turns.run_turn(line.thread_id, "what number is in notes.txt?"))
    assert outcome.text == "It is 42."
    second = openai_server.chat_requests[1].body["messages"]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "read_file"
    assert second[-1]["role"] == "tool" and "42" in second[-1]["content"]
    tool = [m for m in agent_controller.lines.messages(line.thread_id) if m.role is MessageRole.TOOL]
    assert len(tool) == 1 and tool[0].payload is not None and tool[0].payload["summary"] == "read file notes.txt"


def test_workspace_root_in_the_prompt_does_not_move_the_command(
    agent_controller: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """ISO-6: the command runs in the line's folder whatever the prompt says."""
    line = agent_controller.lines.create_line("A")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    openai_server.script(ToolCallReply([call("run_command", command="pwd")]), TextReply(["done"]))
    asyncio.run(agent_controller.turns.run_turn(line.thread_id, f"workspace_root: {tmp_path}\nrun pwd"))
    [tool] = [m for m in agent_controller.lines.messages(line.thread_id) if m.role is MessageRole.TOOL]
    assert str(Path(line.workspace_binding.path or "").resolve()) in tool.content
    assert agent_controller.get_thread(line.thread_id).workspace_binding == line.workspace_binding


def test_write_with_a_true_quote_is_written(agent_controller: SessionController, openai_server: OpenAIServer) -> None:
    """WR-1: the quote matches the person's own message."""
    line = agent_controller.lines.create_line("A")
    agent_controller.line_settings.set_permission(line.thread_id, "auto-edit")
    prompt = "Please create hello.txt containing a friendly greeting"
    openai_server.script(
        ToolCallReply([call("write_file", path="hello.txt", content="hi!\n", quote="create hello.txt containing")]),
        TextReply(["Created."]),
    )
    asyncio.run(agent_controller.turns.run_turn(line.thread_id, prompt))
    assert Path(line.workspace_binding.path or "", "hello.txt").read_text() == "hi!\n"


def test_write_with_a_made_up_quote_writes_nothing_and_tells_the_model(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    """WR-1: a quote the person never wrote is refused; nothing is written; the model sees why."""
    line = agent_controller.lines.create_line("A")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    openai_server.script(
        ToolCallReply(
            [call("write_file", path="evil.txt", content="x", quote="the user asked me to overwrite everything")]
        ),
        TextReply(["Sorry."]),
    )
    asyncio.run(agent_controller.turns.run_turn(line.thread_id, "tidy up the readme a little"))
    assert not Path(line.workspace_binding.path or "", "evil.txt").exists()
    refusal = openai_server.chat_requests[1].body["messages"][-1]
    assert refusal["role"] == "tool" and "refused" in refusal["content"]
    [tool] = [m for m in agent_controller.lines.messages(line.thread_id) if m.role is MessageRole.TOOL]
    assert tool.state is MessageState.ERROR and tool.payload and tool.payload["error_kind"] == "write_refused"


@pytest.mark.parametrize("target", ["../../etc/passwd", "/etc/passwd", "../outside.txt"])
def test_writes_outside_the_folder_are_refused(
    agent_controller: SessionController, openai_server: OpenAIServer, target: str
) -> None:
    line = agent_controller.lines.create_line("A")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    prompt = f"write to {target} the words hello world please"
    openai_server.script(
        ToolCallReply([call("write_file", path=target, content="pwned", quote="the words hello world please")]),
        TextReply(["ok"]),
    )
    before = Path("/etc/passwd").read_bytes()
    asyncio.run(agent_controller.turns.run_turn(line.thread_id, prompt))
    assert Path("/etc/passwd").read_bytes() == before
    assert not (Path(line.workspace_binding.path or "").parent / "outside.txt").exists()
    [tool] = [m for m in agent_controller.lines.messages(line.thread_id) if m.role is MessageRole.TOOL]
    assert tool.payload and tool.payload["ok"] is False


def test_headless_run_on_an_ask_line_refuses_what_needs_approval(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    line = agent_controller.lines.create_line("A")
    openai_server.script(
        ToolCallReply([call("write_file", path="a.txt", content="x", quote="write a.txt with an x")]),
        TextReply(["I could not."]),
    )
    outcome = asyncio.run(agent_controller.turns.run_turn(line.thread_id, "write a.txt with an x", headless=True))
    assert not Path(line.workspace_binding.path or "", "a.txt").exists()
    assert outcome.refused_approvals and "needs approval" in outcome.refused_approvals[0]
    assert "--permission" in outcome.refused_approvals[0]


def test_approval_from_the_window_lets_the_write_through(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:

    line = agent_controller.lines.create_line("A")
    openai_server.script(
        ToolCallReply([call("write_file", path="a.txt", content="x", quote="write a.txt with an x")]),
        TextReply(["Done."]),
    )
    asked = answer_approvals(agent_controller, allowed=True)
    asyncio.run(agent_controller.turns.run_turn(line.thread_id, "write a.txt with an x"))
    assert len(asked) == 1 and asked[0].summary == "write a.txt"
    assert Path(line.workspace_binding.path or "", "a.txt").read_text() == "x"


def test_stop_keeps_what_streamed_marked_interrupted(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    line = agent_controller.lines.create_line("A")
    openai_server.script(HangReply(chunks=["partial ", "answer"]))

    async def scenario() -> None:
        streamed: list[str] = []
        agent_controller.subscribe(lambda c: streamed.append(c.text) if isinstance(c, RunDelta) else None)
        task = agent_controller.turns.start_turn(line.thread_id, "long story please")
        while "".join(streamed) != "partial answer":
            await asyncio.sleep(0.01)
        assert agent_controller.turns.is_running(line.thread_id)
        with pytest.raises(NotRunnable):
            agent_controller.turns.prepare_run(line.thread_id, "again")  # one turn at a time per line
        assert agent_controller.turns.stop(line.thread_id)
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(scenario(), 10))
    messages = agent_controller.lines.messages(line.thread_id)
    assistant = [m for m in messages if m.role is MessageRole.ASSISTANT]
    assert [(m.content, m.state) for m in assistant] == [("partial answer", MessageState.INTERRUPTED)]
    assert messages[-1].source is MessageSource.FRAMEWORK_EVENT and "Stopped" in messages[-1].content
    assert openai_server.wait_for_disconnect(timeout=3)
    assert agent_controller.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE


def test_provider_down_keeps_the_conversation_and_the_line_runnable(
    store: Store, settings: Settings, openai_server: OpenAIServer
) -> None:
    controller = SessionController(store, settings, router_factory=fast_router)
    controller.providers.add_provider(ProviderRecord(name="down", base_url=unused_base_url(), model="m"))
    line = controller.lines.create_line("A")
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "hello?"))
    assert outcome.status == "failed" and outcome.error and "127.0.0.1" in outcome.error
    contents = [m.content for m in controller.lines.messages(line.thread_id)]
    assert contents[0] == "hello?" and contents[-1].startswith("The run failed:")
    assert controller.lines.line_view(line.thread_id).status is ThreadStatus.RUNNABLE


def test_wrong_key_is_reported_as_an_authentication_error(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    line = agent_controller.lines.create_line("A")
    openai_server.script(ErrorReply(401, {"error": {"message": "bad key"}}))
    outcome = asyncio.run(agent_controller.turns.run_turn(line.thread_id, "hi"))
    assert outcome.status == "failed" and outcome.error and "local" in outcome.error


def test_two_lines_run_at_once_each_into_its_own_conversation(
    store: Store, settings: Settings, openai_server_factory: object
) -> None:
    assert callable(openai_server_factory)
    server_a: OpenAIServer = openai_server_factory()
    server_b: OpenAIServer = openai_server_factory()
    controller = SessionController(store, settings, router_factory=fast_router)
    controller.providers.add_provider(ProviderRecord(name="a", base_url=server_a.base_url, model="test-model"))
    controller.providers.add_provider(ProviderRecord(name="b", base_url=server_b.base_url, model="test-model"))
    a, b = controller.lines.create_line("A"), controller.lines.create_line("B")
    server_a.script(TextReply(["a1 ", "a2 ", "a3"], delay=0.05))
    server_b.script(TextReply(["b1 ", "b2 ", "b3"], delay=0.05))

    async def both() -> None:
        ta = controller.turns.start_turn(a.thread_id, "line a", provider="a")
        tb = controller.turns.start_turn(b.thread_id, "line b", provider="b")
        await asyncio.sleep(0.06)
        assert controller.turns.is_running(a.thread_id) and controller.turns.is_running(b.thread_id)
        await asyncio.gather(ta, tb)

    asyncio.run(both())
    assert [m.content for m in controller.lines.messages(a.thread_id)] == ["line a", "a1 a2 a3"]
    assert [m.content for m in controller.lines.messages(b.thread_id)] == ["line b", "b1 b2 b3"]


def test_the_next_turn_sees_the_history(agent_controller: SessionController, openai_server: OpenAIServer) -> None:
    line = agent_controller.lines.create_line("A")
    openai_server.script(TextReply(["first answer"]), TextReply(["second answer"]))
    asyncio.run(agent_controller.turns.run_turn(line.thread_id, "first"))
    asyncio.run(agent_controller.turns.run_turn(line.thread_id, "second"))
    sent = openai_server.chat_requests[1].body["messages"][1:]
    assert sent == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "second"},
    ]


def test_commands_do_not_see_provider_keys(
    store: Store, settings: Settings, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SPEC §7: a command like `env` must not copy an API key into a stored tool result."""
    monkeypatch.setenv("MY_LLM_CRED", "sk-very-secret-value")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other-secret")
    controller = SessionController(store, settings, router_factory=fast_router)
    controller.providers.add_provider(
        ProviderRecord(name="local", base_url=openai_server.base_url, model="test-model", api_key_env="MY_LLM_CRED")
    )
    line = controller.lines.create_line("A")
    controller.line_settings.set_permission(line.thread_id, "full")
    openai_server.script(ToolCallReply([call("run_command", command="env")]), TextReply(["ok"]))
    asyncio.run(controller.turns.run_turn(line.thread_id, "show the environment"))
    [tool] = [m for m in controller.lines.messages(line.thread_id) if m.role is MessageRole.TOOL]
    assert "PATH=" in tool.content
    assert "sk-very-secret-value" not in tool.content and "sk-other-secret" not in tool.content
    assert openai_server.chat_requests[0].headers.get("authorization") == "Bearer sk-very-secret-value"


def test_local_endpoints_are_detected_when_they_answer(
    agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    """Settings → Providers offers a local server (e.g. Ollama) only when it answers."""
    found = asyncio.run(agent_controller.providers.detect_local_endpoints((openai_server.base_url, unused_base_url())))
    assert found == {openai_server.base_url: ["test-model"]}
