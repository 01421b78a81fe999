"""Async client for OpenAI-compatible ``/chat/completions`` endpoints.

Works with OpenAI, OpenRouter, vLLM, LM Studio and Ollama's ``/v1`` API. The
event stream is parsed by hand (``data:`` lines, ``[DONE]``), so a provider
that breaks the protocol gets an error naming what was wrong.

Retries are bounded and happen only before the first event was yielded: on
HTTP 429 (honouring a small ``Retry-After``), on 5xx, and on connection
failures. A read timeout is not retried here (that would multiply the wait);
like the other retryable errors it lets the router try the next allowed
candidate.

A stream's body is read at most once every ``read_gap`` seconds (a frame): the
chunks a fast provider sends meanwhile gather in the socket and are taken in one
read, so twenty lines streaming cost the event loop a read a frame each instead of
one per chunk (issue 34 item 1). A chunk that comes after a quiet gap is read at once.
The text of the chunks one read took comes as one ``TextDelta`` (and their reasoning
as one ``ReasoningDelta``); other events keep their order around them.

Cancelling the task that consumes ``stream_chat`` closes the HTTP response at
once. A consumer that stops iterating early should wrap the stream in
``contextlib.aclosing`` so the response is closed without waiting for garbage
collection.
"""

from __future__ import annotations

import asyncio
import codecs
import email.utils
import functools
import importlib
import itertools
import json
import json.scanner
import logging
import ssl
import time
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

import httpx

from xworkmate.llm.errors import (
    LLMError,
    MalformedResponseError,
    MalformedStreamError,
    ModelNotFoundError,
    ProviderAuthError,
    ProviderRequestError,
    ProviderServerError,
    ProviderTimeoutError,
    ProviderUnreachableError,
    RateLimitedError,
    StreamInterruptedError,
)
from xworkmate.llm.events import (
    ChatCompletion,
    Finished,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallReady,
    Usage,
    UsageReport,
)
from xworkmate.llm.providers import ProviderConfig

log = logging.getLogger(__name__)

ChatMessage = Mapping[str, Any]
ToolSpec = Mapping[str, Any]

_DETAIL_LIMIT = 300

# The least time between two reads of a stream's body: a frame of a 60 Hz screen, as the window paints
# what streamed at most once a frame anyway.
READ_GAP_S = 1 / 60

