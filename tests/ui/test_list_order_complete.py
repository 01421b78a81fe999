"""The task list built from the first read keeps its rows when the rest come, on a PostgreSQL in a person's
locale too (issue 34 leftover of item 2; ISO-9, LOOP-4).

The window is built from ``first_summaries`` and takes the rest from ``summaries`` (``TaskLineModel.complete``);
it reads the whole list again, and the person's place in it is lost, when the two give lines in different
orders. On a PostgreSQL whose default collation is a language's (``tests/store/test_list_order.py`` says why
ICU ``en-US`` stands in for ``en_US.UTF-8`` here) they did, for lines made at the same instant. A real store
on SQLite and on that PostgreSQL, the real model; the model's signals counted.
"""

from __future__ import annotations

from PySide6.QtCore import QPersistentModelIndex
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from tests.store.test_list_order import _seed, en_us_template, ordered_store  # noqa: F401 - the fixtures
from tests.ui.test_rest_of_lines import _Attention, _Controller
from xworkmate.store import Store
from xworkmate.ui.lines.task_lines import KEY_ROLE, TaskLineModel


def test_completing_the_first_lines_inserts_the_rest_and_keeps_every_row(
    qtbot: QtBot,
    ordered_store: Store,  # noqa: F811 - the fixture imported above
) -> None:
    store = ordered_store
    keys = _seed(store, 30)  # 360 lines, a dozen made at each instant: past the first read's bound
    first = store.threads.first_summaries([keys[len(keys) // 2]])
    every = store.threads.summaries(include_archived=True)
    assert not first.complete
    model = TaskLineModel(_Controller(), lines=first.lines, attention=_Attention(set()), partial=True)
    ModelTester(qtbot).check(model)
    held = [QPersistentModelIndex(model.index(row, 0)) for row in range(model.rowCount())]
    held_keys = [index.data(KEY_ROLE) for index in held]
    resets: list[bool] = []
    inserted: list[int] = []
    model.modelReset.connect(lambda: resets.append(True))
    model.rowsInserted.connect(lambda _parent, first_row, last_row: inserted.append(last_row - first_row + 1))

    model.complete(every)

    assert not resets  # not read again: the rows held stay under their indexes (the selection, the scroll)
    assert sum(inserted) == len(every) - len(first.lines)
    assert [index.data(KEY_ROLE) for index in held] == held_keys
    whole = TaskLineModel(_Controller(), lines=every, attention=_Attention(set()))
    assert model.line_keys() == whole.line_keys()
    assert list(model.depths()) == list(whole.depths())
