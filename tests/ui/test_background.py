"""``background.run_on_loop``: a controller's coroutine run on the qasync loop, its answer applied on the GUI
thread by the same rule as ``run_off_thread`` (SPEC LOOP-4; issue 19: the worktree flow's own task set went);
``cancel_on`` cancels it when the dialog that asked closes (the provider dialog's own task set went too).

A real qasync loop (``loop``), real threads, a real widget as the answer's owner.
"""

from __future__ import annotations

import asyncio
import threading

import shiboken6
from PySide6.QtWidgets import QDialog, QWidget

from xworkmate.ui.background import jobs_waiting, run_on_loop

from .support_runs import run, wait_until


async def _off_thread(value: int) -> tuple[int, str]:
    """Like a controller's ``*_off_thread``: the slow part on a worker thread, the rest on the caller's."""
    worker = await asyncio.to_thread(lambda: threading.current_thread().name)
    return value * 2, worker


async def _refused() -> int:
    await asyncio.sleep(0)
    raise ValueError("not a git repository")


def test_the_answer_is_applied_on_the_gui_thread_and_counts_as_waiting_until_then(
    loop: asyncio.AbstractEventLoop,
) -> None:
    answers: list[tuple[tuple[int, str], str]] = []
    run_on_loop(_off_thread(21), lambda got: answers.append((got, threading.current_thread().name)), _unexpected)
    assert jobs_waiting() >= 1 and answers == []  # scheduled, not run at once
    run(loop, wait_until(lambda: jobs_waiting() == 0, what="the answer"))
    assert len(answers) == 1  # once no job waits, its answer is there
    (value, worker), applied_on = answers[0]
    assert value == 42
    assert worker != threading.main_thread().name
    assert applied_on == threading.main_thread().name


def test_an_error_goes_to_on_error(loop: asyncio.AbstractEventLoop) -> None:
    errors: list[BaseException] = []
    run_on_loop(_refused(), lambda _value: None, errors.append)
    run(loop, wait_until(lambda: jobs_waiting() == 0, what="the refusal"))
    assert [str(e) for e in errors] == ["not a git repository"]


def test_an_answer_for_a_deleted_owner_is_dropped(loop: asyncio.AbstractEventLoop) -> None:
    owner = QWidget()
    answers: list[object] = []
    run_on_loop(_off_thread(1), answers.append, answers.append, parent=owner)
    shiboken6.delete(owner)  # the widget that asked is closed before the answer comes
    run(loop, wait_until(lambda: jobs_waiting() == 0, what="the dropped answer"))
    assert answers == []


def test_closing_the_dialog_that_asked_cancels_the_coroutine(loop: asyncio.AbstractEventLoop) -> None:
    """``cancel_on=dialog.finished``: closing the dialog cancels the coroutine where it waits; no answer comes."""
    dialog = QDialog()
    started = asyncio.Event()
    ended: list[str] = []

    async def fetch() -> int:
        started.set()
        try:
            await asyncio.Event().wait()  # an endpoint that does not answer yet
        except asyncio.CancelledError:
            ended.append("cancelled")
            raise
        return 1

    answers: list[object] = []
    job = run_on_loop(fetch(), answers.append, answers.append, parent=dialog, cancel_on=dialog.finished)
    run(loop, started.wait())
    assert jobs_waiting(dialog) == 1 and not job.done()
    dialog.reject()
    run(loop, wait_until(lambda: jobs_waiting(dialog) == 0, what="the cancelled fetch"))
    assert ended == ["cancelled"] and job.done()
    assert answers == []


def test_an_answer_that_came_just_before_the_close_is_dropped(loop: asyncio.AbstractEventLoop) -> None:
    """The coroutine has returned, its answer not applied yet, when the dialog closes: it is not applied."""
    dialog = QDialog()

    async def fetch() -> int:
        asyncio.get_running_loop().call_soon(dialog.reject)  # runs before the task's done-callbacks
        return 1

    answers: list[object] = []
    run_on_loop(fetch(), answers.append, answers.append, parent=dialog, cancel_on=dialog.finished)
    run(loop, wait_until(lambda: jobs_waiting(dialog) == 0, what="the dropped answer"))
    assert answers == []


def test_without_a_qasync_loop_it_runs_at_once(qapp: object) -> None:
    answers: list[tuple[int, str]] = []
    errors: list[BaseException] = []
    run_on_loop(_off_thread(5), answers.append, errors.append)
    assert [value for value, _worker in answers] == [10] and errors == []
    run_on_loop(_refused(), answers.append, errors.append)
    assert [str(e) for e in errors] == ["not a git repository"]


def _unexpected(error: BaseException) -> None:
    raise AssertionError(f"unexpected error: {error}")
