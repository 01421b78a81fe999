"""The centre pane's actions: the composer and Send, the follow-up queue, Stop, the message menu, paging.

Send never loses the person's words: a refused send keeps the text in the composer and says why in one
line (ERR-1). Each line keeps its own draft and attachments; text typed for one line is never sent on
another (ISO-5, ATT-1).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QModelIndex, QObject, QPoint, Slot
from PySide6.QtGui import QShortcut, QTextCursor
from PySide6.QtWidgets import QApplication, QMenu

from xworkmate.controllers import (
    LineView,
    MessagesAppended,
    MessagesChanged,
    SendOutcome,
    UnknownSessionKeyError,
)
from xworkmate.controllers.session import FollowupOutcome
from xworkmate.controllers.views import LinePanes, ReadAhead
from xworkmate.domain.followup_queue import QueuedFollowup, QueueItemError
from xworkmate.domain.messages import Message, MessageRole
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.threads import ExecutionMode, ThreadKind, ThreadStatus
from xworkmate.domain.tool_trust import can_be_quarantined
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.agent.live_runs import LiveRuns
from xworkmate.ui.conversation import MESSAGE_ID_ROLE, MessageListModel, MessagePane, is_plan, is_thought
from xworkmate.ui.conversation.composer import PreparedAttachment
from xworkmate.ui.conversation.model import OlderPage
from xworkmate.ui.lines.needs_you import DraftKeeper
from xworkmate.ui.shell import FirstInput
from xworkmate.ui.window.run_cards import RunCards
from xworkmate.ui.window.services import WindowServices


class ConversationActions(QObject):
    """The composer, Send and its follow-ups, the queue strip, Stop, a message's menu, older pages.

    Signals: none; its ``on_*`` slots are wired in ``MainWindow._connect_signals``, but for the queue strip's,
    wired here: the strip is this part's alone.
    """

    def __init__(
        self,
        window: WindowServices,
        pane: MessagePane,
        model: MessageListModel,
        live: LiveRuns,
        drafts: DraftKeeper,
        cards: RunCards,
        stop_shortcut: QShortcut,
    ) -> None:
        super().__init__(window.window())
        self._window = window
        self._pane = pane
        self._list = pane.message_list
        self._composer = pane.composer
        self._queue = pane.followup_queue
        self._strip = pane.attachment_strip
        self._model = model
        self._live = live
        self._drafts = drafts
        self._cards = cards
        self._stop_shortcut = stop_shortcut
        self._attached: dict[str, list[PreparedAttachment]] = {}  # each other line's attachments, by key
        self._sending = False
        self._queue.edit_requested.connect(self.on_queued_edit_requested)
        self._queue.edit_left.connect(self.on_queued_edit_left)
        self._queue.move_requested.connect(self.on_queued_move_requested)
        self._queue.remove_requested.connect(self.on_queued_remove_requested)
        self._queue.send_now_requested.connect(self.on_queued_send_now_requested)

    def show_line(self, view: LineView, previous: LineView | None, panes: LinePanes | None) -> None:
        key_changed = previous is None or previous.key != view.key
        if key_changed:
            if previous is not None:
                self._drafts.typed(previous.key, self._composer.toPlainText())
                # ATT-1: attachments are the line's draft too: never sent on another line (ISO-5).
                self._attached[previous.key] = self._strip.prepared()
            self._strip.restore(self._attached.pop(view.key, []))
            # Text typed for one line is never sent on another: each line keeps its own draft (issue 17:
            # kept through the controller, so it survives a restart).
            self._composer.setPlainText(self._drafts.text_for(view.key))
            self._composer.moveCursor(QTextCursor.MoveOperation.End)  # typing goes on where the draft ends
            if panes is not None:
                self._model.set_key(view.key, first_page=panes.first_page, newest=list(panes.newest))
            else:
                self._model.set_key(view.key, first_page=self._list.rows_to_fill())
            self._list.follow_newest()
        self._pane.show_line(view, last_failure=self._cards.last_failure(view.key))
        if key_changed:
            self._queue.switch_to(view.key)  # never another line's queue, even for a moment (ISO-5)
            self._window.shown.after_paint(self._read_shown_queue)  # issue 34 item 1: once the switch is painted
        else:
            self.read_queue(view.key)
        self._stop_shortcut.setEnabled(self._pane.stop_button.isEnabled())
        self.on_composer_changed()
        if not key_changed and panes is not None and self._stale_page(panes):
            # A fresh read of the shown line that its page does not hold (another process wrote).
            self._model.set_key(panes.key, first_page=panes.first_page, newest=list(panes.newest))
            self._cards.show_live()  # the running turn's rows go after the fresh page
            self._list.follow_newest()

    def _stale_page(self, panes: LinePanes) -> bool:
        fresh = {message.id for message in panes.newest}
        return self._model.key == panes.key and not fresh <= set(self._model.loaded_ids)

    def focus_composer(self) -> None:
        self._composer.setFocus()

    # -- store records -----------------------------------------------------------

    def on_messages_changed(self, change: MessagesChanged, ahead: ReadAhead) -> None:
        if change.key == self._model.key:
            self._model.refresh_messages(change.message_ids, ahead.messages)

    def on_messages_appended(self, change: MessagesAppended, ahead: ReadAhead) -> None:
        self._model.remember(ahead.messages.values())
        self._model.remember(change.messages)  # a turn's: no read back
        self._live.apply(change, answered=self._stores_answer(change))
        if change.key == self._model.key:
            # The stored message takes the place of the transient row that streamed it.
            self._cards.show_live()
            self._model.append_ids(change.message_ids)

    def _stores_answer(self, change: MessagesAppended) -> bool:
        """Whether these stored messages replace the text streamed so far (see ``LiveRuns.apply``).

        Only this process's turns stream here, and their records carry every message they stored; rows
        the record does not carry are another process's (the store watcher's record carries none), never
        this window's answer, so nothing is read for them (LOOP-4) and they leave the streamed text as it is.
        """
        if not self._live.has_text(change.key):
            return True
        return any(
            not (message.role is MessageRole.TOOL or is_thought(message) or is_plan(message))
            for message in change.messages
        )

    # -- the composer and Send ---------------------------------------------------

    @Slot()
    def on_composer_changed(self) -> None:
        view = self._window.shown.view
        if view is not None:
            self._drafts.typed(view.key, self._composer.toPlainText())
        runnable = view is not None and view.runnable
        # A running task still takes follow-ups: its agent reads them at the next safe point (PROV-4).
        # Issue 31: while a turn runs, Send queues the follow-up (the strip above the composer shows it).
        running = view is not None and view.status is ThreadStatus.RUNNING
        self._pane.send_button.setEnabled((runnable or running) and bool(self._composer.toPlainText().strip()))

    def _refused(self, template: str, *expected: type[BaseException]) -> Callable[[BaseException], None]:
        """A refused send: the line read again when it could not run (ISO-4), why said (``template``, for
        ``NotRunnable`` and ``expected``; else the ERR-1 line), the text kept."""

        def failed(error: BaseException) -> None:
            self._sending = False
            if isinstance(error, NotRunnable):
                self._window.shown.refresh_shown()  # the line's real state, e.g. its folder just disappeared (ISO-4)
                self._window.show_error(template.format(reason=plain_words(error.reason)))
            elif isinstance(error, expected):
                self._window.show_error(template.format(reason=plain_words(str(error))))
            else:
                self._window.failure("")(error)

        return failed

    def take_first_input(self, first: FirstInput | None, when_usable: Callable[[Callable[[], None]], None]) -> None:
        """What the person did on the opening page while the window's code loaded (issue 34 item 4), as the
        window is built: what they typed goes after the draft of the line they selected there (that line opened
        first, once the window can be used, when it is not the one shown), and a Send they pressed sends it
        then, as Send does (a refusal keeps the text and says why). Only the words they pressed Send on go out:
        a line with a draft of its own, or keys typed since, are left in the composer, and the person is told.
        ``None``: nothing was done there."""
        if first is None:
            return

        def typed() -> None:
            if first.text:
                self._add_to_composer(first.text)
            self._composer.setFocus()
            if first.send:
                when_usable(send)

        def send() -> None:
            if self._composer.toPlainText() == first.text:
                self.on_send_requested()
            else:
                self._pane.show_status(
                    self.tr(
                        "Not sent yet — the composer holds this line's draft or later typing besides your words; "
                        "send again when it reads right."
                    ),
                    "info",
                )

        def not_opened() -> None:  # nothing lost: the text waits, unsent, in the composer of the line shown
            if first.text:
                self._add_to_composer(first.text)
            self._pane.show_status(
                self.tr("Not sent — {key} did not open; your text is in this line's composer.").format(key=key),
                "error",
            )

        key = first.key
        if key is not None and key != self._window.shown.shown_key:
            when_usable(lambda: self._window.shown.open_line(key, then=typed, otherwise=not_opened))
        else:
            typed()  # now: keys typed while the window is painted go after it

    @Slot()
    def on_send_requested(self) -> None:
        """Send the composer's text on the shown line; on refusal keep the text (nothing is lost).

        On a task, Send is a follow-up (``send_followup``): the person's words for the task, then its turn.
        """
        view = self._window.shown.view
        if view is None:
            return
        text = self._composer.toPlainText()
        if not text.strip() or self._sending:
            return  # nothing to send, or the last Send is still on its way: one press, one message
        self._pane.clear_notice()  # a new request: what the last one said has been read
        if self._strip.preparing:
            self._window.show_error(
                self.tr("Not sent yet — an attachment is still being prepared; send again in a moment.")
            )
            return
        if view.thread.kind is ThreadKind.TASK:
            if self._strip.attachments():
                self._window.show_error(
                    self.tr("Not sent — a task's follow-up takes text only; remove the attachments first.")
                )
                return
            self.send_followup(view, text)
            return
        key, provider, controller = view.key, self._pane.chosen_provider(), self._window.controller
        attachments = self._strip.attachments()  # ATT-1: sent with the message, stored with it
        self._sending = True

        def sent(outcome: SendOutcome) -> None:
            self._sending = False
            if self._composer.toPlainText() == text:
                self._composer.clear()
            if self._window.shown.shown_key == key:
                self._strip.clear()
            self._list.follow_newest()
            if outcome.queued is not None:
                self.read_queue(key)  # issue 31: the line was running, so it waits in the strip

        self._window.operations.run(
            lambda: controller.send(key, text, provider=provider, attachments=attachments),
            done=sent,
            failed=self._refused(
                self.tr("Not sent — {reason}. Your text is still in the composer."), UnknownSessionKeyError, ValueError
            ),
        )

    def send_followup(self, view: LineView, text: str) -> None:
        """Send on a task: the controller's one follow-up policy decides (PROV-4, issue 14): a running
        task takes it when its current step ends, an idle one starts a turn on it."""
        acp = view.thread.execution_binding.mode is ExecutionMode.ACP
        key, provider = view.key, None if acp else self._pane.chosen_provider()
        followups = self._window.controller.followups
        self._sending = True

        def sent(outcome: FollowupOutcome) -> None:
            self._sending = False
            if self._composer.toPlainText() == text:
                self._composer.clear()
            self._list.follow_newest()
            if outcome.queued is not None:
                self.read_queue(key)  # issue 31: the task was running, so it waits in the strip
            if outcome.notice:
                self._window.show_error(
                    self.tr("Follow-up saved on the task, but no agent provider is configured, so it did not run.")
                )

        # The window runs tasks (``auto_run_tasks``), so an idle task starts a turn on it.
        self._window.operations.run(
            lambda: followups.follow_up(key, text, provider=provider),
            done=sent,
            failed=self._refused(
                self.tr("Follow-up not sent — {reason}. Your text is still in the composer."), ValueError, LookupError
            ),
        )

    @Slot()
    def on_stop_requested(self) -> None:
        """Stop (or Escape): cancel the shown line's turn; the controller keeps what streamed, marked interrupted."""
        key, turns = self._window.shown.shown_key, self._window.controller.turns
        if key is not None and turns.is_running(key):
            turns.stop(key)

    # -- the follow-up queue (issue 31): every call on the worker, the strip redrawn from what it read -----

    def _read_shown_queue(self) -> None:
        if (key := self._window.shown.shown_key) is not None:
            self.read_queue(key)

    def read_queue(self, key: str) -> None:
        """Read ``key``'s queue off the GUI thread (LOOP-4) and show it if ``key`` is still the shown line."""

        def arrived(items: list[QueuedFollowup]) -> None:
            if key == self._window.shown.shown_key:
                self._queue.show_queue(key, items)

        queue = self._window.controller.queue
        self._window.operations.query(
            lambda: queue.items(key),
            done=arrived,
            failed=self._window.failure(
                self.tr("Could not read the follow-up queue — {error}"), UnknownSessionKeyError
            ),
        )

    def _queue_operation(
        self, work: Callable[[str], object], what: str, *, then: Callable[[], None] | None = None
    ) -> None:
        """A change to the shown line's queue, on the worker. Its ``QueueChanged`` has the queue read again
        (``routing.queue_changed``), as another process's change does; a refused one changed nothing."""
        key = self._queue.key
        if key is None:
            return
        self._window.operations.run(
            lambda: work(key),
            failed=self._window.failure(
                what, QueueItemError, UnknownSessionKeyError, NotRunnable, ValueError, then=then
            ),
        )

    @Slot(object, str)
    def on_queued_edit_requested(self, item: QueuedFollowup, text: str) -> None:
        queue = self._window.controller.queue
        self._queue_operation(
            lambda key: queue.edit(key, item, text),
            self.tr("Could not change the queued follow-up — {error}. Your changed text is in the composer."),
            then=lambda: self._keep_in_composer(item.key, text),
        )

    @Slot(object, str)
    def on_queued_edit_left(self, item: QueuedFollowup, text: str) -> None:
        """A queued follow-up the person was changing was delivered or removed first: their changed text
        goes into the composer to send or drop (nothing they wrote is lost), and their typing with it."""
        self._keep_in_composer(item.key, text)
        focused = QApplication.focusWidget()
        if focused is None or self._queue.isAncestorOf(focused):  # the field they typed in is gone
            self._composer.setFocus()
        self._pane.show_status(
            self.tr(
                "Follow-up {n} left the queue before your change to it was saved; your changed text is in the composer."
            ).format(n=item.position),
            "info",
        )

    def _keep_in_composer(self, key: str, text: str) -> None:
        """``text`` after ``key``'s draft: in the composer if ``key`` is shown, else in its kept draft (ISO-5)."""
        if key == self._window.shown.shown_key:
            self._add_to_composer(text)
        else:
            self._drafts.typed(key, _after_draft(self._drafts.text_for(key), text))

    def _add_to_composer(self, text: str) -> None:
        """``text`` after what the composer holds (a line of its own), the cursor at its end."""
        self._composer.setPlainText(_after_draft(self._composer.toPlainText(), text))
        self._composer.moveCursor(QTextCursor.MoveOperation.End)

    @Slot(object, int)
    def on_queued_move_requested(self, item: QueuedFollowup, step: int) -> None:
        queue = self._window.controller.queue
        self._queue_operation(
            lambda key: queue.shift(key, item, step), self.tr("Could not move the queued follow-up — {error}")
        )

    @Slot(object)
    def on_queued_remove_requested(self, item: QueuedFollowup) -> None:
        queue = self._window.controller.queue
        self._queue_operation(
            lambda key: queue.remove(key, item), self.tr("Could not remove the queued follow-up — {error}")
        )

    @Slot(object)
    def on_queued_send_now_requested(self, item: QueuedFollowup) -> None:
        """Send now: the running turn takes it at its next safe point; an idle line runs a turn on it."""
        queue = self._window.controller.queue
        self._queue_operation(
            lambda key: queue.send_now(key, item), self.tr("Not sent — {error}. It is still in the queue.")
        )

    # -- a message's menu and older pages ------------------------------------

    def message_menu(self, message_id: int, message: Message | None = None) -> QMenu:
        """The context menu of one stored message (built separately so it can be tested without exec), as
        ``message`` says (by default the row as the conversation last read it; none: nothing can be hidden).

        Q-1: "Hide from the model" on a tool result or an agent's message; "Show to the model again" undoes it.
        """
        if message is None:
            message = self._model.cached_message(message_id)
        menu = QMenu(self._window.window())
        menu.setObjectName("messageMenu")
        if message is not None and message.quarantined:
            action = menu.addAction(
                self.tr("Show to the model again"), partial(self.set_hidden_from_model, message_id, False)
            )
            action.setObjectName("showToModelAction")
            action.setToolTip(self.tr("The model sees this message's text again on this line"))
        else:
            action = menu.addAction(
                self.tr("Hide from the model"), partial(self.set_hidden_from_model, message_id, True)
            )
            action.setObjectName("hideFromModelAction")
            allowed = message is not None and can_be_quarantined(message.source)
            action.setEnabled(allowed)
            action.setToolTip(
                self.tr("Keep it here, but show the model only a placeholder naming it, on this line and its forks")
                if allowed
                else self.tr("Only tool results and agents' messages can be hidden from the model")
            )
        return menu

    def set_hidden_from_model(self, message_id: int, hidden: bool) -> None:
        lines = self._window.controller.lines
        change = lines.quarantine_message if hidden else lines.release_message
        self._window.operations.run(  # MessagesChanged re-reads the row
            lambda: change(message_id),
            failed=self._window.failure(
                self.tr("Could not change what the model sees — {error}"), ValueError, LookupError
            ),
        )

    @Slot(QPoint)
    def on_message_context_menu(self, pos: QPoint) -> None:
        message_id = self._list.indexAt(pos).data(MESSAGE_ID_ROLE)
        if isinstance(message_id, int):  # live rows (still streaming) have no id yet
            self.open_message_menu(message_id, self._list.viewport().mapToGlobal(pos))

    def open_message_menu(self, message_id: int, at: QPoint) -> None:
        """The menu of a message at ``at`` (global): at once for a row as last read; a row not read yet is
        read on the store worker first (issue 19, LOOP-4), its menu opened unless another line is shown by then."""
        if self._model.cached_message(message_id) is not None:
            menu = self.message_menu(message_id)
            menu.exec(at)
            menu.deleteLater()
            return
        key, lines = self._model.key, self._window.controller.lines

        def read() -> Message | None:
            return lines.messages_by_id([message_id]).get(message_id)

        def arrived(message: Message | None) -> None:
            if self._model.key != key:
                return
            if message is not None:
                self._model.remember([message])  # its row paints without a read
            menu = self.message_menu(message_id, message)
            menu.aboutToHide.connect(menu.deleteLater)  # after its action was triggered
            menu.popup(at)  # not exec: no nested event loop inside the operation's answer (STYLE 6)

        self._window.operations.query(read, done=arrived, failed=self._window.failure(""))

    @Slot(int)
    def on_message_scrolled(self, _value: int) -> None:
        if self._model.canFetchMore(QModelIndex()):
            self._model.request_older()  # olderPrepended keeps the row read at the top

    def read_older(self, read: Callable[[], OlderPage], done: Callable[[OlderPage | None], None]) -> None:
        """The message list's older pages, read on the store worker (issue 19)."""
        not_read = self._window.failure(self.tr("Could not read older messages — {error}"), UnknownSessionKeyError)

        def failed(error: BaseException) -> None:
            done(None)
            not_read(error)

        self._window.operations.query(read, done=done, failed=failed)

    @Slot()
    def on_message_rows_changed(self) -> None:
        self._pane.show_empty_state(self._model.rowCount())


def _after_draft(draft: str, text: str) -> str:
    """``text`` on a line of its own after ``draft``, or ``text`` alone when there is no draft."""
    return f"{draft}\n{text}" if draft.strip() else text
