"""The lines the list shows, read ahead of a click (issue 34 item 1; LOOP-4).

A switch to a line the window has shown before paints its last read at once and reads it again after the
paint (``ShownLine.switch_to``). A line never shown had to be read first: the click waited for the store
worker, and the worker may be busy with twenty lines' sends. So, once the window is usable and whenever
other lines come into the list's view (a scroll, new lines, a filter), the lines in view that the window has
no read of are read on the store worker, one a job (a person's own operation waits behind one line's read
at most), and kept beside the reads of the lines shown lately (``ShownLine.remember_ahead``): the last
``AHEAD_LINES`` of them, never in place of a line the person has shown. A switch shows one as it shows a line
shown before, and it follows the store's records as those do.

A read ahead of a line whose messages changed while it was on its way is dropped (the records applied
meanwhile were not in it, and ``ShownLine`` follows only the lines it remembers); the line is read again by
the next job. Nothing here is said to the person: a failed read ahead only means the switch to that line
reads first, as before.

The first ``ROWS_AHEAD_LINES`` lines read ahead also have their rows built, rendered and measured ahead
(``RowsAhead``): a read alone left the first click to render every row it shows (16-44 ms of the GUI thread
for seven rows with a long answer while twenty lines stream: the slowest switch of most runs). One row a tick
(a long answer a part a tick), so the GUI thread is held for little at a time; rows are kept as a line shown
before keeps them, behind those.
"""

from __future__ import annotations

import logging
from collections import deque

from PySide6.QtCore import QEvent, QModelIndex, QObject, QTimer
from PySide6.QtWidgets import QListView

from xworkmate.controllers import MessagesAppended, MessagesChanged, UnknownSessionKeyError
from xworkmate.controllers.views import LinePanes, LineReads, ReadAhead, read_line_panes
from xworkmate.ui.conversation.model import MessageListModel
from xworkmate.ui.conversation.rows import RowView
from xworkmate.ui.conversation.view import MessageListView
from xworkmate.ui.shell import FirstPaint
from xworkmate.ui.window.services import WindowServices

log = logging.getLogger(__name__)

LINES_A_JOB = 1
"""Lines read in one job on the store worker. An operation the person starts meanwhile waits behind one job:
behind a database 20 ms away a line's read is one round trip (``store/repositories/line_panes``), so one line."""
AHEAD_LINES = 32
"""The reads ahead kept (``ShownLine.ahead``, the newest): the first this many lines in view are read."""
LOOK_AFTER_MS = 250
"""How long the list is left still (a scroll, a burst of new rows) before the lines in view are looked at."""
ROWS_AHEAD_LINES = 8
"""The lines read ahead whose rows are built ahead too (``RowsAhead``): the first so many, once each."""
ROW_AHEAD_MS = 10
"""The pause between two rows built ahead: the event loop runs between them."""


def read_lines(controller: LineReads, keys: list[str], first_page: int) -> list[LinePanes]:
    """On the worker: each line's panes as a switch reads them (without the usage meter's figures, which a
    switch reads after its paint); a line gone meanwhile (archived for good, another process) is left out."""
    panes = []
    for key in keys:
        try:
            panes.append(read_line_panes(controller, key, first_page=first_page, with_usage=False))
        except UnknownSessionKeyError:
            continue
    return panes


