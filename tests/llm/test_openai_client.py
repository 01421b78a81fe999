"""The OpenAI-compatible client against a real local HTTP server (SPEC §5)."""

from __future__ import annotations

import asyncio
import json
import ssl
import sys
import time
from collections.abc import Callable
from contextlib import aclosing
from typing import Any, TypeVar

import pytest

from xworkmate.llm import (
    Finished,
    MalformedResponseError,
    MalformedStreamError,
    ModelNotFoundError,
    OpenAIChatClient,
    ProviderAuthError,
    ProviderRequestError,
    ProviderServerError,
    ProviderTimeoutError,
    ProviderUnreachableError,
    RateLimitedError,
    RetryPolicy,
    StreamEvent,
    TextDelta,
    Timeouts,
    ToolArgumentsError,
    ToolCallDelta,
    ToolCallReady,
    Usage,
    UsageReport,
    collect_stream,
)
from xworkmate.llm.openai_client import tls_context
from xworkmate.testing.openai_server import (
    DropConnectionReply,
    ErrorReply,
    HangReply,
    OpenAIServer,
    RawStreamReply,
    ScriptedToolCall,
    TextReply,
    ToolCallReply,
    unused_base_url,
)

MakeClient = Callable[..., OpenAIChatClient]
E = TypeVar("E", bound=Exception)
HELLO = [{"role": "user", "content": "hello"}]
READ_FILE_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


def _stream(client: OpenAIChatClient, **kwargs: Any) -> list[StreamEvent]:
    async def consume() -> list[StreamEvent]:
        async with client:
            return [event async for event in client.stream_chat(HELLO, **kwargs)]

    return asyncio.run(consume())


def _stream_error(client: OpenAIChatClient, error: type[E]) -> pytest.ExceptionInfo[E]:
    with pytest.raises(error) as info:
        _stream(client)
    return info


# -- the shared TLS context -------------------------------------------------------------------


def test_clients_share_one_tls_context_that_still_verifies_certificates_and_host_names() -> None:
    """Issue 7: the CA store is loaded once per process, not once per client; sharing must not weaken it."""
    context = tls_context()
    assert tls_context() is context
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] > 0  # a CA bundle is loaded


# -- streaming ---------------------------------------------------------------------------------


