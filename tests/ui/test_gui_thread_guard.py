"""The guard of every UI test (``gui_thread_guard``) is a ratchet (LOOP-4, issue 33 item 2): a read on the GUI
thread from the window's code, or from a coroutine stepping on the GUI loop (a turn), is counted and fails the
test; the test's own reads, a poll of the store in a coroutine of its own included, are not."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import xworkmate
from xworkmate.controllers import SessionController

from . import gui_thread_guard as guard
from .support_runs import run, wait_until

_PACKAGE = Path(xworkmate.__file__).resolve().parent


def as_if_in(tail: str, source: str, name: str) -> Callable[..., Any]:
    """``name`` defined by ``source`` as if it were code of ``xworkmate/<tail>`` (the guard knows code by its file)."""
    namespace: dict[str, Any] = {}
    exec(compile(source, str(_PACKAGE / tail), "exec"), namespace)  # our own two lines, in a test
    return namespace[name]  # type: ignore[no-any-return]


def counted(work: Callable[[], object]) -> list[guard.GuiStatement]:
    """The statements the guard counts while ``work()`` runs (kept apart from this test's own check)."""
    mine: list[guard.GuiStatement] = []
    before, guard._current = guard._current, mine
    try:
        work()
    finally:
        guard._current = before
    return mine


def test_a_read_from_the_window_or_a_coroutine_on_the_loop_counts_and_the_tests_own_does_not(
    loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController
) -> None:
    lines = sqlite_controller.lines
    paint = as_if_in("ui/painted_here.py", "def paint(read):\n    return read()\n", "paint")
    step = as_if_in("controllers/turn_here.py", "async def step(read):\n    return read()\n", "step")

    window = counted(lambda: paint(lines.list_lines))
    assert window and {s.where for s in window} == {"ui/painted_here.py:2 paint"}

    turn = counted(lambda: run(loop, step(lines.list_lines)))  # a turn's statement on the GUI loop fails too
    assert turn and all(s.where.startswith("(loop) ") and "controllers/lines.py" in s.where for s in turn)

    own = counted(lambda: run(loop, wait_until(lambda: bool(lines.list_lines()))))  # the test's poll
    assert own == []
    assert counted(lambda: lines.list_lines()) == []  # the test's own read
