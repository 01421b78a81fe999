"""The three-pane window: task lines, conversation, workspace — one current key (SPEC §6, ISO-5).

Everything the window shows about the current line comes from one read,
``SessionController.lines.current_view()``, made when the controller reports that
the current line changed (or that it was updated). List selection only asks
the controller to switch; it never decides on its own which line is current.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import (
    QEvent,
    QFileSystemWatcher,
    QItemSelectionModel,
    QModelIndex,
    QPoint,
    Qt,
    QTimer,
    Slot,
)
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QTextCursor
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox, QSplitter, QWidget

from xworkmate.controllers import (
    ApprovalRequested,
    ApprovalSettled,
    AttentionChanged,
    ChangesRecorded,
    CurrentLineChanged,
    LineCreated,
    LineUpdated,
    LineView,
    MessagesAppended,
    MessagesChanged,
    RunDelta,
    RunFinished,
    RunStarted,
    SendOutcome,
    SessionController,
    SignInRequested,
    SignInSettled,
    SignInTerminalOpened,
    ToolRunning,
    UnknownSessionKeyError,
    WorkspaceBindingError,
)
from xworkmate.controllers.changes import AgentSessionChanged, UsageChanged
from xworkmate.controllers.session import FollowupOutcome
from xworkmate.controllers.views import FirstRead, LinePanes, ReadAhead, needs_reads, read_line_panes
from xworkmate.domain import ui_state
from xworkmate.domain.agent_session import AgentInfo, AgentSessionState, LineUsage
from xworkmate.domain.export import ExportFormat, LineExport, export_file_name
from xworkmate.domain.followup_queue import QueuedFollowup, QueueItemError
from xworkmate.domain.interruptions import INTERRUPTED_TURN, RESUMED_TURN
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.domain.messages import Message, MessageRole, MessageSource
from xworkmate.domain.providers import ProviderRecord, offers_agent_provider
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.threads import (
    ExecutionMode,
    TaskThread,
    ThreadKind,
    ThreadStatus,
    ThreadSummary,
    WorkspaceKind,
)
from xworkmate.domain.tool_trust import can_be_quarantined
from xworkmate.domain.turn_endings import TurnEnding
from xworkmate.presentation.files import read_preview
from xworkmate.presentation.shortcuts import JUMP_COUNT, shortcut_keys
from xworkmate.ui.appearance import ThemeFollower
from xworkmate.ui.approvals import ALWAYS, REJECT
from xworkmate.ui.background import BackgroundCalls, run_off_thread
from xworkmate.ui.bridge import ControllerBridge
from xworkmate.ui.conversation import (
    DEFAULT_PROVIDER_LABEL,
    MESSAGE_ID_ROLE,
    MessageListModel,
    MessagePane,
    is_plan,
    is_thought,
)
from xworkmate.ui.conversation.attachments import PreparedAttachment
from xworkmate.ui.conversation.model import OlderPage
from xworkmate.ui.conversation.network_bar import denied_destination
from xworkmate.ui.dialogs import (
    CategoryChooser,
    CategoryDialog,
    FolderChooser,
    FolderDialog,
    TitleChooser,
    TitleDialog,
    about_text,
)
from xworkmate.ui.execution import parse_choice
from xworkmate.ui.export_dialog import (
    CategoryExportConfirm,
    CategoryExportConfirmation,
    ExportChooser,
    ExportDialog,
)
from xworkmate.ui.external_watch import ExternalWatch
from xworkmate.ui.i18n import LanguageMenu
from xworkmate.ui.icons import ButtonIcons
from xworkmate.ui.keyboard import KeyboardSetup
from xworkmate.ui.layout import LEFT, RIGHT, Elider, PaneLayout
from xworkmate.ui.live_runs import LiveRuns
from xworkmate.ui.mcp_servers import McpServersDialog
from xworkmate.ui.needs_you import DraftKeeper, NeedsYou
from xworkmate.ui.operations import StoreOperations, collecting, failure_line
from xworkmate.ui.ops.settings import read_providers, save_ui_states
from xworkmate.ui.shell import (
    DEFAULT_SPLITTER_SIZES,
    GEOMETRY_STATE,
    SPLITTER_STATE,
    WINDOW_TITLE,
    FirstPaint,
    WindowShell,
    parse_sizes,
)
from xworkmate.ui.shortcuts_dialog import add_shortcuts_help, registered_shortcut
from xworkmate.ui.sign_in import SignInCard
from xworkmate.ui.task_lines import KEY_ROLE, TaskLineFilterModel, TaskLineModel, TaskLinePane
from xworkmate.ui.wording import plain_words
from xworkmate.ui.workspace import WorkspaceFiles, WorkspacePane, dispatch_sources_note
from xworkmate.ui.worktree_lines import WorktreeLineFlow

if TYPE_CHECKING:  # issue 34 item 4: opened on demand, so loaded then, not before the window can be used
    from xworkmate.ui.changes_view import ChangesView
    from xworkmate.ui.providers import ProviderSettingsDialog
    from xworkmate.ui.search_palette import SearchPalette
    from xworkmate.ui.sign_in_terminal import SignInTerminal

log = logging.getLogger(__name__)

DEAD_TURN_CHECK_MS = 10_000
"""How often the window looks whether a turn running in another process lost its process (issue 31)."""

_AgentOffers = tuple[AgentSessionState, list[str], list[McpServerRecord]]
"""What the agent bar shows for a line: its agent's offers and picks, the MCP servers given, all configured."""

JUMP_SHORTCUT_COUNT = JUMP_COUNT
SEEN_LINES = 64  # issue 19: the lines whose last view a switch shows at once, before the fresh read