# What httpx loads on a client's first request, not on import: its transport (httpcore, h11),
# anyio's asyncio backend and the CA bundle.
_TRANSPORT_MODULES = ("httpcore", "h11", "anyio._backends._asyncio", "certifi")


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The verified TLS context every client shares, by httpx's own rules (``SSL_CERT_FILE``,
    ``SSL_CERT_DIR``, else certifi's bundle).

    httpx would build one per client, and loading the CA store takes about 35 ms of the event
    loop each time, even for a plain ``http://`` endpoint (issue 7: five lines starting at once
    stalled the window 170 ms). A context is safe to share between connections and threads.
    """
    return httpx.create_ssl_context()


def warm_up() -> None:
    """Do now, off the event loop, what a process's first request would do: load the transport
    modules and the TLS context. Best effort: the first request does whatever is left."""
    for name in _TRANSPORT_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:  # another httpx version, another layout: the first request loads it
            log.debug("warm-up: %s not found", name)
    tls_context()


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Seconds allowed for each phase of a request; ``read`` is the gap between two stream chunks."""

    connect: float = 10.0
    read: float = 120.0
    write: float = 30.0
    pool: float = 10.0

    def to_httpx(self) -> httpx.Timeout:
        return httpx.Timeout(connect=self.connect, read=self.read, write=self.write, pool=self.pool)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Bounded exponential backoff: ``base_delay * 2**attempt`` capped at ``max_delay``.

    A 429 whose ``Retry-After`` exceeds ``max_retry_after`` is not waited for:
    the error is raised so the router can move to another allowed provider.
    """

    max_retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 10.0

    def backoff(self, attempt: int) -> float:
        return float(min(self.max_delay, self.base_delay * (2**attempt)))


@dataclass(slots=True)
class _ToolCallBuilder:
    call_id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)
    emitted: bool = False

    def build(self, index: int) -> ToolCall:
        return ToolCall(
            id=self.call_id or f"call_{index}",
            name=self.name or "",
            arguments="".join(self.arguments),
        )


class _StreamState:
    """Per-response parsing state: tool-call assembly, finish reason, usage."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.tool_calls: dict[int, _ToolCallBuilder] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.done = False
        self.chunks = 0

    def handle_chunk(self, payload: str, obj: object) -> list[StreamEvent]:
        """One event's data: ``payload`` as it came (for the error messages), ``obj`` its JSON value, parsed once
        by ``_sse_payloads``."""
        if not isinstance(obj, dict):
            raise MalformedStreamError(self.provider, f"data line is not a JSON object: {_truncate(payload)!r}")
        self.chunks += 1
        if "error" in obj:
            detail, _code = _detail_from_obj(obj)
            raise ProviderServerError(self.provider, None, detail)
        usage = obj.get("usage")
        if usage is not None:
            self.usage = _usage(usage)
        choices = obj.get("choices")
        if choices is None:
            if usage is not None:
                return []
            raise MalformedStreamError(self.provider, f"chunk has no 'choices': {_truncate(payload)!r}")
        if not isinstance(choices, list):
            raise MalformedStreamError(self.provider, f"'choices' is not a list: {_truncate(payload)!r}")
        events: list[StreamEvent] = []
        for choice in choices:
            if not isinstance(choice, dict):
                raise MalformedStreamError(self.provider, f"a choice is not an object: {_truncate(payload)!r}")
            if choice.get("index", 0) != 0:
                continue  # we ask for one choice; ignore extra ones a server may send anyway
            delta = choice.get("delta")
            if delta is None:
                delta = choice.get("message") or {}
            if not isinstance(delta, dict):
                raise MalformedStreamError(self.provider, f"'delta' is not an object: {_truncate(payload)!r}")
            events.extend(self._delta_events(delta, payload))
            reason = choice.get("finish_reason")
            if reason is not None:
                self.finish_reason = str(reason)
                events.extend(self.ready_tool_calls())
        return events

    def _delta_events(self, delta: dict[str, Any], payload: str) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        content = delta.get("content")
        if isinstance(content, str) and content:
            events.append(TextDelta(content))
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            events.append(ReasoningDelta(reasoning))
        tool_calls = delta.get("tool_calls")
        if tool_calls is None:
            return events
        if not isinstance(tool_calls, list):
            raise MalformedStreamError(self.provider, f"'tool_calls' is not a list: {_truncate(payload)!r}")
        for raw in tool_calls:
            events.append(self._tool_call_delta(raw, payload))
        return events

    def _tool_call_delta(self, raw: object, payload: str) -> ToolCallDelta:
        if not isinstance(raw, dict):
            raise MalformedStreamError(self.provider, f"a tool call is not an object: {_truncate(payload)!r}")
        call_id = raw.get("id") if isinstance(raw.get("id"), str) else None
        index = raw.get("index")
        if not isinstance(index, int):
            # Some servers omit the index: a new id starts a new call, otherwise continue the last one.
            known = [i for i, b in self.tool_calls.items() if call_id is not None and b.call_id == call_id]
            if known:
                index = known[0]
            elif call_id is not None or not self.tool_calls:
                index = len(self.tool_calls)
            else:
                index = max(self.tool_calls)
        builder = self.tool_calls.setdefault(index, _ToolCallBuilder())
        if builder.emitted:
            raise MalformedStreamError(
                self.provider, f"tool call {index} continued after the finish reason: {_truncate(payload)!r}"
            )
        function = raw.get("function") or {}
        if not isinstance(function, dict):
            raise MalformedStreamError(self.provider, f"'function' is not an object: {_truncate(payload)!r}")
        name = function.get("name") if isinstance(function.get("name"), str) else None
        arguments = function.get("arguments")
        if isinstance(arguments, dict | list):
            arguments = json.dumps(arguments)  # a few servers send parsed arguments
        arguments_delta = arguments if isinstance(arguments, str) else ""
        if call_id:
            builder.call_id = call_id
        if name and not builder.name:
            builder.name = name
        builder.arguments.append(arguments_delta)
        return ToolCallDelta(index=index, call_id=call_id, name=name, arguments_delta=arguments_delta)

    def ready_tool_calls(self) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        for index in sorted(self.tool_calls):
            builder = self.tool_calls[index]
            if builder.emitted:
                continue
            builder.emitted = True
            if not builder.name:
                raise MalformedStreamError(self.provider, f"tool call {index} has no function name")
            events.append(ToolCallReady(builder.build(index)))
        return events

    def final_events(self) -> list[StreamEvent]:
        if not self.done and self.finish_reason is None:
            if self.chunks == 0:
                raise MalformedStreamError(self.provider, "the stream ended without any data event")
            raise MalformedStreamError(
                self.provider, "the stream ended before [DONE] and without a finish reason (truncated?)"
            )
        events = self.ready_tool_calls()
        if self.usage is not None:
            events.append(UsageReport(self.usage))
        events.append(Finished(self.finish_reason))
        return events


