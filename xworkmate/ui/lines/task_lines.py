"""The left pane: the list of task lines (SPEC §6, ISO-1, ISO-4, ISO-9).

``TaskLineModel`` holds the lines' small summaries in memory in tree order:
each line is followed by the tasks (and forks) it dispatched, oldest first,
indented by their depth, so the list stays a flat list model (rows on demand,
Ctrl+1…9 and the filter work on plain rows) while reading as a tree. A line's
status needs a look at the file system, so it is computed only when a row is
painted and cached until that line changes. A change to one line touches one
row; a new task is inserted under its dispatcher as one row: the list is never
reloaded because one line changed, appeared or because the current line moved.

The model never reads the store (LOOP-4, issue 33 item 2): it is handed its lines, each row's summary and the
attention tracker, read on the store worker (the window's operations and first read, ``controllers/views``).

The filter (``TaskLineFilterModel``: archived lines, the text, "Needs you") is decided over the whole list at
once, not asked of Python line by line: a list of 20,000 lines is built and first painted with Python called
for the rows painted, as a list of 40 is (issue 34 item 2).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractListModel,
    QByteArray,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor, QCursor, QFont, QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from xworkmate.domain.attention import ATTENTION_LABELS, Attention, needs_you
from xworkmate.domain.lines import STATUS_EXPLANATIONS, ThreadKind, ThreadStatus, line_state
from xworkmate.presentation.tree import category_badge, tree_order  # Qt-free (issue 19)
from xworkmate.presentation.wording import line_title, plain_words
from xworkmate.ui import theme
from xworkmate.ui.marks import QT_TRANSLATE_NOOP
from xworkmate.ui.painting import draw_text_line

if TYPE_CHECKING:  # the list is painted from the first read before they load (``ui/lines/first_list``, issue 19)
    from datetime import datetime

    from xworkmate.controllers import SessionController
    from xworkmate.domain.lines import LineSummary

    class _AttentionSource(Protocol):
        def state(self, key: str) -> Attention: ...
        def since(self, key: str) -> datetime | None: ...

    class _FirstLineRows(Protocol):
        def summary_status(self, summary: LineSummary) -> ThreadStatus: ...

    class FirstLinesSource(Protocol):
        """What ``TaskLineModel`` asks of the first list's owner (``ui/lines/first_list.FirstLook``), as of a
        ``SessionController``: its lines section (a line's status, from the line and the file system)."""

        @property
        def lines(self) -> _FirstLineRows: ...


ModelIndex = QModelIndex | QPersistentModelIndex

KEY_ROLE = int(Qt.ItemDataRole.UserRole) + 1
STATUS_ROLE = KEY_ROLE + 1
BADGE_ROLE = KEY_ROLE + 2
ARCHIVED_ROLE = KEY_ROLE + 3
FILTER_TEXT_ROLE = KEY_ROLE + 4
CATEGORY_ROLE = KEY_ROLE + 5
WORKSPACE_PATH_ROLE = KEY_ROLE + 6
DEPTH_ROLE = KEY_ROLE + 7
"""How many dispatchers deep the line sits (0 for a top-level line)."""
PARENT_KEY_ROLE = KEY_ROLE + 8
KIND_ROLE = KEY_ROLE + 9
CATEGORY_BADGE_ROLE = KEY_ROLE + 10
"""``"● medical"`` for a category line, ``""`` for a normal one (CAT-1)."""
KIND_MARKER_ROLE = KEY_ROLE + 11
"""``"task"``, ``"fork"``… for lines that are not plain conversations, else ``""``."""
ROW_ROLE = KEY_ROLE + 12
"""The whole row as a ``LineRowView``: the delegate paints from one call into the model."""
ATTENTION_ROLE = KEY_ROLE + 13
"""The line's ``Attention`` value (LOOP-2), e.g. ``"needs_approval"``."""
ATTENTION_BADGE_ROLE = KEY_ROLE + 14
"""The attention badge's words: ``"needs approval"``, ``"new"``…; ``""`` for none or running."""
NEEDS_SINCE_ROLE = KEY_ROLE + 15
"""When the line came to need the person (a ``datetime``), else None: the "Needs you" order."""

_PANEL_STATES = QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_MouseOver | QStyle.StateFlag.State_HasFocus
"""A row in any of these states gets the style's panel (selection, hover, focus)."""

STATUS_BADGES: dict[ThreadStatus, str] = {
    ThreadStatus.RUNNABLE: "",
    ThreadStatus.NEEDS_BINDING: QT_TRANSLATE_NOOP("TaskLines", "⚠ needs binding"),
    ThreadStatus.NEEDS_WORKSPACE: QT_TRANSLATE_NOOP("TaskLines", "⚠ needs folder"),
    ThreadStatus.RUNNING: QT_TRANSLATE_NOOP("TaskLines", "● running"),
    ThreadStatus.ARCHIVED: QT_TRANSLATE_NOOP("TaskLines", "archived"),
}

STATUS_NAMES: dict[ThreadStatus, str] = {
    ThreadStatus.RUNNABLE: QT_TRANSLATE_NOOP("TaskLines", "runnable"),
    ThreadStatus.NEEDS_BINDING: QT_TRANSLATE_NOOP("TaskLines", "needs_binding"),
    ThreadStatus.NEEDS_WORKSPACE: QT_TRANSLATE_NOOP("TaskLines", "needs_workspace"),
    ThreadStatus.RUNNING: QT_TRANSLATE_NOOP("TaskLines", "running"),
    ThreadStatus.ARCHIVED: QT_TRANSLATE_NOOP("TaskLines", "archived"),
}
"""The status as the row's tooltip names it (in English, the status values themselves)."""

# The pills' colour tokens (xworkmate.ui.theme): "pill-<name>-text" on "pill-<name>-bg".
_BADGE_COLOURS: dict[ThreadStatus, str] = {
    ThreadStatus.NEEDS_BINDING: "danger",
    ThreadStatus.NEEDS_WORKSPACE: "danger",
    ThreadStatus.RUNNING: "info",
    ThreadStatus.ARCHIVED: "neutral",
}
# -- attention badges (issue 17, LOOP-2): their pills' colour tokens, as for the status pills above.
ATTENTION_COLOURS: dict[Attention, str] = {
    Attention.NEEDS_APPROVAL: "warning",
    Attention.NEEDS_SIGN_IN: "warning",
    Attention.FAILED: "danger",
    Attention.FINISHED_UNREAD: "ok",
    Attention.RUNNING: "info",
}
_WAITING_ON_PERSON = frozenset({Attention.NEEDS_APPROVAL, Attention.NEEDS_SIGN_IN})
"""While a turn waits on the person, its row says so instead of "running" (issue 15)."""


def attention_badge(state: Attention) -> str:
    """The attention pill's words; "running" is the status pill's to say."""
    return "" if state is Attention.RUNNING else plain_words(ATTENTION_LABELS[state])


def status_badge(status: ThreadStatus, state: Attention) -> str:
    """The status pill: none while the running line waits on the person (its attention pill says why)."""
    return "" if status is ThreadStatus.RUNNING and state in _WAITING_ON_PERSON else _tr(STATUS_BADGES[status])


def _tr(text: str) -> str:
    """A marked constant of this module in the window's language (``""`` stays ``""``)."""
    return QCoreApplication.translate("TaskLines", text) if text else ""


_CATEGORY_COLOUR = "category"
_KIND_COLOUR = "kind"
INDENT_PX = 16
TITLE_ROOM_CHARS = 12  # the title's room a row's badges never take (about two words; issue 30)

KIND_MARKERS: dict[ThreadKind, str] = {
    ThreadKind.CONVERSATION: "",
    ThreadKind.TASK: QT_TRANSLATE_NOOP("TaskLines", "task"),
    ThreadKind.BRANCH: QT_TRANSLATE_NOOP("TaskLines", "branch"),
    ThreadKind.FORK: QT_TRANSLATE_NOOP("TaskLines", "fork"),
    ThreadKind.CLONE: QT_TRANSLATE_NOOP("TaskLines", "clone"),
    ThreadKind.SIDE_CHAT: QT_TRANSLATE_NOOP("TaskLines", "side chat"),
}


class LineRowView(NamedTuple):
    """What a task-line row paints (``ROW_ROLE``)."""

    title: str
    depth: int
    status: ThreadStatus
    category_badge: str
    kind_marker: str
    attention: Attention = Attention.NONE


PaintedRow = tuple[QRect, LineRowView, QStyle.StateFlag]
"""One row of a paint pass: where it goes, what it shows, its style state (selected, focus, hover)."""


def _tree_order(lines: list[LineSummary]) -> tuple[list[LineSummary], list[int]]:
    """``tree_order``, in one pass over the lines when no line's dispatcher is among them (issue 34 item 2:
    a list of top-level lines is already in tree order; ``tree_order`` costs a microsecond a line)."""
    keys = {line.thread_id for line in lines}
    if len(keys) == len(lines) and not any(
        line.parent_key in keys and line.parent_key != line.thread_id for line in lines if line.parent_key is not None
    ):
        return lines, [0] * len(lines)
    return tree_order(lines)


class TaskLineModel(QAbstractListModel):
    """Task lines as rows in tree order: ids and summaries in memory, status on demand (ISO-9).

    Signals: only the standard model signals. Rows are inserted one at a time
    (``beginInsertRows``) — a new task right under its dispatcher's last
    descendant — and changed one at a time (``dataChanged``); a model reset
    happens only on an explicit ``reload()``.

    Item flags are ``QAbstractListModel``'s own (enabled, selectable, no
    children): a Python ``flags()`` would be called for every row painted.
    """

    def __init__(
        self,
        controller: SessionController | FirstLinesSource,
        parent: QObject | None = None,
        *,
        lines: Sequence[LineSummary],
        attention: _AttentionSource,
        partial: bool = False,
    ) -> None:
        """``lines``: every line (archived too), read already (on a worker, issue 19 item 7; LOOP-4); with
        ``partial``, only a part of them closed upwards (``LineController.first_lines``), until ``complete``.
        ``attention``: the controller's tracker (``SessionController.attention``, built with the first read).
        ``FirstLook`` and its ``FirstLine`` rows: the first list, before the store opens (``ui/lines/first_list``).
        ``controller``: only a line's status is asked of it, which reads no store."""
        super().__init__(parent)
        self._controller = controller
        self._attention = attention
        self._lines: list[LineSummary] = []  # ThreadSummary rows; the first list's FirstLine rows before
        self._depths: list[int] = []
        self._rows: dict[str, int] = {}
        self._status: dict[str, ThreadStatus] = {}
        self.partial = partial
        """Only some of the lines are held yet (issue 34 item 2): a record about another line is left to
        ``complete``, which brings every line as read after it."""
        self._set_lines(lines)

    def _set_lines(self, lines: Sequence[LineSummary]) -> None:
        self._lines, self._depths = _tree_order(list(lines))
        self._rows = {line.thread_id: row for row, line in enumerate(self._lines)}

    # -- Qt model API -----------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._lines)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.column() != 0:
            return None
        return self.row_data(index.row(), role)

    def row_data(self, row: int, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """``data()`` of ``row`` without an index (the filter's shown rows ask it for each row painted)."""
        if not 0 <= row < len(self._lines):
            return None
        line = self._lines[row]
        if role == ROW_ROLE:
            return self.row_view(row)
        if role == Qt.ItemDataRole.DisplayRole:
            return line_title(line.thread_id, line.title)
        if role == KEY_ROLE:
            return line.thread_id
        if role == ARCHIVED_ROLE:
            return line.archived
        if role == CATEGORY_ROLE:
            return line.category
        if role == CATEGORY_BADGE_ROLE:
            return category_badge(line.category)
        if role == WORKSPACE_PATH_ROLE:
            return line.workspace_path
        if role == DEPTH_ROLE:
            return self._depths[row]
        if role == PARENT_KEY_ROLE:
            return line.parent_key
        if role == KIND_ROLE:
            return line.kind.value
        if role == KIND_MARKER_ROLE:
            return _tr(KIND_MARKERS.get(line.kind, ""))
        if role == FILTER_TEXT_ROLE:
            return line_filter_text(line)
        if role == STATUS_ROLE:
            return self.status_of_row(row).value
        if role == BADGE_ROLE:
            state = self.attention_of(line.thread_id)
            return status_badge(self.status_of_row(row), state) or attention_badge(state)
        if role == ATTENTION_ROLE:
            return self.attention_of(line.thread_id).value
        if role == ATTENTION_BADGE_ROLE:
            return attention_badge(self.attention_of(line.thread_id))
        if role == NEEDS_SINCE_ROLE:
            return self._attention.since(line.thread_id)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row)
        if role == Qt.ItemDataRole.AccessibleTextRole:  # issue 18: what a screen reader says for the row
            return line_title(line.thread_id, line.title)
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            status = self.status_of_row(row)
            words = [
                _tr(STATUS_BADGES[status]).lstrip("⚠● ") or self.tr("ready"),
                self.tr("category {category}").format(category=line.category) if line.category else "",
            ]
            return self.tr(", ").join(word for word in [*words, _tr(KIND_MARKERS.get(line.kind, ""))] if word)
        return None

    def row_view(self, row: int) -> LineRowView:
        """The row as the delegate paints it (``ROW_ROLE``)."""
        line = self._lines[row]
        return LineRowView(
            title=line_title(line.thread_id, line.title),
            depth=self._depths[row],
            status=self.status_of_row(row),
            category_badge=category_badge(line.category),
            kind_marker=_tr(KIND_MARKERS.get(line.kind, "")),
            attention=self.attention_of(line.thread_id),
        )

    def _tooltip(self, row: int) -> str:
        line = self._lines[row]
        status = self.status_of_row(row)
        lines = [
            line_title(line.thread_id, line.title),
            self.tr("key: {key}").format(key=line.thread_id),
            self.tr("folder: {path}").format(path=line.workspace_path or self.tr("(none)")),
        ]
        if line.kind is not ThreadKind.CONVERSATION:
            parent = self.summary(line.parent_key) if line.parent_key else None
            origin = f"{parent.title} ({parent.thread_id})" if parent is not None else (line.parent_key or "?")
            kind = _tr(KIND_MARKERS.get(line.kind, "")) or line.kind.value
            lines.append(self.tr("{kind} of: {origin}").format(kind=kind, origin=origin))
        lines.append(
            self.tr("category: {category}").format(category=line.category)
            if line.category
            else self.tr("category: none (normal content)")
        )
        explanation = STATUS_EXPLANATIONS[status]
        if status is ThreadStatus.NEEDS_WORKSPACE:  # SBX-3: missing, or how its folder was swapped since it was bound
            explanation = line_state(line, running=False).reason
        lines.append(
            self.tr("status: {status} — {explanation}").format(
                status=_tr(STATUS_NAMES[status]), explanation=plain_words(explanation)
            )
        )
        state = self.attention_of(line.thread_id)
        if needs_you(state):
            lines.append(self.tr("needs you: {reason}").format(reason=plain_words(ATTENTION_LABELS[state])))
        return "\n".join(lines)

    def roleNames(self) -> dict[int, QByteArray]:
        names = dict(super().roleNames())
        names.update(
            {
                KEY_ROLE: QByteArray(b"sessionKey"),
                STATUS_ROLE: QByteArray(b"status"),
                BADGE_ROLE: QByteArray(b"badge"),
                ARCHIVED_ROLE: QByteArray(b"archived"),
                CATEGORY_ROLE: QByteArray(b"category"),
                WORKSPACE_PATH_ROLE: QByteArray(b"workspacePath"),
                DEPTH_ROLE: QByteArray(b"depth"),
                PARENT_KEY_ROLE: QByteArray(b"parentKey"),
                KIND_ROLE: QByteArray(b"kind"),
                CATEGORY_BADGE_ROLE: QByteArray(b"categoryBadge"),
                KIND_MARKER_ROLE: QByteArray(b"kindMarker"),
            }
        )
        return names

    # -- our API ------------------------------------------------------------

    def line_keys(self) -> list[str]:
        return [line.thread_id for line in self._lines]

    def summaries(self) -> Sequence[LineSummary]:
        """Every line in tree order, row by row (not to be changed: the model's own list)."""
        return self._lines

    def depths(self) -> Sequence[int]:
        """Each row's depth (``DEPTH_ROLE``), row by row (not to be changed: the model's own list)."""
        return self._depths

    def row_of(self, key: str) -> int | None:
        return self._rows.get(key)

    def depth_of(self, key: str) -> int | None:
        row = self._rows.get(key)
        return self._depths[row] if row is not None else None

    def summary(self, key: str) -> LineSummary | None:
        row = self._rows.get(key)
        return self._lines[row] if row is not None else None

    def subtree_end(self, row: int) -> int:
        """The row after the last descendant of ``row`` (its subtree is contiguous in tree order)."""
        depth = self._depths[row]
        end = row + 1
        while end < len(self._lines) and self._depths[end] > depth:
            end += 1
        return end

    def cached_status(self, key: str) -> ThreadStatus | None:
        return self._status.get(key)

    def status_of_row(self, row: int) -> ThreadStatus:
        line = self._lines[row]
        status = self._status.get(line.thread_id)
        if status is None:
            status = self._controller.lines.summary_status(line)
            self._status[line.thread_id] = status
        return status

    def attention_of(self, key: str) -> Attention:
        return self._attention.state(key)

    def attention_changed(self, key: str) -> None:
        """The line's attention state changed (``AttentionChanged``): repaint its row only."""
        row = self._rows.get(key)
        if row is not None:
            index = self.index(row, 0)
            self.dataChanged.emit(index, index)

    def add_line(self, key: str, summary: LineSummary) -> None:
        """A line was created: insert its row (ISO-1: it exists now), from the summary an operation read
        ahead on the store worker (issue 19; a record with none is skipped by the window, never read here).

        A task (or fork) goes right after its dispatcher's last descendant, one level deeper;
        any other line goes at the end.
        """
        if key in self._rows:
            self.refresh_line(key, summary)
            return
        if self.partial:  # its place is among lines not held yet: ``complete`` brings it, read after this
            return
        parent_row = self._rows.get(summary.parent_key) if summary.parent_key else None
        if parent_row is None:
            row, depth = len(self._lines), 0
        else:
            row, depth = self.subtree_end(parent_row), self._depths[parent_row] + 1
        self.beginInsertRows(QModelIndex(), row, row)
        self._lines.insert(row, summary)
        self._depths.insert(row, depth)
        for moved in range(row, len(self._lines)):
            self._rows[self._lines[moved].thread_id] = moved
        self.endInsertRows()

    def refresh_line(self, key: str, summary: LineSummary) -> None:
        """One line changed: show the summary an operation read ahead, forget its cached status, repaint its
        row only."""
        row = self._rows.get(key)
        if row is None:
            self.add_line(key, summary)
            return
        if summary.parent_key != self._lines[row].parent_key:
            # Lines never change dispatcher; should one, its place in the tree is rebuilt from the rows held.
            lines = list(self._lines)
            lines[row] = summary
            self.reload(lines)
            return
        self._lines[row] = summary
        self._status.pop(key, None)
        index = self.index(row, 0)
        self.dataChanged.emit(index, index)

    def invalidate_status(self, key: str) -> None:
        """The file system may have changed under this line: recompute its status when painted."""
        row = self._rows.get(key)
        if row is None:
            return
        self._status.pop(key, None)
        index = self.index(row, 0)
        self.dataChanged.emit(index, index, [STATUS_ROLE, BADGE_ROLE, int(Qt.ItemDataRole.ToolTipRole)])

    def complete(self, lines: Sequence[LineSummary]) -> None:
        """Every line, read after the part the model was built with (issue 34 item 2): the lines not held come
        in between as rows inserted (a run of rows at a time, from the bottom up), the ones held are shown
        as read now; no row held moves, so the selection and what the list shows stay where they are.

        The part held is closed upwards (``first_lines``), so in tree order its lines keep their order and
        depth among all of them; should they not (a line gone, moved meanwhile), the list is ``reload``ed."""
        ordered, depths = _tree_order(list(lines))
        held = self._rows
        at = [row for row, line in enumerate(ordered) if line.thread_id in held]
        if len(at) != len(held) or any(
            self._lines[mine].thread_id != ordered[row].thread_id
            or self._lines[mine].parent_key != ordered[row].parent_key
            or self._depths[mine] != depths[row]
            for mine, row in enumerate(at)
        ):
            self.partial = False
            self.reload(lines)
            return
        self.partial = False
        for mine, row in enumerate(at):  # the lines held, as read now
            if self._lines[mine] != ordered[row]:
                self.refresh_line(ordered[row].thread_id, ordered[row])
        # The runs of lines not held, each before the line held at ``mine`` (``len(at)``: after the last).
        runs: list[tuple[int, int, int]] = []  # (model row, first, end) in ``ordered``
        start = 0
        for mine, row in enumerate([*at, len(ordered)]):
            if row > start:
                runs.append((mine, start, row))
            start = row + 1
        # Bottom up: the rows above a run keep their numbers while it is inserted, and ``row_of`` answers for
        # them and for the run's own lines; the rows below it are numbered again once all are in (one pass).
        for mine, first, end in reversed(runs):
            self.beginInsertRows(QModelIndex(), mine, mine + end - first - 1)
            self._lines[mine:mine] = ordered[first:end]
            self._depths[mine:mine] = depths[first:end]
            self._rows.update((line.thread_id, row) for row, line in enumerate(ordered[first:end], mine))
            self.endInsertRows()
        if runs:
            self._rows = {line.thread_id: row for row, line in enumerate(self._lines)}

    def reload(self, lines: Sequence[LineSummary]) -> None:
        """Show every line again from ``lines``, read off the GUI thread (issue 19; an explicit refresh, never
        a switch)."""
        self.beginResetModel()
        self.partial = False
        self._set_lines(lines)
        self._status.clear()
        self.endResetModel()


def line_filter_text(line: LineSummary) -> str:
    """What the text filter searches in a line (``FILTER_TEXT_ROLE``): its title as shown and as stored, its
    key and its category."""
    return f"{line_title(line.thread_id, line.title)}\n{line.title}\n{line.thread_id}\n{line.category or ''}"


class _ShownRows(QAbstractListModel):
    """The rows of a ``TaskLineModel`` the filter lets through, in its tree order: what ``TaskLineFilterModel``
    sorts and shows (issue 34 item 2).

    Qt's proxy asks a Python ``filterAcceptsRow`` once for every line when it maps them, and again on every
    filter change: 20,000 calls for 20,000 lines before the list is painted. Here the filter is decided over
    the whole list at once (``shown_rows``: a pass over the summaries) when it changes, and row by row
    (``accepts``) only for the rows a change of the lines touches, and their dispatchers. The proxy above
    keeps Qt's own filter, which accepts every row in C++ without asking Python.

    A filter change is one ``layoutChanged`` (the rows still shown keep their persistent indexes: the
    selection and the current row); a line that comes, goes, or comes into or out of the filter is one
    row inserted or removed; a change of a shown line is its ``dataChanged``.
    """

    def __init__(
        self,
        lines: TaskLineModel,
        accepts: Callable[[int], bool],
        shown_rows: Callable[..., list[int]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._lines = lines
        self._accepts = accepts
        self._shown_rows = shown_rows
        self._rows: list[int] = shown_rows()  # the lines' rows shown, ascending
        self._bereft: list[int] = []  # the dispatchers of rows being removed
        self._connections: list[tuple[Any, Callable[..., None]]] = [
            (lines.modelAboutToBeReset, self.beginResetModel),
            (lines.modelReset, self._on_reset),
            (lines.rowsInserted, self._on_rows_inserted),
            (lines.rowsAboutToBeRemoved, self._on_rows_about_to_be_removed),
            (lines.rowsRemoved, self._on_rows_removed),
            (lines.dataChanged, self._on_data_changed),
            # The lines never move; should they, the shown rows are read again.
            (lines.layoutAboutToBeChanged, self.beginResetModel),
            (lines.layoutChanged, self._on_reset),
            (lines.rowsAboutToBeMoved, self.beginResetModel),
            (lines.rowsMoved, self._on_reset),
        ]
        for signal, slot in self._connections:
            signal.connect(slot)

    def detach(self) -> None:
        """Follow the lines no more (the filter was given other lines)."""
        for signal, slot in self._connections:
            signal.disconnect(slot)
        self._connections = []

    # -- Qt model API ------------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.column() != 0 or not 0 <= index.row() < len(self._rows):
            return None
        return self._lines.row_data(self._rows[index.row()], role)

    def roleNames(self) -> dict[int, QByteArray]:
        return self._lines.roleNames()

    # -- rows ------------------------------------------------------------------

    def line_row(self, row: int) -> int:
        """The lines' row shown at ``row``."""
        return self._rows[row]

    def row_of_line(self, line_row: int) -> int | None:
        """Where the lines' row ``line_row`` is shown, or None (the filter hides it)."""
        at = bisect_left(self._rows, line_row)
        return at if at < len(self._rows) and self._rows[at] == line_row else None

    def refilter(self) -> None:
        """The filter changed: the rows shown now, in one layout change."""
        rows = self._shown_rows()
        if rows == self._rows:
            return
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        before = [self._rows[index.row()] for index in persistent]
        self._rows = rows
        moved = []
        for line_row in before:
            row = self.row_of_line(line_row)
            moved.append(self.index(row, 0) if row is not None else QModelIndex())
        self.changePersistentIndexList(persistent, moved)
        self.layoutChanged.emit()

    def _show(self, line_row: int, shown: bool) -> None:
        """Show or hide one of the lines' rows."""
        at = bisect_left(self._rows, line_row)
        present = at < len(self._rows) and self._rows[at] == line_row
        if shown and not present:
            self.beginInsertRows(QModelIndex(), at, at)
            self._rows.insert(at, line_row)
            self.endInsertRows()
        elif present and not shown:
            self.beginRemoveRows(QModelIndex(), at, at)
            del self._rows[at]
            self.endRemoveRows()

    def _dispatchers(self, line_row: int) -> list[int]:
        """The rows of the lines above ``line_row`` in the tree, nearest first: a dispatcher is shown as the
        context of a task the text filter finds."""
        depths = self._lines.depths()
        depth = depths[line_row] if line_row < len(depths) else 0
        found = []
        row = line_row - 1
        while depth > 0 and row >= 0:
            if depths[row] < depth:
                found.append(row)
                depth = depths[row]
            row -= 1
        return found

    def filter_again(self, line_rows: Sequence[int]) -> None:
        """These rows of the lines changed or came: the filter decides them again, and their dispatchers
        (the text filter shows a dispatcher for its tasks)."""
        for line_row in line_rows:
            self._show(line_row, self._accepts(line_row))
        dispatchers = {row for line_row in line_rows for row in self._dispatchers(line_row)}
        for line_row in sorted(dispatchers, reverse=True):
            self._show(line_row, self._accepts(line_row))

    # -- the lines changed -------------------------------------------------------

    def _on_reset(self) -> None:
        self._rows = self._shown_rows()
        self.endResetModel()

    def _on_rows_inserted(self, parent: QModelIndex, first: int, last: int) -> None:
        if parent.isValid():
            return
        count = last - first + 1
        at = bisect_left(self._rows, first)
        self._rows[at:] = [row + count for row in self._rows[at:]]  # the same lines, moved down
        if count == 1:
            self.filter_again([first])
            return
        # Many rows at once (the rest of the lines, issue 34 item 2): the filter decides them in one pass. Each
        # inserted line's tasks are among them (a line's subtree is contiguous, and a line held is never under
        # one that comes), so the rule over the run is the rule over each; their dispatchers held are above it.
        shown = self._shown_rows(first, last + 1)
        if shown:
            self.beginInsertRows(QModelIndex(), at, at + len(shown) - 1)
            self._rows[at:at] = shown
            self.endInsertRows()
        for line_row in self._dispatchers(first):
            self._show(line_row, self._accepts(line_row))

    def _on_rows_about_to_be_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        if parent.isValid():
            return
        start, end = bisect_left(self._rows, first), bisect_right(self._rows, last)
        if start < end:
            self.beginRemoveRows(QModelIndex(), start, end - 1)
            del self._rows[start:end]
            self.endRemoveRows()
        self._bereft = self._dispatchers(first)  # above the rows going: they stay where they are

    def _on_rows_removed(self, parent: QModelIndex, first: int, last: int) -> None:
        if parent.isValid():
            return
        count = last - first + 1
        at = bisect_left(self._rows, first)
        self._rows[at:] = [row - count for row in self._rows[at:]]
        bereft, self._bereft = self._bereft, []
        self.filter_again(bereft)  # a dispatcher shown for a task found that is gone

    def _on_data_changed(self, top: QModelIndex, bottom: QModelIndex, roles: Sequence[int] = ()) -> None:
        first, last = top.row(), bottom.row()
        self.filter_again(range(first, last + 1))
        start, end = bisect_left(self._rows, first), bisect_right(self._rows, last)
        if start < end:
            self.dataChanged.emit(self.index(start, 0), self.index(end - 1, 0), list(roles))


class TaskLineFilterModel(QSortFilterProxyModel):
    """Filters the lines by text (title, key, category) and hides archived lines unless asked; "Needs you"
    shows only the lines that need the person, the one waiting longest first.

    It filters a ``TaskLineModel`` through the rows it shows (``_ShownRows``), decided over the whole list
    at once, never by a Python ``filterAcceptsRow`` for each line (issue 34 item 2): this proxy sorts and
    keeps Qt's mapping in C++. ``mapFromSource`` takes an index of the ``TaskLineModel`` as well as one of
    its own source; ``line_row`` is the ``TaskLineModel`` row of a row shown.

    Signals: only the standard proxy model signals.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._needle = ""
        self._show_archived = False
        self._needs_you = False
        self._kept: str | None = None
        self._lines: TaskLineModel | None = None
        self._shown: _ShownRows | None = None

    def setSourceModel(self, source_model: QAbstractItemModel | None) -> None:
        if not isinstance(source_model, TaskLineModel):
            raise TypeError("TaskLineFilterModel filters a TaskLineModel")
        previous = self._shown
        self._lines = source_model
        self._shown = _ShownRows(source_model, self._accepts, self._shown_rows, self)
        super().setSourceModel(self._shown)
        if previous is not None:
            previous.detach()
            previous.deleteLater()

    def lines_model(self) -> TaskLineModel | None:
        """The lines filtered (``sourceModel()`` is the rows shown of them)."""
        return self._lines

    def line_row(self, index: ModelIndex) -> int:
        """The ``TaskLineModel`` row of this model's (valid) ``index``."""
        source = super().mapToSource(index)
        if self._shown is None or not source.isValid():
            raise ValueError("not a row of this list")
        return self._shown.line_row(source.row())

    def mapFromSource(self, source_index: ModelIndex) -> QModelIndex:
        """``source_index`` of the rows shown, or of the ``TaskLineModel`` (invalid when the filter hides it)."""
        if self._shown is not None and source_index.isValid() and source_index.model() is self._lines:
            row = self._shown.row_of_line(source_index.row())
            if row is None:
                return QModelIndex()
            source_index = self._shown.index(row, 0)
        return super().mapFromSource(source_index)

    @property
    def needs_you_only(self) -> bool:
        return self._needs_you

    def keep(self, key: str | None) -> None:
        """The shown line stays in "Needs you" once opening it made it need the person no more (Ctrl+J
        jumps to it, which marks it seen), until another line is shown (issue 30)."""
        if key == self._kept:
            return
        self._kept = key
        if self._needs_you:  # else nothing to filter again now
            self._refilter()

    def set_needs_you(self, on: bool) -> None:
        """ "Needs you": only the lines that need the person, the one waiting longest first (LOOP-2)."""
        if on == self._needs_you:
            return
        self._needs_you = on
        self._refilter()
        self.sort(0 if on else -1)  # -1: back to the source's tree order

    def lessThan(self, left: ModelIndex, right: ModelIndex) -> bool:
        """In "Needs you", the line waiting longest first; ties (and no time) keep the tree order."""
        a, b = left.data(NEEDS_SINCE_ROLE), right.data(NEEDS_SINCE_ROLE)
        if self._needs_you and a is not None and b is not None and a != b:
            return bool(a < b)
        return left.row() < right.row()

    @property
    def filter_text(self) -> str:
        return self._needle

    def set_filter_text(self, text: str) -> None:
        needle = text.strip().casefold()
        if needle == self._needle:
            return
        self._needle = needle
        self._refilter()

    def set_show_archived(self, show: bool) -> None:
        if show == self._show_archived:
            return
        self._show_archived = show
        self._refilter()

    def _refilter(self) -> None:
        if self._shown is not None:
            self._shown.refilter()

    # -- the filter ------------------------------------------------------------------

    def _shown_rows(self, first: int = 0, end: int | None = None) -> list[int]:
        """The rows ``first``…``end - 1`` of the lines (default: all) that the filter lets through, ascending,
        decided in a few passes over their summaries (the filter's one rule; ``_accepts`` asks it of a row).

        Archived lines only when asked; in "Needs you", only the lines that need the person, and the one kept;
        the text filter finds the title, the key or the category, and keeps a dispatcher in view, as the context
        of its tasks, when one of them (not archived, unless shown) is found."""
        model = self._lines
        if model is None:
            return []
        lines = model.summaries()
        end = len(lines) if end is None else end
        if self._show_archived:
            unarchived = list(range(first, end))
        else:
            unarchived = [row for row in range(first, end) if not lines[row].archived]
        rows = unarchived
        if self._needs_you:
            state, kept = model.attention_of, self._kept
            rows = [row for row in rows if needs_you(state(key := lines[row].thread_id)) or key == kept]
        if not self._needle:
            return rows
        needle = self._needle
        found = {row for row in unarchived if needle in line_filter_text(lines[row]).casefold()}
        context = _dispatchers_of(model.depths(), found, first, end)
        return [row for row in rows if row in found or row in context]

    def _accepts(self, row: int) -> bool:
        """Whether the filter lets the lines' ``row`` through: the rule over the row and its tasks."""
        model = self._lines
        if model is None:
            return False
        end = model.subtree_end(row) if self._needle else row + 1  # the text filter looks at its tasks too
        return self._shown_rows(row, end)[:1] == [row]


def _dispatchers_of(depths: Sequence[int], rows: set[int], first: int, end: int) -> set[int]:
    """The rows of ``first``…``end - 1`` above any of ``rows`` in the tree (their dispatchers, theirs…), in one
    pass over the depths."""
    if not any(depths[row] for row in rows):  # only lines at the top level were found
        return set()
    above: set[int] = set()
    path: list[int] = []  # the rows above the current one, the nearest last
    for row in range(first, end):
        depth = depths[row]
        while path and depths[path[-1]] >= depth:
            path.pop()
        if row in rows:
            above.update(path)
        path.append(row)
    return above


class TaskLineDelegate(QStyledItemDelegate):
    """Paints a line: indented under its dispatcher, its title, then badges on the right —
    status, category (``● medical``) and what kind of line it is (``task``); one row height."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._font: QFont | None = None
        self._fonts_cached: tuple[QFont, QFontMetrics, QFontMetrics] | None = None

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        metrics = QFontMetrics(option.font)
        return QSize(1, int(metrics.height() * 2))  # width: the view gives each row its full width

    def _fonts(self, font: QFont) -> tuple[QFont, QFontMetrics, QFontMetrics]:
        """The badge font and both metrics, built once per base font (every row's paint needs them)."""
        if self._fonts_cached is None or font != self._font:
            small = QFont(font)
            small.setPointSizeF(max(font.pointSizeF() * 0.85, 6.0))
            self._font = QFont(font)
            self._fonts_cached = (small, QFontMetrics(small), QFontMetrics(font))
        return self._fonts_cached

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        view = index.data(ROW_ROLE)
        if not isinstance(view, LineRowView):
            super().paint(painter, option, index)
            return
        painter.save()
        self.paint_rows(painter, option, [(option.rect, view, option.state)])
        painter.restore()

    def paint_rows(self, painter: QPainter, option: QStyleOptionViewItem, rows: Sequence[PaintedRow]) -> None:
        """Paint rows that share ``option``'s font, palette and widget (``TaskLineListView`` passes all it shows).

        Changes ``option``'s rect and state, and the painter's font, pen, brush and hints.
        """
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        small, small_metrics, title_metrics = self._fonts(option.font)
        palette = option.palette
        text_colour = palette.color(QPalette.ColorRole.Text)
        selected_colour = palette.color(QPalette.ColorRole.HighlightedText)
        painter.setFont(option.font)
        for rect, view, state in rows:
            selected = bool(state & QStyle.StateFlag.State_Selected)
            if state & _PANEL_STATES:
                # The panel (selection, hover, focus) from the style; the text and badges are ours, so the
                # style option needs none of the model's roles (initStyleOption would ask for ten of them).
                # A row with none of those states has no panel: most rows skip the style (issue 7).
                option.rect = rect
                option.state = state
                style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, widget)
            colour = selected_colour if selected else text_colour
            left = rect.left() + 10 + view.depth * INDENT_PX
            right = rect.right() - 8
            title = f"↳ {view.title}" if view.depth else view.title  # nested under the line that dispatched it
            if (
                view.status in _BADGE_COLOURS
                or view.category_badge
                or view.kind_marker
                or view.attention in ATTENTION_COLOURS
            ):
                # Issue 30: the title keeps room for its first words; a badge that would take it is left out
                # (a nested task's title was cut to "↳…" by its badges).
                room = min(title_metrics.horizontalAdvance(title), TITLE_ROOM_CHARS * title_metrics.averageCharWidth())
                right = self._paint_badges(painter, view, rect, right, small, small_metrics, None, limit=left + room)
                painter.setFont(option.font)
            painter.setPen(colour)
            draw_text_line(painter, title_metrics, title, left, rect.top(), max(right - left, 0), rect.height())

    @staticmethod
    def _paint_badges(
        painter: QPainter,
        view: LineRowView,
        rect: QRect,
        right: int,
        font: QFont,
        metrics: QFontMetrics,
        text_colour: QColor | None,
        *,
        limit: int | None = None,
    ) -> int:
        """The row's pills, right to left, the most pressing first; returns where the title must end. A pill
        that would reach left of ``limit`` (the title's room) is left out."""
        for text, colour in (
            (attention_badge(view.attention), ATTENTION_COLOURS.get(view.attention)),
            (status_badge(view.status, view.attention), _BADGE_COLOURS.get(view.status)),
            (view.category_badge, _CATEGORY_COLOUR),
            (view.kind_marker, _KIND_COLOUR),
        ):
            if not text:
                continue
            advance = metrics.horizontalAdvance(text)
            width = advance + 12
            if limit is not None and right - width - 6 < limit:
                continue
            pill = QRect(right - width, rect.center().y() - metrics.height() // 2 - 2, width, metrics.height() + 4)
            colours = theme.current()
            pill_colour = colours.color(f"pill-{colour or 'neutral'}-text")
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(pill_colour)
            painter.setBrush(colours.color(f"pill-{colour or 'neutral'}-bg"))  # opaque: readable on a selected row
            painter.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2)
            painter.setFont(font)
            painter.setPen(text_colour if text_colour is not None else pill_colour)
            draw_text_line(painter, metrics, text, pill.left() + 6, pill.top(), advance, pill.height())
            right = pill.left() - 6
        return right


class TaskLineListView(QListView):
    """The task list (``taskLineList``). It paints the rows it shows in one pass (issue 7).

    A switch to a line far down the list scrolls it, and scrolling repaints every
    visible row. Qt's own loop calls into Python once per row and reads each row
    through the filter model; here the delegate gets all rows at once, with the
    fonts and colours looked up once. States follow ``QListView``: selected,
    focus on the current row while the list has focus, hover under the mouse.

    A row that changes is repainted alone (issue 34 item 1). ``QListView`` lays every row out again and repaints
    the whole list for any change of any row (its list mode's ``dataChanged`` asks for a delayed layout of all
    items), although these rows are one height (``setUniformItemSizes``: the font's) whatever they show: with
    twenty lines streaming, each line's status and attention changes repainted all twenty rows, ~3 ms a time.
    """

    def dataChanged(self, top_left: ModelIndex, bottom_right: ModelIndex, /, roles: Sequence[int] = ()) -> None:
        QAbstractItemView.dataChanged(self, top_left, bottom_right, roles)  # not QListView's: no layout

    def keeping_top(self, change: Callable[[], None]) -> None:
        """``change()`` the list's rows (the rest of the lines come in, issue 34 item 2) with the line at the top
        of the list kept there, and so every line shown below it that stays: rows that come above it do not
        push what the person sees down."""
        top = self.indexAt(QPoint(0, 0))
        key = top.data(KEY_ROLE) if top.isValid() else None
        offset = self.visualRect(top).top() if top.isValid() else 0
        change()
        proxy = self.model()
        if key is None or not isinstance(proxy, TaskLineFilterModel) or (lines := proxy.lines_model()) is None:
            return
        row = lines.row_of(key)
        index = proxy.mapFromSource(lines.index(row, 0)) if row is not None else QModelIndex()
        if index.isValid():
            self.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
            bar = self.verticalScrollBar()
            if offset and self.verticalScrollMode() is QAbstractItemView.ScrollMode.ScrollPerPixel:
                bar.setValue(bar.value() - offset)

    def paintEvent(self, event: QPaintEvent) -> None:
        proxy = self.model()
        delegate = self.itemDelegate()
        if (
            not isinstance(proxy, TaskLineFilterModel)
            or (source := proxy.lines_model()) is None
            or not isinstance(delegate, TaskLineDelegate)
        ):
            super().paintEvent(event)
            return
        count = proxy.rowCount()
        area = event.rect()
        first = self.indexAt(QPoint(0, area.top())).row()  # rows span the whole width
        if count == 0 or first < 0:
            return
        last = self.indexAt(QPoint(0, area.bottom())).row()
        last = count - 1 if last < 0 else last  # below the last row: the list ends in sight

        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        palette = option.palette
        if not self.isEnabled():
            palette.setCurrentColorGroup(QPalette.ColorGroup.Disabled)
        elif not self.isActiveWindow():
            palette.setCurrentColorGroup(QPalette.ColorGroup.Inactive)
        option.palette = palette
        base = option.state & ~(_PANEL_STATES | QStyle.StateFlag.State_Editing)
        current = self.currentIndex()
        focus_row = current.row() if current.isValid() and (self.hasFocus() or self.viewport().hasFocus()) else -1
        hover_row = -1
        if self.viewport().underMouse():
            hover_row = self.indexAt(self.viewport().mapFromGlobal(QCursor.pos())).row()
        selection = self.selectionModel()
        rows: list[PaintedRow] = []
        for row in range(first, last + 1):
            index = proxy.index(row, 0)
            state = base
            if selection is not None and selection.isSelected(index):
                state |= QStyle.StateFlag.State_Selected
            if row == focus_row:
                state |= QStyle.StateFlag.State_HasFocus
            if row == hover_row:
                state |= QStyle.StateFlag.State_MouseOver
            rows.append((self.visualRect(index), source.row_view(proxy.line_row(index)), state))
        painter = QPainter(self.viewport())
        delegate.paint_rows(painter, option, rows)
        painter.end()


class TaskLinePane(QWidget):
    """Left pane: New / Archive buttons, filter, show-archived toggle and the list (view only).

    Signals: none of its own; the window connects to its child widgets.
    """

    def __init__(self, proxy: TaskLineFilterModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("taskLinePane")

        title = QLabel(self.tr("Task lines"))
        title.setProperty("paneTitle", True)
        self.new_line_button = QPushButton(self.tr("New task line"))
        self.new_line_button.setObjectName("newTaskLineButton")
        self.new_line_button.setToolTip(self.tr("Create a task line with its own folder (Ctrl+N)"))
        self.archive_button = QPushButton(self.tr("Archive"))
        self.archive_button.setObjectName("archiveTaskLineButton")
        self.archive_button.setToolTip(self.tr("Archive the current task line (it can be unarchived later)"))

        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("taskLineFilter")
        self.filter_edit.setPlaceholderText(self.tr("Filter by title or key…"))
        self.filter_edit.setClearButtonEnabled(True)
        self.show_archived_check = QCheckBox(self.tr("Show archived"))
        self.show_archived_check.setObjectName("showArchivedCheck")
        self.needs_you_button = QPushButton(self.tr("Needs you"))
        self.needs_you_button.setObjectName("needsYouFilter")
        self.needs_you_button.setCheckable(True)
        self.needs_you_button.setToolTip(
            self.tr(
                "Only the lines waiting for you — approvals, sign-ins, failures, unread answers — longest waiting"
                " first (Ctrl+J jumps to the next one)"
            )
        )

        self.list_view = TaskLineListView()
        self.list_view.setObjectName("taskLineList")
        self.list_view.setModel(proxy)
        self.list_view.setItemDelegate(TaskLineDelegate(self.list_view))
        self.list_view.setUniformItemSizes(True)
        self.list_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list_view.setMouseTracking(True)

        self.empty_label = QLabel()
        self.empty_label.setObjectName("taskLineEmptyLabel")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.empty_label.setWordWrap(True)

        buttons = QHBoxLayout()
        buttons.addWidget(self.new_line_button, 1)
        buttons.addWidget(self.archive_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(title)
        layout.addLayout(buttons)
        filters = QHBoxLayout()
        filters.addWidget(self.filter_edit, 1)
        filters.addWidget(self.needs_you_button)
        layout.addLayout(filters)
        layout.addWidget(self.show_archived_check)
        # The empty state takes the list's place; the list keeps its model and
        # selection while hidden, so clearing the filter brings everything back.
        self.stack = QStackedWidget()
        self.stack.setObjectName("taskLineStack")
        self.stack.addWidget(self.list_view)
        self.stack.addWidget(self.empty_label)
        layout.addWidget(self.stack, 1)

    def show_empty_state(self, visible_rows: int, filter_text: str) -> None:
        if visible_rows:
            self.stack.setCurrentWidget(self.list_view)
            return
        if self.needs_you_button.isChecked() and not filter_text.strip():
            self.empty_label.setText(self.tr("Nothing needs you right now."))
        elif filter_text.strip():
            self.empty_label.setText(self.tr("No task lines match “{filter}”.").format(filter=filter_text.strip()))
        else:
            self.empty_label.setText(self.tr("No task lines to show. Press “New task line” (Ctrl+N) to start one."))
        self.stack.setCurrentWidget(self.empty_label)