class MainWindow(WindowShell):
    """Task lines on the left, the current line's conversation in the centre, its folder on the right.

    Signals: none of its own. The window listens to ``ControllerBridge.changed``
    (every controller change record) and to its panes' widgets; all of it is
    wired in ``_connect_signals``. Run records (streamed text, tools, approvals)
    feed ``LiveRuns``, which keeps every line's live state, shown or not.
    Replaceable hooks: ``choose_folder`` (a ``FolderDialog.ask``-shaped
    callable), ``ask_title`` and ``ask_category``.

    The window sets ``controller.followups.auto_run_tasks``: a task an agent dispatches
    starts at once in the background and appears nested under its dispatcher.
    """

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
        """The shown ``shell`` (painted before this module was loaded, issue 19 item 7) becomes a ``MainWindow``
        without a controller, as ``MainWindow()`` is: the same Qt window, which a person already sees, so it
        is never replaced by another. Python's ``__class__`` assignment: ``MainWindow`` adds no ``__slots__`` to
        the shell and keeps its state in attributes that ``_build`` sets, all of them set once ``attach`` runs.
        PySide6 reads the meta-object from the Python type, so after it ``metaObject()`` is ``MainWindow``'s,
        with its ``@Slot`` methods."""
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
        self.setUpdatesEnabled(False)  # a shown window (the opening page) paints once, when it is all built
        try:
            with controller.lines.ui_state_read_once(states):  # what the panes remember, in one read (issue 19)
                self._build(controller, first_read)
        finally:
            self.setUpdatesEnabled(True)
        self.opening_page = None  # deleted with the central widget it was
        self.attached = True

    def _build(self, controller: SessionController, first_read: FirstRead | None = None) -> None:
        self.setObjectName("mainWindow")
        self.setWindowTitle(WINDOW_TITLE)
        self._controller = controller
        self._view: LineView | None = None
        # How many times the shown line's panes were shown (a switch, or a LineUpdated of the shown line): per
        # turn, not per streamed record (issue 34 item 1; counted for the tests and the benchmarks).
        self.panes_shown = 0
        self._sources_key: str | None = None  # the task whose "Dispatched on" section is shown
        self._shown_folder_exists = False
        self._selection_guard = 0
        # ERR-1: why each line's last run failed, said in its status line until it runs again
        # (the failure notice in the conversation may be missing when the database itself failed).
        self._last_failure: dict[str, str] = {}
        self._provider_picks: dict[str, str | None] = {}  # issue 30: a line's provider pick on its way to the store
        self._network_denied: dict[str, str] = {}  # SBX-4: line key → the host its proxy last refused
        # Issue 15: a sign-in card per line whose agent waits for the person to pick a method.
        self._sign_ins: dict[str, SignInRequested] = {}
        self._sign_in_card: SignInCard | None = None
        self._sign_in_terminal: SignInTerminal | None = None
        self._providers: list[ProviderRecord] = []
        self._agent_sessions: dict[str, object] = {}  # issue 15, item 7: what session/list said, per line
        # Issue 15: read once per line and kept until the controller says they changed (switching stays cheap).
        self._usage_cache: dict[str, LineUsage] = {}
        self._agent_cache: dict[tuple[str, str | None], _AgentOffers] = {}
        self._agent_shown: tuple[str, str | None] | None = None  # whose offers the agent bar shows
        self._session_probe: asyncio.Future[None] | None = None
        self._closed = False
        # Issue 19 (LOOP-4): what the window starts runs as an operation on the store worker; a switch shows
        # the line's last view at once (``_seen``) and the fresh read when it arrives, if still wanted.
        self._seen: dict[str, LinePanes] = {}
        self._wanted_key: str | None = None
        self._ahead = ReadAhead()
        self._sending = False
        self.operations = StoreOperations(
            controller,
            self._apply_changes,
            self,
            first_page=lambda: self.message_list.rows_to_fill(),
            shown=lambda: self.shown_key,
        )
        self.provider_dialog: ProviderSettingsDialog | None = None
        self.persist_ui_state = True
        self.choose_folder: FolderChooser = FolderDialog.ask
        self.ask_title: TitleChooser = TitleDialog.ask
        self.ask_category: CategoryChooser = CategoryDialog.ask
        # Tasks an agent dispatches run in the background at once; the person watches them in the list.
        controller.followups.auto_run_tasks = True
        # Issue 16: worktree lines (create, archive, unarchive) with their questions as replaceable hooks.
        self.worktree_lines = WorktreeLineFlow(
            self, controller, show_error=self.show_error, created=self.on_worktree_line_created
        )

        self.bridge = ControllerBridge(controller, self)
        self.live = LiveRuns(self)
        self.task_model = TaskLineModel(controller, self, lines=first_read.lines if first_read is not None else None)
        self.task_proxy = TaskLineFilterModel(self)
        self.task_proxy.setSourceModel(self.task_model)
        self.message_model = MessageListModel(controller, self)
        self.fs_model = WorkspaceFiles(self)
        self.fs_model.setReadOnly(True)
        self.folder_watcher = QFileSystemWatcher(self)

        self.task_pane = TaskLinePane(self.task_proxy)
        self.message_pane = MessagePane(self.message_model)
        self.workspace_pane = WorkspacePane(self.fs_model)
        # Issue 16: the Changes tab, and the "n files changed" chips it finds for the conversation: built once
        # the window can be used (issue 34 item 4, ``_on_usable``), or when first asked for (``changes_view``).
        self._changes_view: ChangesView | None = None
        self._chip_turns: dict[int, int] = {}
        self._usable = False
        self._when_usable: list[Callable[[], None]] = []
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.setChildrenCollapsible(False)
        for pane in (self.task_pane, self.message_pane, self.workspace_pane):
            self.splitter.addWidget(pane)
        self.splitter.setStretchFactor(1, 1)
        self.setCentralWidget(self.splitter)

        # Short names for the widgets tests and slots use most.
        self.task_line_list = self.task_pane.list_view
        self.message_list = self.message_pane.message_list
        self.composer = self.message_pane.composer
        self.send_button = self.message_pane.send_button
        self.stop_button = self.message_pane.stop_button
        self.followup_queue = self.message_pane.followup_queue
        self.raw_toggle = self.message_pane.raw_toggle
        self.permission_picker = self.message_pane.permission_picker
        self.provider_picker = self.message_pane.provider_picker
        self.mode_picker = self.message_pane.mode_picker
        self.agent_bar = self.message_pane.agent_bar
        self.usage_meter = self.message_pane.usage_meter
        self.slash_completer = self.message_pane.slash_completer
        self.skill_picker = self.message_pane.skill_picker
        self.message_model.set_fetch_gate(self.message_list.is_reading_oldest)
        self.message_model.set_older_reader(self._read_older)
        self.message_model.olderPrepended.connect(self.message_list.keep_row_at_top)
        # Issue 17 (LOOP-2): which line needs you — badges, "Needs you", Ctrl+J, title count, notifications.
        self.needs_you = NeedsYou(self, controller)
        self.drafts = DraftKeeper(controller, self)
        self.attachment_strip = self.message_pane.attachment_strip
        self._attached: dict[str, list[PreparedAttachment]] = {}  # each other line's attachments, by key

        self._build_actions()
        self._build_menus()
        self._connect_signals()
        self._build_search_and_export()
        self._restore_ui_state()
        if first_read is None:
            self.refresh_providers()
            self.show_current()
        else:
            self.show_providers(first_read.providers)
            self._show_panes(first_read.panes)
        self.on_task_rows_changed()
        self.keyboard.set_tab_order(
            [
                self.task_pane.filter_edit,
                self.task_line_list,
                self.message_list,
                self.composer,
                self.send_button,
                self.mode_picker,
                self.permission_picker,
                self.provider_picker,
                self.workspace_pane.tree,
            ]
        )
        self.keyboard.name_widgets()
        self.composer.setFocus(Qt.FocusReason.OtherFocusReason)  # typing starts in the composer (issue 18)
        self.external_watch.start()
        self.dead_turn_timer.start()
        FirstPaint(self.task_line_list.viewport(), self._on_usable)

    # -- construction -------------------------------------------------------

    def when_usable(self, then: Callable[[], None]) -> None:
        """Call ``then()`` once the window can be used (its own task list painted over the open store: a line
        can be selected, the composer takes keys and Send sends), at once if it can already (issue 34 item 4):
        the start's background jobs wait for it, so that they do not hold the GUI thread back before."""
        if self._usable:
            then()
        else:
            self._when_usable.append(then)

    def _on_usable(self) -> None:
        self._usable = True
        self.changes_view  # noqa: B018  (built now: the Changes tab and the conversation's chips)
        waiting, self._when_usable = self._when_usable, []
        for then in waiting:
            then()

    @property
    def changes_view(self) -> ChangesView:
        """The Changes tab (issue 16), built on first use: after the window became usable, or when asked."""
        if self._changes_view is None:
            from xworkmate.ui.changes_view import ChangesView

            view = ChangesView(self._controller)
            self._changes_view = view
            self.workspace_pane.add_changes_tab(view)
            view.chips_changed.connect(self.on_changes_chips)
            if self._view is not None:
                view.show_line(self._view.key, self._view.thread.workspace_binding.path)
        return self._changes_view

    def _build_actions(self) -> None:
        self.new_line_action = QAction(self.tr("&New task line"), self)
        self.new_line_action.setObjectName("newTaskLineAction")
        self.new_line_action.setShortcut(QKeySequence(shortcut_keys("newTaskLineAction")[0]))
        self.new_line_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.new_worktree_line_action = QAction(self.tr("New task line in a git &worktree…"), self)
        self.new_worktree_line_action.setObjectName("newWorktreeLineAction")
        self.new_worktree_line_action.setToolTip(
            self.tr("A task line in its own git worktree of a repository, on a new branch")
        )
        self.quit_action = QAction(self.tr("&Quit"), self)
        self.quit_action.setObjectName("quitAction")
        self.quit_action.setShortcut(QKeySequence(shortcut_keys("quitAction")[0]))
        self.about_action = QAction(self.tr("&About XWorkmate"), self)
        self.about_action.setObjectName("aboutAction")
        self.provider_settings_action = QAction(self.tr("&Providers…"), self)
        self.provider_settings_action.setObjectName("providerSettingsAction")
        self.provider_settings_action.setToolTip(
            self.tr("OpenAI-compatible endpoints the agent may use, and their API keys")
        )
        self.mcp_settings_action = QAction(self.tr("&MCP servers…"), self)  # issue 15, item 3
        self.mcp_settings_action.setObjectName("mcpSettingsAction")
        # Escape stops the shown line's turn; enabled only while it runs, so Escape is free otherwise.
        # Issue 33: every key comes from the one registry (presentation/shortcuts.py), named by its action id.
        self.stop_shortcut = registered_shortcut("stopShortcut", self)[0]
        self.stop_shortcut.setEnabled(False)
        self.send_shortcuts = registered_shortcut("sendShortcut", self)
        self.jump_shortcuts = registered_shortcut("jumpShortcut", self)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        self.file_menu = file_menu
        file_menu.addAction(self.new_line_action)
        file_menu.addAction(self.new_worktree_line_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        settings_menu = self.menuBar().addMenu(self.tr("&Settings"))
        settings_menu.addAction(self.provider_settings_action)
        settings_menu.addAction(self.needs_you.notifications_action)
        # Issue 18: Settings → Theme (follow the system, light, dark); the views follow the theme.
        self.theme_follower = ThemeFollower(self, self._controller, [self.message_list, self.task_line_list])
        self.theme_follower.add_menu(settings_menu)
        # Issue 20: Settings → Language (follow the system, English, 简体中文), applied at the next start.
        notice = self.message_pane.show_status
        self.language_menu = LanguageMenu(self, self._controller.settings.home, lambda text: notice(text, "info"))
        self.language_menu.add_menu(settings_menu)
        # Issue 18: View → show/hide the side panes (Ctrl+B, Ctrl+Alt+B); long titles and pickers elide.
        self.pane_layout = PaneLayout(self, self.splitter, self._controller)
        # Issue 30 item 1: icons where the peers have them, in the theme's colours.
        self.button_icons = ButtonIcons(self)
        self.button_icons.add(self.task_pane.new_line_button, "new-line")
        self.button_icons.add(self.task_pane.archive_button, "archive")
        self.button_icons.add(self.stop_button, "stop", "danger-text")
        self.button_icons.add(self.send_button, "send", "accent")
        self.button_icons.add(self.pane_layout.actions[LEFT], "pane-left")
        self.button_icons.add(self.pane_layout.actions[RIGHT], "pane-right")
        self.pane_layout.add_menu(self.menuBar().addMenu(self.tr("&View")))
        self.elider = Elider(self)
        pane = self.message_pane
        self.elider.watch(pane.title_label, pane.session_key_label, self.workspace_pane.path_label)
        self.elider.watch_pickers(self)  # every picker, the composer's and the panes' (issue 30 item 4)
        self.agent_bar.editors_rebuilt.connect(lambda: self.elider.watch_pickers(self.agent_bar))  # and later ones
        # Issue 18: Enter sends (a setting for Ctrl+Enter), Ctrl+, / Ctrl+Shift+Backspace / Ctrl+F, focus, names.
        self.keyboard = KeyboardSetup(
            self,
            self._controller,
            composer=self.composer,
            send=self.on_send_requested,
            open_settings=self.on_provider_settings_requested,
            archive=self.on_archive_current_requested,
            filter_edit=self.task_pane.filter_edit,
            task_list=self.task_line_list,
        )
        self.keyboard.add_to_menu(settings_menu)
        # Issue 18: providers and lines the CLI adds while the window is open show up within 2 s.
        self.external_watch = ExternalWatch(self._controller, self)
        self.external_watch.changed.connect(self.on_external_change)
        # Issue 31: a turn another process runs may die while the window is open; look for that now and then.
        self._checking_dead_turns = False
        self.dead_turn_timer = QTimer(self)
        self.dead_turn_timer.setObjectName("deadTurnTimer")
        self.dead_turn_timer.setInterval(DEAD_TURN_CHECK_MS)
        self.dead_turn_timer.timeout.connect(self.check_dead_turns)
        settings_menu.addAction(self.mcp_settings_action)
        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        help_menu.addAction(self.about_action)
        self.shortcuts_action = add_shortcuts_help(self, help_menu)  # issue 33: lists the shortcut registry

    def _connect_signals(self) -> None:
        self.bridge.changed.connect(self.on_controller_changed)
        self.bridge.route_deltas(self.live.add_delta)  # the hot path: buffered, repainted on the next flush

        self.task_pane.new_line_button.clicked.connect(self.on_new_line_requested)
        self.task_pane.archive_button.clicked.connect(self.on_archive_current_requested)
        self.task_pane.filter_edit.textChanged.connect(self.on_filter_changed)
        self.task_pane.show_archived_check.toggled.connect(self.on_show_archived_toggled)
        self.task_line_list.selectionModel().currentRowChanged.connect(self.on_task_line_current_changed)
        self.task_line_list.customContextMenuRequested.connect(self.on_task_line_context_menu)
        for signal in (
            self.task_proxy.rowsInserted,
            self.task_proxy.rowsRemoved,
            self.task_proxy.modelReset,
            self.task_proxy.layoutChanged,
        ):
            signal.connect(self.on_task_rows_changed)

        self.composer.textChanged.connect(self.on_composer_changed)
        self.send_button.clicked.connect(self.on_send_requested)
        self.stop_button.clicked.connect(self.on_stop_requested)
        self.stop_shortcut.activated.connect(self.on_stop_requested)
        self.followup_queue.edit_requested.connect(self.on_queued_edit_requested)
        self.followup_queue.move_requested.connect(self.on_queued_move_requested)
        self.followup_queue.remove_requested.connect(self.on_queued_remove_requested)
        self.followup_queue.send_now_requested.connect(self.on_queued_send_now_requested)
        self.permission_picker.currentIndexChanged.connect(self.on_permission_picked)
        self.message_pane.network_picker.currentIndexChanged.connect(self.on_network_picked)
        self.skill_picker.catalog_wanted.connect(self.on_skill_catalog_wanted)  # SKL-1: read off the GUI thread
        self.skill_picker.picked.connect(self.on_skills_picked)
        self.skill_picker.catalog_changed.connect(self.on_skill_catalog_changed)
        self.slash_completer.skill_chosen.connect(self.skill_picker.select)  # "/name" selects a skill
        self.message_pane.network_bar.allow_requested.connect(self.on_allow_host_requested)
        self.message_pane.interrupted_bar.resume_requested.connect(self.on_resume_requested)  # issue 31
        self.message_list.allow_host_requested.connect(self.on_allow_host_requested)  # a tool card's button
        self.provider_picker.currentIndexChanged.connect(self.on_provider_picked)
        self.mode_picker.currentIndexChanged.connect(self.on_mode_picked)
        self.agent_bar.mode_picked.connect(self.on_agent_mode_picked)
        self.agent_bar.model_picked.connect(self.on_agent_model_picked)
        self.agent_bar.config_picked.connect(self.on_agent_config_picked)
        self.agent_bar.mcp_picker.chosen.connect(self.on_line_mcp_chosen)
        self.agent_bar.session_picked.connect(self.on_agent_session_picked)
        self.mcp_settings_action.triggered.connect(self.on_mcp_settings_requested)
        self.message_pane.approval_area.decided.connect(self.on_approval_decided)
        self.message_pane.approval_area.answered.connect(self.on_form_answered)
        self.message_pane.provider_settings_requested.connect(self.on_provider_settings_requested)
        self.message_pane.empty_state.add_provider_requested.connect(self.on_provider_settings_requested)
        self.message_pane.empty_state.find_agents_requested.connect(self.on_find_agents_requested)
        self.live.text_grew.connect(self.on_live_text_grew)
        for shortcut in self.send_shortcuts:
            shortcut.activated.connect(self.on_send_requested)
        self.message_list.verticalScrollBar().valueChanged.connect(self.on_message_scrolled)
        self.message_list.customContextMenuRequested.connect(self.on_message_context_menu)
        for signal in (self.message_model.rowsInserted, self.message_model.modelReset):
            signal.connect(self.on_message_rows_changed)

        self.workspace_pane.change_folder_button.clicked.connect(self.on_change_folder_requested)
        self.message_list.changes_chip_clicked.connect(self.on_changes_chip_clicked)
        self.workspace_pane.recreate_folder_button.clicked.connect(self.on_recreate_folder_requested)
        self.workspace_pane.tree.selectionModel().currentChanged.connect(self.on_workspace_file_selected)
        self.folder_watcher.directoryChanged.connect(self.on_workspace_folder_changed)

        self.new_line_action.triggered.connect(self.on_new_line_requested)
        self.new_worktree_line_action.triggered.connect(self.on_new_worktree_line_requested)
        self.quit_action.triggered.connect(self.close)
        self.about_action.triggered.connect(self.on_about_requested)
        self.provider_settings_action.triggered.connect(self.on_provider_settings_requested)
        for number, shortcut in enumerate(self.jump_shortcuts, start=1):
            shortcut.activated.connect(partial(self.on_jump_shortcut, number))

    # -- reading -----------------------------------------------------------

    @property
    def controller(self) -> SessionController:
        return self._controller

    @property
    def shown_key(self) -> str | None:
        """The key every pane shows right now (ISO-5)."""
        return self._view.key if self._view is not None else None

    def show_current(self) -> None:
        """Show the controller's current line in all three panes, from one read (ISO-5)."""
        try:
            view = self._ahead.views.get(self._controller.lines.current_key) or self._controller.lines.current_view()
        except UnknownSessionKeyError as exc:
            self.show_error(self.tr("Cannot show the current line — {error}").format(error=plain_words(str(exc))))
            return
        self._show_view(view)

    def _show_panes(self, panes: LinePanes) -> None:
        """Show a line from what was read for it (a fresh read, or the last one as the cached view): no read here."""
        self._remember(panes)
        if panes.usage is not None:
            self._usage_cache[panes.key] = panes.usage
        fresh_ids = [message.id for message in panes.newest]
        same_line = self._view is not None and self._view.key == panes.key
        self._show_view(panes.view, panes)
        stale_page = not set(fresh_ids) <= set(self.message_model.loaded_ids)
        if same_line and self.message_model.key == panes.key and stale_page:
            self.message_model.set_key(panes.key, first_page=panes.first_page, newest=list(panes.newest))
            self._show_live()  # the running turn's rows go after the fresh page
            self.message_list.follow_newest()

    def _remember(self, panes: LinePanes) -> None:
        self._seen.pop(panes.key, None)
        # Without its usage: the meter's figures live in ``_usage_cache`` (kept fresh by UsageChanged); a
        # remembered read shown again must not put back the figures it was read with (issue 30 item 2).
        self._seen[panes.key] = replace(panes, usage=None) if panes.usage is not None else panes
        while len(self._seen) > SEEN_LINES:
            del self._seen[next(iter(self._seen))]

    def _show_view(self, view: LineView, panes: LinePanes | None = None) -> None:
        self.panes_shown += 1
        previous = self._view
        key_changed = previous is None or previous.key != view.key
        self._view = view
        if panes is None and (seen := self._seen.get(view.key)) is not None:
            self._seen[view.key] = replace(seen, view=view)  # the cached view follows the line's updates
        if key_changed:
            if previous is not None:
                self.drafts.typed(previous.key, self.composer.toPlainText())
                # ATT-1: attachments are the line's draft too: never sent on another line (ISO-5).
                self._attached[previous.key] = self.attachment_strip.prepared()
            self.attachment_strip.restore(self._attached.pop(view.key, []))
            # Text typed for one line is never sent on another: each line keeps its own draft (issue 17:
            # kept through the controller, so it survives a restart).
            self.composer.setPlainText(self.drafts.text_for(view.key))
            self.composer.moveCursor(QTextCursor.MoveOperation.End)  # typing goes on where the draft ends
            with self._selection_guarded():
                self.task_proxy.keep(view.key)  # "Needs you" keeps the line it shows once it is seen
            self.needs_you.watch()
            if panes is not None:
                self.message_model.set_key(view.key, first_page=panes.first_page, newest=list(panes.newest))
            else:
                self.message_model.set_key(view.key, first_page=self.message_list.rows_to_fill())
            self.message_list.follow_newest()
            self._read_interruption(view.key)
            if hasattr(self, "keyboard"):
                self.keyboard.after_switch()
                self.keyboard.composer_keys.show_placeholder(task_line=view.thread.kind is ThreadKind.TASK)
        cached = self.task_model.cached_status(view.key)
        if cached is not None and cached is not view.status:
            self.task_model.invalidate_status(view.key)
        self.message_pane.show_line(view, last_failure=self._last_failure.get(view.key))
        self._show_network_denied(view)
        if key_changed and self.followup_queue.key != view.key:
            self.followup_queue.show_queue(view.key, [])  # never another line's queue, even for a moment (ISO-5)
        self._read_queue(view.key)
        self._show_provider_choices(view)  # the category or the line's provider may have changed
        self._show_sign_in()
        self.stop_shortcut.setEnabled(self.stop_button.isEnabled())
        if previous is None or previous.thread.execution_binding.mode is not view.thread.execution_binding.mode:
            self._show_provider_state()
        self._show_live()
        self._show_agent_session(view.key)
        self._show_usage(view.key)
        self._shown_folder_exists = self.workspace_pane.show_line(view)
        if self._changes_view is not None:  # else it shows the current line when it is built
            self._changes_view.show_line(view.key, view.thread.workspace_binding.path)
        self._show_dispatch_sources(view, panes)
        self._watch_folder(view)
        self.task_pane.archive_button.setText(self.tr("Unarchive") if view.thread.archived else self.tr("Archive"))
        if hasattr(self, "button_icons"):
            self.button_icons.set_name(
                self.task_pane.archive_button, "unarchive" if view.thread.archived else "archive"
            )
        self.task_pane.archive_button.setEnabled(not view.thread.is_main)
        self.needs_you.show_title()
        self.on_composer_changed()
        self._sync_selection()

    def _show_dispatch_sources(self, view: LineView, panes: LinePanes | None = None, *, again: bool = False) -> None:
        """The "Dispatched on" section of the workspace pane: a task's sources as it may read them.

        From the panes a switch read; else the section already shown for this task stays, unless ``again``
        (a follow-up re-captured them, PROV-4); else they are read on the store worker (LOOP-4)."""
        thread = view.thread
        if thread.kind is not ThreadKind.TASK:
            self._sources_key = None
            self.workspace_pane.show_dispatch_sources(None)
            return
        if panes is not None and panes.sources is not None:
            self._show_sources(view, list(panes.sources), panes.dispatcher)
            return
        if self._sources_key == view.key and not again:
            return
        if self._sources_key != view.key:  # another task's sources are never shown for this one meanwhile
            self._sources_key = None
            self.workspace_pane.show_dispatch_sources(None)
        key, parent_key, controller = view.key, thread.parent_key, self._controller

        def read() -> tuple[list[Message], ThreadSummary | None]:
            return controller.tasks.task_sources(key), controller.lines.line_summary(parent_key) if parent_key else None

        def done(read: tuple[list[Message], ThreadSummary | None]) -> None:
            if self._view is not None and self._view.key == key:
                self._show_sources(self._view, *read)

        def failed(error: BaseException) -> None:
            if not isinstance(error, (LookupError, ValueError)):
                self._failure("")(error)  # the ERR-1 line, as for any operation
                return
            self.workspace_pane.show_dispatch_sources(
                [],
                self.tr("Could not read what this task was dispatched on — {error}").format(
                    error=plain_words(str(error))
                ),
            )

        self.operations.query(read, done=done, failed=failed)

    def _show_sources(self, view: LineView, sources: list[Message], parent: ThreadSummary | None) -> None:
        self._sources_key = view.key
        note = dispatch_sources_note(
            sources, category=view.thread.category, dispatcher_category=parent.category if parent is not None else None
        )
        self.workspace_pane.show_dispatch_sources(sources, note)

    def _stores_answer(self, change: MessagesAppended) -> bool:
        """Whether these stored messages replace the text streamed so far (see ``LiveRuns.apply``)."""
        if not self.live.has_text(change.key):
            return True
        wanted = list(change.message_ids)
        known = {**self._ahead.messages, **{m.id: m for m in change.messages}}
        found = {i: m for i in wanted if (m := known.get(i)) is not None}
        if len(found) < len(wanted):
            found = self._controller.lines.messages_by_id(wanted)
        for message_id in change.message_ids:
            message = found.get(message_id)
            if message is None or not (message.role is MessageRole.TOOL or is_thought(message) or is_plan(message)):
                return True
        return False

    def show_error(self, text: str) -> None:
        """Errors go to the status line of the centre pane; nothing is raised at the person."""
        self.message_pane.show_status(text, "error")

    # -- selection ---------------------------------------------------------

    @contextmanager
    def _selection_guarded(self) -> Iterator[None]:
        # Selection changes made by the window itself (sync, filtering, rows
        # removed by the proxy) must not be read as the person picking a line.
        self._selection_guard += 1
        try:
            yield
        finally:
            self._selection_guard -= 1

    def proxy_index_of(self, key: str) -> QModelIndex:
        """The list's index of ``key`` (invalid when the filter hides it)."""
        return self._proxy_index_of(key)

    def _proxy_index_of(self, key: str) -> QModelIndex:
        row = self.task_model.row_of(key)
        if row is None:
            return QModelIndex()
        return self.task_proxy.mapFromSource(self.task_model.index(row, 0))

    def _sync_selection(self) -> None:
        """Keep the list selection on the shown key (or on nothing if the filter hides it)."""
        if self._view is None:
            return
        with self._selection_guarded():
            selection = self.task_line_list.selectionModel()
            index = self._proxy_index_of(self._wanted_key or self._view.key)
            if index.isValid():
                if selection.currentIndex() != index or not selection.isSelected(index):
                    selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
                self.task_line_list.scrollTo(index)
            elif selection.hasSelection() or selection.currentIndex().isValid():
                selection.clear()

    # -- slots: controller -------------------------------------------------

    @Slot(object)
    def on_controller_changed(self, change: object) -> None:
        if isinstance(change, RunDelta):
            self.live.add_delta(change.key, change.text)  # hot path: buffered, repainted on the next flush
            return
        if isinstance(change, AttentionChanged):
            self.needs_you.on_attention_changed(change)
            return
        if isinstance(change, SignInRequested):
            self._sign_ins[change.key] = change
            self._show_sign_in()
            return
        if isinstance(change, SignInTerminalOpened):
            self._show_sign_in_terminal(change)
            return
        if isinstance(change, SignInSettled):
            if (waiting := self._sign_ins.get(change.key)) is not None and waiting.request_id == change.request_id:
                del self._sign_ins[change.key]
            self._show_sign_in()
            return
        if isinstance(change, ChangesRecorded) and self._changes_view is not None:  # else read once built
            self._changes_view.on_changes_recorded(change.key)  # LOOP-1: the tab and the chips read again
        if isinstance(change, AgentSessionChanged | UsageChanged):
            if isinstance(change, UsageChanged):
                self._usage_cache.pop(change.key, None)
            else:
                self._agent_cache = {k: v for k, v in self._agent_cache.items() if k[0] != change.key}
            if change.key == self.shown_key:
                (self._show_agent_session if isinstance(change, AgentSessionChanged) else self._show_usage)(change.key)
            return
        if isinstance(change, RunFinished) and self._sign_ins.pop(change.key, None) is not None:
            self._show_sign_in()
        if isinstance(change, (RunStarted, ToolRunning, ApprovalRequested, ApprovalSettled, RunFinished)):
            if isinstance(change, RunStarted):
                self._last_failure.pop(change.key, None)
            elif isinstance(change, RunFinished) and change.status == TurnEnding.FAILED and change.error:
                self._last_failure[change.key] = change.error
            if self.live.apply(change) == self.shown_key:
                self._show_live()
            return
        with self._selection_guarded():
            try:
                if isinstance(change, LineCreated) and self.operations.applying:
                    # Its row as the worker read it (LOOP-4); none: the line was gone by then (or the read
                    # failed) and the model does not read it here on the GUI thread.
                    if (summary := self._ahead.summaries.get(change.key)) is not None:
                        self.task_model.add_line(change.key, summary)
                elif not self.operations.applying and needs_reads(change):
                    # A turn's record (its start, its end), another process's (a line, a message): what it
                    # needs is read on the worker, then it is applied (LOOP-4).
                    self.operations.deliver(
                        [change],
                        failed=self._failure(
                            self.tr("A task line changed but could not be read — {error}"), UnknownSessionKeyError
                        ),
                    )
                elif isinstance(change, LineUpdated):
                    if (summary := self._ahead.summaries.get(change.key)) is not None:  # as for LineCreated
                        self.task_model.refresh_line(change.key, summary)
                    if change.key == self.shown_key and (view := self._ahead.views.get(change.key)) is not None:
                        self._show_view(view)  # read with the operation
                elif isinstance(change, CurrentLineChanged):
                    self._wanted_key = change.key
                    if (panes := self._ahead.panes.get(change.key)) is not None:
                        self._show_panes(panes)  # read with the operation that switched (archive)
                    elif not self.operations.applying:  # a switch from outside the window: the one switch path
                        self._switch_to(change.key, store=False)  # its read on the worker (issue 33 item 3)
                    else:
                        self.show_current()
                elif isinstance(change, MessagesChanged):
                    if change.key == self.message_model.key:
                        self.message_model.refresh_messages(change.message_ids, self._ahead.messages)
                elif isinstance(change, MessagesAppended):
                    self.message_model.remember(self._ahead.messages.values())
                    self.message_model.remember(change.messages)  # a turn's: no read back
                    self._note_network_denied(change.key, change.messages)
                    self._note_interruption(change.key, change.messages)
                    self.live.apply(change, answered=self._stores_answer(change))
                    if change.key == self.message_model.key:
                        # The stored message takes the place of the transient row that streamed it.
                        self._show_live()
                        self.message_model.append_ids(change.message_ids)
                    if (
                        self._view is not None
                        and change.key == self._view.key
                        and self._view.thread.kind is ThreadKind.TASK
                        and (not change.messages or any(m.role is MessageRole.USER for m in change.messages))
                    ):
                        self._show_dispatch_sources(self._view, again=True)  # a follow-up re-captures them (PROV-4)
            except UnknownSessionKeyError as exc:
                self.show_error(
                    self.tr("A task line changed but could not be read — {error}").format(error=plain_words(str(exc)))
                )
            self._sync_selection()

    # -- operations (issue 19, LOOP-4) -----------------------------------

    def _apply_changes(self, changes: list[object], ahead: ReadAhead) -> None:
        """An operation's change records, in order, on the GUI thread, with what its worker read ahead."""
        self._ahead = ahead
        try:
            # Rows the records remove or filter out (a line seen leaves "Needs you") are not the person
            # picking another line: the selection follows the shown line afterwards.
            with self._selection_guarded():
                for change in changes:
                    self.on_controller_changed(change)
        finally:
            self._ahead = ReadAhead()
        self._sync_selection()

    def _failure(
        self,
        template: str,
        *expected: type[BaseException],
        then: Callable[[], None] | None = None,
        **fields: str,
    ) -> Callable[[BaseException], None]:
        """How an operation's failure is said: ``template`` (translated, with an ``{error}`` field and
        ``fields``) filled with the reason when expected, else the ERR-1 line; ``then()`` after either
        (a picker put back to what is stored)."""

        def failed(error: BaseException) -> None:
            if expected and isinstance(error, expected):
                self.show_error(template.format(error=plain_words(str(error)), **fields))
            else:
                log.error("window operation failed", exc_info=error)
                self.show_error(failure_line(error, self._controller.settings.effective_database_url))
            if then is not None:
                then()

        return failed

    def _shows(self, panes: LinePanes) -> bool:
        """Whether every pane shows exactly ``panes`` now (the view, and the conversation of its line)."""
        return self._view == panes.view and self.message_model.key == panes.key

    def _cannot_switch(self, key: str, still_on: str, error: BaseException) -> None:
        self._failure(
            self.tr("Cannot switch to {key} — {error}; still on {still_on}"),
            UnknownSessionKeyError,
            key=key,
            still_on=still_on,
        )(error)

    def open_line(self, key: str, *, then: Callable[[], None] | None = None) -> None:
        """The one way a line is opened from outside the list (Ctrl+J, a notification's click, a search hit):
        made visible in the list (a filter that hides it is cleared), then shown as a click on its row shows
        it (``_switch_to``: every pane, the selection and the title follow; ISO-5, issue 33 item 3)."""
        if not self.proxy_index_of(key).isValid():
            self.task_pane.filter_edit.clear()  # a line hidden by the text filter would look lost
            if not self.proxy_index_of(key).isValid():
                self.task_pane.needs_you_button.setChecked(False)
        if key == self.shown_key and self._wanted_key in (None, key):
            if then is not None:
                then()
            return
        self._switch_to(key, then=then)

    def _switch_to(self, key: str, *, then: Callable[[], None] | None = None, store: bool = True) -> None:
        """Show ``key``: its last view at once when the window had one, the fresh read when it arrives
        (dropped if another line was asked for meanwhile). ISO-5: every pane shows one key at a time."""
        self._wanted_key = key
        first_page = self.message_list.rows_to_fill()

        with_usage = key not in self._usage_cache

        def read() -> LinePanes:  # the read first: the panes show it before the switch is stored
            return read_line_panes(self._controller, key, first_page=first_page, with_usage=with_usage)

        def store_switch() -> None:
            self._controller.lines.switch_session(key)
            sink = collecting()
            if sink is not None:  # the panes show it already: no second read
                sink[:] = [c for c in sink if not (isinstance(c, CurrentLineChanged) and c.key == key)]

        def switched(panes: LinePanes) -> None:
            self._remember(panes)
            if self._wanted_key not in (key, panes.key):
                return  # stale: the person has asked for another line since
            self._wanted_key = panes.key
            if not (seen is not None and panes == seen and self._shows(seen)):
                self._show_panes(panes)  # else the cached view was the fresh one: nothing to draw again
            if store and key != self._controller.lines.current_key:  # ISO-5: the controller's current line follows
                self.operations.run(store_switch, failed=not_stored)
            if then is not None:
                then()

        def failed(error: BaseException) -> None:
            if self._wanted_key == key:
                self._wanted_key = self.shown_key
            self._cannot_switch(key, self.shown_key or "", error)
            # The click that moved the selection may still be being processed; put it back afterwards.
            QTimer.singleShot(0, self._sync_selection)

        def not_stored(error: BaseException) -> None:
            back = self._controller.lines.current_key  # the switch was refused: every pane goes back to it (ISO-5)

            def say() -> None:
                self._cannot_switch(key, back, error)

            if back != self.shown_key:
                self._switch_to(back, store=False, then=say)
            else:
                say()
            QTimer.singleShot(0, self._sync_selection)  # after the click that may still be being processed

        seen = self._seen.get(key)
        self.operations.run(read, done=switched, failed=failed)
        # Shown after the read is queued, so what showing it writes (the seen mark) goes after the read;
        # not when the answer came already (no qasync loop: it ran at once) or another line is wanted now.
        if seen is not None and self._wanted_key == key and self._seen.get(key) is seen:
            self._show_panes(seen)

    def _refresh_shown(self) -> None:
        """Read the shown line again on the worker (its real state after a refusal, ISO-4)."""
        if self._view is not None:
            self._switch_to(self._view.key)

    # -- slots: task lines -------------------------------------------------

    @Slot()
    def on_new_line_requested(self) -> None:
        def created(thread: TaskThread) -> None:
            if not self._proxy_index_of(thread.thread_id).isValid():
                self.task_pane.filter_edit.clear()  # a new line hidden by the filter would look lost
            self._switch_to(thread.thread_id)
            self.composer.setFocus()

        self.operations.run(
            self._controller.lines.create_line,
            done=created,
            failed=self._failure(
                self.tr("Could not create a task line — {error}"),
                WorkspaceBindingError,
                UnknownSessionKeyError,
                OSError,
            ),
        )

    @Slot(QModelIndex, QModelIndex)
    def on_task_line_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._selection_guard or not current.isValid():
            return
        key = current.data(KEY_ROLE)
        if not key or key == (self._wanted_key or self.shown_key):
            return
        self._switch_to(str(key))  # ISO-5: every pane shows the new line at once, from one view

    @Slot(str)
    def on_filter_changed(self, text: str) -> None:
        with self._selection_guarded():
            self.task_proxy.set_filter_text(text)
        self._sync_selection()
        self.on_task_rows_changed()

    @Slot(bool)
    def on_show_archived_toggled(self, checked: bool) -> None:
        with self._selection_guarded():
            self.task_proxy.set_show_archived(checked)
        self._sync_selection()
        self.on_task_rows_changed()

    def set_needs_you_filter(self, on: bool) -> None:
        """ "Needs you" (issue 17): only the lines waiting for the person, the longest waiting first."""
        with self._selection_guarded():
            self.task_proxy.set_needs_you(on)
        self._sync_selection()
        self.on_task_rows_changed()

    @Slot()
    def on_task_rows_changed(self) -> None:
        self.task_pane.show_empty_state(self.task_proxy.rowCount(), self.task_proxy.filter_text)

    @Slot(int)
    def on_jump_shortcut(self, number: int) -> None:
        """Ctrl+1…9: the n-th visible line."""
        index = self.task_proxy.index(number - 1, 0)
        if index.isValid():
            self.task_line_list.setCurrentIndex(index)

    @Slot()
    def on_archive_current_requested(self) -> None:
        if self._view is not None:
            self.set_archived(self._view.key, not self._view.thread.archived)

    def set_archived(self, key: str, archived: bool) -> None:
        def archive() -> TaskThread | None:
            thread = self._worktree_thread(key)
            if thread is not None:
                return thread  # issue 16: asked on the GUI thread, then git works off it
            if archived:
                self._controller.lines.archive_line(key)
            else:
                self._controller.lines.unarchive_line(key)
            return None

        def done(worktree: TaskThread | None) -> None:
            if worktree is not None:
                (self.worktree_lines.archive if archived else self.worktree_lines.unarchive)(worktree)

        template = (
            self.tr("Could not archive the line — {error}")
            if archived
            else self.tr("Could not unarchive the line — {error}")
        )
        self.operations.run(
            archive,
            done=done,
            failed=self._failure(template, NotRunnable, UnknownSessionKeyError, ValueError),
        )

    def _worktree_thread(self, key: str) -> TaskThread | None:
        try:
            thread = self._controller.get_thread(key)
        except UnknownSessionKeyError:
            return None
        return thread if thread.workspace_binding.kind is WorkspaceKind.WORKTREE else None

    @Slot()
    def on_new_worktree_line_requested(self) -> None:
        """File → "New task line in a git worktree…" (issue 16)."""
        self.worktree_lines.new_line(self._folder_start_dir())

    def on_worktree_line_created(self, thread: TaskThread) -> None:
        if not self._proxy_index_of(thread.thread_id).isValid():
            self.task_pane.filter_edit.clear()
        self._switch_to(thread.thread_id)
        self.composer.setFocus()

    def rename_line(self, key: str) -> None:
        summary = self.task_model.summary(key)
        title = self.ask_title(self, summary.title if summary is not None else "")
        if title is None:
            return
        self.operations.run(  # LineUpdated redraws the row and the title
            lambda: self._controller.lines.rename_line(key, title),
            failed=self._failure(self.tr("Could not rename the line — {error}"), UnknownSessionKeyError, ValueError),
        )

    def set_line_category(self, key: str) -> None:
        """ "Set category…": a human decision that relabels the line and its whole subtree (CAT-10)."""
        summary = self.task_model.summary(key)
        answer = self.ask_category(self, (summary.category or "") if summary is not None else "")
        if answer is None:
            return
        self.operations.run(  # LineUpdated for every line moved
            lambda: self._controller.tasks.set_category(key, answer.strip() or None),
            failed=self._failure(self.tr("Category not changed — {error}"), ValueError, LookupError),
        )

    def fork_line(self, key: str) -> None:
        """ "Fork": a copy of the line with its own folder, nested under it (it keeps the category, CAT-7)."""

        def forked(thread: TaskThread) -> None:
            if not self._proxy_index_of(thread.thread_id).isValid():
                self.task_pane.filter_edit.clear()
            self._switch_to(thread.thread_id)

        self.operations.run(
            lambda: self._controller.tasks.fork(key),
            done=forked,
            failed=self._failure(self.tr("Could not fork the line — {error}"), ValueError, LookupError, OSError),
        )

    def task_line_menu(self, key: str) -> QMenu:
        """The context menu of one row (built separately so it can be tested without exec)."""
        summary = self.task_model.summary(key)
        archived = summary.archived if summary is not None else False
        menu = QMenu(self)
        menu.setObjectName("taskLineMenu")
        menu.addAction(self.tr("Rename…"), partial(self.rename_line, key))
        category = menu.addAction(self.tr("Set category…"), partial(self.set_line_category, key))
        category.setToolTip(self.tr("Relabel this line and everything it dispatched; empty means normal content"))
        menu.addAction(self.tr("Fork"), partial(self.fork_line, key))
        archive = menu.addAction(
            self.tr("Unarchive") if archived else self.tr("Archive"), partial(self.set_archived, key, not archived)
        )
        archive.setEnabled(key != "main")
        menu.addAction(self.tr("Copy session key"), partial(QApplication.clipboard().setText, key))
        menu.addAction(self.needs_you.mute_action(key, menu))
        return menu

    @Slot(QPoint)
    def on_task_line_context_menu(self, pos: QPoint) -> None:
        index = self.task_line_list.indexAt(pos)
        if index.isValid():
            menu = self.task_line_menu(str(index.data(KEY_ROLE)))
            menu.exec(self.task_line_list.viewport().mapToGlobal(pos))
            menu.deleteLater()

    def message_menu(self, message_id: int, message: Message | None = None) -> QMenu:
        """The context menu of one stored message (built separately so it can be tested without exec), as
        ``message`` says (by default the row as the conversation last read it; none: nothing can be hidden).

        Q-1: "Hide from the model" on a tool result or an agent's message; "Show to the model again" undoes it.
        """
        if message is None:
            message = self.message_model.cached_message(message_id)
        menu = QMenu(self)
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
        change = self._controller.lines.quarantine_message if hidden else self._controller.lines.release_message
        self.operations.run(  # MessagesChanged re-reads the row
            lambda: change(message_id),
            failed=self._failure(self.tr("Could not change what the model sees — {error}"), ValueError, LookupError),
        )

    @Slot(QPoint)
    def on_message_context_menu(self, pos: QPoint) -> None:
        message_id = self.message_list.indexAt(pos).data(MESSAGE_ID_ROLE)
        if isinstance(message_id, int):  # live rows (still streaming) have no id yet
            self.open_message_menu(message_id, self.message_list.viewport().mapToGlobal(pos))

    def open_message_menu(self, message_id: int, at: QPoint) -> None:
        """The menu of a message at ``at`` (global): at once for a row as last read; a row not read yet is
        read on the store worker first (issue 19, LOOP-4), its menu opened unless another line is shown by then."""
        if self.message_model.cached_message(message_id) is not None:
            menu = self.message_menu(message_id)
            menu.exec(at)
            menu.deleteLater()
            return
        key = self.message_model.key

        def read() -> Message | None:
            return self._controller.lines.messages_by_id([message_id]).get(message_id)

        def arrived(message: Message | None) -> None:
            if self.message_model.key != key:
                return
            if message is not None:
                self.message_model.remember([message])  # its row paints without a read
            menu = self.message_menu(message_id, message)
            menu.aboutToHide.connect(menu.deleteLater)  # after its action was triggered
            menu.popup(at)  # not exec: no nested event loop inside the operation's answer (STYLE 6)

        self.operations.query(read, done=arrived, failed=self._failure(""))

    # -- slots: conversation -----------------------------------------------

    @Slot()
    def on_composer_changed(self) -> None:
        view = self._view
        if view is not None:
            self.drafts.typed(view.key, self.composer.toPlainText())
        runnable = view is not None and view.runnable
        # A running task still takes follow-ups: its agent reads them at the next safe point (PROV-4).
        # Issue 31: while a turn runs, Send queues the follow-up (the strip above the composer shows it).
        running = view is not None and view.status is ThreadStatus.RUNNING
        self.send_button.setEnabled((runnable or running) and bool(self.composer.toPlainText().strip()))

    def _show_sign_in(self) -> None:
        """The shown line's sign-in card, above the approvals; none when its agent is not waiting."""
        request = self._sign_ins.get(self.shown_key or "")
        card = self._sign_in_card
        if card is not None and (request is None or card.request.request_id != request.request_id):
            card.hide()
            card.deleteLater()
            self._sign_in_card = card = None
        if request is not None and card is None:
            card = SignInCard(request)
            card.chosen.connect(self.on_sign_in_chosen)
            self.message_pane.show_sign_in(card)
            self._sign_in_card = card

    def _show_sign_in_terminal(self, change: SignInTerminalOpened) -> None:
        """Issue 32 item 4: the agent's login program runs; its terminal opens over the window. An earlier one
        whose program ended goes; one still running (another line's) stays open."""
        if (old := self._sign_in_terminal) is not None and old.terminal.status is not None:
            old.close()
            old.deleteLater()
        from xworkmate.ui.sign_in_terminal import SignInTerminal

        dialog = SignInTerminal(change.agent, change.terminal, self)
        self._sign_in_terminal = dialog
        dialog.show()
        dialog.input.setFocus()

    @Slot(int, str)
    def on_sign_in_chosen(self, request_id: int, method_id: str) -> None:
        try:
            self._controller.approvals.choose_sign_in(request_id, method_id or None)
        except (LookupError, ValueError) as exc:
            self.show_error(self.tr("That sign-in is no longer waiting — {error}").format(error=plain_words(str(exc))))

    def _show_live(self) -> None:
        """The shown line's transient rows and waiting approvals, from ``LiveRuns``."""
        key = self.shown_key
        if key is None or self.message_model.key != key:
            return
        self.message_model.set_live(self.live.rows(key))
        pending = set(self._controller.approvals.pending_approvals(key))
        self.message_pane.show_approvals([a for a in self.live.approvals(key) if a.approval_id in pending])

    @Slot(str)
    def on_live_text_grew(self, key: str) -> None:
        if key == self.shown_key:
            self.live.pace(self.message_list.message_delegate.live_render_ms)
            self.message_model.set_live(self.live.rows(key))

    # -- the follow-up queue (issue 31): every call on the worker, the strip redrawn from what it read -----

    def _read_queue(self, key: str) -> None:
        """Read ``key``'s queue off the GUI thread (LOOP-4) and show it if ``key`` is still the shown line."""

        def arrived(items: list[QueuedFollowup]) -> None:
            if key == self.shown_key:
                self.followup_queue.show_queue(key, items)

        self.operations.query(
            lambda: self._controller.queue.items(key),
            done=arrived,
            failed=self._failure(self.tr("Could not read the follow-up queue — {error}"), UnknownSessionKeyError),
        )

    def _queue_operation(self, work: Callable[[str], object], what: str) -> None:
        """A change to the shown line's queue, on the worker; then the queue is read again."""
        key = self.followup_queue.key
        if key is None:
            return
        self.operations.run(
            lambda: work(key),
            done=lambda _result: self._read_queue(key),
            failed=self._failure(what, QueueItemError, UnknownSessionKeyError, NotRunnable, ValueError),
        )

    @Slot(int, str)
    def on_queued_edit_requested(self, position: int, text: str) -> None:
        self._queue_operation(
            lambda key: self._controller.queue.edit(key, position, text),
            self.tr("Could not change the queued follow-up — {error}"),
        )

    @Slot(int, int)
    def on_queued_move_requested(self, position: int, to: int) -> None:
        self._queue_operation(
            lambda key: self._controller.queue.move(key, position, to),
            self.tr("Could not move the queued follow-up — {error}"),
        )

    @Slot(int)
    def on_queued_remove_requested(self, position: int) -> None:
        self._queue_operation(
            lambda key: self._controller.queue.remove(key, position),
            self.tr("Could not remove the queued follow-up — {error}"),
        )

    @Slot(int)
    def on_queued_send_now_requested(self, position: int) -> None:
        """Send now: the running turn takes it at its next safe point; an idle line runs a turn on it."""
        self._queue_operation(
            lambda key: self._controller.queue.send_now(key, position),
            self.tr("Not sent — {error}. It is still in the queue."),
        )

    @Slot()
    def on_stop_requested(self) -> None:
        """Stop (or Escape): cancel the shown line's turn; the controller keeps what streamed, marked interrupted."""
        if self._view is None or not self._controller.turns.is_running(self._view.key):
            return
        self._controller.turns.stop(self._view.key)

    @Slot(int, str)
    def on_approval_decided(self, approval_id: int, decision: str) -> None:
        """Allow once / Reject / Always for this line. The turn has its answer at once; "always" on a native
        line then raises its permission as an operation (issue 19, LOOP-4): the tool does not wait for the store."""
        always = decision == ALWAYS
        answered: tuple[str, str] | None = None
        try:
            answered = self._controller.approvals.settle(approval_id, decision != REJECT, always=always)
        except (LookupError, ValueError) as exc:
            self.show_error(self.tr("That approval is no longer waiting — {error}").format(error=plain_words(str(exc))))
        self._show_live()
        if always and answered is not None:
            key, tool = answered
            self.operations.run(  # LineUpdated redraws the pane
                lambda: self._controller.approvals.raise_for_always(key, tool), failed=self._permission_not_changed()
            )

    @Slot(int, str, object)
    def on_form_answered(self, approval_id: int, action: str, content: object) -> None:
        """An agent's form card (issue 32 item 3): Submit, Decline or Cancel; the agent has its answer at once."""
        from xworkmate.domain.elicitation import ElicitationAction, ElicitationAnswer

        chosen: ElicitationAction = "accept" if action == "accept" else "decline" if action == "decline" else "cancel"
        values = dict(content) if isinstance(content, dict) else None
        try:
            self._controller.approvals.answer_form(approval_id, ElicitationAnswer(chosen, content=values))
        except LookupError as exc:
            self.show_error(self.tr("That question is no longer waiting — {error}").format(error=plain_words(str(exc))))
        self._show_live()

    @Slot(int)
    def on_permission_picked(self, _index: int) -> None:
        if self._view is None:
            return
        level = self.message_pane.chosen_permission()
        if level is self._view.thread.context_state.permission_level:
            return
        key = self._view.key
        self.operations.run(  # LineUpdated redraws the pane
            lambda: self._controller.line_settings.set_permission(key, level), failed=self._permission_not_changed()
        )

    def _permission_not_changed(self) -> Callable[[BaseException], None]:
        """A refused permission change (the picker's, or an "Always" answer's): why, and the stored level shown."""
        return self._failure(
            self.tr("Permission not changed — {error}"),
            UnknownSessionKeyError,
            ValueError,
            then=self._show_stored_settings,
        )

    def _note_network_denied(self, key: str, messages: Sequence[Message]) -> None:
        """SBX-4: a host the line's proxy refused during a turn, kept until it is allowed or the line is left."""
        for message in messages:
            destination = denied_destination(message)
            if destination is not None:
                self._network_denied[key] = destination
                if self._view is not None and key == self._view.key:
                    self._show_network_denied(self._view)
                    self.show_error(
                        self.tr("{host} was refused: it is not on this line's network allow-list").format(
                            host=destination
                        )
                    )

    def _show_network_denied(self, view: LineView) -> None:
        self.message_list.set_allowed_hosts(view.thread.context_state.allowed_hosts)
        destination = self._network_denied.get(view.key)
        if destination is not None and destination in view.thread.context_state.allowed_hosts:
            destination = None
            del self._network_denied[view.key]
        self.message_pane.network_bar.show_denied(destination)

    # -- issue 31: a turn a crash interrupted, and Resume --------------------------------------------

    def _read_interruption(self, key: str) -> None:
        """Whether the line just shown has a turn to resume, read on the worker (LOOP-4)."""
        self.message_pane.interrupted_bar.show_interrupted(None)
        self.operations.query(
            lambda: self._controller.turns.interruption(key),
            done=lambda message: self._show_interruption(key, message),
            failed=self._failure(self.tr("Could not read whether the line's last turn was interrupted — {error}")),
        )

    def _show_interruption(self, key: str, message: Message | None) -> None:
        if self._view is None or self._view.key != key:
            return
        kept = (message.payload or {}).get(INTERRUPTED_TURN) if message is not None else None
        facts = kept if isinstance(kept, dict) else {}
        self.message_pane.interrupted_bar.show_interrupted(
            key if message is not None else None, kept=int(facts.get("kept", 0)), partial=bool(facts.get("partial"))
        )

    def _note_interruption(self, key: str, messages: Sequence[Message]) -> None:
        """New messages of the shown line: a crash notice shows the bar; a resume or the person's words end it."""
        if self._view is None or key != self._view.key:
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
        if self._checking_dead_turns or not self._controller.external.anything_elsewhere:
            return
        self._checking_dead_turns = True

        def done(_keys: list[str]) -> None:
            self._checking_dead_turns = False

        def failed(error: BaseException) -> None:
            self._checking_dead_turns = False
            log.warning("could not look for interrupted turns", exc_info=error)

        self.operations.run(self._controller.recover_interrupted_turns, done=done, failed=failed)

    @Slot()
    def on_resume_requested(self) -> None:
        """Resume on the shown line: its interrupted turn continues (nothing re-runs without this press)."""
        if self._view is None:
            return
        key, provider = self._view.key, self.message_pane.chosen_provider()
        refused = self._failure(self.tr("Not resumed — {error}"), NotRunnable, UnknownSessionKeyError, ValueError)

        def failed(error: BaseException) -> None:
            self.message_pane.interrupted_bar.resume_button.setEnabled(True)
            refused(error)

        self.operations.run(lambda: self._controller.turns.resume(key, provider=provider), failed=failed)

    @Slot(str)
    def on_allow_host_requested(self, destination: str) -> None:
        if self._view is None:
            return
        key = self._view.key
        self.operations.run(  # LineUpdated redraws the pane, and the bar goes
            lambda: self._controller.line_settings.set_allowed_hosts(key, add=[destination]),
            failed=self._failure(self.tr("Host not allowed — {error}"), UnknownSessionKeyError, ValueError),
        )

    @Slot(int)
    def on_network_picked(self, _index: int) -> None:
        if self._view is None:
            return
        key, network = self._view.key, self.message_pane.chosen_network()
        self.operations.run(  # LineUpdated redraws the pane
            lambda: self._controller.line_settings.set_network(key, network),
            failed=self._failure(
                self.tr("Network setting not changed — {error}"),
                UnknownSessionKeyError,
                ValueError,
                then=self._show_stored_settings,
            ),
        )

    def on_skill_catalog_wanted(self, key: str) -> None:
        """SKL-1: the line's skills (the person's folders and the line's own) are found off the GUI thread,
        from the folder its view names (no store read: it does not wait behind the store worker); the picker
        takes them only while it still shows that line."""
        view, picker = self._view, self.skill_picker
        if view is None or view.key != key:
            return
        folder, controller = view.thread.workspace_binding.path, self._controller
        run_off_thread(
            lambda: controller.skills.skill_catalog_in(folder),
            lambda catalog: picker.set_catalog(key, catalog),
            self._failure(self.tr("Skills not read — {error}"), OSError),
            parent=picker,
        )

    def on_skill_catalog_changed(self) -> None:
        """The composer's ``/`` list offers the shown line's skills too (SKL-1)."""
        catalog = self.skill_picker.catalog
        skills = catalog.skills if catalog is not None else ()
        self.slash_completer.set_skills(tuple((s.name, s.description) for s in skills))

    def on_skills_picked(self, key: str, names: tuple[str, ...]) -> None:
        """SKL-1: the picker's selection is the line's, saved on the store worker; LineUpdated redraws it."""
        self.operations.run(
            lambda: self._controller.skills.set_skills(key, only=names),
            failed=self._failure(
                self.tr("Skills not changed — {error}"),
                UnknownSessionKeyError,
                LookupError,
                then=self._show_stored_settings,
            ),
        )

    def _show_stored_settings(self) -> None:
        """A refused pick: the shown line's pickers go back to what its view says is stored."""
        view = self._view
        if view is not None:
            self.message_pane.show_permission(view.thread.context_state.permission_level)
            self.message_pane.show_network(view.thread.context_state.network)
            self.mode_picker.show_line(view)
            self._show_provider_choices(view)
            self.skill_picker.show_selection(view.key, view.thread.context_state.selected_skills)

    @Slot(int)
    def on_provider_picked(self, _index: int) -> None:
        """Issue 30: the provider picked for a line is the line's (its execution binding), on the store
        worker; it survives a restart and `thread show` names it. A refusal puts the picker back."""
        view = self._view
        if view is None or view.thread.execution_binding.mode is ExecutionMode.ACP:
            return
        chosen = self.message_pane.chosen_provider()
        if chosen == view.thread.execution_binding.provider:
            return
        key = view.key
        self._provider_picks[key] = chosen  # shown until stored: a view read meanwhile does not undo it

        def stored(_thread: object = None) -> None:
            if self._provider_picks.get(key) == chosen:
                del self._provider_picks[key]

        def refused() -> None:
            stored()
            self._show_stored_settings()

        self.operations.run(  # LineUpdated redraws
            lambda: self._controller.line_settings.set_execution(key, ExecutionMode.NATIVE, chosen),
            done=stored,
            failed=self._failure(
                self.tr("Provider not changed — {error}"),
                ValueError,
                LookupError,
                then=refused,
            ),
        )

    @Slot(int)
    def on_mode_picked(self, _index: int) -> None:
        """Built-in agent or an ACP agent for the shown line; a refusal (CAT-3) is shown, the picker reverts."""
        view = self._view
        if view is None:
            return
        choice = self.mode_picker.chosen()
        if choice is None:
            self.mode_picker.show_line(view)
            return
        mode, provider = parse_choice(choice)
        binding = view.thread.execution_binding
        if mode is binding.mode and (mode is ExecutionMode.NATIVE or provider == binding.provider):
            return
        key = view.key

        def pick() -> AgentInfo | None:
            self._controller.line_settings.set_execution(key, mode, provider)  # LineUpdated redraws the panes
            return self._controller.agents.acp_agent_info(provider) if mode is ExecutionMode.ACP and provider else None

        def picked(info: AgentInfo | None) -> None:
            if info is not None and info.lists_sessions and binding.acp_session_id is None and key == self.shown_key:
                # Only an agent that said it lists sessions is started for it (item 7: only where advertised).
                self._offer_agent_sessions(key)

        self.operations.run(
            pick,
            done=picked,
            failed=self._failure(
                self.tr("Execution mode not changed — {error}"),
                ValueError,
                LookupError,
                then=self._show_stored_settings,
            ),
        )

    # -- issue 15: the ACP agent's offers, slash commands, usage ------------------------------

    def _show_agent_session(self, key: str) -> None:
        view = self._view
        acp = view is not None and view.thread.execution_binding.mode is ExecutionMode.ACP
        provider = view.thread.execution_binding.provider if view is not None else None
        cached = self._agent_cache.get((key, provider)) if acp else None
        if not acp or cached is not None or self._agent_shown != (key, provider):
            # Nothing of another line's agent while this one's is read; the same agent's last offers stay
            # shown while a pick is read again.
            state = cached[0] if cached is not None else None
            self.agent_bar.show_state(state)
            self.slash_completer.set_commands(state.commands if state is not None else ())
            if cached is not None:
                self.agent_bar.mcp_picker.show_servers(cached[2], cached[1])
            self._agent_shown = (key, provider) if cached is not None else None
        if not acp or cached is not None:
            return

        def read() -> _AgentOffers:
            return (
                self._controller.agents.agent_session(key),
                [s.name for s in self._controller.agents.line_mcp_servers(key)],
                self._controller.agents.mcp_servers(),
            )

        def arrived(offers: _AgentOffers) -> None:
            self._agent_cache[(key, provider)] = offers
            shown = self._view
            if shown is not None and shown.key == key and shown.thread.execution_binding.provider == provider:
                self._show_agent_session(key)

        def not_read(error: BaseException) -> None:
            if not isinstance(error, UnknownSessionKeyError):  # a line gone by now shows no offers
                self._failure("")(error)

        self.operations.query(read, done=arrived, failed=not_read)

    def _offer_agent_sessions(self, key: str) -> None:
        """Item 7: ask the agent (session/list, a process of its own, off the GUI thread) which
        sessions it has for this folder; offer them in the agent bar where it lists any."""
        self.agent_bar.show_sessions([])

        async def ask() -> None:
            try:
                found = await self._controller.agents.agent_sessions(key)
            except Exception as exc:  # the agent could not be asked: the line still runs new sessions
                log.info("session/list on %s failed: %s", key, exc)
                return
            self._agent_sessions[key] = found
            if key == self.shown_key and found.supported:
                self.agent_bar.show_sessions(
                    [(s.session_id, f"{s.title} ({s.session_id})" if s.title else s.session_id) for s in found.sessions]
                )

        self._session_probe = asyncio.ensure_future(ask())

    @Slot(str)
    def on_agent_session_picked(self, session_id: str) -> None:
        key = self.shown_key
        if key is None:
            return

        async def bind() -> None:
            try:
                await self._controller.agents.bind_agent_session(key, session_id, known=self._agent_sessions.get(key))
            except (ValueError, LookupError) as exc:
                self.show_error(self.tr("Session not bound — {error}").format(error=plain_words(str(exc))))
                return
            self.agent_bar.show_sessions([])

        self._session_probe = asyncio.ensure_future(bind())

    def on_line_mcp_chosen(self, names: list[str]) -> None:
        self._agent_pick(
            self.tr("Agent MCP servers not changed — {error}"),
            lambda key: self._controller.agents.set_line_mcp_servers(key, names),
        )

    def on_mcp_settings_requested(self) -> McpServersDialog:
        dialog = McpServersDialog(self._controller, self)

        def closed(_result: int) -> None:
            self._agent_cache.clear()  # the configured servers may have changed
            self._read_shown_again()

        dialog.finished.connect(closed)
        dialog.open()
        self.mcp_dialog = dialog
        return dialog

    def _show_usage(self, key: str) -> None:
        usage = self._usage_cache.get(key)
        if usage is not None:
            self.usage_meter.show_usage(usage)
            return

        def arrived(read: LineUsage) -> None:
            self._usage_cache[key] = read
            if key == self.shown_key:
                self.usage_meter.show_usage(read)

        self.operations.query(
            lambda: self._controller.agents.line_usage(key),
            done=arrived,
            failed=self._failure(self.tr("Cannot show the line's usage — {error}"), UnknownSessionKeyError),
        )

    def _agent_pick(self, what: str, pick: Callable[[str], object]) -> None:
        key = self.shown_key
        if key is None:
            return

        def put_back() -> None:  # refused: the bar shows what is stored (a pick that took comes back
            if key == self.shown_key:  # as AgentSessionChanged)
                self._show_agent_session(key)

        self.operations.run(lambda: pick(key), failed=self._failure(what, ValueError, LookupError, then=put_back))

    @Slot(str)
    def on_agent_mode_picked(self, mode_id: str) -> None:
        self._agent_pick(
            self.tr("Agent mode not changed — {error}"),
            lambda key: self._controller.agents.choose_agent_mode(key, mode_id),
        )

    @Slot(str)
    def on_agent_model_picked(self, model_id: str) -> None:
        self._agent_pick(
            self.tr("Agent model not changed — {error}"),
            lambda key: self._controller.agents.choose_agent_model(key, model_id),
        )

    def on_agent_config_picked(self, config_id: str, value: object) -> None:
        chosen = value if isinstance(value, bool) else str(value)
        self._agent_pick(
            self.tr("Agent option not changed — {error}"),
            lambda key: self._controller.agents.choose_agent_config(key, config_id, chosen),
        )

    def refresh_providers(self) -> None:
        """Re-read the providers on the store worker (issue 33 item 2): the pickers' choices and the "no
        provider" banner are redrawn when they arrive."""
        read_providers(self._controller).run(
            self.operations, done=lambda table: self.show_providers(table.providers), failed=self.show_error
        )

    def show_providers(self, providers: list[ProviderRecord]) -> None:
        """Show these providers in the pickers and the banner (read by ``refresh_providers`` or an operation)."""
        self._providers = providers
        self.message_pane.set_providers(providers)
        self.mode_picker.set_agents(providers)
        if self._view is not None:
            self.mode_picker.show_line(self._view)
        if self._view is not None:
            self._show_provider_choices(self._view)
        self._show_provider_state()

    def _show_provider_choices(self, view: LineView) -> None:
        """Issue 18: the picker offers only the providers this line may use (its category's, by the router's
        rule) and names the one that will run: the line's own provider, or "Default — <name>"."""
        try:
            choices = self._controller.providers.provider_choices(view.key, self._providers, view.thread)
        except Exception as exc:  # a broken provider record must not stop the line from showing
            log.warning("could not work out the providers of %s: %s", view.key, exc)
            return
        default = (
            self.tr("Default — {provider}").format(provider=choices.will_run)
            if choices.will_run
            else DEFAULT_PROVIDER_LABEL
        )
        self.message_pane.set_providers(list(choices.allowed), default_label=default)
        self.message_pane.choose_provider(self._provider_picks.get(view.key, view.thread.execution_binding.provider))

    def _show_provider_state(self) -> None:
        """An ACP line runs its agent, not a provider: no banner, no provider to pick."""
        acp = self._view is not None and self._view.thread.execution_binding.mode is ExecutionMode.ACP
        self.message_pane.show_provider_banner(not acp and not offers_agent_provider(self._providers))
        self.provider_picker.setEnabled(not acp)
        self.provider_picker.setToolTip(
            self.tr("This line runs an external agent (ACP); it does not use these providers")
            if acp
            else self.tr("The provider for the next turn; Default uses the default provider")
        )

    @Slot(object)
    def on_external_change(self, change: object) -> None:
        """Another process wrote providers, or much changed (issue 18); its lines, messages and run
        statuses came as change records (issue 19)."""
        if self._closed:
            return
        if getattr(change, "providers", False):
            self.operations.query(
                self._controller.providers.records,
                done=self.show_providers,
                failed=self._failure(self.tr("Could not read the providers — {error}")),
            )
        if getattr(change, "everything", False):  # the listener reconnected: read the lines and the shown one again

            def reloaded(lines: list[ThreadSummary]) -> None:
                self.task_model.reload(lines)
                self._refresh_shown()

            self.operations.query(
                lambda: self._controller.lines.list_lines(include_archived=True),
                done=reloaded,
                failed=self._failure(self.tr("Could not read the task lines — {error}")),
            )

    @Slot()
    def on_find_agents_requested(self) -> ProviderSettingsDialog:
        """The first-run "Use an agent found on PATH…": the providers dialog, already looking (issue 18)."""
        dialog = self.on_provider_settings_requested()
        dialog.on_find_agents_requested()
        return dialog

    @Slot()
    def on_provider_settings_requested(self) -> ProviderSettingsDialog:
        """Settings → Providers… (also the link in the "no provider" banner); one dialog at a time."""
        if self.provider_dialog is not None and self.provider_dialog.isVisible():
            self.provider_dialog.raise_()
            self.provider_dialog.activateWindow()
            return self.provider_dialog
        if self.provider_dialog is not None:
            self.provider_dialog.deleteLater()
        from xworkmate.ui.providers import ProviderSettingsDialog

        self.provider_dialog = ProviderSettingsDialog.open_for(self, self._controller)
        self.provider_dialog.providers_changed.connect(self.refresh_providers)
        return self.provider_dialog

    @Slot()
    def on_send_requested(self) -> None:
        """Send the composer's text on the shown line; on refusal keep the text (nothing is lost).

        On a task, Send is a follow-up (``send_followup``): the person's words for the task, then its turn.
        """
        if self._view is None:
            return
        text = self.composer.toPlainText()
        if not text.strip():
            return
        if self._sending:
            return  # the last Send is still on its way: one press, one message
        self.message_pane.clear_notice()  # a new request: what the last one said has been read
        if self.attachment_strip.preparing:
            self.show_error(self.tr("Not sent yet — an attachment is still being prepared; send again in a moment."))
            return
        if self._view.thread.kind is ThreadKind.TASK:
            if self.attachment_strip.attachments():
                self.show_error(self.tr("Not sent — a task's follow-up takes text only; remove the attachments first."))
                return
            self.send_followup(self._view, text)
            return
        key, provider = self._view.key, self.message_pane.chosen_provider()
        attachments = self.attachment_strip.attachments()  # ATT-1: sent with the message, stored with it
        self._sending = True

        def sent(outcome: SendOutcome) -> None:
            self._sending = False
            if self.composer.toPlainText() == text:
                self.composer.clear()
            if self._view is not None and self._view.key == key:
                self.attachment_strip.clear()
            self.message_list.follow_newest()
            if outcome.queued is not None:
                self._read_queue(key)  # issue 31: the line was running, so it waits in the strip

        def failed(error: BaseException) -> None:
            self._sending = False
            if isinstance(error, NotRunnable):
                self._refresh_shown()  # the line's real state, e.g. its folder just disappeared (ISO-4)
                self.show_error(
                    self.tr("Not sent — {reason}. Your text is still in the composer.").format(
                        reason=plain_words(error.reason)
                    )
                )
            elif isinstance(error, UnknownSessionKeyError | ValueError):
                self.show_error(
                    self.tr("Not sent — {reason}. Your text is still in the composer.").format(
                        reason=plain_words(str(error))
                    )
                )
            else:
                self._failure(self.tr("Not sent — {error}"))(error)

        self.operations.run(
            lambda: self._controller.send(key, text, provider=provider, attachments=attachments),
            done=sent,
            failed=failed,
        )

    def send_followup(self, view: LineView, text: str) -> None:
        """Send on a task: the controller's one follow-up policy decides (PROV-4, issue 14): a running
        task takes it when its current step ends, an idle one starts a turn on it."""
        acp = view.thread.execution_binding.mode is ExecutionMode.ACP
        key, provider = view.key, None if acp else self.message_pane.chosen_provider()
        self._sending = True

        def sent(outcome: FollowupOutcome) -> None:
            self._sending = False
            if self.composer.toPlainText() == text:
                self.composer.clear()
            self.message_list.follow_newest()
            if outcome.queued is not None:
                self._read_queue(key)  # issue 31: the task was running, so it waits in the strip
            if outcome.notice:
                self.show_error(
                    self.tr("Follow-up saved on the task, but no agent provider is configured, so it did not run.")
                )

        def failed(error: BaseException) -> None:
            self._sending = False
            if isinstance(error, NotRunnable):
                self._refresh_shown()
                self.show_error(
                    self.tr("Follow-up not sent — {reason}. Your text is still in the composer.").format(
                        reason=plain_words(error.reason)
                    )
                )
            elif isinstance(error, ValueError | LookupError):
                self.show_error(
                    self.tr("Follow-up not sent — {reason}. Your text is still in the composer.").format(
                        reason=plain_words(str(error))
                    )
                )
            else:
                self._failure(self.tr("Follow-up not sent — {error}"))(error)

        # The window runs tasks (``auto_run_tasks``), so an idle task starts a turn on it.
        self.operations.run(
            lambda: self._controller.followups.follow_up(key, text, provider=provider), done=sent, failed=failed
        )

    @Slot(int)
    def on_message_scrolled(self, _value: int) -> None:
        if self.message_model.canFetchMore(QModelIndex()):
            self.message_model.request_older()  # olderPrepended keeps the row read at the top

    def _read_older(self, read: Callable[[], OlderPage], done: Callable[[OlderPage | None], None]) -> None:
        """The message list's older pages, read on the store worker (issue 19)."""

        def failed(error: BaseException) -> None:
            done(None)
            self._failure(self.tr("Could not read older messages — {error}"), UnknownSessionKeyError)(error)

        self.operations.query(read, done=done, failed=failed)

    @Slot()
    def on_message_rows_changed(self) -> None:
        self.message_pane.show_empty_state(self.message_model.rowCount())

    # -- slots: workspace --------------------------------------------------

    def _folder_start_dir(self) -> str:
        path = self._view.thread.workspace_binding.path if self._view is not None else None
        candidate = Path(path) if path else self._controller.settings.effective_workspace_root
        while not candidate.is_dir() and candidate != candidate.parent:
            candidate = candidate.parent
        return str(candidate)

    @Slot()
    def on_change_folder_requested(self) -> None:
        if self._view is None:
            return
        key = self._view.key
        chosen = self.choose_folder(self, self._folder_start_dir())
        if not chosen:
            return
        self.operations.run(  # ISO-8: an explicit bind
            lambda: self._controller.lines.bind_workspace(key, chosen),
            failed=self._failure(
                self.tr("Folder not changed — {error}"), WorkspaceBindingError, UnknownSessionKeyError
            ),
        )

    @Slot()
    def on_recreate_folder_requested(self) -> None:
        if self._view is None:
            return
        key = self._view.key
        self.operations.run(  # its own path, not the default (issue 18); LineUpdated redraws the panes
            lambda: self._controller.lines.recreate_folder(key),
            failed=self._failure(
                self.tr("Could not recreate the folder — {error}"),
                WorkspaceBindingError,
                UnknownSessionKeyError,
                OSError,
            ),
        )

    @Slot(QModelIndex, QModelIndex)
    def on_workspace_file_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            self.workspace_pane.clear_preview()
            return
        self.workspace_pane.show_preview(read_preview(Path(self.fs_model.filePath(current))))

    @Slot(str)
    def on_workspace_folder_changed(self, _path: str) -> None:
        self.recheck_workspace()

    def recheck_workspace(self) -> None:
        """The shown folder appeared or vanished behind our back: re-read the line (ISO-4)."""
        if self._view is None:
            return
        path = self._view.thread.workspace_binding.path
        exists = bool(path) and Path(path or "").is_dir()
        if exists != self._shown_folder_exists:
            self.task_model.invalidate_status(self._view.key)
            self._read_shown_again()

    def _read_shown_again(self) -> None:
        """Something outside the store changed what the shown line looks like: read its view on the store
        worker and show it, unless another line is shown by then."""
        if self._view is None:
            return
        key = self._view.key

        def read(view: LineView) -> None:
            if view.key == self.shown_key:
                self._show_view(view)

        self.operations.query(
            lambda: self._controller.lines.line_view(key),
            done=read,
            failed=self._failure(self.tr("Cannot show the current line — {error}"), UnknownSessionKeyError),
        )

    def _watch_folder(self, view: LineView) -> None:
        watched = self.folder_watcher.directories()
        path = view.thread.workspace_binding.path
        target: str | None = None
        if path:
            folder = Path(path)
            # A missing folder is noticed through its parent when it comes back.
            target = str(folder) if folder.is_dir() else (str(folder.parent) if folder.parent.is_dir() else None)
        if watched == ([target] if target else []):
            return
        if watched:
            self.folder_watcher.removePaths(watched)
        if target:
            self.folder_watcher.addPath(target)

    # -- changes (issue 16) ----------------------------------------------------

    @Slot(str, object)
    def on_changes_chips(self, key: str, chips: dict[int, tuple[int, str]]) -> None:
        """The shown line's "n files changed" chips, on the messages its turns ended on."""
        if key != self.message_model.key:
            return
        self._chip_turns = {message_id: turn for message_id, (turn, _text) in chips.items()}
        self.message_model.set_chips(key, {message_id: text for message_id, (_turn, text) in chips.items()})

    @Slot(int)
    def on_changes_chip_clicked(self, message_id: int) -> None:
        """A chip opens its turn's changes in the Changes tab, bringing back the workspace pane when it is
        hidden (by the person or by a narrow window: issue 30, the click otherwise changed nothing seen)."""
        turn = self._chip_turns.get(message_id)
        if turn is not None:
            if not self.pane_layout.is_shown(RIGHT):
                self.pane_layout.set_shown(RIGHT, True, by_person=True)
            self.workspace_pane.show_changes_tab()
            self.changes_view.open_turn(turn)

    # -- menus ---------------------------------------------------------------

    @Slot()
    def on_about_requested(self) -> None:
        QMessageBox.about(self, self.tr("About XWorkmate"), about_text(self._controller))

    # -- search and export (LOOP-3) ------------------------------------------

    def _build_search_and_export(self) -> None:
        """Ctrl+K opens the search palette; File → Export… writes the shown line and its tasks."""
        self.search_action = QAction(self.tr("&Search lines…"), self)
        self.search_action.setObjectName("searchAction")
        self.search_action.setShortcut(QKeySequence(shortcut_keys("searchAction")[0]))
        self.search_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.export_action = QAction(self.tr("&Export…"), self)
        self.export_action.setObjectName("exportAction")
        self.export_action.setToolTip(self.tr("Export the shown line and its tasks to Markdown or JSON"))
        before = self.quit_action
        self.file_menu.insertAction(before, self.search_action)
        self.file_menu.insertAction(before, self.export_action)
        self.file_menu.insertSeparator(before)
        self.search_palette: SearchPalette | None = None
        self.ask_export_file: ExportChooser = ExportDialog.ask
        self.confirm_category_export: CategoryExportConfirm = CategoryExportConfirmation.ask
        self.export_worker = BackgroundCalls(self, name="xworkmate-export")
        self._export_reads: dict[int, tuple[Path, ExportFormat]] = {}
        self._exports: dict[int, Path] = {}
        self.search_action.triggered.connect(self.on_search_requested)
        self.export_action.triggered.connect(self.on_export_requested)
        self.export_worker.finished.connect(self.on_export_finished)

    @Slot()
    def on_search_requested(self) -> SearchPalette:
        if self.search_palette is None:
            from xworkmate.ui.search_palette import SearchPalette

            self.search_palette = SearchPalette(self._controller, self)
            self.search_palette.chosen.connect(self.on_search_hit_chosen)
            self.search_palette.failed.connect(self.show_error)
        self.search_palette.open_palette()
        return self.search_palette

    @Slot(str, int)
    def on_search_hit_chosen(self, key: str, message_id: int) -> None:
        """Switch to the hit's line (ISO-5) and scroll its conversation to the message, selected."""

        def missing() -> None:
            self.show_error(self.tr("Message #{number} is no longer in this line").format(number=message_id))

        def reveal() -> None:
            if message_id:  # its older pages, if any, are read on the store worker (issue 19)
                query = self.search_palette.shown_query() if self.search_palette is not None else None
                from xworkmate.ui.search_palette import reveal_message

                reveal_message(self.message_list, self.message_model, message_id, missing, query or "")

        self.open_line(key, then=reveal)

    @Slot()
    def on_export_requested(self) -> None:
        view = self._view
        if view is None:
            return
        chosen = self.ask_export_file(self, export_file_name(view.thread.title, ExportFormat.MARKDOWN))
        if chosen is None:
            return
        path, fmt = chosen
        key = view.key
        # Read first, write once asked: the question names every category the file would carry (CAT-4).
        # Without the messages: they are read a page at a time as the file is written (issue 34 item 2).
        number = self.export_worker.submit(lambda: self._controller.line_export(key, with_messages=False))
        self._export_reads[number] = (path, fmt)
        self.message_pane.show_status(self.tr("Exporting to {path}…").format(path=path), "info")

    def _write_export(self, export: LineExport, path: Path, fmt: ExportFormat) -> None:
        """CAT-4: category content anywhere in the export (the line, its tasks, their sources) is asked about."""
        categories = ", ".join(export.categories)
        if categories and not self.confirm_category_export(self, export.root.title, categories):
            self.message_pane.clear_notice()
            return  # the person declined to take category content away
        write = self._controller.write_line_export  # the writer loads on the export worker (issue 34 item 4)
        self._exports[self.export_worker.submit(lambda: write(export, path, fmt))] = path

    @Slot(int, object, object)
    def on_export_finished(self, number: int, result: object, error: object) -> None:
        read = self._export_reads.pop(number, None)
        if read is not None and error is None and isinstance(result, LineExport):
            self._write_export(result, *read)
            return
        path = read[0] if read is not None else self._exports.pop(number, None)
        if path is None:
            return
        if error is not None:
            self.show_error(self.tr("Export failed — {error}").format(error=plain_words(str(error))))
        else:
            self.message_pane.show_status(self.tr("Exported to {path}").format(path=path), "info")

    # -- window state --------------------------------------------------------

    def _restore_ui_state(self) -> None:
        self.restore_geometry(self._controller.lines.ui_state(GEOMETRY_STATE))  # the default size if none; on screen
        sizes = parse_sizes(self._controller.lines.ui_state(SPLITTER_STATE), self.splitter.count())
        self.splitter.setSizes(sizes or list(DEFAULT_SPLITTER_SIZES))
        self.pane_layout.restore()

    def ui_state_to_save(self) -> dict[str, str]:
        """The window's layout as the ui_state it keeps (read from the widgets, on the GUI thread)."""
        geometry = bytes(self.saveGeometry().toBase64().data()).decode("ascii")
        return {
            GEOMETRY_STATE: geometry,
            SPLITTER_STATE: ui_state.SPLITTER_SIZES.encode(self.splitter.sizes()),
            **self.pane_layout.saved_state(),
        }

    def save_ui_state(self) -> None:
        """The layout, as a named operation on the store worker (issue 33 item 2)."""
        save_ui_states(self._controller, self.ui_state_to_save()).run(self.operations, failed=self.show_error)

    def _write_on_close(self, layout: dict[str, str] | None, drafts: dict[str, str]) -> None:
        """On the store worker as the window closes; each part is a convenience, so one failing spares the rest."""
        if layout is not None:
            try:
                self._controller.lines.set_ui_states(layout)  # one transaction: one round trip, not three
            except Exception as exc:
                log.warning("could not save the window layout: %s", exc)
        self.drafts.save_now(drafts)
        try:
            self._controller.attention.flush()
        except Exception as exc:
            log.warning("could not save what was seen: %s", exc)

    def changeEvent(self, event: QEvent) -> None:
        if not self.attached:  # still opening (issue 19, item 7): no panes to tell yet
            super().changeEvent(event)
            return
        if event.type() == QEvent.Type.ActivationChange:
            self.needs_you.watch()  # the shown line is seen while the window is active (LOOP-2)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.recheck_workspace()  # back from a file manager: the folder may be gone
            if hasattr(self, "external_watch"):
                self.external_watch.check_now()  # back from a terminal: the CLI may have written
        super().changeEvent(event)

    def _stop_session_probe(self) -> None:
        if self._session_probe is not None and not self._session_probe.done():
            self._session_probe.cancel()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.attached:  # closed while opening: nothing was built to save or stop
            super().closeEvent(event)
            return
        self._stop_session_probe()
        if not self._closed:
            self._closed = True
            layout = self.ui_state_to_save() if self.persist_ui_state else None
            self.bridge.detach()
            self.dead_turn_timer.stop()
            drafts = self.drafts.take()
            # Issue 33 item 2 (LOOP-4): the last writes — layout, drafts, what was seen — on the store worker.
            self.operations.finish(lambda: self._write_on_close(layout, drafts))
            self.external_watch.stop()
            if self.provider_dialog is not None:
                self.provider_dialog.reject()  # cancels its fetches before the widgets go
            if self.folder_watcher.directories():
                self.folder_watcher.removePaths(self.folder_watcher.directories())
        super().closeEvent(event)
