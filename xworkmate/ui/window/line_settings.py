"""How the shown line runs, as the composer's pickers set it: permission, network, skills (SKL-1) and the
provider (issue 30), with the providers the line may use (its category's, CAT-2) and Settings → Providers.

Each pick is the line's, stored by an operation on the store worker (LOOP-4); a refused pick is said in
one line and the pickers go back to what is stored.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot

from xworkmate.controllers import LineView, UnknownSessionKeyError
from xworkmate.controllers.views import LinePanes
from xworkmate.domain.providers import ProviderRecord, offers_agent_provider
from xworkmate.domain.threads import ExecutionMode
from xworkmate.ui.background import run_off_thread
from xworkmate.ui.conversation import DEFAULT_PROVIDER_LABEL, MessagePane
from xworkmate.ui.ops.settings import read_providers
from xworkmate.ui.window.services import Failure, WindowServices

if TYPE_CHECKING:  # issue 34 item 4: opened on demand, so loaded then, not before the window can be used
    from xworkmate.controllers.providers import ProviderChoices
    from xworkmate.ui.settings.providers import ProviderSettingsDialog

log = logging.getLogger(__name__)


class LineSettingsActions(QObject):
    """The permission, network, skill and provider pickers of the shown line, and the providers they offer.

    ``provider_dialog`` is Settings → Providers while it exists. Signals: none.
    """

    def __init__(self, window: WindowServices, pane: MessagePane) -> None:
        super().__init__(window.window())
        self._window = window
        self._pane = pane
        self._providers: list[ProviderRecord] = []
        # Issue 34 item 1: the providers a line may use, worked out once per category and pinned provider for
        # the providers shown (a switch between lines of one category works out nothing again).
        self._choices: dict[tuple[str | None, str | None], ProviderChoices] = {}
        self._provider_picks: dict[str, str | None] = {}  # issue 30: a line's provider pick on its way to the store
        self.provider_dialog: ProviderSettingsDialog | None = None

    def show_line(self, view: LineView, previous: LineView | None, panes: LinePanes | None) -> None:
        self._show_provider_choices(view)  # the category or the line's provider may have changed
        if previous is None or previous.thread.execution_binding.mode is not view.thread.execution_binding.mode:
            self._show_provider_state()

    def show_stored_settings(self) -> None:
        """A refused pick: the shown line's pickers go back to what its view says is stored."""
        view = self._window.shown.view
        if view is not None:
            self._pane.show_permission(view.thread.context_state.permission_level)
            self._pane.show_network(view.thread.context_state.network)
            self._pane.mode_picker.show_line(view)
            self._show_provider_choices(view)
            self._pane.skill_picker.show_selection(view.key, view.thread.context_state.selected_skills)

    def _refused(self, template: str, *expected: type[BaseException]) -> Failure:
        return self._window.failure(template, *expected, then=self.show_stored_settings)

    # -- permission and network ----------------------------------------------------

    @Slot(int)
    def on_permission_picked(self, _index: int) -> None:
        view = self._window.shown.view
        if view is None:
            return
        level = self._pane.chosen_permission()
        if level is view.thread.context_state.permission_level:
            return
        key, line_settings = view.key, self._window.controller.line_settings
        self._window.operations.run(  # LineUpdated redraws the pane
            lambda: line_settings.set_permission(key, level), failed=self.permission_not_changed()
        )

    def permission_not_changed(self) -> Failure:
        """A refused permission change (the picker's, or an "Always" answer's): why, and the stored level shown."""
        return self._refused(self.tr("Permission not changed — {error}"), UnknownSessionKeyError, ValueError)

    @Slot(int)
    def on_network_picked(self, _index: int) -> None:
        view = self._window.shown.view
        if view is None:
            return
        key, network, line_settings = view.key, self._pane.chosen_network(), self._window.controller.line_settings
        self._window.operations.run(  # LineUpdated redraws the pane
            lambda: line_settings.set_network(key, network),
            failed=self._refused(self.tr("Network setting not changed — {error}"), UnknownSessionKeyError, ValueError),
        )

    # -- skills (SKL-1) --------------------------------------------------------------

    def on_skill_catalog_wanted(self, key: str) -> None:
        """The line's skills (the person's folders and the line's own) are found off the GUI thread, from the
        folder its view names (no store read: it does not wait behind the store worker); the picker takes
        them only while it still shows that line. Asked by a switch, they are read once it is painted (issue 34
        item 1: the read would share the interpreter with the switch, and only the popup and ``/`` need them)."""
        if self._window.shown.switching:
            self._window.shown.after_paint(self._read_skill_catalog)
        else:
            self._read_skill_catalog()

    def _read_skill_catalog(self) -> None:
        view, picker = self._window.shown.view, self._pane.skill_picker
        key = picker.key
        if view is None or key is None or view.key != key:
            return
        folder, skills = view.thread.workspace_binding.path, self._window.controller.skills
        run_off_thread(
            lambda: skills.skill_catalog_in(folder),
            lambda catalog: picker.set_catalog(key, catalog),
            self._window.failure(self.tr("Skills not read — {error}"), OSError),
            parent=picker,
        )

    def on_skill_catalog_changed(self) -> None:
        """The composer's ``/`` list offers the shown line's skills too."""
        catalog = self._pane.skill_picker.catalog
        skills = catalog.skills if catalog is not None else ()
        self._pane.slash_completer.set_skills(tuple((s.name, s.description) for s in skills))

    def on_skills_picked(self, key: str, names: tuple[str, ...]) -> None:
        """The picker's selection is the line's, saved on the store worker; LineUpdated redraws it."""
        skills = self._window.controller.skills
        self._window.operations.run(
            lambda: skills.set_skills(key, only=names),
            failed=self._refused(self.tr("Skills not changed — {error}"), UnknownSessionKeyError, LookupError),
        )

    # -- the provider (issue 30) and the providers -----------------------------------------

    @Slot(int)
    def on_provider_picked(self, _index: int) -> None:
        """The provider picked for a line is the line's (its execution binding), on the store worker; it
        survives a restart and `thread show` names it. A refusal puts the picker back."""
        view = self._window.shown.view
        if view is None or view.thread.execution_binding.mode is ExecutionMode.ACP:
            return
        chosen = self._pane.chosen_provider()
        if chosen == view.thread.execution_binding.provider:
            return
        key, line_settings = view.key, self._window.controller.line_settings
        self._provider_picks[key] = chosen  # shown until stored: a view read meanwhile does not undo it

        def stored(_thread: object = None) -> None:
            if self._provider_picks.get(key) == chosen:
                del self._provider_picks[key]

        def refused() -> None:
            stored()
            self.show_stored_settings()

        self._window.operations.run(  # LineUpdated redraws
            lambda: line_settings.set_execution(key, ExecutionMode.NATIVE, chosen),
            done=stored,
            failed=self._window.failure(
                self.tr("Provider not changed — {error}"), ValueError, LookupError, then=refused
            ),
        )

    def refresh_providers(self) -> None:
        """Re-read the providers on the store worker (issue 33 item 2): the pickers' choices and the "no
        provider" banner are redrawn when they arrive."""
        read_providers(self._window.controller).run(
            self._window.operations,
            done=lambda table: self.show_providers(table.providers),
            failed=self._window.show_error,
        )

    def show_providers(self, providers: list[ProviderRecord]) -> None:
        """Show these providers in the pickers and the banner (read by ``refresh_providers`` or an operation)."""
        self._providers = providers
        self._choices.clear()
        self._pane.set_providers(providers)
        self._pane.mode_picker.set_agents(providers)
        if (view := self._window.shown.view) is not None:
            self._pane.mode_picker.show_line(view)
            self._show_provider_choices(view)
        self._show_provider_state()

    def _show_provider_choices(self, view: LineView) -> None:
        """Issue 18: the picker offers only the providers this line may use (its category's, by the router's
        rule) and names the one that will run: the line's own provider, or "Default — <name>"."""
        thread = view.thread
        shape = (thread.category, thread.execution_binding.provider)
        choices = self._choices.get(shape)
        if choices is None:
            try:
                choices = self._window.controller.providers.provider_choices(view.key, self._providers, thread)
            except Exception as exc:  # a broken provider record must not stop the line from showing
                log.warning("could not work out the providers of %s: %s", view.key, exc)
                return
            self._choices[shape] = choices
        default = (
            self.tr("Default — {provider}").format(provider=choices.will_run)
            if choices.will_run
            else DEFAULT_PROVIDER_LABEL
        )
        self._pane.set_providers(list(choices.allowed), default_label=default)
        self._pane.choose_provider(self._provider_picks.get(view.key, view.thread.execution_binding.provider))

    def _show_provider_state(self) -> None:
        """An ACP line runs its agent, not a provider: no banner, no provider to pick."""
        view = self._window.shown.view
        acp = view is not None and view.thread.execution_binding.mode is ExecutionMode.ACP
        self._pane.show_provider_banner(not acp and not offers_agent_provider(self._providers))
        picker = self._pane.provider_picker
        picker.setEnabled(not acp)
        picker.setToolTip(
            self.tr("This line runs an external agent (ACP); it does not use these providers")
            if acp
            else self.tr("The provider for the next turn; Default uses the default provider")
        )

    @Slot(object)
    def on_external_change(self, change: object) -> None:
        """Another process wrote providers (issue 18): read them again."""
        if not getattr(change, "providers", False) or self._window.closed:
            return
        self._window.operations.query(
            self._window.controller.providers.records,
            done=self.show_providers,
            failed=self._window.failure(self.tr("Could not read the providers — {error}")),
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
        from xworkmate.ui.settings.providers import ProviderSettingsDialog

        self.provider_dialog = ProviderSettingsDialog.open_for(self._window.window(), self._window.controller)
        self.provider_dialog.providers_changed.connect(self.refresh_providers)
        return self.provider_dialog
