"""The tests' qasync loop (``xwm_loop``): a step Qt runs between ``run_until_complete`` calls still finds
its loop running, as in the app, whose loop runs for the window's whole life.

A click or a qtbot wait processes Qt events outside the loop's run; a turn that a click had started
stepped there and failed with "no running event loop" (CI of stop 26, ``test_changes_view``).
"""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot


def test_a_task_stepped_by_qt_outside_the_loops_run_finds_its_loop_running(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop
) -> None:
    seen: list[asyncio.AbstractEventLoop] = []

    async def step() -> None:
        seen.append(asyncio.get_running_loop())

    task = loop.create_task(step())
    qtbot.waitUntil(task.done, timeout=2000)  # Qt's events only: the loop is not in run_until_complete

    assert task.exception() is None
    assert seen == [loop]
    assert asyncio._get_running_loop() is None  # and nothing is left set once the step is over


def test_a_cancelled_callback_is_not_run(qtbot: QtBot, loop: asyncio.AbstractEventLoop) -> None:
    ran: list[str] = []
    cancelled = loop.call_soon(ran.append, "cancelled")
    loop.call_soon(ran.append, "kept")
    cancelled.cancel()
    qtbot.waitUntil(lambda: ran == ["kept"], timeout=2000)
    qtbot.wait(20)
    assert ran == ["kept"]
