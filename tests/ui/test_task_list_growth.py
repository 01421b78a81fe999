"""The task list at 20,000 lines (issue 34 item 2: start-up with 20,000 lines keeps its ratios).

Building the list and painting it first calls into Python for the rows painted, not for every line: the
filter is decided over the whole list at once (``_ShownRows``), not by a Python ``filterAcceptsRow`` that
Qt asks once a line. These tests count calls, never time them; and they pin that the filter so decided
shows exactly the rows its rules say, through every change the list gets.
"""

from __future__ import annotations

import inspect
import random
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from types import FrameType
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from xworkmate.domain.attention import Attention
from xworkmate.domain.lines import ThreadKind, ThreadStatus
from xworkmate.domain.threads import ThreadSummary
from xworkmate.ui.lines import task_lines
from xworkmate.ui.lines.task_lines import KEY_ROLE, TaskLineFilterModel, TaskLineModel, TaskLinePane

NOW = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class Attentions:
    """The attention tracker as the model asks it: a state and since when, per line."""

    states: dict[str, Attention] = field(default_factory=dict)
    since_times: dict[str, datetime] = field(default_factory=dict)

    def state(self, key: str) -> Attention:
        return self.states.get(key, Attention.NONE)

    def since(self, key: str) -> datetime | None:
        return self.since_times.get(key)


class _Lines:
    def summary_status(self, summary: Any) -> ThreadStatus:
        return ThreadStatus.ARCHIVED if summary.archived else ThreadStatus.RUNNABLE


class Controller:
    """What ``TaskLineModel`` asks of its controller: a line's status (no store, no file system here)."""

    lines = _Lines()


def summary(key: str, title: str, *, parent: str | None = None, archived: bool = False, category: str | None = None):
    return ThreadSummary(
        thread_id=key,
        title=title,
        kind=ThreadKind.TASK if parent else ThreadKind.CONVERSATION,
        parent_key=parent,
        category=category,
        archived=archived,
        workspace_path="/tmp/lines",
        updated_at=NOW,
    )


def many_lines(count: int) -> list[ThreadSummary]:
    """``count`` lines as a person's list holds them: every tenth dispatched a task, every seventh archived."""
    lines = []
    for n in range(count):
        parent = f"line-{n - 1:06d}" if n % 10 == 1 else None
        lines.append(summary(f"line-{n:06d}", f"Line {n}", parent=parent, archived=n % 7 == 3))
    return lines


def shown_pane(qtbot: QtBot, lines: list[ThreadSummary], attention: Attentions) -> TaskLinePane:
    model = TaskLineModel(Controller(), lines=lines, attention=attention)
    proxy = TaskLineFilterModel()
    proxy.setSourceModel(model)
    pane = TaskLinePane(proxy)
    model.setParent(pane)
    proxy.setParent(pane)
    qtbot.addWidget(pane)
    pane.resize(320, 600)
    pane.show()
    qtbot.waitExposed(pane)
    pane.list_view.viewport().repaint()  # the first paint of the list, now
    return pane


def python_calls_to_build_and_paint(qtbot: QtBot, count: int) -> Counter[str]:
    """The task list's Python functions called, by name, while a list of ``count`` lines is built, shown and
    painted: Qt's calls into the models, the view and the delegate, and theirs (a generator resumed is not a
    call: a pass over the lines is one call however many lines it reads)."""
    lines, attention = many_lines(count), Attentions()
    calls: Counter[str] = Counter()
    module = task_lines.__file__

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        code = frame.f_code
        if event == "call" and code.co_filename == module and not code.co_flags & inspect.CO_GENERATOR:
            calls[code.co_qualname] += 1

    sys.setprofile(profile)
    try:
        pane = shown_pane(qtbot, lines, attention)
    finally:
        sys.setprofile(None)
    assert pane.list_view.model().rowCount() == sum(not line.archived for line in lines)
    pane.close()
    return calls