def test_streamed_text_arrives_as_deltas_then_usage_then_finish(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    openai_server.script(TextReply(["Hel", "lo", ", world"], usage=usage))
    events = _stream(make_client(openai_server, model="qwen"))
    deltas = events[:-2]  # the chunks one read took come as one delta
    assert deltas and all(isinstance(e, TextDelta) for e in deltas)
    assert "".join(e.text for e in deltas if isinstance(e, TextDelta)) == "Hello, world"
    assert events[-2:] == [UsageReport(Usage(3, 2, 5)), Finished("stop")]
    (request,) = openai_server.chat_requests
    assert request.body["model"] == "qwen"
    assert request.body["stream"] is True
    assert request.body["messages"] == HELLO
    assert request.headers["accept"] == "text/event-stream"


def test_stream_sends_the_api_key_as_bearer_token(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(TextReply(["ok"]))
    _stream(make_client(openai_server, api_key="sk-test"))
    assert openai_server.chat_requests[0].headers["authorization"] == "Bearer sk-test"


def test_streamed_tool_calls_are_assembled_into_complete_calls(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(
        ToolCallReply(
            [
                ScriptedToolCall("call_a", "read_file", '{"path": "notes/todo.md"}'),
                ScriptedToolCall("call_b", "search", '{"query": "category", "limit": 5}'),
            ],
            text="Let me look.",
            pieces=4,
        )
    )
    events = _stream(make_client(openai_server), tools=[READ_FILE_TOOL])
    ready = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [(c.id, c.name, c.arguments) for c in ready] == [
        ("call_a", "read_file", '{"path": "notes/todo.md"}'),
        ("call_b", "search", '{"query": "category", "limit": 5}'),
    ]
    assert ready[0].parse_arguments() == {"path": "notes/todo.md"}
    assert ready[1].arguments_error is None
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert len(deltas) > 2  # streamed in pieces, for live display
    assert "".join(d.arguments_delta for d in deltas if d.index == 0) == '{"path": "notes/todo.md"}'
    assert events[0] == TextDelta("Let me look.")
    assert events[-1] == Finished("tool_calls")
    assert openai_server.chat_requests[0].body["tools"] == [READ_FILE_TOOL]


def test_invalid_tool_arguments_are_returned_as_is_with_a_flag(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    """The agent loop sends str(ToolArgumentsError) back to the model as the tool result."""
    openai_server.script(ToolCallReply([ScriptedToolCall("call_x", "write_file", '{"path": "a.txt", ')]))
    completion = asyncio.run(_collect(make_client(openai_server)))
    (call,) = completion.tool_calls
    assert call.arguments == '{"path": "a.txt", '
    assert call.arguments_error is not None
    with pytest.raises(ToolArgumentsError) as info:
        call.parse_arguments()
    assert "call_x" in str(info.value)
    assert "write_file" in str(info.value)


async def _collect(client: OpenAIChatClient) -> Any:
    async with client:
        return await collect_stream(client.stream_chat(HELLO))


def test_collected_stream_gives_text_tool_calls_and_assistant_message(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(ToolCallReply([ScriptedToolCall("call_1", "list_files", "")], text="Listing."))
    completion = asyncio.run(_collect(make_client(openai_server)))
    assert completion.text == "Listing."
    assert completion.tool_calls[0].parse_arguments() == {}
    assert completion.to_message() == {
        "role": "assistant",
        "content": "Listing.",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "list_files", "arguments": ""}}],
    }


def test_sse_comments_and_missing_blank_lines_are_tolerated(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(
        RawStreamReply(
            [
                ": keep-alive",
                "data: ",
                "",
                'data: {"choices": [{"index": 0, "delta": {"content": "a"}}]}',
                'data: {"choices": [{"index": 0, "delta": {"content": "b"}, "finish_reason": "length"}]}',
                "data: [DONE]",
            ]
        )
    )
    events = _stream(make_client(openai_server))
    assert events[-1] == Finished("length")
    assert all(isinstance(e, TextDelta) for e in events[:-1])  # the chunks one read took come as one delta
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "ab"


def test_server_that_ignores_stream_flag_still_works(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    message = '{"role": "assistant", "content": "whole"}'
    body = f'{{"choices": [{{"index": 0, "message": {message}, "finish_reason": "stop"}}]}}'
    openai_server.script(RawStreamReply([body], content_type="application/json"))
    assert _stream(make_client(openai_server)) == [TextDelta("whole"), Finished("stop")]


def test_a_fast_stream_is_read_once_a_read_gap_and_each_read_is_one_text_delta(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    """Issue 34 item 1: twenty lines streaming each woke the event loop for every chunk a provider sent (about
    200 Python calls of httpx, httpcore, anyio and asyncio a read), and each chunk went through the turn's
    layers as its own delta. A chunk that comes while the client waits out its read gap stays in the socket
    until the next read, which takes all that came, as one delta: 100 chunks sent over about 0.15 s reach a
    client whose gap is 1 s in a handful of reads and deltas."""
    chunks = [f"t{i} " for i in range(100)]
    openai_server.script(TextReply(chunks, delay=0.0015))

    async def reads() -> tuple[list[StreamEvent], int]:
        turns = 0  # the loop's turns: events that arrive in the same turn came in one read
        stopped = False

        async def count_turns() -> None:
            nonlocal turns
            while not stopped:
                turns += 1
                await asyncio.sleep(0)

        counter = asyncio.create_task(count_turns())
        events: list[StreamEvent] = []
        read_in: set[int] = set()
        async with make_client(openai_server, read_gap=1.0) as client:
            async for event in client.stream_chat(HELLO):
                events.append(event)
                read_in.add(turns)
        stopped = True
        await counter
        return events, len(read_in)

    events, reads_taken = asyncio.run(reads())
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas) == "".join(chunks)
    assert events[-1] == Finished("stop")
    assert reads_taken <= 5  # not one a chunk (about 100 before)
    assert len(deltas) <= reads_taken  # one a read at the most (100 before)


def test_event_stream_lines_end_at_crlf_cr_or_lf_and_nowhere_else(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    """The event-stream format ends a line at CRLF, LF or CR only: a JSON string may hold U+2028 or U+0085
    unescaped (as ``JSON.stringify`` writes them), and they do not cut its data line."""
    texts = ["line\u2028separator", "next\x85line", "vertical\x0btab"]
    data = [
        "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}, ensure_ascii=False)
        for text in texts
    ]
    openai_server.script(
        RawStreamReply(
            [
                data[0] + "\r",  # CRLF
                "\r",
                data[1] + "\r\r" + data[2] + "\r",  # CR, a blank line (CR) and CRLF
                'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}',
                "data: [DONE]",
            ]
        )
    )
    events = _stream(make_client(openai_server))
    assert events[-1] == Finished("stop")
    assert all(isinstance(e, TextDelta) for e in events[:-1])  # the chunks one read took come as one delta
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "".join(texts)


def test_a_burst_of_chunks_costs_a_few_python_calls_a_chunk(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    """Issue 34 item 1: each chunk went through httpx's line iterators and four generator layers as its own
    event: 11 Python calls a chunk (counted) on top of its JSON. The lines of a read are split in one pass and
    its text is one delta: a stream of 5,000 chunks that arrived together costs under 4 Python calls a chunk,
    the request included."""
    chunks = [f"t{i} " for i in range(5000)]
    data = [json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}) for text in chunks]
    openai_server.script(
        RawStreamReply(
            ["".join(f"data: {d}\n\n" for d in data), 'data: {"choices": [{"index": 0, "finish_reason": "stop"}]}']
        )
    )
    calls = 0

    def count(_frame: object, event: str, _arg: object) -> None:
        nonlocal calls
        calls += event == "call"

    async def consume() -> str:
        async with make_client(openai_server) as client:
            sys.setprofile(count)
            try:
                events = [event async for event in client.stream_chat(HELLO)]
            finally:
                sys.setprofile(None)
        return "".join(e.text for e in events if isinstance(e, TextDelta))

    assert asyncio.run(consume()) == "".join(chunks)
    assert calls <= 5 * len(chunks)  # 12 a chunk before


_IMPORTS: list[str] | None = None  # the modules an ``import`` statement went looking for, while counting


def _count_imports(event: str, args: tuple[Any, ...]) -> None:
    if event == "import" and _IMPORTS is not None:
        _IMPORTS.append(args[0])


sys.addaudithook(_count_imports)  # an audit hook stays for the process: it counts only while _IMPORTS is a list


def test_a_streamed_request_looks_for_no_module(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    """Issue 34 item 1: a native turn streams on the GUI loop, so a request must not search the disk. httpcore
    asks ``sniffio`` which async library runs at every request and connection; without the package each
    ask was a failed import, a stat of every folder on ``sys.path`` (0.6 ms), hundreds a second with
    twenty lines streaming. ``sniffio`` is a dependency now, and the requests after the first import nothing."""
    global _IMPORTS
    openai_server.script(*[TextReply(["a", "b"]) for _ in range(6)])

    async def requests() -> list[str]:
        global _IMPORTS
        async with make_client(openai_server) as client:
            [_ async for _ in client.stream_chat(HELLO)]  # the first request may import what it uses
            _IMPORTS = []
            for _ in range(5):
                [_ async for _ in client.stream_chat(HELLO)]
            return _IMPORTS

    try:
        assert asyncio.run(requests()) == []
    finally:
        _IMPORTS = None


# -- non-streamed ------------------------------------------------------------------------------


def test_complete_returns_text_usage_and_tool_calls(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(
        TextReply(["plain ", "answer"], usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}),
        ToolCallReply([ScriptedToolCall("call_9", "read_file", '{"path": "x"}')]),
    )

    async def run() -> tuple[Any, Any]:
        async with make_client(openai_server) as client:
            return await client.complete(HELLO), await client.complete(HELLO, tools=[READ_FILE_TOOL])

    first, second = asyncio.run(run())
    assert (first.text, first.finish_reason, first.usage) == ("plain answer", "stop", Usage(1, 2, 3))
    assert second.tool_calls[0].parse_arguments() == {"path": "x"}
    assert second.finish_reason == "tool_calls"
    assert [r.body["stream"] for r in openai_server.chat_requests] == [False, False]


def test_list_models_reads_the_models_endpoint(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    async def run() -> list[str]:
        async with make_client(openai_server) as client:
            return await client.list_models()

    assert asyncio.run(run()) == ["test-model"]
    assert openai_server.requests[0].path == "/v1/models"


# -- retries -----------------------------------------------------------------------------------


def test_server_errors_are_retried_then_succeed(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(ErrorReply(500), ErrorReply(502), TextReply(["finally"]))
    events = _stream(make_client(openai_server))
    assert events == [TextDelta("finally"), Finished("stop")]
    assert len(openai_server.chat_requests) == 3


def test_retries_are_bounded(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(*[ErrorReply(503, {"error": {"message": "overloaded"}})] * 5)
    info = _stream_error(make_client(openai_server, name="vllm"), ProviderServerError)
    assert "'vllm'" in str(info.value)
    assert "overloaded" in str(info.value)
    assert len(openai_server.chat_requests) == 3  # first try + max_retries=2
    assert openai_server.pending_replies == 2


def test_rate_limit_honours_a_small_retry_after(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(ErrorReply(429, headers={"Retry-After": "0.4"}), TextReply(["ok"]))
    started = time.monotonic()
    events = _stream(make_client(openai_server))
    assert events[-1] == Finished("stop")
    first, second = openai_server.chat_requests
    assert second.received_at - first.received_at >= 0.35  # the backoff alone would be 0.01 s
    assert time.monotonic() - started < 3


def test_rate_limit_with_a_long_retry_after_is_not_waited_for(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(ErrorReply(429, headers={"Retry-After": "120"}), TextReply(["never"]))
    started = time.monotonic()
    info = _stream_error(make_client(openai_server, name="openrouter"), RateLimitedError)
    assert info.value.retry_after == 120
    assert info.value.retryable  # the router may try another allowed provider
    assert "'openrouter'" in str(info.value)
    assert len(openai_server.chat_requests) == 1
    assert time.monotonic() - started < 120, "the 120 s Retry-After was waited for"


def test_dropped_connection_before_a_reply_is_retried(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(DropConnectionReply(), TextReply(["ok"]))
    assert _stream(make_client(openai_server))[-1] == Finished("stop")
    assert len(openai_server.chat_requests) == 2


def test_complete_is_retried_on_server_error(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(ErrorReply(500), TextReply(["ok"]))

    async def run() -> str:
        async with make_client(openai_server) as client:
            return (await client.complete(HELLO)).text

    assert asyncio.run(run()) == "ok"
    assert len(openai_server.chat_requests) == 2


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [401, 403])
def test_rejected_key_is_an_auth_error_naming_the_provider(
    openai_server: OpenAIServer, make_client: MakeClient, status: int
) -> None:
    openai_server.script(ErrorReply(status, {"error": {"message": "Incorrect API key provided"}}))
    info = _stream_error(make_client(openai_server, name="openai", api_key="sk-bad"), ProviderAuthError)
    message = str(info.value)
    assert "'openai'" in message
    assert "rejected the API key" in message
    assert "Incorrect API key provided" in message
    assert "sk-bad" not in message
    assert len(openai_server.chat_requests) == 1  # never retried


def test_unknown_model_is_a_model_not_found_error(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(ErrorReply(404, {"error": {"message": "model 'gpt-9' not found", "code": None}}))
    info = _stream_error(make_client(openai_server, name="ollama", model="gpt-9"), ModelNotFoundError)
    assert "'ollama'" in str(info.value)
    assert "'gpt-9'" in str(info.value)
    assert len(openai_server.chat_requests) == 1


def test_model_not_found_code_on_400_is_a_model_error(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(ErrorReply(400, {"error": {"message": "no such model", "code": "model_not_found"}}))
    _stream_error(make_client(openai_server), ModelNotFoundError)


def test_other_client_errors_are_request_errors_with_the_servers_text(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(ErrorReply(400, "context length exceeded"))
    info = _stream_error(make_client(openai_server), ProviderRequestError)
    assert "context length exceeded" in str(info.value)
    assert not info.value.retryable


def test_non_json_data_line_is_a_malformed_stream_error_quoting_it(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(RawStreamReply(["data: {this is not json", ""]))
    info = _stream_error(make_client(openai_server, name="vllm"), MalformedStreamError)
    assert "'vllm'" in str(info.value)
    assert "not JSON" in str(info.value)
    assert "{this is not json" in str(info.value)
    assert len(openai_server.chat_requests) == 1


def test_chunk_without_choices_is_a_malformed_stream_error(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(RawStreamReply(['data: {"id": "x", "object": "chat.completion.chunk"}', ""]))
    info = _stream_error(make_client(openai_server), MalformedStreamError)
    assert "no 'choices'" in str(info.value)


def test_html_page_instead_of_a_stream_is_a_malformed_stream_error(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(RawStreamReply(["<html>", "<body>Gateway login</body>"], content_type="text/html"))
    info = _stream_error(make_client(openai_server), MalformedStreamError)
    assert "<html>" in str(info.value)


def test_truncated_stream_is_a_malformed_stream_error(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(RawStreamReply(['data: {"choices": [{"index": 0, "delta": {"content": "par"}}]}', ""]))
    info = _stream_error(make_client(openai_server), MalformedStreamError)
    assert "truncated" in str(info.value)


def test_error_object_inside_the_stream_is_a_server_error(openai_server: OpenAIServer, make_client: MakeClient) -> None:
    openai_server.script(*[RawStreamReply(['data: {"error": {"message": "upstream overloaded"}}', ""])] * 3)
    info = _stream_error(make_client(openai_server), ProviderServerError)
    assert "upstream overloaded" in str(info.value)


def test_non_json_body_from_complete_is_a_malformed_response(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(RawStreamReply(["<html>oops</html>"], content_type="application/json"))

    async def run() -> None:
        async with make_client(openai_server) as client:
            await client.complete(HELLO)

    with pytest.raises(MalformedResponseError, match="not JSON"):
        asyncio.run(run())


def test_connection_refused_is_unreachable_naming_the_base_url(make_client: MakeClient) -> None:
    base_url = unused_base_url()
    info = _stream_error(make_client(base_url, name="lmstudio"), ProviderUnreachableError)
    assert base_url in str(info.value)
    assert "'lmstudio'" in str(info.value)
    assert info.value.retryable


# -- timeouts and cancellation -----------------------------------------------------------------


def test_no_reply_within_the_read_timeout_is_a_timeout_error(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(HangReply(before_headers=True))
    client = make_client(openai_server, timeouts=Timeouts(connect=2, read=0.3), name="ollama")
    started = time.monotonic()
    info = _stream_error(client, ProviderTimeoutError)
    assert time.monotonic() - started < 2
    assert "'ollama'" in str(info.value)
    assert "0.3 s" in str(info.value)
    assert len(openai_server.chat_requests) == 1  # a read timeout is not retried by the client
    assert openai_server.wait_for_disconnect()


def test_stall_in_the_middle_of_a_stream_times_out_without_retry(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(HangReply(chunks=["partial"]), TextReply(["must not be requested"]))
    client = make_client(openai_server, timeouts=Timeouts(connect=2, read=0.3))
    seen: list[StreamEvent] = []

    async def consume() -> None:
        async with client:
            async for event in client.stream_chat(HELLO):
                seen.append(event)

    with pytest.raises(ProviderTimeoutError):
        asyncio.run(consume())
    assert seen == [TextDelta("partial")]
    assert len(openai_server.chat_requests) == 1  # output was already yielded: never retried


def test_cancelling_the_consumer_closes_the_response_promptly(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(HangReply(chunks=["first"]))
    client = make_client(openai_server, timeouts=Timeouts(connect=2, read=30))

    async def run() -> float:
        first = asyncio.Event()

        async def consume() -> None:
            async for event in client.stream_chat(HELLO):
                if isinstance(event, TextDelta):
                    first.set()

        async with client:
            task = asyncio.create_task(consume())
            await asyncio.wait_for(first.wait(), timeout=5)
            started = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return time.monotonic() - started

    assert asyncio.run(run()) < 0.5
    assert openai_server.wait_for_disconnect(timeout=2)


def test_breaking_out_of_an_aclosing_stream_closes_the_response(
    openai_server: OpenAIServer, make_client: MakeClient
) -> None:
    openai_server.script(HangReply(chunks=["first"]))

    async def run() -> None:
        async with make_client(openai_server, timeouts=Timeouts(read=30)) as client:
            async with aclosing(client.stream_chat(HELLO)) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        break
            assert openai_server.wait_for_disconnect(timeout=2)

    asyncio.run(run())


def test_retry_policy_backoff_is_exponential_and_capped() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=3)
    assert [policy.backoff(n) for n in range(4)] == [0.5, 1.0, 2.0, 3.0]
