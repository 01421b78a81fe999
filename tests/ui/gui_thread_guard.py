"""The GUI thread runs no SQL (issue 33 item 2; SPEC LOOP-4): an autouse guard for every UI test.

A SQLAlchemy ``before_cursor_execute`` listener on the ``Engine`` class sees every statement of every
store a test opens. A statement is *the window's* when it runs on the main (GUI) thread and the Python
stack under it passes through the window's code (a frame in ``xworkmate/ui/``) or through a callback
the event loop runs (``asyncio.events.Handle._run``: a coroutine stepping on the GUI loop, such as a
native turn). A statement the test itself runs (seeding a line, reading back what was stored) has
neither and is not counted. The test fails, after it ran, with each statement and a stack excerpt.

Allowances, each narrow and on purpose:

* ``NO_LOOP``: the work of ``ui/background.run_off_thread`` / ``run_on_loop`` (hence of every
  ``StoreOperations`` operation, and of ``StoreOperations.finish``, the closing writes) runs at once on
  the calling thread when no qasync loop is set — a widget driven by a test without the ``loop`` fixture.
  The app always has its loop, so this path never runs there; with a loop the same work runs on the
  store worker and is never seen here.
* ``TURN_ON_LOOP``: a turn's coroutine stepping on the GUI loop is reported, not failed (see below).
* ``ALLOWED``: construction-time reads that are legitimately synchronous today: ``MainWindow.attach``
  when the window is built with no first read (the app's start always hands it one read on a worker).
  Listed by function, each with why.

No other window function may run a statement: the models read nothing themselves either (``TaskLineModel`` is
handed its lines, rows and attention tracker; ``MessageListModel`` reads what it was not handed through its
reader, off the GUI thread), so a test that drives one without the window hands it its reads or uses the
``loop`` fixture. The list of known offenders this guard started with is empty and gone (issue 33 item 2):
a statement from any window function fails the test.

``XWM_GUI_GUARD_REPORT=FILE`` records instead of failing and writes, at the session's end, how many
statements each place ran: how the work list of issue 33 item 2 was made.
"""

from __future__ import annotations

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


# A turn's coroutine stepping on the GUI loop (the window's send hands it over through ``_after``; a test may
# start one itself with ``controller.turns.run_turn``). Its statements are the turn's, not a widget's: recorded in the
# report, failing a test only with XWM_GUI_GUARD_TURNS=1, until the turn's writes all go through the store
# thread (issue 33 item 2's ``TurnWrites``; the write gate's reads and write already do: item 4).
TURN_ON_LOOP = {("ui/operations.py", "_after")}


@dataclass(frozen=True)
class GuiStatement:
    where: str  # the innermost xworkmate frame: "ui/providers.py:123 _reload"
    statement: str
    stack: str
    test: str = ""


GUI_STATEMENTS: list[GuiStatement] = []
REPORT_ENV = "XWM_GUI_GUARD_REPORT"  # a file: record every test's statements there instead of failing
TURNS_ENV = "XWM_GUI_GUARD_TURNS"  # set: a turn's statements on the GUI loop fail the test too (see TURN_ON_LOOP)
_current: list[GuiStatement] | None = None


def _tail(filename: str) -> str:
    return filename[len(_PACKAGE) :] if filename.startswith(_PACKAGE) else filename


def _classify(frame: FrameType | None) -> tuple[str, str]:
    """What the statement under ``frame`` is — ``""`` (the test's own, or allowed), ``"window"`` (the window's
    code called the store) or ``"turn"`` (a coroutine stepping on the GUI loop) — and where (the innermost
    window frame, else the innermost xworkmate one). The innermost marker decides: a slot the loop calls
    back is the window's; a turn's coroutine is a turn."""
    kind = ""
    innermost = ui = caller = ""
    while frame is not None:
        filename = frame.f_code.co_filename
        name = frame.f_code.co_name
        if filename.startswith(_PACKAGE):
            tail = _tail(filename)
            if not innermost:
                innermost = f"{tail}:{frame.f_lineno} {name}"
            if not caller and not tail.startswith(("store" + os.sep, "store.py")):
                caller = f" < {tail}:{frame.f_lineno} {name}"  # who asked the store, for the report
            if (tail, name) in NO_LOOP or (tail, name) in ALLOWED:
                return "", innermost
            if (tail, name) in TURN_ON_LOOP:
                kind = kind or "turn"
            elif filename.startswith(_UI):
                kind = kind or "window"
                ui = ui or f"{tail}:{frame.f_lineno} {name}"
        elif name == "_run" and filename.endswith(os.path.join("asyncio", "events.py")):
            kind = kind or "turn"
        frame = frame.f_back
    return kind, ui if kind == "window" else f"(loop) {innermost}{caller}"


def _before_cursor_execute(
    conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> None:
    if _current is None or threading.current_thread() is not threading.main_thread():
        return
    frame = sys._getframe(1)
    kind, where = _classify(frame)
    if not kind or (kind == "turn" and not os.environ.get(TURNS_ENV) and not os.environ.get(REPORT_ENV)):
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