class OpenAIChatClient:
    """One OpenAI-compatible endpoint. Use as ``async with``, or call ``aclose()``."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        provider_name: str = "openai",
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        include_usage: bool = True,
        extra_headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        read_gap: float = READ_GAP_S,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.read_gap = read_gap
        self.model = model
        self.provider_name = provider_name
        self.timeouts = timeouts or Timeouts()
        self.retry = retry or RetryPolicy()
        self.include_usage = include_usage
        self._api_key = api_key  # only to scrub it from errors (SEC-1)
        headers = {"User-Agent": "xworkmate", **(extra_headers or {})}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.AsyncClient(
            timeout=self.timeouts.to_httpx(),
            headers=headers,
            transport=transport,
            follow_redirects=False,
            verify=tls_context(),
        )

    @classmethod
    def for_provider(
        cls,
        cfg: ProviderConfig,
        *,
        api_key: str | None,
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> Self:
        return cls(
            base_url=cfg.base_url,
            model=cfg.model,
            api_key=api_key,
            provider_name=cfg.name,
            timeouts=timeouts,
            retry=retry,
            transport=transport,
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    @property
    def chat_url(self) -> str:
        return f"{self.base_url}/chat/completions"

    async def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec] | None = None,
        *,
        model: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        """Stream one chat completion as typed events (see ``xworkmate.llm.events``)."""
        model_name = model or self.model
        body = self._body(messages, tools, model_name, True, temperature, max_tokens, tool_choice, extra_body)
        attempt = 0
        while True:
            yielded = False
            try:
                async with self._http.stream(
                    "POST", self.chat_url, json=body, headers={"Accept": "text/event-stream"}
                ) as response:
                    if response.status_code >= 400:
                        await response.aread()
                        raise self._status_error(response, model_name)
                    async with aclosing(self._response_events(response, model_name)) as events:
                        async for event in events:
                            yielded = True
                            yield event
                return
            except httpx.TransportError as exc:
                error = self._scrubbed(self._transport_error(exc, after_output=yielded))
                if yielded or not self._retries_transport(exc, attempt):
                    raise error from exc
                delay = self.retry.backoff(attempt)
            except LLMError as exc:
                error = self._scrubbed(exc)
                delay_or_none = None if yielded else self._retry_delay(exc, attempt)
                if delay_or_none is None:
                    raise
                delay = delay_or_none
            attempt += 1
            self._log_retry(error, delay, attempt)
            await asyncio.sleep(delay)

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec] | None = None,
        *,
        model: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> ChatCompletion:
        """One non-streamed chat completion."""
        model_name = model or self.model
        body = self._body(messages, tools, model_name, False, temperature, max_tokens, tool_choice, extra_body)
        attempt = 0
        while True:
            try:
                response = await self._http.post(self.chat_url, json=body)
                if response.status_code >= 400:
                    raise self._status_error(response, model_name)
                return self._completion_from_body(response.content, model_name)
            except httpx.TransportError as exc:
                error = self._scrubbed(self._transport_error(exc, after_output=False))
                if not self._retries_transport(exc, attempt):
                    raise error from exc
                delay = self.retry.backoff(attempt)
            except LLMError as exc:
                error = self._scrubbed(exc)
                delay_or_none = self._retry_delay(exc, attempt)
                if delay_or_none is None:
                    raise
                delay = delay_or_none
            attempt += 1
            self._log_retry(error, delay, attempt)
            await asyncio.sleep(delay)

    async def list_models(self) -> list[str]:
        """The model ids the endpoint offers (``GET {base_url}/models``)."""
        try:
            response = await self._http.get(f"{self.base_url}/models")
        except httpx.TransportError as exc:
            raise self._scrubbed(self._transport_error(exc, after_output=False)) from exc
        if response.status_code >= 400:
            raise self._scrubbed(self._status_error(response, self.model))
        try:
            data = response.json()["data"]
            return [str(item["id"]) for item in data]
        except (ValueError, KeyError, TypeError) as exc:
            raise self._scrubbed(
                MalformedResponseError(
                    self.provider_name,
                    f"model list is not {{'data': [{{'id': ...}}]}}: {_truncate(response.text)!r}",
                )
            ) from exc

    # -- request and response ------------------------------------------------------------

    def _body(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec] | None,
        model: str,
        stream: bool,
        temperature: float | None,
        max_tokens: int | None,
        tool_choice: str | Mapping[str, Any] | None,
        extra_body: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages], "stream": stream}
        if stream and self.include_usage:
            body["stream_options"] = {"include_usage": True}
        if tools:
            body["tools"] = [dict(t) for t in tools]
            if tool_choice is not None:
                body["tool_choice"] = tool_choice if isinstance(tool_choice, str) else dict(tool_choice)
        if temperature is not None:
            body["temperature"] = temperature
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if extra_body:
            body.update(extra_body)
        return body

    async def _response_events(self, response: httpx.Response, model: str) -> AsyncGenerator[StreamEvent, None]:
        content_type = response.headers.get("content-type", "")
        if content_type.startswith("application/json"):
            # The server ignored stream=true and sent one whole completion.
            completion = self._completion_from_body(await response.aread(), model)
            for event in _events_of(completion):
                yield event
            return
        state = _StreamState(self.provider_name)
        async with aclosing(self._sse_payloads(response)) as reads:
            async for payloads in reads:
                if state.done:
                    # Read to the end of the body rather than break: httpx's nested
                    # byte-stream generators then finish on their own instead of
                    # waiting for the garbage collector and a running event loop.
                    continue
                events: list[StreamEvent] = []
                failed: LLMError | None = None
                try:
                    for payload, value in payloads:
                        if payload == "[DONE]":
                            state.done = True
                            break
                        events += state.handle_chunk(payload, value)
                except LLMError as exc:
                    failed = exc  # what came before the bad chunk is yielded first, as chunk by chunk
                for event in _coalesced(events):
                    yield event
                if failed is not None:
                    raise failed
        for event in state.final_events():
            yield event

    async def _sse_payloads(self, response: httpx.Response) -> AsyncGenerator[list[tuple[str, Any]], None]:
        """The server-sent events of each read of the body: each event's ``data`` with its JSON value (``None``
        for ``[DONE]``), parsed once; comments and other fields are skipped. A read that ends in a broken line
        yields the events before it, then raises."""
        pending: list[str] = []
        loop = asyncio.get_running_loop()
        done = False
        async for lines in self._reads(response):
            next_read = loop.time() + self.read_gap
            payloads: list[tuple[str, Any]] = []
            failed: MalformedStreamError | None = None
            try:
                for line in lines:
                    if not line:
                        joined = "\n".join(pending)
                        pending.clear()
                        if joined.strip():
                            # A blank line ends an event whose data never became valid JSON.
                            raise MalformedStreamError(
                                self.provider_name, f"data line is not JSON: {_truncate(joined)!r}"
                            )
                        continue  # an empty event is a heartbeat
                    if line.startswith(":"):
                        continue  # SSE comment, e.g. a keep-alive
                    name, _sep, value = line.partition(":")
                    if value.startswith(" "):
                        value = value[1:]
                    if name == "data":
                        pending.append(value)
                        joined = "\n".join(pending) if len(pending) > 1 else value
                        # Dispatch as soon as the data is complete, so servers that omit the blank
                        # separator line still work; multi-line data is joined per the SSE rules.
                        stripped = joined.strip()
                        if stripped == "[DONE]":
                            pending.clear()
                            done = True
                            payloads.append((stripped, None))
                            continue
                        # The one parse of a chunk (issue 34 item 1): json.loads' scanner, without json.loads' three
                        # Python calls and two regular-expression matches, where the data starts with its value.
                        try:
                            value, end = _scan_json(joined, 0)
                            complete = end == len(joined) or not joined[end:].strip()
                        except (StopIteration, json.JSONDecodeError):
                            complete = False
                        if not complete:
                            try:
                                value = json.loads(joined)  # a leading blank; else not JSON, or not yet
                            except json.JSONDecodeError:
                                continue  # not complete yet: more data lines may follow
                        pending.clear()
                        payloads.append((stripped, value))
                    elif name in ("event", "id", "retry"):
                        continue
                    else:
                        raise MalformedStreamError(
                            self.provider_name, f"unexpected line in the event stream: {_truncate(line)!r}"
                        )
            except MalformedStreamError as exc:
                failed = exc  # the events before the broken line are yielded first, as line by line
            if payloads:
                yield payloads
            if failed is not None:
                raise failed
            wait = next_read - loop.time()
            if wait > 0 and not done:
                # What a fast provider sends meanwhile gathers in the socket for the next read. Cancelling
                # the consumer here closes the response as during a read. After [DONE], the end is read at once.
                await asyncio.sleep(wait)
        if "".join(pending).strip():
            raise MalformedStreamError(
                self.provider_name, f"data line is not JSON: {_truncate(chr(10).join(pending))!r}"
            )

    async def _reads(self, response: httpx.Response) -> AsyncGenerator[list[str], None]:
        """The complete lines (ended by CRLF, LF or CR, as the event-stream format says) of each read of the
        body, split in one pass; the last line without its break at the end."""
        decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        tail = ""  # the unfinished last line
        async for data in response.aiter_bytes():
            lines, tail = _split_lines(tail + decode(data))
            yield lines
        lines, tail = _split_lines(tail + decode(b"", True))
        yield [*lines, tail.removesuffix("\r")] if tail else lines

    def _completion_from_body(self, content: bytes, model: str) -> ChatCompletion:
        try:
            obj = json.loads(content)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise MalformedResponseError(
                self.provider_name, f"body is not JSON: {_truncate(content.decode('utf-8', 'replace'))!r}"
            ) from exc
        if not isinstance(obj, dict):
            raise MalformedResponseError(self.provider_name, "body is not a JSON object")
        if "error" in obj:
            detail, _code = _detail_from_obj(obj)
            raise ProviderServerError(self.provider_name, None, detail)
        choices = obj.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise MalformedResponseError(self.provider_name, "reply has no 'choices'")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise MalformedResponseError(self.provider_name, "the first choice has no 'message'")
        tool_calls: list[ToolCall] = []
        for index, raw in enumerate(message.get("tool_calls") or []):
            function = raw.get("function") if isinstance(raw, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise MalformedResponseError(self.provider_name, f"tool call {index} has no function name")
            arguments = function.get("arguments")
            if isinstance(arguments, dict | list):
                arguments = json.dumps(arguments)
            tool_calls.append(
                ToolCall(
                    id=str(raw.get("id") or f"call_{index}"),
                    name=function["name"],
                    arguments=arguments if isinstance(arguments, str) else "",
                )
            )
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        usage = obj.get("usage")
        reason = choices[0].get("finish_reason")
        return ChatCompletion(
            text=_content_text(message.get("content")),
            tool_calls=tuple(tool_calls),
            finish_reason=str(reason) if reason is not None else None,
            usage=_usage(usage) if usage is not None else None,
            reasoning=reasoning if isinstance(reasoning, str) else "",
            model=str(obj.get("model") or model),
            provider=self.provider_name,
        )

    # -- errors and retries --------------------------------------------------------------

    def _scrubbed(self, error: LLMError) -> LLMError:
        """SEC-1: every error leaves the client through here, without the key this client sends."""
        return error.redact(self._api_key)

    def _log_retry(self, error: LLMError, delay: float, attempt: int) -> None:
        # ``error`` has been through _scrubbed: a request failure never logs the key (SEC-1).
        log.info(
            "provider %s: retrying in %.2f s (attempt %d) after: %s", self.provider_name, delay, attempt + 1, error
        )

    def _status_error(self, response: httpx.Response, model: str) -> LLMError:
        status = response.status_code
        detail, code = _detail_from_response(response)
        name = self.provider_name
        if status in (401, 403):
            return ProviderAuthError(name, status, detail)
        if status == 404 or code == "model_not_found":
            return ModelNotFoundError(name, model, str(response.request.url), status, detail)
        if status == 429:
            return RateLimitedError(name, detail, _retry_after(response))
        if status >= 500:
            return ProviderServerError(name, status, detail, _retry_after(response))
        return ProviderRequestError(name, status, detail)

    def _retry_delay(self, exc: LLMError, attempt: int) -> float | None:
        """Seconds to wait before retrying after ``exc``, or ``None`` to give up."""
        if attempt >= self.retry.max_retries:
            return None
        if not isinstance(exc, RateLimitedError | ProviderServerError):
            return None
        retry_after = exc.retry_after
        if retry_after is not None:
            if retry_after > self.retry.max_retry_after:
                return None  # too long to wait here; let the router try another allowed provider
            return max(0.0, retry_after)
        return self.retry.backoff(attempt)

    def _retries_transport(self, exc: httpx.TransportError, attempt: int) -> bool:
        if attempt >= self.retry.max_retries:
            return False
        # A read timeout is not retried: waiting the whole read timeout again rarely helps.
        return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.RemoteProtocolError)

    def _transport_error(self, exc: httpx.TransportError, *, after_output: bool) -> LLMError:
        name, url = self.provider_name, self.base_url
        if isinstance(exc, httpx.TimeoutException):
            phase, seconds = _timeout_phase(exc, self.timeouts)
            return ProviderTimeoutError(name, url, phase, seconds)
        detail = str(exc) or type(exc).__name__
        if after_output:
            return StreamInterruptedError(name, url, detail)
        if isinstance(exc, httpx.ConnectError):
            return ProviderUnreachableError(name, url, detail)
        return ProviderUnreachableError(name, url, f"the connection failed before a reply: {detail}")


def _events_of(completion: ChatCompletion) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    if completion.reasoning:
        events.append(ReasoningDelta(completion.reasoning))
    if completion.text:
        events.append(TextDelta(completion.text))
    events.extend(ToolCallReady(call) for call in completion.tool_calls)
    if completion.usage is not None:
        events.append(UsageReport(completion.usage))
    events.append(Finished(completion.finish_reason))
    return events


_scan_json = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]


def _coalesced(events: list[StreamEvent]) -> list[StreamEvent]:
    """``events`` with each run of text deltas (and of reasoning deltas) joined into one: the chunks of one read
    reach the turn and the window as one delta (issue 34 item 1)."""
    if len(events) < 2:
        return events
    out: list[StreamEvent] = []
    for kind, run in itertools.groupby(events, key=type):
        if kind is TextDelta:
            out.append(TextDelta("".join([e.text for e in run if isinstance(e, TextDelta)])))
        elif kind is ReasoningDelta:
            out.append(ReasoningDelta("".join([e.text for e in run if isinstance(e, ReasoningDelta)])))
        else:
            out += run
    return out


def _split_lines(text: str) -> tuple[list[str], str]:
    """The complete lines of ``text`` and what follows the last line break. A CR at the end stays with what
    follows: the LF that may come next belongs to the same line break."""
    held = ""
    if text.endswith("\r"):
        text, held = text[:-1], "\r"
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    *lines, tail = text.split("\n")
    return lines, tail + held


def _timeout_phase(exc: httpx.TimeoutException, timeouts: Timeouts) -> tuple[str, float | None]:
    if isinstance(exc, httpx.ConnectTimeout):
        return "connect", timeouts.connect
    if isinstance(exc, httpx.ReadTimeout):
        return "waiting for data", timeouts.read
    if isinstance(exc, httpx.WriteTimeout):
        return "sending the request", timeouts.write
    if isinstance(exc, httpx.PoolTimeout):
        return "waiting for a free connection", timeouts.pool
    return "request", None


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _detail_from_response(response: httpx.Response) -> tuple[str, str | None]:
    try:
        obj = json.loads(response.content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _truncate(response.text.strip()), None
    if isinstance(obj, dict):
        return _detail_from_obj(obj)
    return _truncate(response.text.strip()), None


def _detail_from_obj(obj: dict[str, Any]) -> tuple[str, str | None]:
    error = obj.get("error", obj)
    if isinstance(error, str):
        return _truncate(error), None
    if isinstance(error, dict):
        message = error.get("message") or error.get("detail") or obj.get("detail") or json.dumps(error)
        code = error.get("code") or error.get("type")
        return _truncate(str(message)), str(code) if code is not None else None
    return _truncate(json.dumps(obj)), None


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        parts = [part for part in content if isinstance(part, dict) and part.get("type") == "text"]
        texts = [part.get("text") for part in parts]
        return "".join(text for text in texts if isinstance(text, str))
    return ""


def _usage(raw: object) -> Usage:
    if not isinstance(raw, dict):
        return Usage()

    def number(key: str) -> int | None:
        value = raw.get(key)
        return value if isinstance(value, int) else None

    return Usage(number("prompt_tokens"), number("completion_tokens"), number("total_tokens"))


def _truncate(text: str, limit: int = _DETAIL_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
