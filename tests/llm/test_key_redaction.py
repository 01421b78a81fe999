"""SEC-1: an API key a provider echoes back never leaves the LLM layer inside an error.

Every test talks to the real OpenAI-compatible test server; the key travels in the
``Authorization`` header as it does in production, and the server answers with it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from tests.llm.conftest import FAST_RETRY, FAST_TIMEOUTS
from xworkmate.domain.secrets import redact
from xworkmate.llm import (
    REDACTED_KEY,
    LLMError,
    MalformedStreamError,
    ModelRouter,
    OpenAIChatClient,
    ProviderAuthError,
    ProviderConfig,
    ProviderFailover,
    ProviderRequestError,
    ProviderServerError,
)
from xworkmate.testing.openai_server import ErrorReply, OpenAIServer, RawStreamReply, Reply, TextReply

KEY = "sk-proj-Q7vR2mXk9LpT4wZc8NbY3hJd6FgS1aE5"
MASKED = f"{KEY[:10]}...{KEY[-8:]}"  # how some providers echo a key "safely"
HELLO = [{"role": "user", "content": "hello"}]


def pieces_of_key(text: str, length: int = 8) -> list[str]:
    """Every stretch of ``length`` characters of ``KEY`` that appears in ``text``."""
    return [KEY[i : i + length] for i in range(len(KEY) - length + 1) if KEY[i : i + length] in text]


def assert_no_key(text: str) -> None:
    assert KEY not in text
    assert pieces_of_key(text) == [], text


def echo_body(status: int) -> Reply:
    message = f"Incorrect API key provided: {KEY}. Also known as {MASKED}."
    return ErrorReply(status, {"error": {"message": message, "type": "invalid_request_error"}})


# An error object inside the stream counts as a server error, which the client retries.
STREAM_ERROR = RawStreamReply([f"data: {json.dumps({'error': {'message': f'bad key {KEY}'}})}", ""])


# -- the rule ---------------------------------------------------------------------------------


def test_redact_with_the_key_replaces_the_whole_key_and_every_echoed_piece_of_eight_or_more() -> None:
    """SEC-1: the key, and prefix/suffix echoes like ``sk-proj-Q7...6FgS1aE5``, become the marker."""
    text = f"key {KEY!r}; masked {MASKED}; quoted again: {KEY}"
    redacted = redact(text, key=KEY)
    assert_no_key(redacted)
    assert redacted == f"key '{REDACTED_KEY}'; masked {REDACTED_KEY}...{REDACTED_KEY}; quoted again: {REDACTED_KEY}"


def test_redact_with_the_key_keeps_pieces_shorter_than_eight_and_text_without_a_key() -> None:
    """SEC-1's partial rule stops at 8 characters, so ordinary words sharing a few letters survive."""
    short_echo = f"key ends in ...{KEY[-4:]} and starts {KEY[:3]}"
    assert redact(short_echo, key=KEY) == short_echo
    assert redact("no key here", key=None) == "no key here"
    assert redact("pass abc123 now", key="abc123") == f"pass {REDACTED_KEY} now"  # a short key only whole


# -- the client -------------------------------------------------------------------------------


def _client(server: OpenAIServer) -> OpenAIChatClient:
    return OpenAIChatClient(
        base_url=server.base_url,
        model="test-model",
        api_key=KEY,
        provider_name="echoing",
        retry=FAST_RETRY,
        timeouts=FAST_TIMEOUTS,
    )


def _stream_failure(server: OpenAIServer) -> LLMError:
    async def consume() -> None:
        async with _client(server) as client:
            async for _event in client.stream_chat(HELLO):
                pass

    with pytest.raises(LLMError) as info:
        asyncio.run(consume())
    return info.value


@pytest.mark.parametrize(
    ("reply", "error_type", "kept"),
    [
        (echo_body(401), ProviderAuthError, "rejected the API key (HTTP 401)"),
        (echo_body(403), ProviderAuthError, "(HTTP 403)"),
        (echo_body(400), ProviderRequestError, "refused the request (HTTP 400)"),
        (STREAM_ERROR, ProviderServerError, "error inside the stream"),
        (RawStreamReply([f"data: {{not json {KEY}", ""]), MalformedStreamError, "malformed stream"),
    ],
    ids=["401", "403", "400", "error-in-stream", "malformed-stream"],
)
def test_a_streamed_call_whose_provider_echoes_the_key_fails_without_the_key(
    openai_server: OpenAIServer, reply: Reply, error_type: type[LLMError], kept: str
) -> None:
    """SEC-1: the error still says what went wrong; the key it echoed is replaced by the marker."""
    openai_server.script(*[reply] * (FAST_RETRY.max_retries + 1 if reply is STREAM_ERROR else 1))
    error = _stream_failure(openai_server)
    assert openai_server.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"  # the key was sent
    assert isinstance(error, error_type)
    assert kept in str(error) and REDACTED_KEY in str(error)
    assert_no_key(str(error))
    assert_no_key(repr(error.args))
    for value in vars(error).values():
        if isinstance(value, str):
            assert_no_key(value)


def test_a_non_streamed_call_whose_provider_echoes_the_key_fails_without_the_key(
    openai_server: OpenAIServer,
) -> None:
    """SEC-1 on ``complete``: same rule as the stream."""
    openai_server.script(echo_body(401))

    async def call() -> None:
        async with _client(openai_server) as client:
            await client.complete(HELLO)

    with pytest.raises(ProviderAuthError) as info:
        asyncio.run(call())
    assert "HTTP 401" in str(info.value)
    assert_no_key(str(info.value))


def test_a_retried_failure_is_logged_with_its_reason_and_without_the_key(
    openai_server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    """SEC-1: the retry log line names why the request failed, and the key is not in it (nor in any record)."""
    openai_server.script(echo_body(500), TextReply(["fine"]))
    caplog.set_level(logging.DEBUG)

    async def consume() -> list[Any]:
        async with _client(openai_server) as client:
            return [event async for event in client.stream_chat(HELLO)]

    asyncio.run(consume())
    retry_lines = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert len(retry_lines) == 1 and "HTTP 500" in retry_lines[0] and REDACTED_KEY in retry_lines[0]
    assert_no_key(caplog.text)
    for record in caplog.records:
        assert_no_key(record.getMessage())


def test_a_failover_event_carries_the_failure_without_the_key(
    openai_server_factory: Callable[[], OpenAIServer],
) -> None:
    """SEC-1 at the router: the error a ``ProviderFailover`` reports comes scrubbed from the client."""
    first, second = openai_server_factory(), openai_server_factory()
    first.script(*[echo_body(500)] * (FAST_RETRY.max_retries + 1))
    second.script(TextReply(["from the second"]))
    providers = [
        ProviderConfig(name="first", base_url=first.base_url, model="test-model", is_default=True),
        ProviderConfig(name="second", base_url=second.base_url, model="test-model"),
    ]
    router = ModelRouter(providers, key_resolver=lambda cfg: KEY, retry=FAST_RETRY, timeouts=FAST_TIMEOUTS)

    async def consume() -> list[Any]:
        return [event async for event in router.stream(HELLO, content_category=None)]

    events = asyncio.run(consume())
    failovers = [e for e in events if isinstance(e, ProviderFailover)]
    assert len(failovers) == 1 and "HTTP 500" in str(failovers[0].error)
    assert_no_key(str(failovers[0].error))
