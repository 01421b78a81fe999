"""Driving turns from the window: a fast router, a polling wait for the qasync loop, small readers."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from tests.support.openai_server import ScriptedToolCall
from xworkmate.llm import ModelRouter, ProviderConfig, RetryPolicy, Timeouts
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation import LIVE_ROLE, ROLE_ROLE

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
