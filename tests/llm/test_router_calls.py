"""Routed model calls against real local servers (SPEC CAT-2): failover stays inside the group."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from xworkmate.llm import (
    ApiKeyError,
    CategoryModelError,
    ChatCompletion,
    Finished,
    MalformedStreamError,
    ModelRouter,
    ProviderAuthError,
    ProviderConfig,
    ProviderFailover,
    ProviderSelected,
    ProviderServerError,
    ProviderTimeoutError,
    ProviderUnreachableError,
    RouterEvent,
    TextDelta,
    Timeouts,
    collect_stream,
)
from xworkmate.testing.openai_server import (
    ErrorReply,
    HangReply,
    OpenAIServer,
    RawStreamReply,
    TextReply,
    unused_base_url,
)

MakeProvider = Callable[..., ProviderConfig]
MakeRouter = Callable[..., ModelRouter]
ServerFactory = Callable[[], OpenAIServer]
HELLO = [{"role": "user", "content": "private symptoms"}]


def _stream(router: ModelRouter, category: str | None, **kwargs: Any) -> list[RouterEvent]:
    async def consume() -> list[RouterEvent]:
        return [e async for e in router.stream(HELLO, content_category=category, **kwargs)]

    return asyncio.run(consume())


def _text(events: list[RouterEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_category_call_without_a_tagged_provider_sends_nothing_anywhere(
    openai_server_factory: ServerFactory, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    """CAT-2: no tagged provider → CategoryModelError, and the untagged server receives zero requests."""
    untagged = openai_server_factory()
    untagged.script(TextReply(["leaked"]))
    router = make_router([make_provider(untagged, "openai", is_default=True)])
    with pytest.raises(CategoryModelError, match="'medical'"):
        _stream(router, "medical", pinned="openai", fallback=["openai"])
    assert untagged.requests == []


def test_category_call_goes_only_to_the_tagged_provider(
    openai_server_factory: ServerFactory, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    """CAT-2: even when the untagged provider is the default and pinned."""
    untagged, tagged = openai_server_factory(), openai_server_factory()
    tagged.script(TextReply(["from ", "tagged"]))
    router = make_router(
        [make_provider(untagged, "openai", is_default=True), make_provider(tagged, "local-med", ("medical",))]
    )
    events = _stream(router, "medical", pinned="openai")
    assert events[0] == ProviderSelected("local-med", "test-model")
    assert _text(events) == "from tagged"
    assert events[-1] == Finished("stop")
    assert untagged.requests == []
    assert len(tagged.chat_requests) == 1


def test_normal_content_may_use_an_untagged_provider(
    openai_server: OpenAIServer, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    """CAT-2: normal content may use any provider."""
    openai_server.script(TextReply(["hi"]))
    router = make_router([make_provider(openai_server, "openai")])
    assert _text(_stream(router, None)) == "hi"


def test_failover_moves_to_the_next_tagged_provider_never_to_an_untagged_one(
    openai_server_factory: ServerFactory, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    """CAT-2 on the retry path: after the first tagged provider's retries run out, the next *tagged*
    provider answers; the untagged default and the untagged fallback receive zero requests."""
    untagged, failing, healthy, untagged_fallback = (openai_server_factory() for _ in range(4))
    failing.script(*[ErrorReply(503)] * 3)
    healthy.script(TextReply(["recovered"]))
    router = make_router(
        [
            make_provider(untagged, "openai", is_default=True),
            make_provider(failing, "med-a", ("medical",)),
            make_provider(healthy, "med-b", ("medical",)),
            make_provider(untagged_fallback, "openrouter"),
        ]
    )
    events = _stream(router, "medical", fallback=["openrouter"])
    failovers = [e for e in events if isinstance(e, ProviderFailover)]
    assert [(f.provider, type(f.error)) for f in failovers] == [("med-a", ProviderServerError)]
    assert ProviderSelected("med-b", "test-model") in events
    assert _text(events) == "recovered"
    assert len(failing.chat_requests) == 3  # the client's own bounded retries first
    assert untagged.requests == []
    assert untagged_fallback.requests == []


def test_when_every_tagged_provider_fails_the_error_surfaces_and_untagged_get_nothing(
    openai_server_factory: ServerFactory, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    """CAT-2: it never uses an out-of-group model to make a call succeed."""
    untagged, tagged = openai_server_factory(), openai_server_factory()
    tagged.script(*[ErrorReply(500)] * 3)
    untagged.script(TextReply(["would succeed"]))
    router = make_router(
        [make_provider(tagged, "med", ("medical",)), make_provider(untagged, "openai", is_default=True)]
    )
    with pytest.raises(ProviderServerError, match="'med'"):
        _stream(router, "medical", palette=["openai"], fallback=["openai"])
    assert untagged.requests == []


def test_unreachable_tagged_provider_fails_over_to_the_next_tagged_one(
    openai_server: OpenAIServer, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    openai_server.script(TextReply(["up"]))
    router = make_router(
        [
            make_provider(unused_base_url(), "med-down", ("medical",)),
            make_provider(openai_server, "med-up", ("medical",)),
        ]
    )
    events = _stream(router, "medical")
    (failover,) = [e for e in events if isinstance(e, ProviderFailover)]
    assert isinstance(failover.error, ProviderUnreachableError)
    assert _text(events) == "up"


def test_hanging_provider_times_out_and_fails_over(
    openai_server_factory: ServerFactory, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    hanging, healthy = openai_server_factory(), openai_server_factory()
    hanging.script(HangReply(before_headers=True))
    healthy.script(TextReply(["fast"]))
    router = make_router(
        [make_provider(hanging, "slow"), make_provider(healthy, "fast")],
        timeouts=Timeouts(connect=2, read=0.3),
    )
    events = _stream(router, None)
    (failover,) = [e for e in events if isinstance(e, ProviderFailover)]
    assert isinstance(failover.error, ProviderTimeoutError)
    assert _text(events) == "fast"


def test_rejected_key_does_not_fail_over(
    openai_server_factory: ServerFactory, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    """A configuration error is reported, not hidden by trying another provider."""
    first, second = openai_server_factory(), openai_server_factory()
    first.script(ErrorReply(401))
    router = make_router([make_provider(first, "openai"), make_provider(second, "openrouter")])
    with pytest.raises(ProviderAuthError, match="'openai'"):
        _stream(router, None)
    assert second.requests == []


def test_failure_after_output_is_not_failed_over(
    openai_server_factory: ServerFactory, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    """Output already reached the consumer; repeating the call elsewhere would duplicate it."""
    first, second = openai_server_factory(), openai_server_factory()
    first.script(
        RawStreamReply(['data: {"choices": [{"index": 0, "delta": {"content": "half"}}]}', "", "data: garbage", ""])
    )
    second.script(TextReply(["whole"]))
    router = make_router([make_provider(first, "a", ("medical",)), make_provider(second, "b", ("medical",))])
    seen: list[RouterEvent] = []

    async def consume() -> None:
        async for event in router.stream(HELLO, content_category="medical"):
            seen.append(event)

    with pytest.raises(MalformedStreamError):
        asyncio.run(consume())
    assert _text(seen) == "half"
    assert second.requests == []


def test_missing_api_key_is_reported_before_any_request(
    openai_server: OpenAIServer,
    make_provider: MakeProvider,
    make_router: MakeRouter,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("XW_TEST_ROUTER_KEY", raising=False)
    router = make_router([make_provider(openai_server, "openai", api_key_env="XW_TEST_ROUTER_KEY")])
    with pytest.raises(ApiKeyError, match="XW_TEST_ROUTER_KEY"):
        _stream(router, None)
    assert openai_server.requests == []


def test_routed_call_sends_the_providers_model_and_key(
    openai_server: OpenAIServer,
    make_provider: MakeProvider,
    make_router: MakeRouter,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XW_TEST_ROUTER_KEY", "sk-routed")
    openai_server.script(TextReply(["ok"]))
    router = make_router(
        [make_provider(openai_server, "openai", model="gpt-4o-mini", api_key_env="XW_TEST_ROUTER_KEY")]
    )
    completion = asyncio.run(collect_stream(router.stream(HELLO, content_category=None)))
    assert (completion.text, completion.provider, completion.model) == ("ok", "openai", "gpt-4o-mini")
    (request,) = openai_server.chat_requests
    assert request.body["model"] == "gpt-4o-mini"
    assert request.headers["authorization"] == "Bearer sk-routed"


def test_complete_fails_over_inside_the_group(
    openai_server_factory: ServerFactory, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    """CAT-2 for non-streamed calls too."""
    untagged, failing, healthy = (openai_server_factory() for _ in range(3))
    failing.script(*[ErrorReply(502)] * 3)
    healthy.script(TextReply(["done"]))
    router = make_router(
        [
            make_provider(untagged, "openai", is_default=True),
            make_provider(failing, "med-a", ("medical",)),
            make_provider(healthy, "med-b", ("medical",)),
        ]
    )
    failovers: list[ProviderFailover] = []

    async def run() -> ChatCompletion:
        return await router.complete(HELLO, content_category="medical", on_failover=failovers.append)

    completion = asyncio.run(run())
    assert (completion.text, completion.provider) == ("done", "med-b")
    assert [f.provider for f in failovers] == ["med-a"]
    assert untagged.requests == []


def test_complete_with_no_tagged_provider_sends_nothing(
    openai_server: OpenAIServer, make_provider: MakeProvider, make_router: MakeRouter
) -> None:
    """CAT-2."""
    router = make_router([make_provider(openai_server, "openai")])
    with pytest.raises(CategoryModelError):
        asyncio.run(router.complete(HELLO, content_category="legal"))
    assert openai_server.requests == []
