"""The shown line's agent (issue 15): built-in or an ACP agent (the mode picker), the agent's offers in
the agent bar (modes, models, options, its sessions, MCP servers), slash commands and the usage meter.

What the agent offers is read once per line on the store worker and kept until the controller says it
changed (``AgentSessionChanged``, ``UsageChanged``), so switching lines stays cheap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, Slot

from xworkmate.controllers import LineView, UnknownSessionKeyError
from xworkmate.controllers.changes import AgentMcpFailed, AgentSessionChanged, UsageChanged
from xworkmate.controllers.views import LinePanes
from xworkmate.domain.agent_session import AgentInfo, AgentSessionState, LineUsage
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.domain.threads import ExecutionMode
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.agent.agent_session import AgentSessionDeleter
from xworkmate.ui.agent.execution import parse_choice
from xworkmate.ui.conversation import MessagePane
from xworkmate.ui.settings.mcp_servers import McpServersDialog
from xworkmate.ui.window.services import WindowServices

log = logging.getLogger(__name__)

_AgentOffers = tuple[AgentSessionState, list[str], list[McpServerRecord]]
"""What the agent bar shows for a line: its agent's offers and picks, the MCP servers given, all configured."""


class AgentActions(QObject):
    """The mode picker, the agent bar and the usage meter of the shown line.

    ``settings_refused()`` puts the composer's pickers back to what is stored. Signals: none.
    """

    def __init__(self, window: WindowServices, pane: MessagePane, *, settings_refused: Callable[[], None]) -> None:
        super().__init__(window.window())
        self._window = window
        self._pane = pane
        self._bar = pane.agent_bar
        self._settings_refused = settings_refused
        self._agent_sessions: dict[str, object] = {}  # issue 15, item 7: what session/list said, per line
        self._usage_cache: dict[str, LineUsage] = {}
        self._agent_cache: dict[tuple[str, str | None], _AgentOffers] = {}
        self._agent_shown: tuple[str, str | None] | None = None  # whose offers the agent bar shows
        self._session_probe: asyncio.Future[None] | None = None
        self.mcp_dialog: McpServersDialog | None = None
        # Issue 32 item 6: the bar's Delete… sends session/delete, for an agent that deletes sessions.
        self.session_deleter = AgentSessionDeleter(
            self._bar, window.controller.agents, lambda: window.shown.shown_key, window.show_error
        )

    def show_line(self, view: LineView, previous: LineView | None, panes: LinePanes | None) -> None:
        if panes is not None and panes.usage is not None:
            self._usage_cache[panes.key] = panes.usage
        self._show_agent_session(view.key)
        self._show_usage(view.key)

    def usage_known(self, key: str) -> bool:
        """Whether the meter has ``key``'s figures (then a switch to it does not read them again)."""
        return key in self._usage_cache

    def on_agent_session_changed(self, change: AgentSessionChanged) -> None:
        self._agent_cache = {k: v for k, v in self._agent_cache.items() if k[0] != change.key}
        if change.key == self._window.shown.shown_key:
            self._show_agent_session(change.key)

    def on_usage_changed(self, change: UsageChanged) -> None:
        self._usage_cache.pop(change.key, None)
        if change.key == self._window.shown.shown_key:
            self._show_usage(change.key)

    def on_mcp_failed(self, change: AgentMcpFailed) -> None:
        """Issue 32 item 5 (ERR-1): MCP servers failed to start inside the line's agent; the turn went on without
        them. Said in the status line of the line shown (the notice stays in its conversation)."""
        self._agent_cache = {k: v for k, v in self._agent_cache.items() if k[0] != change.key}
        if change.key == self._window.shown.shown_key:
            self._window.show_error(
                self.tr("The agent could not start these MCP servers and went on without them: {servers}").format(
                    servers=", ".join(change.servers)
                )
            )

    def stop(self) -> None:
        """The window closes: an agent still being asked for its sessions, or to delete one, is not waited for."""
        for asking in (self._session_probe, self.session_deleter.pending):
            if asking is not None and not asking.done():
                asking.cancel()

    # -- built-in agent or an ACP agent ---------------------------------------------------

    @Slot(int)
    def on_mode_picked(self, _index: int) -> None:
        """Built-in agent or an ACP agent for the shown line; a refusal (CAT-3) is shown, the picker reverts."""
        view = self._window.shown.view
        if view is None:
            return
        choice = self._pane.mode_picker.chosen()
        if choice is None:
            self._pane.mode_picker.show_line(view)
            return
        mode, provider = parse_choice(choice)
        binding = view.thread.execution_binding
        if mode is binding.mode and (mode is ExecutionMode.NATIVE or provider == binding.provider):
            return
        key, controller = view.key, self._window.controller

        def pick() -> AgentInfo | None:
            controller.line_settings.set_execution(key, mode, provider)  # LineUpdated redraws the panes
            return controller.agents.acp_agent_info(provider) if mode is ExecutionMode.ACP and provider else None

        def picked(info: AgentInfo | None) -> None:
            if (
                info is not None
                and info.lists_sessions
                and binding.acp_session_id is None
                and key == self._window.shown.shown_key
            ):
                # Only an agent that said it lists sessions is started for it (item 7: only where advertised).
                self._offer_agent_sessions(key)

        self._window.operations.run(
            pick,
            done=picked,
            failed=self._window.failure(
                self.tr("Execution mode not changed — {error}"),
                ValueError,
                LookupError,
                then=self._settings_refused,
            ),
        )

    # -- the agent's offers -----------------------------------------------------------------

    def _show_agent_session(self, key: str) -> None:
        view = self._window.shown.view
        acp = view is not None and view.thread.execution_binding.mode is ExecutionMode.ACP
        provider = view.thread.execution_binding.provider if view is not None else None
        cached = self._agent_cache.get((key, provider)) if acp else None
        if not acp or cached is not None or self._agent_shown != (key, provider):
            # Nothing of another line's agent while this one's is read; the same agent's last offers stay
            # shown while a pick is read again.
            state = cached[0] if cached is not None else None
            self._bar.show_state(state)
            self._pane.slash_completer.set_commands(state.commands if state is not None else ())
            if cached is not None:
                self._bar.mcp_picker.show_servers(cached[2], cached[1])
            self._agent_shown = (key, provider) if cached is not None else None
        if not acp or cached is not None:
            return
        agents = self._window.controller.agents

        def read() -> _AgentOffers:
            return (
                agents.agent_session(key),
                [s.name for s in agents.line_mcp_servers(key)],
                agents.mcp_servers(),
            )

        def arrived(offers: _AgentOffers) -> None:
            self._agent_cache[(key, provider)] = offers
            shown = self._window.shown.view
            if shown is not None and shown.key == key and shown.thread.execution_binding.provider == provider:
                self._show_agent_session(key)

        def not_read(error: BaseException) -> None:
            if not isinstance(error, UnknownSessionKeyError):  # a line gone by now shows no offers
                self._window.failure("")(error)

        self._window.operations.query(read, done=arrived, failed=not_read)

    def _offer_agent_sessions(self, key: str) -> None:
        """Item 7: ask the agent (session/list, a process of its own, off the GUI thread) which
        sessions it has for this folder; offer them in the agent bar where it lists any."""
        self._bar.show_sessions([])
        agents = self._window.controller.agents

        async def ask() -> None:
            try:
                found = await agents.agent_sessions(key)
            except Exception as exc:  # the agent could not be asked: the line still runs new sessions
                log.info("session/list on %s failed: %s", key, exc)
                return
            self._agent_sessions[key] = found
            if key == self._window.shown.shown_key:
                self._bar.show_agent_sessions(found)  # each deletable where the agent deletes sessions

        self._session_probe = asyncio.ensure_future(ask())

    @Slot(str)
    def on_agent_session_picked(self, session_id: str) -> None:
        key = self._window.shown.shown_key
        if key is None:
            return
        agents = self._window.controller.agents

        async def bind() -> None:
            try:
                await agents.bind_agent_session(key, session_id, known=self._agent_sessions.get(key))
            except (ValueError, LookupError) as exc:
                self._window.show_error(self.tr("Session not bound — {error}").format(error=plain_words(str(exc))))
                return
            self._bar.show_sessions([])

        self._session_probe = asyncio.ensure_future(bind())

    def on_line_mcp_chosen(self, names: list[str]) -> None:
        agents = self._window.controller.agents
        self._agent_pick(
            self.tr("Agent MCP servers not changed — {error}"), lambda key: agents.set_line_mcp_servers(key, names)
        )

    def on_mcp_settings_requested(self) -> McpServersDialog:
        dialog = McpServersDialog(self._window.controller, self._window.window())

        def closed(_result: int) -> None:
            self._agent_cache.clear()  # the configured servers may have changed
            self._window.shown.read_shown_again()

        dialog.finished.connect(closed)
        dialog.open()
        self.mcp_dialog = dialog
        return dialog

    def _show_usage(self, key: str) -> None:
        meter = self._pane.usage_meter
        usage = self._usage_cache.get(key)
        if usage is not None:
            meter.show_usage(usage)
            return

        def arrived(read: LineUsage) -> None:
            self._usage_cache[key] = read
            if key == self._window.shown.shown_key:
                meter.show_usage(read)

        agents = self._window.controller.agents
        self._window.operations.query(
            lambda: agents.line_usage(key),
            done=arrived,
            failed=self._window.failure(self.tr("Cannot show the line's usage — {error}"), UnknownSessionKeyError),
        )

    def _agent_pick(self, what: str, pick: Callable[[str], object]) -> None:
        key = self._window.shown.shown_key
        if key is None:
            return

        def put_back() -> None:  # refused: the bar shows what is stored (a pick that took comes back
            if key == self._window.shown.shown_key:  # as AgentSessionChanged)
                self._show_agent_session(key)

        self._window.operations.run(
            lambda: pick(key), failed=self._window.failure(what, ValueError, LookupError, then=put_back)
        )

    @Slot(str)
    def on_agent_mode_picked(self, mode_id: str) -> None:
        agents = self._window.controller.agents
        self._agent_pick(
            self.tr("Agent mode not changed — {error}"), lambda key: agents.choose_agent_mode(key, mode_id)
        )

    @Slot(str)
    def on_agent_model_picked(self, model_id: str) -> None:
        agents = self._window.controller.agents
        self._agent_pick(
            self.tr("Agent model not changed — {error}"), lambda key: agents.choose_agent_model(key, model_id)
        )

    def on_agent_config_picked(self, config_id: str, value: object) -> None:
        chosen = value if isinstance(value, bool) else str(value)
        agents = self._window.controller.agents
        self._agent_pick(
            self.tr("Agent option not changed — {error}"),
            lambda key: agents.choose_agent_config(key, config_id, chosen),
        )
