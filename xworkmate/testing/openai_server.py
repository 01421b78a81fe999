"""A real OpenAI-compatible HTTP server for tests.

It listens on 127.0.0.1 on a free port, in a background thread, and answers
``POST /v1/chat/completions`` (streamed and not), ``POST /v1/responses`` (the Responses API,
streamed as its SSE events, for agents such as codex that refuse the chat API) and
``GET /v1/models`` from one queue of scripted replies. Every request is recorded, so a test can assert
what a provider received, including that it received nothing at all.

    with OpenAIServer() as server:
        server.script(TextReply(["Hel", "lo"]), ErrorReply(500))
        ...  # point a ProviderConfig at server.base_url
        assert len(server.chat_requests) == 2

A chat request that finds the queue empty gets HTTP 418 with a body saying so,
which the client reports as a refused request (not retried).
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

CHAT_PATH = "/v1/chat/completions"
RESPONSES_PATH = "/v1/responses"
MODELS_PATH = "/v1/models"


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: Any
    """The parsed JSON body, or ``None`` when there was none or it was not JSON."""
    received_at: float


@dataclass(frozen=True)
class TextReply:
    """Text in ``chunks`` (one stream chunk each), ``delay`` seconds before each chunk."""

    chunks: Sequence[str]
    delay: float = 0.0
    finish_reason: str = "stop"
    usage: Mapping[str, int] | None = None
    send_done: bool = True


@dataclass(frozen=True)
class ScriptedToolCall:
    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolCallReply:
    """Tool calls, each call's ``arguments`` string split over ``pieces`` stream chunks."""

    calls: Sequence[ScriptedToolCall]
    text: str = ""
    pieces: int = 3
    finish_reason: str = "tool_calls"
    usage: Mapping[str, int] | None = None


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error; a dict ``body`` is sent as JSON, a string as text."""

    status: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RawStreamReply:
    """Lines written verbatim (each followed by a newline), for protocol violations."""

    lines: Sequence[str]
    status: int = 200
    content_type: str = "text/event-stream"
    delay: float = 0.0


@dataclass(frozen=True)
class HangReply:
    """Stream ``chunks`` of text (or, with ``before_headers``, nothing at all), ``delay`` seconds before each,
    then hang.

    The connection stays open until the client closes it or the server stops;
    the server records the client's disconnect (see ``wait_for_disconnect``).
    """

    chunks: Sequence[str] = ()
    before_headers: bool = False
    delay: float = 0.0


@dataclass(frozen=True)
class DropConnectionReply:
    """Close the connection without sending any reply."""


Reply = TextReply | ToolCallReply | ErrorReply | RawStreamReply | HangReply | DropConnectionReply


class OpenAIServer:
    """The server; use as a context manager or call ``start()`` / ``stop()``."""

    def __init__(self, *, models: Sequence[str] = ("test-model",)) -> None:
        self.models = list(models)
        self.hang_models = False  # GET /v1/models hangs until the client goes: a fetch still in flight
        self._replies: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._disconnected = threading.Condition(self._lock)
        self._disconnects = 0
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        if self._httpd is not None:
            raise RuntimeError("the test server is already running")
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler, owner=self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="openai-test-server"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # releases hanging handlers
        self._httpd.shutdown()
        self._httpd.server_close()  # joins the handler threads
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- test API ----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the test server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, including ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *replies: Reply) -> None:
        """Queue replies; each chat request takes the next one."""
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending_replies(self) -> int:
        with self._lock:
            return len(self._replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == "POST" and r.path == CHAT_PATH]

    @property
    def responses_requests(self) -> list[RecordedRequest]:
        """The Responses-API requests (``POST /v1/responses``)."""
        return [r for r in self.requests if r.method == "POST" and r.path == RESPONSES_PATH]

    @property
    def disconnects(self) -> int:
        """How many hanging replies ended because the client closed the connection."""
        with self._lock:
            return self._disconnects

    def wait_for_disconnect(self, timeout: float = 2.0, count: int = 1) -> bool:
        with self._disconnected:
            return self._disconnected.wait_for(lambda: self._disconnects >= count, timeout=timeout)

    # -- used by the handler -----------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_reply(self) -> Reply:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        return ErrorReply(418, {"error": {"message": "test server: no scripted reply left"}})

    def _note_disconnect(self) -> None:
        with self._disconnected:
            self._disconnects += 1
            self._disconnected.notify_all()


def unused_base_url() -> str:
    """A base URL on a port nothing listens on (for connection-refused tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = True

    def __init__(self, address: tuple[str, int], handler: type[_Handler], *, owner: OpenAIServer) -> None:
        self.owner = owner
        super().__init__(address, handler)


class _ClientGone(Exception):
    """The client closed the connection."""


class _ServerStopping(Exception):
    """The server is shutting down; abandon the reply."""


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.0"  # one request per connection; a streamed body ends with the close

    def log_message(self, format: str, *args: Any) -> None:
        pass

    @property
    def owner(self) -> OpenAIServer:
        return self.server.owner

    def do_GET(self) -> None:
        self._record(None)
        if self.path == MODELS_PATH and self.owner.hang_models:
            try:
                self._hang()
            except _ClientGone:
                self.owner._note_disconnect()
            self.close_connection = True
        elif self.path == MODELS_PATH:
            data = [{"id": model, "object": "model", "owned_by": "test"} for model in self.owner.models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": f"no route for GET {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        self._record(body)
        if self.path not in (CHAT_PATH, RESPONSES_PATH):
            self._send_json(404, {"error": {"message": f"no route for POST {self.path}"}})
            return
        request = body if isinstance(body, dict) else {}
        try:
            reply = self.owner._next_reply()
            if self.path == RESPONSES_PATH:
                _ResponsesStream(self, request).reply(reply)
            else:
                self._reply(reply, request)
        except (_ClientGone, BrokenPipeError, ConnectionResetError):
            self.owner._note_disconnect()
        except _ServerStopping:
            pass
        self.close_connection = True

    # -- replies -----------------------------------------------------------------------------

    def _reply(self, reply: Reply, request: dict[str, Any]) -> None:
        stream = bool(request.get("stream"))
        model = str(request.get("model") or "test-model")
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        if isinstance(reply, ErrorReply):
            self._send_error_reply(reply)
        elif isinstance(reply, DropConnectionReply):
            self.connection.shutdown(socket.SHUT_RDWR)
        elif isinstance(reply, RawStreamReply):
            self._start_stream(reply.status, reply.content_type)
            for line in reply.lines:
                self._pause(reply.delay)
                self._write(line + "\n")
        elif isinstance(reply, HangReply):
            if reply.before_headers or not stream:
                self._hang()
                return
            self._start_stream(200, "text/event-stream")
            self._send_chunk(model, {"role": "assistant", "content": ""})
            for text in reply.chunks:
                self._pause(reply.delay)
                self._send_chunk(model, {"content": text})
            self._hang()
        elif isinstance(reply, TextReply):
            if stream:
                self._stream_text(reply, model, include_usage)
            else:
                message: dict[str, Any] = {"role": "assistant", "content": "".join(reply.chunks)}
                self._send_json(200, _completion(model, message, reply.finish_reason, reply.usage))
        else:
            if stream:
                self._stream_tool_calls(reply, model, include_usage)
            else:
                message = {
                    "role": "assistant",
                    "content": reply.text or None,
                    "tool_calls": [_tool_call_object(call) for call in reply.calls],
                }
                self._send_json(200, _completion(model, message, reply.finish_reason, reply.usage))

    def _stream_text(self, reply: TextReply, model: str, include_usage: bool) -> None:
        self._start_stream(200, "text/event-stream")
        self._send_chunk(model, {"role": "assistant", "content": ""})
        for text in reply.chunks:
            self._pause(reply.delay)
            self._send_chunk(model, {"content": text})
        self._send_chunk(model, {}, finish_reason=reply.finish_reason)
        self._finish_stream(model, reply.usage if include_usage else None, reply.send_done)

    def _stream_tool_calls(self, reply: ToolCallReply, model: str, include_usage: bool) -> None:
        self._start_stream(200, "text/event-stream")
        self._send_chunk(model, {"role": "assistant", "content": ""})
        if reply.text:
            self._send_chunk(model, {"content": reply.text})
        for index, call in enumerate(reply.calls):
            head = {
                "index": index,
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            self._send_chunk(model, {"tool_calls": [head]})
            for piece in _split(call.arguments, reply.pieces):
                self._send_chunk(model, {"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        self._send_chunk(model, {}, finish_reason=reply.finish_reason)
        self._finish_stream(model, reply.usage if include_usage else None, True)

    def _finish_stream(self, model: str, usage: Mapping[str, int] | None, send_done: bool) -> None:
        if usage is not None:
            self._write_event(
                {
                    "id": "chatcmpl-test",
                    "object": "chat.completion.chunk",
                    "model": model,
                    "choices": [],
                    "usage": dict(usage),
                }
            )
        if send_done:
            self._write("data: [DONE]\n\n")

    def _send_error_reply(self, reply: ErrorReply) -> None:
        if isinstance(reply.body, str):
            payload, content_type = reply.body.encode(), "text/plain; charset=utf-8"
        else:
            body = reply.body if reply.body is not None else {"error": {"message": f"status {reply.status}"}}
            payload, content_type = json.dumps(body).encode(), "application/json"
        self.send_response(reply.status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    # -- low level ---------------------------------------------------------------------------

    def _record(self, body: Any) -> None:
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.owner._record(RecordedRequest(self.command, self.path, headers, body, time.monotonic()))

    def _send_json(self, status: int, obj: Any) -> None:
        payload = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _start_stream(self, status: int, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()

    def _send_chunk(self, model: str, delta: dict[str, Any], finish_reason: str | None = None) -> None:
        self._write_event(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            }
        )

    def _write_event(self, obj: Any) -> None:
        self._write(f"data: {json.dumps(obj)}\n\n")

    def _write(self, text: str) -> None:
        self.wfile.write(text.encode())
        self.wfile.flush()

    def _pause(self, seconds: float) -> None:
        if seconds > 0 and self.owner._stopping.wait(seconds):
            raise _ServerStopping

    def _hang(self) -> None:
        """Wait until the client closes the connection (then record it) or the server stops."""
        while not self.owner._stopping.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.02)
            if readable:
                try:
                    data = self.connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    data = b""
                if not data:
                    raise _ClientGone


class _ResponsesStream:
    """One scripted reply in the Responses API's streamed form (``POST /v1/responses``).

    Each event is ``event: <type>`` plus ``data: {"type": <type>, …}``: ``response.created``, then per
    output item ``response.output_item.added``, its deltas (``response.output_text.delta`` for a message,
    ``response.function_call_arguments.delta`` for a function call) and ``response.output_item.done`` with
    the whole item, then ``response.completed`` with the response's ``output`` and ``usage``. Text and
    tool calls are ``TextReply`` and ``ToolCallReply`` as for the chat API; a function call's ``call_id``
    is the scripted call's ``id``. Errors, dropped connections and hangs behave as on the chat path.
    """

    def __init__(self, handler: _Handler, request: dict[str, Any]) -> None:
        self.handler = handler
        self.model = str(request.get("model") or "test-model")
        self.response_id = f"resp_{uuid.uuid4().hex[:24]}"
        self.output: list[dict[str, Any]] = []

    def reply(self, reply: Reply) -> None:
        handler = self.handler
        if isinstance(reply, ErrorReply):
            handler._send_error_reply(reply)
        elif isinstance(reply, DropConnectionReply):
            handler.connection.shutdown(socket.SHUT_RDWR)
        elif isinstance(reply, RawStreamReply):
            handler._start_stream(reply.status, reply.content_type)
            for line in reply.lines:
                handler._pause(reply.delay)
                handler._write(line + "\n")
        elif isinstance(reply, HangReply):
            if reply.before_headers:
                handler._hang()
                return
            self._start()
            item_id = self._open_message()
            for text in reply.chunks:
                handler._pause(reply.delay)
                self._event("response.output_text.delta", item_id=item_id, output_index=0, content_index=0, delta=text)
            handler._hang()
        elif isinstance(reply, TextReply):
            self._start()
            self._message(reply.chunks, reply.delay)
            self._complete(reply.usage)
        else:
            self._start()
            if reply.text:
                self._message([reply.text], 0.0)
            for call in reply.calls:
                self._function_call(call, reply.pieces)
            self._complete(reply.usage)

    def _start(self) -> None:
        self.handler._start_stream(200, "text/event-stream")
        self._event("response.created", response=self._response("in_progress"))

    def _open_message(self) -> str:
        item_id = f"msg_{uuid.uuid4().hex[:24]}"
        item = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}
        self._event("response.output_item.added", output_index=len(self.output), item=item)
        return item_id

    def _message(self, chunks: Sequence[str], delay: float) -> None:
        index = len(self.output)
        item_id = self._open_message()
        for text in chunks:
            self.handler._pause(delay)
            self._event("response.output_text.delta", item_id=item_id, output_index=index, content_index=0, delta=text)
        text = "".join(chunks)
        self._event("response.output_text.done", item_id=item_id, output_index=index, content_index=0, text=text)
        content = [{"type": "output_text", "text": text, "annotations": []}]
        self._done({"type": "message", "id": item_id, "role": "assistant", "status": "completed", "content": content})

    def _function_call(self, call: ScriptedToolCall, pieces: int) -> None:
        index = len(self.output)
        item_id = f"fc_{uuid.uuid4().hex[:24]}"
        item = {"type": "function_call", "id": item_id, "call_id": call.id, "name": call.name, "arguments": ""}
        self._event("response.output_item.added", output_index=index, item=dict(item, status="in_progress"))
        for piece in _split(call.arguments, pieces):
            self._event("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=piece)
        self._event(
            "response.function_call_arguments.done", item_id=item_id, output_index=index, arguments=call.arguments
        )
        self._done(dict(item, arguments=call.arguments, status="completed"))

    def _done(self, item: dict[str, Any]) -> None:
        self._event("response.output_item.done", output_index=len(self.output), item=item)
        self.output.append(item)

    def _complete(self, usage: Mapping[str, int] | None) -> None:
        given = dict(usage or {})
        prompt = int(given.get("prompt_tokens", given.get("input_tokens", 0)))
        completion = int(given.get("completion_tokens", given.get("output_tokens", 0)))
        counts = {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion,
        }
        self._event("response.completed", response=dict(self._response("completed"), usage=counts))

    def _response(self, status: str) -> dict[str, Any]:
        return {
            "id": self.response_id,
            "object": "response",
            "created_at": int(time.time()),
            "status": status,
            "model": self.model,
            "output": list(self.output),
        }

    def _event(self, kind: str, **fields: Any) -> None:
        self.handler._write(f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n")


def _completion(
    model: str, message: dict[str, Any], finish_reason: str, usage: Mapping[str, int] | None
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage is not None:
        result["usage"] = dict(usage)
    return result


def _tool_call_object(call: ScriptedToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _split(text: str, pieces: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[i : i + size] for i in range(0, len(text), size)]
