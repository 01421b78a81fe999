"""The test server's Responses API (issue 32, item 7): ``POST /v1/responses`` serves the same scripted
replies as the chat path, as the Responses API's streamed events (what codex-acp reads; see
``tests/acp/test_codex_acp.py`` for codex itself). Real HTTP from the standard library's client."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from xworkmate.testing.openai_server import (
    RESPONSES_PATH,
    ErrorReply,
    OpenAIServer,
    ScriptedToolCall,
    TextReply,
    ToolCallReply,
)


def _post(server: OpenAIServer, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The ``(event, data)`` pairs of one streamed answer; each data's ``type`` is its event's name."""
    request = urllib.request.Request(
        server.base_url + "/responses",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer sk-test"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.headers["Content-Type"] == "text/event-stream"
        text = answer.read().decode()
    events = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        data = json.loads(fields["data"])
        assert data["type"] == fields["event"], block
        events.append((fields["event"], data))
    return events


def test_a_text_reply_streams_as_output_text_deltas_of_one_message() -> None:
    with OpenAIServer() as server:
        server.script(TextReply(["Hel", "lo"], usage={"prompt_tokens": 7, "completion_tokens": 2}))
        events = _post(server, {"model": "gpt-5.4", "input": [], "stream": True})
        [recorded] = server.responses_requests

    assert [name for name, _ in events] == [
        "response.created",
        "response.output_item.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert recorded.path == RESPONSES_PATH and recorded.body["model"] == "gpt-5.4"
    assert server.chat_requests == []
    item_id = events[1][1]["item"]["id"]
    assert [(d["item_id"], d["delta"]) for n, d in events if n.endswith(".delta")] == [
        (item_id, "Hel"),
        (item_id, "lo"),
    ]
    completed = events[-1][1]["response"]
    assert completed["status"] == "completed" and completed["model"] == "gpt-5.4"
    assert completed["id"] == events[0][1]["response"]["id"]
    [message] = completed["output"]
    assert message["content"] == [{"type": "output_text", "text": "Hello", "annotations": []}]
    usage = completed["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"]) == (7, 2, 9)


def test_a_tool_call_reply_streams_as_function_call_items() -> None:
    arguments = json.dumps({"cmd": "echo hi > made.txt"})
    with OpenAIServer() as server:
        server.script(ToolCallReply([ScriptedToolCall("c1", "exec_command", arguments)], pieces=3))
        events = _post(server, {"model": "gpt-5.4-mini", "input": [], "stream": True})

    pieces = [d["delta"] for n, d in events if n == "response.function_call_arguments.delta"]
    assert len(pieces) == 3 and "".join(pieces) == arguments
    [done] = [d["item"] for n, d in events if n == "response.output_item.done"]
    assert done == {
        "type": "function_call",
        "id": done["id"],
        "call_id": "c1",
        "name": "exec_command",
        "arguments": arguments,
        "status": "completed",
    }
    assert events[-1][1]["response"]["output"] == [done]


def test_an_error_reply_is_the_same_http_error_on_the_responses_path() -> None:
    with OpenAIServer() as server:
        server.script(ErrorReply(429, {"error": {"message": "slow down"}}))
        with pytest.raises(urllib.error.HTTPError) as raised:
            _post(server, {"model": "gpt-5.4", "input": [], "stream": True})
    assert raised.value.code == 429
    assert json.loads(raised.value.read())["error"]["message"] == "slow down"