def test_building_and_painting_the_list_calls_python_for_the_rows_painted_not_for_every_line(qtbot: QtBot) -> None:
    """Issue 34 item 2: Qt asked a Python ``filterAcceptsRow`` (and ``data``, ``index``, ``rowCount``) for every
    line before the first paint, 20,000 lines' worth at start-up. Twenty times the lines now cost the same
    calls but for a handful (the rows painted are the same)."""
    python_calls_to_build_and_paint(qtbot, 50)  # Qt's and Python's own first-use work, not counted
    few, many = python_calls_to_build_and_paint(qtbot, 200), python_calls_to_build_and_paint(qtbot, 4000)

    grown = {name: (few[name], many[name]) for name in few | many if many[name] > few[name] + 2}
    assert not grown, f"calls that grow with the lines (200 → 4,000): {grown}"
    assert sum(many.values()) <= sum(few.values()) + 20
    assert "TaskLineFilterModel.filterAcceptsRow" not in many
    assert many["TaskLineModel.row_view"] <= 40  # the rows painted, each once


# -- the filter decided at once shows what its rules say ------------------------------------------------


def expected_keys(lines: list[ThreadSummary], attention: Attentions, state: dict[str, Any]) -> list[str]:
    """The rules, as the window has always applied them row by row: archived lines only when asked;
    "Needs you" only lines that need the person (and the one kept); the text filter matches the title, the
    key or the category, and keeps a dispatcher in view when one of its tasks (shown) matches."""
    model = TaskLineModel(Controller(), lines=lines, attention=attention)  # its tree order
    order = [model.summary(key) for key in model.line_keys()]
    needle = state["needle"].strip().casefold()

    def shown(line: Any) -> bool:
        return state["archived"] or not line.archived

    def matches(line: Any) -> bool:
        return needle in f"{line.title}\n{line.thread_id}\n{line.category or ''}".casefold()

    def descendants(key: str) -> Iterator[Any]:
        for line in order:
            if line.parent_key == key:
                yield line
                yield from descendants(line.thread_id)

    keys = []
    for line in order:
        if not shown(line):
            continue
        if state["needs_you"] and attention.state(line.thread_id) not in NEEDING and line.thread_id != state["kept"]:
            continue
        if needle and not matches(line) and not any(shown(d) and matches(d) for d in descendants(line.thread_id)):
            continue
        keys.append(line.thread_id)
    return keys


NEEDING = (Attention.NEEDS_APPROVAL, Attention.FAILED, Attention.FINISHED_UNREAD, Attention.NEEDS_SIGN_IN)


def random_tree(rng: random.Random, count: int) -> list[ThreadSummary]:
    lines: list[ThreadSummary] = []
    words = ("apple", "pear", "plum", "fig")
    for n in range(count):
        parent = rng.choice(lines).thread_id if lines and rng.random() < 0.4 else None
        lines.append(
            summary(
                f"k{n:03d}",
                f"{rng.choice(words)} {n}",
                parent=parent,
                archived=rng.random() < 0.25,
                category=rng.choice((None, None, "medical")),
            )
        )
    rng.shuffle(lines)  # the store's order is not the tree's
    return lines


def shown_keys(proxy: TaskLineFilterModel) -> list[str]:
    return [str(proxy.index(row, 0).data(KEY_ROLE)) for row in range(proxy.rowCount())]


def apply(proxy: TaskLineFilterModel, state: dict[str, Any]) -> None:
    proxy.set_show_archived(state["archived"])
    proxy.set_filter_text(state["needle"])
    proxy.keep(state["kept"])
    proxy.set_needs_you(state["needs_you"])


