"""The GUI thread runs no SQL (issue 33 item 2; SPEC LOOP-4): an autouse guard for every UI test.

A SQLAlchemy ``before_cursor_execute`` listener on the ``Engine`` class sees every statement of every
store a test opens. A statement on the main (GUI) thread is counted when the Python stack under it passes
through the window's code (a frame in ``xworkmate/ui/``: *the window's*) or through a callback the event
loop runs (``asyncio.events.Handle._run``: a coroutine stepping on the GUI loop — a turn, however it was
started, or a controller's ``*_off_thread`` coroutine: *the loop's*). A statement the test itself runs
(seeding a line, reading back what was stored, a poll of the store in a coroutine on the loop: the test's
frame comes before either marker, with none of our coroutines between) is not counted. The test fails,
after it ran, with each statement and a stack excerpt.

A turn's statements fail a test like the window's (issue 33 item 2): every store call a turn makes goes
through the controller's store thread (``controllers/store_thread``: ``StoreThread.call`` and a turn's
``TurnWrites``; its gate and the person's message too, ``TurnController.run_turn``), so nothing is reported
for a turn any more, and the switch that only reported them (``XWM_GUI_GUARD_TURNS``, ``TURN_ON_LOOP``) is gone.

Allowances, each narrow and on purpose:

* ``NO_LOOP``: the work of ``ui/background.run_off_thread`` / ``run_on_loop`` (hence of every
  ``StoreOperations`` operation, and of ``StoreOperations.finish``, the closing writes) runs at once on
  the calling thread when no qasync loop is set — a widget driven by a test without the ``loop`` fixture.
  The app always has its loop, so this path never runs there; with a loop the same work runs on the
  store worker and is never seen here.
* ``ALLOWED``: construction-time reads that are legitimately synchronous today: ``MainWindow.attach``
  when the window is built with no first read (the app's start always hands it one read on a worker).
  Listed by function, each with why.

No other window function may run a statement: the models read nothing themselves either (``TaskLineModel`` is
handed its lines, rows and attention tracker; ``MessageListModel`` reads what it was not handed through its
reader, off the GUI thread), so a test that drives one without the window hands it its reads or uses the
``loop`` fixture. The list of known offenders this guard started with is empty and gone (issue 33 item 2):
a statement from any window function fails the test.

``XWM_GUI_GUARD_REPORT=FILE`` records instead of failing and writes, at the session's end, how many
statements each place ran (for the loop's, the code that asked the store too), and ``FILE.stacks`` the first
test and stack of each place: how the work list of issue 33 item 2 was made.
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from sqlalchemy import Engine, event

import xworkmate

_UI = str(Path(xworkmate.__file__).resolve().parent / "ui") + os.sep
_PACKAGE = str(Path(xworkmate.__file__).resolve().parent) + os.sep
_TESTS = str(Path(__file__).resolve().parents[1]) + os.sep
_TESTING = _PACKAGE + "testing" + os.sep  # the shipped test plugin and driver (issue 21): the test's side

# The synchronous fallback with no qasync loop (see the module docstring): (file tail, function).
NO_LOOP = {
    ("ui/background.py", "run_off_thread"),
    ("ui/background.py", "run_on_loop"),
    ("ui/operations.py", "finish"),  # the closing writes, at once with no loop as every operation
}

# Construction-time reads allowed today, by (file tail, function), each with why.
ALLOWED: dict[tuple[str, str], str] = {
    ("ui/window/main_window.py", "attach"): (
        "the window built with no first read (build_main_window, the tests' open_window) reads its first view "
        "while it is built; the app's start hands it a first read made on a worker (ui/start.py), and then "
        "attach reads nothing (LOOP-4)"
    ),
}


@dataclass(frozen=True)
class GuiStatement:
    where: str  # the innermost xworkmate frame: "ui/settings/providers.py:123 _reload"
    statement: str
    stack: str
    test: str = ""


GUI_STATEMENTS: list[GuiStatement] = []
REPORT_ENV = "XWM_GUI_GUARD_REPORT"  # a file: record every test's statements there instead of failing
_current: list[GuiStatement] | None = None


def _tail(filename: str) -> str:
    return filename[len(_PACKAGE) :] if filename.startswith(_PACKAGE) else filename


def _classify(frame: FrameType | None) -> tuple[str, str]:
    """What the statement under ``frame`` is — ``""`` (the test's own, or allowed), ``"window"`` (the window's
    code called the store) or ``"loop"`` (a coroutine stepping on the GUI loop: a turn, a controller's
    ``*_off_thread`` coroutine) — and where (the innermost window frame, else the innermost xworkmate one and
    the code that asked the store). The innermost marker decides: a slot the loop calls back is the window's;
    a coroutine stepping (the window's hand-over of a turn, ``ui/operations._after``, too) is the loop's.
    Both fail the test."""
    kind = ""
    innermost = ui = caller = ""
    tests_inner = stepping = False
    while frame is not None:
        filename = frame.f_code.co_filename
        name = frame.f_code.co_name
        if not kind and not stepping and filename.startswith((_TESTS, _TESTING)):
            tests_inner = True  # the test's own, or its driver's, unless the window's code called it
        elif filename.startswith(_PACKAGE) and frame.f_code.co_flags & inspect.CO_COROUTINE:
            stepping = True  # our coroutine stepping (a turn a test awaits in a coroutine of its own is the loop's)
        if filename.startswith(_PACKAGE):
            tail = _tail(filename)
            if not innermost:
                innermost = f"{tail}:{frame.f_lineno} {name}"
            if not caller and not tail.startswith(("store" + os.sep, "store.py")):
                caller = f" < {tail}:{frame.f_lineno} {name}"  # who asked the store, for the report
            if (tail, name) in NO_LOOP or (tail, name) in ALLOWED:
                return "", innermost
            if filename.startswith(_UI) and not frame.f_code.co_flags & inspect.CO_COROUTINE:
                kind = kind or "window"
                ui = ui or f"{tail}:{frame.f_lineno} {name}"
        elif name == "_run" and filename.endswith(os.path.join("asyncio", "events.py")):
            kind = kind or "loop"
        frame = frame.f_back
    if kind == "loop" and tests_inner:
        return "", innermost  # a test's poll of the store in a coroutine on the loop (a fake it handed in)
    return kind, ui if kind == "window" else f"(loop) {innermost}{caller}"


def _before_cursor_execute(
    conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> None:
    if _current is None or threading.current_thread() is not threading.main_thread():
        return
    frame = sys._getframe(1)
    kind, where = _classify(frame)
    if not kind:
        return
    summary = traceback.StackSummary.extract(traceback.walk_stack(frame), limit=60)
    mine = [f for f in summary if f.filename.startswith((_PACKAGE, _TESTS))][:14]
    stack = "".join(traceback.format_list(list(reversed(mine))))
    _current.append(GuiStatement(where, " ".join(statement.split())[:160], stack))


event.listen(Engine, "before_cursor_execute", _before_cursor_execute)


@pytest.fixture(autouse=True)
def no_sql_on_gui_thread(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails the test when a statement ran on the GUI thread from the window's code (LOOP-4, issue 33)."""
    global _current
    seen: list[GuiStatement] = []
    _current = seen
    try:
        yield
    finally:
        _current = None
    GUI_STATEMENTS.extend(replace(s, test=request.node.nodeid) for s in seen)
    if seen and not os.environ.get(REPORT_ENV):
        places = sorted({s.where for s in seen})
        first = seen[0]
        pytest.fail(
            f"{len(seen)} statement(s) ran on the GUI thread (LOOP-4), from: {'; '.join(places)}\n"
            f"first: {first.statement}\n{first.stack}",
            pytrace=False,
        )


def write_report(path: str) -> None:
    counts: dict[str, int] = {}
    for s in GUI_STATEMENTS:
        counts[s.where] = counts.get(s.where, 0) + 1
    Path(path).write_text("".join(f"{n}\t{where}\n" for where, n in sorted(counts.items())), encoding="utf-8")
    first: dict[str, GuiStatement] = {}
    for s in GUI_STATEMENTS:
        first.setdefault(s.where, s)
    Path(f"{path}.stacks").write_text(
        "".join(f"== {where}\n{s.test}\n{s.statement}\n{s.stack}\n" for where, s in sorted(first.items())),
        encoding="utf-8",
    )