class LinesAhead(QObject):
    """Reads ahead the lines in the task list's view (``list_view``, rows carrying their key as ``key_role``).

    ``look()`` schedules a look at the lines in view; the window calls it once usable and on every change of
    the list's rows or scroll position. ``reads`` counts the jobs run (the tests). Signals: none.
    """

    def __init__(self, window: WindowServices, list_view: QListView, key_role: int) -> None:
        super().__init__(list_view)
        self._window = window
        self._list = list_view
        self._key_role = key_role
        self._reading: set[str] = set()  # keys of the job on its way; a record about one drops its answer
        self._usable = False
        self.reads = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(LOOK_AFTER_MS)
        self._timer.timeout.connect(self._read_next)
        list_view.verticalScrollBar().valueChanged.connect(self.look)
        FirstPaint(list_view.viewport(), self._became_usable)  # the window is usable then (``MainWindow``)

    def _became_usable(self) -> None:
        self._usable = True
        self.look()

    def look(self) -> None:
        """Look at the lines in view once the list has been still for ``LOOK_AFTER_MS``."""
        if self._usable:
            self._timer.start()

    def read_now(self) -> None:
        """Look at the lines in view now (the window is usable or not)."""
        self._timer.stop()
        self._read_next()

    @property
    def waiting(self) -> bool:
        """A look is scheduled or a job is on its way. ``MainWindow.settling`` counts the job (an operation on the
        store worker), not the look: a look is not work the person started."""
        return self._timer.isActive() or bool(self._reading)

    def keys_in_view(self) -> list[str]:
        """The keys of the rows the list's viewport shows, top to bottom."""
        model = self._list.model()
        viewport = self._list.viewport().rect()
        first = self._list.indexAt(viewport.topLeft())
        if model is None or not first.isValid():
            return []
        keys = []
        for row in range(first.row(), model.rowCount()):
            index = model.index(row, 0, QModelIndex())
            if self._list.visualRect(index).top() > viewport.bottom():
                break
            if isinstance(key := index.data(self._key_role), str):
                keys.append(key)
        return keys

    def _read_next(self) -> None:
        if self._reading or self._window.closed:
            return  # one job at a time; the answer looks again
        shown = self._window.shown
        wanted = [key for key in self.keys_in_view()[:AHEAD_LINES] if not shown.remembers(key)]
        keys = wanted[:LINES_A_JOB]
        if not keys:
            return
        controller, first_page = self._window.controller, self._window.operations.first_page()
        self._reading = set(keys)
        self.reads += 1
        self._window.operations.query(
            lambda: read_lines(controller, keys, first_page), done=self._arrived, failed=self._failed
        )

    def _arrived(self, read: list[LinePanes]) -> None:
        kept = self._reading
        self._reading = set()
        for panes in read:
            if panes.key in kept:  # else its messages changed while it was read
                self._window.shown.remember_ahead(panes)
        self._read_next()

    def _failed(self, error: BaseException) -> None:
        self._reading = set()
        log.info("could not read ahead the lines in view: %s", error)  # the switch reads first, as before

    def on_messages(self, change: MessagesAppended | MessagesChanged, _ahead: ReadAhead) -> None:
        """A store record: a line on its way here is read again later, not remembered without it."""
        self._reading.discard(change.key)


class RowsAhead(QObject):
    """The rows of the first ``ROWS_AHEAD_LINES`` lines read ahead, built (``MessageListModel.build_ahead``),
    rendered and measured (``MessageDelegate.prepare``) one a tick, while the conversation is on screen: its width
    is the one they are painted at (while an empty line's state is shown instead, its stack does not keep the
    hidden list's width; they wait for it to show). ``add(panes)`` takes a read ahead, ``follow(panes)`` one its
    records changed (new messages: their rows); ``pending`` is 0 once every row queued is built (the tests).
    Signals: none."""

    def __init__(self, model: MessageListModel, message_list: MessageListView, parent: QObject) -> None:
        super().__init__(parent)
        self._model = model
        self._list = message_list
        self._lines: deque[LinePanes] = deque()
        self._rows: deque[RowView] = deque()
        self._taken: set[str] = set()
        self._timer = QTimer(self)
        self._timer.setInterval(ROW_AHEAD_MS)
        self._timer.timeout.connect(self._next)
        message_list.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and (self._rows or self._lines):
            self._timer.start()
        return False

    @property
    def pending(self) -> int:
        return len(self._rows) + sum(len(panes.newest) for panes in self._lines)

    def add(self, panes: LinePanes) -> None:
        if panes.key in self._taken or len(self._taken) >= ROWS_AHEAD_LINES:
            return
        self._taken.add(panes.key)
        self._lines.append(panes)
        self._timer.start()

    def follow(self, panes: LinePanes) -> None:
        """A line read ahead, as its records left it: rows for its new messages, if its rows were built ahead."""
        if panes.key not in self._taken:
            return
        self._lines = deque(queued for queued in self._lines if queued.key != panes.key)
        self._lines.append(panes)
        self._timer.start()

    def _next(self) -> None:
        if not self._list.viewport().isVisible():
            self._timer.stop()  # until it shows (``eventFilter``)
            return
        while not self._rows and self._lines:
            panes = self._lines.popleft()
            self._rows.extend(self._model.build_ahead(panes.key, panes.newest))  # what is not built yet
        if self._rows and self._list.message_delegate.prepare(self._rows[0]):  # a long answer: a part a tick
            self._rows.popleft()
        if not self._rows and not self._lines:
            self._timer.stop()
