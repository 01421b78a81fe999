"""What a turn shows beside the conversation: its streamed rows, approval and form cards, the sign-in card
and terminal, a host the proxy refused (SBX-4), a turn a crash interrupted and Resume (issue 31).

Every line's live state is kept by ``LiveRuns``, shown or not; this part shows the shown line's.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Slot

from xworkmate.controllers import (
    LineView,
    MessagesAppended,
    RunFinished,
    RunStarted,
    SignInRequested,
    SignInSettled,
    SignInTerminalOpened,
    UnknownSessionKeyError,
)
from xworkmate.controllers.views import LinePanes, ReadAhead
from xworkmate.domain.interruptions import INTERRUPTED_TURN, RESUMED_TURN
from xworkmate.domain.messages import Message, MessageSource
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.turn_endings import TurnEnding
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.agent.approvals import ALWAYS, REJECT
from xworkmate.ui.agent.live_runs import LiveRuns
from xworkmate.ui.conversation import MessageListModel, MessagePane
from xworkmate.ui.conversation.network_bar import denied_destination
from xworkmate.ui.window.services import Failure, WindowServices

if TYPE_CHECKING:  # opened on demand (issue 34 item 4)
    from xworkmate.ui.agent.sign_in import SignInCard
    from xworkmate.ui.agent.sign_in_terminal import SignInTerminal

log = logging.getLogger(__name__)

DEAD_TURN_CHECK_MS = 10_000
"""How often the window looks whether a turn running in another process lost its process (issue 31)."""
RENDER_AHEAD_MS = 40
"""How often the answers streaming on the lines shown lately are rendered while not shown (``StreamsAhead``)."""
RENDER_AHEAD_LINES = 2
"""How many of the lines shown lately (the shown one aside) have their streaming answers rendered meanwhile."""


class StreamsAhead(QObject):
    """Issue 34 item 1: the answers streaming on the lines the person showed lately, rendered while not shown.

    A line not shown only buffers what streams (``LiveRuns.announced_only``): a switch back to it rendered all
    that came meanwhile before its first paint, a few milliseconds for each quarter second away, more the longer
    it was. The lines shown last (``RENDER_AHEAD_LINES``; those a person goes back to) are rendered every
    ``RENDER_AHEAD_MS`` instead, in the paragraphs that settled since (``MessageDelegate.render_ahead``): the
    switch then renders only what came after. Other lines are left as they were (off-screen lines not rendered).
    Runs while a turn runs (``wake``). Signals: none.
    """

    def __init__(self, window: WindowServices, live: LiveRuns, pane: MessagePane) -> None:
        super().__init__(window.window())
        self._window = window
        self._live = live
        self._delegate = pane.message_list.message_delegate
        self.timer = QTimer(self)
        self.timer.setInterval(RENDER_AHEAD_MS)
        self.timer.timeout.connect(self.render)

    def wake(self) -> None:
        """A turn started: render ahead until none runs."""
        if not self.timer.isActive() and not self._window.closed:
            self.timer.start()

    def render(self) -> None:
        if not self._live.running_keys() or self._window.closed:
            self.timer.stop()
            return
        shown = self._window.shown.shown_key
        lately = [key for key in self._delegate.lines_streamed_lately() if key != shown][:RENDER_AHEAD_LINES]
        for key in lately:
            if self._live.is_running(key) and self._live.has_text(key):
                self._delegate.render_ahead(key, self._live.streamed_text(key))


class RunCards(QObject):
    """The shown line's live rows and cards, and the records of running turns that change them.

    ``permission_not_changed()`` says a refused permission change (an "Always" answer's) and puts the
    pickers back. ``dead_turn_timer`` looks now and then for a turn another process lost (``start``).
    Signals: none.
    """

    def __init__(
        self,
        window: WindowServices,
        pane: MessagePane,
        model: MessageListModel,
        live: LiveRuns,
        *,
        permission_not_changed: Failure,
    ) -> None:
        super().__init__(window.window())
        self._window = window
        self._pane = pane
        self._list = pane.message_list
        self._model = model
        self._live = live
        self._permission_not_changed = permission_not_changed
        # ERR-1: why each line's last run failed, said in its status line until it runs again
        # (the failure notice in the conversation may be missing when the database itself failed).
        self._last_failure: dict[str, str] = {}
        self._network_denied: dict[str, str] = {}  # SBX-4: line key → the host its proxy last refused
        # Issue 15: a sign-in card per line whose agent waits for the person to pick a method.
        self._sign_ins: dict[str, SignInRequested] = {}
        self._sign_in_card: SignInCard | None = None
        self._sign_in_terminal: SignInTerminal | None = None
        self._checking_dead_turns = False
        self.dead_turn_timer = QTimer(self)
        self.dead_turn_timer.setObjectName("deadTurnTimer")
        self.dead_turn_timer.setInterval(DEAD_TURN_CHECK_MS)
        self.streams_ahead = StreamsAhead(window, live, pane)

    def last_failure(self, key: str) -> str | None:
        return self._last_failure.get(key)

    def show_line(self, view: LineView, previous: LineView | None, panes: LinePanes | None) -> None:
        self._live.announced_only = view.key  # another line's text is only buffered (issue 34 item 1)
        if previous is None or previous.key != view.key:
            self._pane.interrupted_bar.show_interrupted(None)  # never another line's (ISO-5)
            # Issue 34 item 1: whether it has a turn to resume is read once its conversation is painted.
            self._window.shown.after_paint(self._read_shown_interruption)
        self.show_network_denied(view)
        self._show_sign_in()
        self.show_live()

    # -- run records -----------------------------------------------------------

    def on_run_record(self, change: RunStarted | RunFinished | object) -> None:
        """A turn started, ran a tool, asked, was answered or ended: the live state and what it shows."""
        if isinstance(change, RunFinished) and self._sign_ins.pop(change.key, None) is not None:
            self._show_sign_in()
        if isinstance(change, RunStarted):
            self._last_failure.pop(change.key, None)
            self.streams_ahead.wake()
        elif isinstance(change, RunFinished) and change.status == TurnEnding.FAILED and change.error:
            self._last_failure[change.key] = change.error
        if self._live.apply(change) == self._window.shown.shown_key:
            self.show_live()

    def on_messages_appended(self, change: MessagesAppended, ahead: ReadAhead) -> None:
        """A store record: a refused host or an interrupted turn among the new messages."""
        self._note_network_denied(change.key, change.messages)
        self._note_interruption(change.key, change.messages)

    def show_live(self) -> None:
        """The shown line's transient rows and waiting approvals, from ``LiveRuns``."""
        key = self._window.shown.shown_key
        if key is None or self._model.key != key:
            return
        self._model.set_live(self._live.rows(key))
        pending = set(self._window.controller.approvals.pending_approvals(key))
        self._pane.show_approvals([a for a in self._live.approvals(key) if a.approval_id in pending])

    @Slot(str)
    def on_live_text_grew(self, key: str) -> None:
        if key == self._window.shown.shown_key:
            self._live.pace(self._list.message_delegate.live_render_ms)
            self._model.set_live(self._live.rows(key))

    # -- cards the person answers ----------------------------------------------

    @Slot(int, str)
    def on_approval_decided(self, approval_id: int, decision: str) -> None:
        """Allow once / Reject / Always for this line. The turn has its answer at once; "always" on a native
        line then raises its permission as an operation (issue 19, LOOP-4): the tool does not wait for the store."""
        approvals = self._window.controller.approvals
        always = decision == ALWAYS
        answered: tuple[str, str] | None = None
        try:
            answered = approvals.settle(approval_id, decision != REJECT, always=always)
        except (LookupError, ValueError) as exc:
            self._window.show_error(
                self.tr("That approval is no longer waiting — {error}").format(error=plain_words(str(exc)))
            )
        self.show_live()
        if always and answered is not None:
            key, tool = answered
            self._window.operations.run(  # LineUpdated redraws the pane
                lambda: approvals.raise_for_always(key, tool), failed=self._permission_not_changed
            )

    @Slot(int, str, object)
    def on_form_answered(self, approval_id: int, action: str, content: object) -> None:
        """An agent's form card (issue 32 item 3): Submit, Decline or Cancel; the agent has its answer at once."""
        from xworkmate.domain.elicitation import ElicitationAction, ElicitationAnswer

        chosen: ElicitationAction = "accept" if action == "accept" else "decline" if action == "decline" else "cancel"
        values = dict(content) if isinstance(content, dict) else None
        try:
            self._window.controller.approvals.answer_form(approval_id, ElicitationAnswer(chosen, content=values))
        except LookupError as exc:
            self._window.show_error(
                self.tr("That question is no longer waiting — {error}").format(error=plain_words(str(exc)))
            )
        self.show_live()

    # -- sign-in (issue 15, issue 32 item 4) -------------------------------------

    def on_sign_in_requested(self, change: SignInRequested) -> None:
        self._sign_ins[change.key] = change
        self._show_sign_in()

    def on_sign_in_settled(self, change: SignInSettled) -> None:
        if (waiting := self._sign_ins.get(change.key)) is not None and waiting.request_id == change.request_id:
            del self._sign_ins[change.key]
        self._show_sign_in()

    def _show_sign_in(self) -> None:
        """The shown line's sign-in card, above the approvals; none when its agent is not waiting."""
        request = self._sign_ins.get(self._window.shown.shown_key or "")
        card = self._sign_in_card
        if card is not None and (request is None or card.request.request_id != request.request_id):
            card.hide()
            card.deleteLater()
            self._sign_in_card = card = None
        if request is not None and card is None:
            from xworkmate.ui.agent.sign_in import SignInCard  # issue 34 item 4: imported at first use

            card = SignInCard(request)
            card.chosen.connect(self.on_sign_in_chosen)
            self._pane.show_sign_in(card)
            self._sign_in_card = card

    def on_sign_in_terminal_opened(self, change: SignInTerminalOpened) -> None:
        """Issue 32 item 4: the agent's login program runs; its terminal opens over the window. An earlier one
        whose program ended goes; one still running (another line's) stays open."""
        if (old := self._sign_in_terminal) is not None and old.terminal.status is not None:
            old.close()
            old.deleteLater()
        from xworkmate.ui.agent.sign_in_terminal import SignInTerminal

        dialog = SignInTerminal(change.agent, change.terminal, self._window.window())
        self._sign_in_terminal = dialog
        dialog.show()
        dialog.input.setFocus()

    @Slot(int, str)
    def on_sign_in_chosen(self, request_id: int, method_id: str) -> None:
        try:
            self._window.controller.approvals.choose_sign_in(request_id, method_id or None)
        except (LookupError, ValueError) as exc:
            self._window.show_error(
                self.tr("That sign-in is no longer waiting — {error}").format(error=plain_words(str(exc)))
            )

    # -- SBX-4: a host the line's proxy refused -----------------------------------

    def _note_network_denied(self, key: str, messages: Sequence[Message]) -> None:
        """A host the line's proxy refused during a turn, kept until it is allowed or the line is left."""
        for message in messages:
            destination = denied_destination(message)
            if destination is not None:
                self._network_denied[key] = destination
                if (view := self._window.shown.view) is not None and key == view.key:
                    self.show_network_denied(view)
                    self._window.show_error(
                        self.tr("{host} was refused: it is not on this line's network allow-list").format(
                            host=destination
                        )
                    )

    def show_network_denied(self, view: LineView) -> None:
        self._list.set_allowed_hosts(view.thread.context_state.allowed_hosts)
        destination = self._network_denied.get(view.key)
        if destination is not None and destination in view.thread.context_state.allowed_hosts:
            destination = None
            del self._network_denied[view.key]
        self._pane.network_bar.show_denied(destination)

    @Slot(str)
    def on_allow_host_requested(self, destination: str) -> None:
        if (view := self._window.shown.view) is None:
            return
        key, line_settings = view.key, self._window.controller.line_settings
        self._window.operations.run(  # LineUpdated redraws the pane, and the bar goes
            lambda: line_settings.set_allowed_hosts(key, add=[destination]),
            failed=self._window.failure(self.tr("Host not allowed — {error}"), UnknownSessionKeyError, ValueError),
        )

    # -- issue 31: a turn a crash interrupted, and Resume ----------------------------

    def _read_shown_interruption(self) -> None:
        if (key := self._window.shown.shown_key) is not None:
            self._read_interruption(key)

    def _read_interruption(self, key: str) -> None:
        """Whether the line just shown has a turn to resume, read on the worker (LOOP-4)."""
        self._pane.interrupted_bar.show_interrupted(None)
        turns = self._window.controller.turns
        self._window.operations.query(
            lambda: turns.interruption(key),
            done=lambda message: self._show_interruption(key, message),
            failed=self._window.failure(
                self.tr("Could not read whether the line's last turn was interrupted — {error}")
            ),
        )

    def _show_interruption(self, key: str, message: Message | None) -> None:
        if self._window.shown.shown_key != key:
            return
        kept = (message.payload or {}).get(INTERRUPTED_TURN) if message is not None else None
        facts = kept if isinstance(kept, dict) else {}
        self._pane.interrupted_bar.show_interrupted(
            key if message is not None else None, kept=int(facts.get("kept", 0)), partial=bool(facts.get("partial"))
        )

    def _note_interruption(self, key: str, messages: Sequence[Message]) -> None:
        """New messages of the shown line: a crash notice shows the bar; a resume or the person's words end it."""
        if key != self._window.shown.shown_key:
            return
        for message in messages:
            payload = message.payload or {}
            if INTERRUPTED_TURN in payload:
                self._show_interruption(key, message)
            elif RESUMED_TURN in payload or message.source is MessageSource.HUMAN:
                self._show_interruption(key, None)

    @Slot()
    def check_dead_turns(self) -> None:
        """While a line runs in another process, whether that process died (on the worker; nothing is read
        while nothing runs elsewhere: an idle window sends no statement)."""
        controller = self._window.controller
        if self._checking_dead_turns or not controller.external.anything_elsewhere:
            return
        self._checking_dead_turns = True

        def done(_keys: list[str]) -> None:
            self._checking_dead_turns = False

        def failed(error: BaseException) -> None:
            self._checking_dead_turns = False
            log.warning("could not look for interrupted turns", exc_info=error)

        self._window.operations.run(controller.recover_interrupted_turns, done=done, failed=failed)

    @Slot()
    def on_resume_requested(self) -> None:
        """Resume on the shown line: its interrupted turn continues (nothing re-runs without this press)."""
        if (view := self._window.shown.view) is None:
            return
        key, provider, turns = view.key, self._pane.chosen_provider(), self._window.controller.turns
        refused = self._window.failure(
            self.tr("Not resumed — {error}"), NotRunnable, UnknownSessionKeyError, ValueError
        )

        def failed(error: BaseException) -> None:
            self._pane.interrupted_bar.resume_button.setEnabled(True)
            refused(error)

        self._window.operations.run(lambda: turns.resume(key, provider=provider), failed=failed)