@pytest.mark.parametrize("seed", range(6))
def test_the_filter_decided_over_the_whole_list_shows_what_the_rules_say_through_every_change(
    qtmodeltester: ModelTester, seed: int
) -> None:
    """Every filter (archived, text, "Needs you", the line kept) over random trees, then lines coming,
    changing (archived, renamed to match, attention) and the whole list read again: the rows shown are the
    rows the rules give, in tree order, and the proxy passes Qt's model tester."""
    rng = random.Random(seed)
    lines = random_tree(rng, 40)
    attention = Attentions()
    for line in lines:
        if rng.random() < 0.3:
            attention.states[line.thread_id] = rng.choice((*NEEDING, Attention.RUNNING))
    model = TaskLineModel(Controller(), lines=lines, attention=attention)
    proxy = TaskLineFilterModel()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    held = {line.thread_id: line for line in lines}

    def check(state: dict[str, Any]) -> None:
        expected = expected_keys(list(held.values()), attention, state)
        shown = shown_keys(proxy)
        if state["needs_you"]:  # sorted by how long each waits: the same rows
            assert sorted(shown) == sorted(expected)
        else:
            assert shown == expected
        for key in held:  # the list's index of every line (``proxy_index_of``)
            row = model.row_of(key)
            assert row is not None
            index = proxy.mapFromSource(model.index(row, 0))
            assert index.isValid() == (key in expected)
            assert not index.isValid() or (index.data(KEY_ROLE) == key and proxy.line_row(index) == row)

    for _ in range(12):
        state = {
            "archived": rng.random() < 0.5,
            "needle": rng.choice(("", "", "apple", "PEAR ", "medical", "k01", "nothing")),
            "needs_you": rng.random() < 0.3,
            "kept": rng.choice((None, *held)),
        }
        apply(proxy, state)
        check(state)
        change = rng.randrange(5)
        key = rng.choice(list(held))
        old = held[key]
        if change == 0:  # a new line, perhaps a task
            parent = rng.choice((None, key))
            new = summary(f"n{len(held):03d}", rng.choice(("apple new", "quince")), parent=parent)
            held[new.thread_id] = new
            model.add_line(new.thread_id, new)
        elif change == 1:  # archived or unarchived
            held[key] = old.model_copy(update={"archived": not old.archived})
            model.refresh_line(key, held[key])
        elif change == 2:  # renamed
            held[key] = old.model_copy(update={"title": rng.choice(("apple again", "quince"))})
            model.refresh_line(key, held[key])
        elif change == 3:  # comes to need the person, or no more
            attention.states[key] = rng.choice((*NEEDING, Attention.NONE))
            attention.since_times[key] = NOW + timedelta(seconds=rng.randrange(100))
            model.attention_changed(key)
        else:  # the whole list read again (the listener reconnected)
            model.reload(list(held.values()))
        check(state)
    qtmodeltester.check(proxy)


def test_a_filter_change_keeps_the_selection_on_the_line_it_was_on(qtbot: QtBot) -> None:
    """The rows still shown after a filter change keep their persistent indexes: the selected line stays
    selected and current, at its new row; a line the filter hides is selected no more."""
    lines = [summary(f"k{n}", title) for n, title in enumerate(("apple", "pear", "apple pie", "plum"))]
    pane = shown_pane(qtbot, lines, Attentions())
    view, proxy = pane.list_view, pane.list_view.model()
    assert isinstance(proxy, TaskLineFilterModel)
    view.selectionModel().setCurrentIndex(proxy.index(2, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect)

    proxy.set_filter_text("apple")
    assert shown_keys(proxy) == ["k0", "k2"]
    assert view.currentIndex().data(KEY_ROLE) == "k2" and view.currentIndex().row() == 1
    assert [index.data(KEY_ROLE) for index in view.selectionModel().selectedRows()] == ["k2"]

    proxy.set_filter_text("pear")
    assert shown_keys(proxy) == ["k1"]
    assert not view.selectionModel().selectedRows()

    proxy.set_filter_text("")
    assert shown_keys(proxy) == ["k0", "k1", "k2", "k3"]
