"""The shown line and the one switch path (SPEC §6, ISO-5; issue 33 item 1).

Everything the window shows about a line comes from one read, ``read_line_panes`` on the store worker
(LOOP-4), or from the last such read while the fresh one is on its way. ``ShownLine`` keeps which line is
shown and which is wanted, remembers the last read of the lines shown lately, and hands a view to every
part of the window (``LinePart.show_line``) in one fixed order. List selection, Ctrl+J, a notification, a
search hit and a switch made by another process all come here (``open_line``/``switch_to``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import replace

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

from xworkmate import foreground
from xworkmate.controllers import (
    CurrentLineChanged,
    LineUpdated,
    LineView,
    MessagesAppended,
    MessagesChanged,
    UnknownSessionKeyError,
)
from xworkmate.controllers.views import LinePanes, ReadAhead, read_line_panes
from xworkmate.domain.messages import Message
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.conversation import MessageListModel
from xworkmate.ui.conversation.view import MessageListView
from xworkmate.ui.operations import collecting
from xworkmate.ui.window.lines_ahead import AHEAD_LINES, RowsAhead
from xworkmate.ui.window.services import LinePart, WindowServices

SEEN_LINES = 64  # issue 19: the lines whose last view a switch shows at once, before the fresh read
AFTER_PAINT_MS = 100  # issue 34 item 1: the longest work left for after the paint waits for one that never comes


class AfterPaint(QObject):
    """Work a switch leaves until the conversation it shows has been painted (issue 34 item 1): what no one
    looks at first (the folder's tree, its watch, the Changes tab) must not delay the messages. ``add(work)``
    runs ``work`` once, right after the conversation's next paint (the same work asked twice meanwhile runs
    once); at once when the conversation is not on screen or goes; after ``AFTER_PAINT_MS`` if no paint comes."""

    def __init__(self, viewport: QWidget, parent: QObject) -> None:
        super().__init__(parent)
        self._viewport = viewport
        self._work: list[Callable[[], None]] = []
        self._soon = QTimer(self)
        self._soon.setSingleShot(True)
        self._soon.setInterval(0)
        self._soon.timeout.connect(self.run)
        self._late = QTimer(self)
        self._late.setSingleShot(True)
        self._late.setInterval(AFTER_PAINT_MS)
        self._late.timeout.connect(self.run)
        viewport.installEventFilter(self)

    @property
    def pending(self) -> int:
        return len(self._work)

    def add(self, work: Callable[[], None]) -> None:
        if work in self._work:
            return
        self._work.append(work)
        if not self._viewport.isVisible():
            self._soon.start()
        elif not self._late.isActive() and not self._soon.isActive():
            self._late.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # After this paint, not in it; or the conversation went (a line with no messages shows its empty state).
        if event.type() in (QEvent.Type.Paint, QEvent.Type.Hide) and self._work and not self._soon.isActive():
            self._soon.start()
        return False

    def run(self) -> None:
        """The work left, now (a test, or the window closing, need not wait for the paint)."""
        self._soon.stop()
        self._late.stop()
        work, self._work = self._work, []
        for each in work:
            each()


def same_but_when(shown: LineView, fresh: LineView) -> bool:
    """Whether ``fresh`` says what ``shown`` says, but for when the line last changed (``updated_at``)."""
    if shown.thread.updated_at == fresh.thread.updated_at:
        return shown == fresh
    thread = shown.thread.model_copy(update={"updated_at": fresh.thread.updated_at})
    return shown.model_copy(update={"thread": thread}) == fresh


def newest_page(panes: LinePanes, messages: Iterable[Message]) -> tuple[Message, ...]:
    """``panes``' newest messages with ``messages`` put in (by id: a message's own row, changed or new), as a
    read of its line with its ``first_page`` would answer once they are stored (ids grow with time)."""
    merged = {message.id: message for message in panes.newest}
    merged.update((message.id, message) for message in messages)
    return tuple(merged[i] for i in sorted(merged))[-max(1, panes.first_page) :]


def _keep_newest(reads: dict[str, LinePanes], count: int) -> None:
    """Forget the reads put in first until ``count`` are left (a dict keeps the order they were put in)."""
    while len(reads) > count:
        del reads[next(iter(reads))]


class ShownLine(QObject):
    """Which line every pane shows (``view``), which one was asked for (``wanted_key``), and how to switch.

    ``parts`` show a view, in order; ``sync_selection`` puts the list's selection on the wanted line;
    ``reveal(key)`` makes a line visible in the list (a filter that hides it is cleared); ``usage_known(key)``
    says whether the usage meter has the line's figures already (then a switch does not read them).
    Signals: none.
    """

    def __init__(
        self,
        window: WindowServices,
        message_list: MessageListView,
        message_model: MessageListModel,
        *,
        sync_selection: Callable[[], None],
        reveal: Callable[[str], None],
        usage_known: Callable[[str], bool],
    ) -> None:
        super().__init__(window.window())
        self._window = window
        self._message_list = message_list
        self._message_model = message_model
        self._sync_selection = sync_selection
        self._reveal = reveal
        self._usage_known = usage_known
        self.parts: Sequence[LinePart] = ()
        self.view: LineView | None = None
        self.wanted_key: str | None = None
        self.seen: dict[str, LinePanes] = {}
        # Reads of lines in the list's view not shown yet (``LinesAhead``), kept apart: never one the person showed.
        self.ahead: dict[str, LinePanes] = {}
        self.rows_ahead = RowsAhead(message_model, message_list, self)  # the first of them: their rows too
        self.deferred = AfterPaint(message_list.viewport(), self)
        # How many times the shown line's panes were shown (a switch, or a LineUpdated of the shown line): per
        # turn, not per streamed record (issue 34 item 1; counted for the tests and the benchmarks).
        self.panes_shown = 0
        self.paints_now = 0  # switches painted at once (``_paint_now``)
        # The parts are showing another line than the one shown before (what they ask for then can wait for the
        # paint: ``after_paint``); not while the window shows its first line (its start has an order of its own).
        self.switching = False

    @property
    def shown_key(self) -> str | None:
        return self.view.key if self.view is not None else None

    @property
    def selection_key(self) -> str | None:
        """The line the list's selection should be on: the one asked for, else the shown one."""
        return (self.wanted_key or self.shown_key) if self.view is not None else None

    def after_paint(self, work: Callable[[], None]) -> None:
        """``work`` once the conversation shown is painted (``AfterPaint``): a part's work no one looks at first."""
        self.deferred.add(work)

    def show_current(self, ahead: ReadAhead | None = None) -> None:
        """Show the controller's current line in every pane, from ``ahead``'s read of it, else one read here."""
        lines = self._window.controller.lines
        try:
            view = (ahead.views.get(lines.current_key) if ahead is not None else None) or lines.current_view()
        except UnknownSessionKeyError as exc:
            self._window.show_error(
                self.tr("Cannot show the current line — {error}").format(error=plain_words(str(exc)))
            )
            return
        self.show_view(view)

    def show_panes(self, panes: LinePanes) -> None:
        """Show a line from what was read for it (a fresh read, or the last one as the cached view): no read here."""
        self.remember(panes)
        self.show_view(panes.view, panes)

    def remember(self, panes: LinePanes) -> None:
        self.seen.pop(panes.key, None)
        self.ahead.pop(panes.key, None)
        # Without its usage: the meter's figures are the agent part's (kept fresh by UsageChanged); a
        # remembered read shown again must not put back the figures it was read with (issue 30 item 2).
        self.seen[panes.key] = replace(panes, usage=None) if panes.usage is not None else panes
        _keep_newest(self.seen, SEEN_LINES)

    def remembers(self, key: str) -> bool:
        """Whether a switch to ``key`` has a read to show at once (the shown line's counts too)."""
        return key in self.seen or key in self.ahead or key == self.shown_key

    def remember_ahead(self, panes: LinePanes) -> None:
        """A read of a line made ahead of a click (``LinesAhead``): kept with the other reads ahead, the last
        ``AHEAD_LINES`` of them, never in place of a line the person showed (nor instead of its read)."""
        if panes.key in self.seen:
            return
        self.ahead.pop(panes.key, None)
        self.ahead[panes.key] = panes
        _keep_newest(self.ahead, AHEAD_LINES)
        self.rows_ahead.add(panes)

    def show_view(self, view: LineView, panes: LinePanes | None = None) -> None:
        """Every part shows ``view`` (and ``panes``, when read for it), then the selection follows."""
        self.panes_shown += 1
        previous = self.view
        self.view = view
        if panes is None:
            self._follow(view)
        self.switching = previous is not None and previous.key != view.key  # not the window's first line
        # A switch, to its paint, is what the person waits on: background threads step aside meanwhile.
        with foreground.held() if self.switching else nullcontext():
            try:
                for part in self.parts:
                    part.show_line(view, previous, panes)
            finally:
                self.switching = False
            self._sync_selection()
            if previous is None or previous.key != view.key:
                self._paint_now()

    def _paint_now(self) -> None:
        """Issue 34 item 1: the line switched to is painted now — its conversation, and with it whatever else of
        the window changed (Qt paints every region waiting to be painted at once) — not once the event loop has
        handled what queued up meanwhile (twenty lines' streams, the store's answers): the person sees the line
        they asked for before any of that. Nothing is painted that would not have been."""
        viewport = self._message_list.viewport()
        if not viewport.isVisible():
            return
        # The panes' sizes first (a bar shown or hidden above the composer changes the conversation's height: a
        # paint before that would be made again at once), then the rows where they go, scrolled to the newest.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        self._message_list.executeDelayedItemsLayout()
        self.paints_now += 1
        viewport.repaint()

    def _follow(self, view: LineView) -> None:
        """The line's remembered read follows its updates (a switch back shows the view as it is now)."""
        if (seen := self.seen.get(view.key)) is not None:
            self.seen[view.key] = replace(seen, view=view)

    def on_messages_appended(self, change: MessagesAppended, ahead: ReadAhead) -> None:
        """Messages stored on a line: its remembered read follows, so a switch back shows them at once and the
        fresh read after the paint finds nothing to draw again (issue 34 item 1; LOOP-4: nothing read here).
        The messages come with the record (this process's turns) or were read ahead (the shown line's); a
        record naming messages this window does not have (another process's, on a line not shown: the store
        watcher's record carries none) drops the line's read: shown, it would lack them, and messages stored
        after them would leave a gap. A switch to it then reads first, as to a line not seen."""
        self._follow_messages(change.key, change.message_ids, ahead, carried=change.messages)

    def on_messages_changed(self, change: MessagesChanged, ahead: ReadAhead) -> None:
        """Messages whose rendering changed (Q-1): the remembered read holds them as they are now (read ahead)."""
        self._follow_messages(change.key, change.message_ids, ahead, only_held=True)

    def _follow_messages(
        self,
        key: str,
        ids: Sequence[int],
        ahead: ReadAhead,
        *,
        carried: Iterable[Message] = (),
        only_held: bool = False,
    ) -> None:
        kept = self.seen if key in self.seen else self.ahead  # a line read ahead follows its records too
        if (seen := kept.get(key)) is None:
            return
        held = {message.id for message in seen.newest}
        have = {message.id: message for message in carried}
        wanted = [i for i in ids if i in held] if only_held else list(ids)
        if not wanted:
            return
        messages = [have.get(i) or ahead.messages.get(i) for i in wanted]
        if any(message is None or message.thread_id != seen.key for message in messages):
            del kept[key]  # not known here: the fresh read of a switch to it says what is stored
            return
        # In place: following a line does not make it one shown lately (``SEEN_LINES``).
        kept[key] = replace(seen, newest=newest_page(seen, [m for m in messages if m is not None]))
        if kept is self.ahead:
            self.rows_ahead.follow(kept[key])  # its new messages' rows too, if its rows were built ahead

    def _shows(self, panes: LinePanes) -> bool:
        """Whether every pane shows exactly ``panes`` now (the view, and the conversation of its line)."""
        return self.view == panes.view and self._message_model.key == panes.key

    def _shows_read(self, shown: LinePanes, fresh: LinePanes) -> bool:
        """Whether the panes, showing ``shown``, show what the ``fresh`` read of its line says: the same view but
        for when the line last changed (as ``on_line_updated``), and the same newest messages. Read for a view
        of another height, one first page may be longer than the other: the conversation holds the newest
        messages either way, and pages in older ones as it does when the window grows (``fetchMore``); but a
        shorter one shown must have said there are older ones."""
        longer, shorter = (shown, fresh) if len(shown.newest) >= len(fresh.newest) else (fresh, shown)
        tail = longer.newest[len(longer.newest) - len(shorter.newest) :]
        return (
            self._shows(shown)
            and same_but_when(shown.view, fresh.view)
            and replace(shown, view=fresh.view, first_page=fresh.first_page, newest=fresh.newest) == fresh
            and tail == shorter.newest
            and (shorter is fresh or len(shown.newest) >= shown.first_page)
        )

    def _cannot_switch(self, key: str, still_on: str, error: BaseException) -> None:
        self._window.failure(
            self.tr("Cannot switch to {key} — {error}; still on {still_on}"),
            UnknownSessionKeyError,
            key=key,
            still_on=still_on,
        )(error)

    def open_line(
        self, key: str, *, then: Callable[[], None] | None = None, otherwise: Callable[[], None] | None = None
    ) -> None:
        """The one way a line is opened from outside the list (Ctrl+J, a notification's click, a search hit):
        made visible in the list, then shown as a click on its row shows it (``switch_to``: every pane, the
        selection and the title follow; ISO-5)."""
        self._reveal(key)
        if key == self.shown_key and self.wanted_key in (None, key):
            if then is not None:
                then()
            return
        self.switch_to(key, then=then, otherwise=otherwise)

    def switch_to(
        self,
        key: str,
        *,
        then: Callable[[], None] | None = None,
        store: bool = True,
        otherwise: Callable[[], None] | None = None,
    ) -> None:
        """Show ``key``: its last view at once when the window had one, the fresh read when it arrives
        (dropped if another line was asked for meanwhile). ISO-5: every pane shows one key at a time.
        ``store``: the controller's current line follows (not for a switch the controller made itself).
        ``then()`` once ``key`` is shown; ``otherwise()`` when it is not (the read failed, or another line was
        asked for first)."""
        self.wanted_key = key
        first_page = self._message_list.rows_to_fill()
        with_usage = not self._usage_known(key)
        controller = self._window.controller

        def read() -> LinePanes:  # the read first: the panes show it before the switch is stored
            return read_line_panes(controller, key, first_page=first_page, with_usage=with_usage)

        def store_switch() -> None:
            controller.lines.switch_session(key)
            sink = collecting()
            if sink is not None:  # the panes show it already: no second read
                sink[:] = [c for c in sink if not (isinstance(c, CurrentLineChanged) and c.key == key)]

        def switched(panes: LinePanes) -> None:
            followed = self.seen.get(panes.key)  # the remembered read, as the records since kept it
            if followed is not None:  # what they brought after the read was made (ids grow) is not lost
                last = panes.newest[-1].id if panes.newest else 0
                panes = replace(panes, newest=newest_page(panes, (m for m in followed.newest if m.id > last)))
            self.remember(panes)
            if self.wanted_key not in (key, panes.key):
                if otherwise is not None:
                    otherwise()
                return  # stale: the person has asked for another line since
            self.wanted_key = panes.key
            if followed is not None and self._shows_read(followed, panes):
                self.view = panes.view  # the cached view was the fresh one but for when: nothing to draw again
            else:
                self.show_panes(panes)
            if store and key != controller.lines.current_key:  # ISO-5: the controller's current line follows
                self._window.operations.run(store_switch, failed=not_stored)
            if then is not None:
                then()

        def failed(error: BaseException) -> None:
            if self.wanted_key == key:
                self.wanted_key = self.shown_key
            self._cannot_switch(key, self.shown_key or "", error)
            # The click that moved the selection may still be being processed; put it back afterwards.
            QTimer.singleShot(0, self._sync_selection)
            if otherwise is not None:
                otherwise()

        def not_stored(error: BaseException) -> None:
            back = controller.lines.current_key  # the switch was refused: every pane goes back to it (ISO-5)

            def say() -> None:
                self._cannot_switch(key, back, error)

            if back != self.shown_key:
                self.switch_to(back, store=False, then=say)
            else:
                say()
            QTimer.singleShot(0, self._sync_selection)  # after the click that may still be being processed

        def read_fresh() -> None:
            if self.wanted_key == key:  # else another switch has read since
                self._window.operations.run(read, done=switched, failed=failed)

        seen = self.seen.get(key) or self.ahead.get(key)  # shown lately, else read ahead (``LinesAhead``)
        if seen is None or key == self.shown_key:  # nothing to show before the read, or its real state wanted
            self._window.operations.run(read, done=switched, failed=failed)
            if seen is not None and self.wanted_key == key and self.seen.get(key) is seen:
                self.show_panes(seen)  # not when the answer came already (no qasync loop: it ran at once)
            return
        # Issue 34 item 1: another line's last read is shown at once; the fresh one is read once it is painted,
        # so the store worker does not compete with the switch for the interpreter. What showing it writes (the
        # seen mark, also left for after the paint) goes after the read.
        self.after_paint(read_fresh)
        self.show_panes(seen)

    def on_current_line_changed(self, change: CurrentLineChanged, ahead: ReadAhead) -> None:
        """The controller's current line changed: by an operation of this window (read with it), or from
        outside the window (a switch then, through the one switch path, its read on the worker)."""
        self.wanted_key = change.key
        if (panes := ahead.panes.get(change.key)) is not None:
            self.show_panes(panes)  # read with the operation that switched (archive)
        elif not self._window.operations.applying:
            self.switch_to(change.key, store=False)
        else:
            self.show_current(ahead)

    def on_line_updated(self, change: LineUpdated, ahead: ReadAhead) -> None:
        """A store record: the shown line changed; its view was read with the operation. A view equal to the
        one shown but for ``updated_at`` (a message stored, a turn's own write echoed by the watcher of another
        process's changes) shows nothing new: the panes are not shown again (issue 34 item 1). What changes
        besides the view has records of its own (the queue: ``QueueChanged``; messages, run cards, the folder's
        changes)."""
        if change.key != self.shown_key or (view := ahead.views.get(change.key)) is None:
            return
        if self.view is not None and same_but_when(self.view, view):
            self.view = view
            self._follow(view)
            return
        self.show_view(view)

    def refresh_shown(self) -> None:
        """Read the shown line again on the worker (its real state after a refusal, ISO-4)."""
        if self.view is not None:
            self.switch_to(self.view.key)

    def read_shown_again(self) -> None:
        """Something outside the store changed what the shown line looks like: read its view on the store
        worker and show it, unless another line is shown by then."""
        if self.view is None:
            return
        key = self.view.key

        def read(view: LineView) -> None:
            if view.key == self.shown_key:
                self.show_view(view)

        self._window.operations.query(
            lambda: self._window.controller.lines.line_view(key),
            done=read,
            failed=self._window.failure(self.tr("Cannot show the current line — {error}"), UnknownSessionKeyError),
        )
