"""Driving turns from the window: a fast router, a polling wait for the qasync loop, scripted turns, small readers."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.llm import ModelRouter, ProviderConfig, RetryPolicy, Timeouts
from xworkmate.testing.openai_server import OpenAIServer, Reply, ScriptedToolCall, TextReply, ToolCallReply
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation import LIVE_ROLE, ROLE_ROLE

from .support import finished, send

T = TypeVar("T")

FAST = RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.02, max_retry_after=0.1)
RUN_TIMEOUT = 15.0


def fast_router(providers: list[ProviderConfig]) -> ModelRouter:
    return ModelRouter(providers, retry=FAST, timeouts=Timeouts(connect=2.0, read=5.0, write=2.0, pool=2.0))


def call(name: str, call_id: str = "c1", **arguments: object) -> ScriptedToolCall:
    return ScriptedToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


async def wait_until(predicate: Callable[[], bool], *, timeout: float = RUN_TIMEOUT, what: str = "") -> None:
    """Poll ``predicate`` on the running loop (Qt keeps processing events in between)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        await asyncio.sleep(0.01)


def run(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T], timeout: float = RUN_TIMEOUT) -> T:
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


def turn_on(
    loop: asyncio.AbstractEventLoop,
    server: OpenAIServer,
    controller: SessionController,
    key: str,
    words: str,
    *replies: Reply,
) -> None:
    """Script the agent's ``replies`` and run one turn on ``key`` to its end, from the controller (no click)."""
    server.script(*replies)
    run(loop, controller.turns.run_turn(key, words))


def send_and_finish(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, window: MainWindow, words: str, *, what: str = "the turn to finish"
) -> None:
    """Type ``words`` on the shown line and click Send, as a person does; wait until that line's turn is over."""
    key = window.shown_key
    assert key is not None
    send(qtbot, window, words)
    run(loop, wait_until(finished(window.controller, key), what=what))


def write_request(server: OpenAIServer) -> None:
    """The agent asks to create hello.txt (an edit: at the Ask level it waits for approval), then says "Done."."""
    server.script(
        ToolCallReply([call("write_file", path="hello.txt", content="hi!\n", quote="create hello.txt containing")]),
        TextReply(["Done."]),
    )


def live_text(window: MainWindow) -> str | None:
    """The text of the transient streaming row, or None when there is none."""
    model = window.message_model
    for row in range(model.stored_count, model.rowCount()):
        index = model.index(row, 0)
        if index.data(LIVE_ROLE) == "stream":
            return str(index.data())
    return None


def tool_rows(window: MainWindow) -> list[int]:
    model = window.message_model
    return [row for row in range(model.stored_count) if model.index(row, 0).data(ROLE_ROLE) == "tool"]
