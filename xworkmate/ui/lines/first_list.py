"""The window's first task list: the person's lines, painted while the rest of the window loads (issue 19,
item 7).

``xworkmate gui`` paints its window before the stack loads, reads the lines on a worker without the
stack (``controllers.first_list``, ``ui/shell.FirstListRead``) and shows them here, on the opening page,
before it loads the stack, the controllers and the rest of the window, which takes most of a second.
The pane is the window's own task list (``TaskLinePane``, ``TaskLineModel``: the same rows, order, titles,
badges and painting) over the lines read, with nothing to press yet: its buttons and filters are off
until the window's own list replaces it, once the store is open; a line can be selected meanwhile, which
the window then opens (issue 34 item 4). It knows no attention yet (the marks are
read with the store) and no running turn.

Importing this module loads the list's code only (no SQLAlchemy, no pydantic: a test pins it).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QWidget

from xworkmate.controllers.first_list import FirstLine, first_status
from xworkmate.domain.attention import Attention
from xworkmate.domain.lines import LineSummary, ThreadStatus
from xworkmate.ui.lines.task_lines import KEY_ROLE, TaskLineFilterModel, TaskLineModel, TaskLinePane

FIRST_NAME_PREFIX = "first"
"""The first list's widgets are named apart from the window's (``firstTaskLineList``, …), so that a
test or an accessibility tool never finds the one that is going away."""


class _NoAttentionYet:
    def state(self, key: str) -> Attention:
        return Attention.NONE

    def since(self, key: str) -> None:
        return None


class _FirstLines:
    """The first read's lines, answered as the lines section (``controllers/lines.LineController``) answers."""

    def __init__(self, lines: Sequence[FirstLine]) -> None:
        self._lines = list(lines)

    def list_lines(self, *, include_archived: bool = False) -> list[FirstLine]:
        return [line for line in self._lines if include_archived or not line.archived]

    def summary_status(self, line: LineSummary) -> ThreadStatus:
        return first_status(line)

    def line_summary(self, key: str) -> FirstLine:
        raise KeyError(f"the first list does not read lines again: {key}")


class FirstLook:
    """What ``TaskLineModel`` asks its controller, answered from the first read: the lines, their status
    without a running turn (``first_status``), no attention yet. The first list never changes."""

    def __init__(self, lines: Sequence[FirstLine]) -> None:
        self.lines = _FirstLines(lines)
        self.attention = _NoAttentionYet()


def first_list_pane(
    lines: Sequence[FirstLine], parent: QWidget | None = None, *, selected: str | None = None
) -> TaskLinePane:
    """The task list pane over ``lines``: readable, scrollable, a line to select (``selected`` at first: the one
    the window opens on), nothing to press. The window opens the line selected here once it can be used, and
    what was typed meanwhile goes to it (``OpeningPage.first_input``; issue 34 item 4)."""
    look = FirstLook(lines)
    model = TaskLineModel(look, lines=look.lines.list_lines(include_archived=True), attention=look.attention)
    proxy = TaskLineFilterModel()
    proxy.setSourceModel(model)
    pane = TaskLinePane(proxy, parent)
    model.setParent(pane)
    proxy.setParent(pane)
    for widget in (pane, *pane.findChildren(QWidget)):
        name = widget.objectName()
        if name and not name.startswith("qt_"):
            widget.setObjectName(FIRST_NAME_PREFIX + name[:1].upper() + name[1:])
    for control in (
        pane.new_line_button,
        pane.archive_button,
        pane.filter_edit,
        pane.show_archived_check,
        pane.needs_you_button,
    ):
        control.setEnabled(False)
    pane.list_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    pane.list_view.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a click selects; the keys stay the composer's
    row = model.row_of(selected) if selected is not None else None
    if row is not None:
        shown = proxy.mapFromSource(model.index(row, 0))
        if shown.isValid():
            pane.list_view.setCurrentIndex(shown)
    pane.show_empty_state(proxy.rowCount(), "")
    return pane


def selected_key(pane: TaskLinePane) -> str | None:
    """The key of the line selected in ``pane``, or ``None``."""
    chosen = pane.list_view.selectionModel().selectedIndexes()
    key = chosen[0].data(KEY_ROLE) if chosen else None
    return key if isinstance(key, str) else None
