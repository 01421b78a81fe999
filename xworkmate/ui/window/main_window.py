"""The three-pane window: task lines, conversation, workspace — one current key (SPEC §6, ISO-5).

This module builds the panes and wires them, in one place (qutebrowser's ``_connect_signals``); what
each pane does lives in its part (``ui/window/``): ``ShownLine`` (the shown line and the one switch
path), ``ChangeRouter`` (change records to their handlers, one table), ``TaskListActions``,
``ConversationActions``, ``RunCards``, ``LineSettingsActions``, ``AgentActions``, ``WorkspaceActions``
and ``SearchAndExport``. The parts see the window only as ``WindowServices`` (issue 33 item 1).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import cast

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QMessageBox, QSplitter, QWidget

from xworkmate.controllers import SessionController, UnknownSessionKeyError
from xworkmate.controllers.views import FirstRead, window_lines
from xworkmate.ui.agent.live_runs import LiveRuns
from xworkmate.ui.bridge import ControllerBridge
from xworkmate.ui.changes.workspace import WorkspaceFiles, WorkspacePane
from xworkmate.ui.conversation import MessageListModel, MessagePane
from xworkmate.ui.dialogs import about_text
from xworkmate.ui.external_watch import ExternalWatch
from xworkmate.ui.keyboard import KeyboardSetup
from xworkmate.ui.layout import PaneLayout
from xworkmate.ui.lines.needs_you import DraftKeeper, NeedsYou
from xworkmate.ui.lines.task_lines import TaskLineFilterModel, TaskLineModel, TaskLinePane
from xworkmate.ui.operations import StoreOperations
from xworkmate.ui.shell import WINDOW_TITLE, FirstPaint, HeldJobs, WindowShell
from xworkmate.ui.window.agent import AgentActions
from xworkmate.ui.window.chrome import WindowChrome
from xworkmate.ui.window.conversation import ConversationActions
from xworkmate.ui.window.layout_state import WindowLayout
from xworkmate.ui.window.line_settings import LineSettingsActions
from xworkmate.ui.window.routing import ChangeRouter, route_records
from xworkmate.ui.window.run_cards import RunCards
from xworkmate.ui.window.search_export import SearchAndExport
from xworkmate.ui.window.services import Failure, say_failure
from xworkmate.ui.window.shown import ShownLine
from xworkmate.ui.window.task_list import TaskListActions
from xworkmate.ui.window.workspace import WorkspaceActions


class MainWindow(WindowShell):
    """Task lines on the left, the current line's conversation in the centre, its folder on the right.

    Signals: none of its own. Every controller change record reaches ``router`` (``ControllerBridge``);
    every widget's signal is wired in ``_connect_signals``. The window is the parts' ``WindowServices``.
    It sets ``controller.followups.auto_run_tasks``: a task an agent dispatches starts at once in the
    background and appears nested under its dispatcher.
    """

    # The parts (``ui/window/``), declared so that each is typed before ``_build`` makes them.
    shown: ShownLine
    router: ChangeRouter
    task_list: TaskListActions
    conversation: ConversationActions
    cards: RunCards
    line_settings: LineSettingsActions
    agent: AgentActions
    workspace: WorkspaceActions
    search_export: SearchAndExport
    keyboard: KeyboardSetup
    external_watch: ExternalWatch

    def __init__(
        self,
        controller: SessionController | None = None,
        parent: QWidget | None = None,
        *,
        first_read: FirstRead | None = None,
    ) -> None:
        """Without a controller, the window as it shows before the store opens ("Opening the database…");
        ``attach`` builds the panes once it is open (issue 19, item 7: ``ui/opening``)."""
        super().__init__(parent, opening=controller is None)
        if controller is not None:
            self.attach(controller, first_read)

    @classmethod
    def take_over(cls, shell: WindowShell) -> MainWindow:
        """The shown ``shell`` (painted before this module loaded, issue 19 item 7) becomes a ``MainWindow``
        without a controller: the same Qt window, never replaced (``__class__`` assignment; the window adds no
        ``__slots__``, and PySide6 reads the meta-object from the Python type)."""
        if type(shell) is not WindowShell or shell.attached:
            raise TypeError(f"only a bare WindowShell becomes a MainWindow, not a {type(shell).__name__}")
        shell.__class__ = cls
        return cast(MainWindow, shell)

    def attach(self, controller: SessionController, first_read: FirstRead | None = None) -> None:
        """Build the panes over ``controller``: from ``first_read`` when a worker read it already (nothing is
        read here then, LOOP-4), else from reads made here. Replaces the opening page, if shown."""
        if self.attached:
            raise RuntimeError("the window has its controller already")
        states = first_read.ui_states if first_read is not None else None
        typed_ahead = self.opening_page.first_input() if self.opening_page is not None else None  # issue 34 item 4
        self.setUpdatesEnabled(False)  # a shown window (the opening page) paints once, when it is all built
        try:
            with controller.lines.ui_state_read_once(states):  # what the panes remember, in one read (issue 19)
                self._build(controller, first_read)
        finally:
            self.setUpdatesEnabled(True)
        self.opening_page = None  # deleted with the central widget it was
        self.attached = True
        self.conversation.take_first_input(typed_ahead, self.when_usable)  # what the opening page took

    def _build(self, controller: SessionController, first_read: FirstRead | None) -> None:
        self.setObjectName("mainWindow")
        self.setWindowTitle(WINDOW_TITLE)
        self._controller = controller
        self.closed = False
        self._held = HeldJobs()
        self.persist_ui_state = True
        controller.followups.auto_run_tasks = True  # tasks an agent dispatches run in the background at once
        self.operations = StoreOperations(
            controller,
            lambda changes, ahead: self.router.apply(changes, ahead),
            self,
            first_page=lambda: self.message_list.rows_to_fill(),
            shown=lambda: self.shown_key,
        )
        self.bridge = ControllerBridge(controller, self)
        self.live = LiveRuns(self)
        lines, partial = window_lines(controller, first_read)  # LOOP-4; issue 34 item 2: a part, the rest once usable
        self.task_model = TaskLineModel(controller, self, lines=lines, attention=controller.attention, partial=partial)
        self.task_proxy = TaskLineFilterModel(self)
        self.task_proxy.setSourceModel(self.task_model)
        self.message_model = MessageListModel(controller, self)
        self.fs_model = WorkspaceFiles(self)
        self.fs_model.setReadOnly(True)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self.task_pane = TaskLinePane(self.task_proxy, self.splitter)
        self.message_pane = pane = MessagePane(self.message_model, self.splitter)
        self.workspace_pane = WorkspacePane(self.fs_model, self.splitter)
        for widget in (self.task_pane, self.message_pane, self.workspace_pane):
            self.splitter.addWidget(widget)
        self.splitter.setStretchFactor(1, 1)
        # Short names for the widgets tests and slots use most.
        self.task_line_list = self.task_pane.list_view
        self.message_list, self.composer, self.send_button = pane.message_list, pane.composer, pane.send_button
        self.stop_button, self.followup_queue, self.raw_toggle = pane.stop_button, pane.followup_queue, pane.raw_toggle
        self.permission_picker, self.provider_picker = pane.permission_picker, pane.provider_picker
        self.mode_picker, self.agent_bar, self.usage_meter = pane.mode_picker, pane.agent_bar, pane.usage_meter
        self.slash_completer, self.skill_picker = pane.slash_completer, pane.skill_picker
        self.attachment_strip = pane.attachment_strip
        # Issue 17 (LOOP-2): which line needs you — badges, "Needs you", Ctrl+J, title count, notifications.
        self.needs_you = NeedsYou(self, controller)
        self.drafts = DraftKeeper(controller, self)
        # Issue 18: View → show/hide the side panes (Ctrl+B, Ctrl+Alt+B); the layout kept in ui_state.
        self.pane_layout = PaneLayout(self, self.splitter, controller)
        self.layout_state = WindowLayout(self, self.splitter, self.pane_layout)
        self.chrome = WindowChrome(self)
        self._build_parts()
        self._build_chrome()
        self._connect_signals()
        self.layout_state.restore(controller.lines)
        if first_read is None:
            self.line_settings.refresh_providers()
            self.shown.show_current()
        else:
            self.line_settings.show_providers(first_read.providers)
            self.shown.show_panes(first_read.panes)
        self.task_list.on_rows_changed()
        self.chrome.order_keys()
        self.composer.setFocus(Qt.FocusReason.OtherFocusReason)  # typing starts in the composer (issue 18)
        self.external_watch.start()
        self.cards.dead_turn_timer.start()
        FirstPaint(self.task_line_list.viewport(), self._on_usable)

    def _build_parts(self) -> None:
        pane, model, live = self.message_pane, self.message_model, self.live
        self.shown = ShownLine(
            self,
            self.message_list,
            model,
            sync_selection=lambda: self.task_list.sync_selection(),
            reveal=lambda key: self.task_list.reveal(key),
            usage_known=lambda key: self.agent.usage_known(key),
        )
        self.task_list = TaskListActions(
            self,
            self.task_pane,
            self.task_model,
            self.task_proxy,
            self.needs_you,
            wanted_key=lambda: self.shown.selection_key,
            start_dir=lambda: self.workspace.folder_start_dir(),
            focus_composer=lambda: self.composer.setFocus(),
        )
        self.line_settings = LineSettingsActions(self, pane)
        refused = self.line_settings.permission_not_changed()
        self.cards = RunCards(self, pane, model, live, permission_not_changed=refused)
        self.conversation = ConversationActions(
            self, pane, model, live, self.drafts, self.cards, self.chrome.stop_shortcut
        )
        self.agent = AgentActions(self, pane, settings_refused=self.line_settings.show_stored_settings)
        self.workspace = WorkspaceActions(
            self,
            self.workspace_pane,
            self.fs_model,
            self.message_model,
            self.pane_layout,
            invalidate_status=self.task_model.invalidate_status,
        )
        self.search_export = SearchAndExport(self, pane, self.message_model)
        parts = (self.conversation, self.cards, self.task_list, self.line_settings, self.agent, self.workspace)
        self.shown.parts = (*parts, self.chrome)
        self.router = ChangeRouter(
            self.operations,
            guarded=self.task_list.guarded,
            sync_selection=self.task_list.sync_selection,
            unreadable=self.failure(
                self.tr("A task line changed but could not be read — {error}"), UnknownSessionKeyError
            ),
            parent=self,
        )

    def _build_chrome(self) -> None:
        controller, panes = self._controller, (self.task_pane, self.message_pane, self.workspace_pane)
        self.keyboard = self.chrome.add_keyboard(
            controller,
            panes,
            send=self.conversation.on_send_requested,
            open_settings=self.line_settings.on_provider_settings_requested,
            archive=self.task_list.on_archive_current_requested,
        )
        self.chrome.add_menus(
            controller, panes, self.pane_layout, needs_you=self.needs_you, search_export=self.search_export
        )
        self.task_list.button_icons = self.chrome.button_icons
        self.external_watch = ExternalWatch(controller, self)  # the CLI's providers and lines show within 2 s

    def _connect_signals(self) -> None:
        live, lines, talk, cards = self.live, self.task_list, self.conversation, self.cards
        settings, agent, folder, pane = self.line_settings, self.agent, self.workspace, self.message_pane
        # Change records → the parts that show them: one table (``ui/window/routing.route_records``).
        self.bridge.changed.connect(self.router.route)
        self.bridge.route_deltas(live.add_delta)  # the hot path: buffered, repainted on the next flush
        route_records(self.router, live, self.needs_you, self.shown, lines, talk, cards, agent, folder)
        # The task list.
        self.task_pane.new_line_button.clicked.connect(lines.on_new_line_requested)
        self.task_pane.archive_button.clicked.connect(lines.on_archive_current_requested)
        self.task_pane.filter_edit.textChanged.connect(lines.on_filter_changed)
        self.task_pane.show_archived_check.toggled.connect(lines.on_show_archived_toggled)
        self.task_line_list.selectionModel().currentRowChanged.connect(lines.on_current_changed)
        self.task_line_list.customContextMenuRequested.connect(lines.on_context_menu)
        proxy = self.task_proxy
        for signal in (proxy.rowsInserted, proxy.rowsRemoved, proxy.modelReset, proxy.layoutChanged):
            signal.connect(lines.on_rows_changed)
        # The conversation and the composer.
        self.composer.textChanged.connect(talk.on_composer_changed)
        for send in (self.send_button.clicked, *(shortcut.activated for shortcut in self.chrome.send_shortcuts)):
            send.connect(talk.on_send_requested)
        self.stop_button.clicked.connect(talk.on_stop_requested)
        self.chrome.stop_shortcut.activated.connect(talk.on_stop_requested)
        self.message_list.verticalScrollBar().valueChanged.connect(talk.on_message_scrolled)
        self.message_list.customContextMenuRequested.connect(talk.on_message_context_menu)
        for signal in (self.message_model.rowsInserted, self.message_model.modelReset):
            signal.connect(talk.on_message_rows_changed)
        self.message_model.set_fetch_gate(self.message_list.is_reading_oldest)
        self.message_model.set_older_reader(talk.read_older)
        self.message_model.olderPrepended.connect(self.message_list.keep_row_at_top)
        # What a turn shows: live text, cards, the refused host, Resume.
        live.text_grew.connect(cards.on_live_text_grew)
        pane.approval_area.decided.connect(cards.on_approval_decided)
        pane.approval_area.answered.connect(cards.on_form_answered)
        pane.network_bar.allow_requested.connect(cards.on_allow_host_requested)
        self.message_list.allow_host_requested.connect(cards.on_allow_host_requested)  # a tool card's button
        pane.interrupted_bar.resume_requested.connect(cards.on_resume_requested)  # issue 31
        cards.dead_turn_timer.timeout.connect(cards.check_dead_turns)
        # How the line runs: the composer's pickers, the providers.
        self.permission_picker.currentIndexChanged.connect(settings.on_permission_picked)
        pane.network_picker.currentIndexChanged.connect(settings.on_network_picked)
        self.skill_picker.catalog_wanted.connect(settings.on_skill_catalog_wanted)  # SKL-1: read off the GUI thread
        self.skill_picker.picked.connect(settings.on_skills_picked)
        self.skill_picker.catalog_changed.connect(settings.on_skill_catalog_changed)
        self.slash_completer.skill_chosen.connect(self.skill_picker.select)  # "/name" selects a skill
        self.provider_picker.currentIndexChanged.connect(settings.on_provider_picked)
        for open_providers in (
            self.chrome.provider_settings_action.triggered,
            pane.provider_settings_requested,
            pane.empty_state.add_provider_requested,
        ):
            open_providers.connect(settings.on_provider_settings_requested)
        pane.empty_state.find_agents_requested.connect(settings.on_find_agents_requested)
        self.external_watch.changed.connect(settings.on_external_change)
        self.external_watch.changed.connect(lines.on_external_change)
        # The line's agent.
        self.mode_picker.currentIndexChanged.connect(agent.on_mode_picked)
        self.agent_bar.mode_picked.connect(agent.on_agent_mode_picked)
        self.agent_bar.model_picked.connect(agent.on_agent_model_picked)
        self.agent_bar.config_picked.connect(agent.on_agent_config_picked)
        self.agent_bar.mcp_picker.chosen.connect(agent.on_line_mcp_chosen)
        self.agent_bar.session_picked.connect(agent.on_agent_session_picked)
        elider = self.chrome.elider
        self.agent_bar.editors_rebuilt.connect(lambda: elider.watch_pickers(self.agent_bar))  # and later pickers
        self.chrome.mcp_settings_action.triggered.connect(agent.on_mcp_settings_requested)
        # The workspace.
        self.workspace_pane.change_folder_button.clicked.connect(folder.on_change_folder_requested)
        self.workspace_pane.recreate_folder_button.clicked.connect(folder.on_recreate_folder_requested)
        self.workspace_pane.tree.selectionModel().currentChanged.connect(folder.on_file_selected)
        folder.folder_watcher.directoryChanged.connect(folder.on_folder_changed)
        self.message_list.changes_chip_clicked.connect(folder.on_changes_chip_clicked)
        # Menus and shortcuts.
        self.chrome.new_line_action.triggered.connect(lines.on_new_line_requested)
        self.chrome.new_worktree_line_action.triggered.connect(lines.on_new_worktree_line_requested)
        self.chrome.quit_action.triggered.connect(self.close)
        self.chrome.about_action.triggered.connect(self.on_about_requested)
        self.search_export.search_action.triggered.connect(self.search_export.on_search_requested)
        self.search_export.export_action.triggered.connect(self.search_export.on_export_requested)
        self.search_export.export_worker.finished.connect(self.search_export.on_export_finished)
        for number, shortcut in enumerate(self.chrome.jump_shortcuts, start=1):
            shortcut.activated.connect(partial(lines.on_jump_shortcut, number))

    # -- WindowServices ------------------------------------------------------

    @property
    def controller(self) -> SessionController:
        return self._controller

    @property
    def shown_key(self) -> str | None:
        """The key every pane shows right now (ISO-5)."""
        return self.shown.shown_key

    def show_error(self, text: str) -> None:
        """Errors go to the status line of the centre pane; nothing is raised at the person."""
        self.message_pane.show_status(text, "error")

    def failure(
        self, template: str, *expected: type[BaseException], then: Callable[[], None] | None = None, **fields: str
    ) -> Failure:
        database_url = self._controller.settings.effective_database_url
        return say_failure(self.show_error, database_url, template, expected, then, fields)

    def open_line(self, key: str, *, then: Callable[[], None] | None = None) -> None:
        self.shown.open_line(key, then=then)

    def when_usable(self, then: Callable[[], None]) -> None:
        """Call ``then()`` once the whole window is usable (its own list painted over the open store), at once if it is
        already (issue 34 item 4): the start's background jobs wait for it, not to hold the GUI thread back before."""
        self._held.add(then)

    @property
    def settling(self) -> bool:
        """Work the window started still to apply: an operation, after-paint work, the start's own (tests wait)."""
        operations, deferred = self.operations.running, self.shown.deferred.pending or self.task_model.partial
        return bool(operations or deferred or not self._held.released or self.workspace.changes_view_busy)

    def _on_usable(self) -> None:
        self._held.release()  # first: the worker below must not import before the window counts as usable
        self.workspace.build_changes_view()  # once its code has loaded on a worker: the GUI thread is free

    def on_about_requested(self) -> None:
        QMessageBox.about(self, self.tr("About XWorkmate"), about_text(self._controller))

    def save_ui_state(self) -> None:
        """The layout, as a named operation on the store worker (issue 33 item 2)."""
        self.layout_state.save(self._controller, self.operations, failed=self.show_error)

    def changeEvent(self, event: QEvent) -> None:
        if not self.attached:  # still opening (issue 19, item 7): no panes to tell yet
            super().changeEvent(event)
            return
        if event.type() == QEvent.Type.ActivationChange:
            self.needs_you.watch()  # the shown line is seen while the window is active (LOOP-2)
            if self.isActiveWindow():
                self.workspace.recheck_workspace()  # back from a file manager: the folder may be gone
                self.external_watch.check_now()  # back from a terminal: the CLI may have written
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.attached:  # closed while opening: nothing was built to save or stop
            super().closeEvent(event)
            return
        self.agent.stop()
        if not self.closed:
            self.closed = True
            layout = self.layout_state.to_save() if self.persist_ui_state else None
            self.bridge.detach()
            self.cards.dead_turn_timer.stop()
            drafts = self.drafts.take()
            self.operations.finish(  # the last writes (layout, drafts, what was seen) on the store worker: LOOP-4
                lambda: self.layout_state.write_on_close(self._controller, layout, drafts, self.drafts)
            )
            self.external_watch.stop()
            if self.line_settings.provider_dialog is not None:
                self.line_settings.provider_dialog.reject()  # cancels its fetches before the widgets go
            self.workspace.stop()
        super().closeEvent(event)
