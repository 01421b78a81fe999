"""The execution-mode picker of the composer: the built-in agent or an ACP agent CLI (SPEC §5, CAT-3).

``ModePicker`` offers "Built-in agent" and every configured ACP agent
("qwen (ACP)"). It only shows and reports a choice; the window asks the
controller to apply it (``set_execution``). On a category line the ACP
entries are disabled and say why: agent CLIs do not go through the category
router, so category content is never handed to them (CAT-3).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox, QWidget

from xworkmate.controllers import LineView
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.threads import ExecutionMode
from xworkmate.ui.marks import QT_TRANSLATE_NOOP

NATIVE_CHOICE = "native"
NATIVE_LABEL = QT_TRANSLATE_NOOP("ModePicker", "Built-in agent")
NO_AGENTS_LABEL = QT_TRANSLATE_NOOP("ModePicker", "No agent CLIs — add one in Settings → Providers")
NATIVE_TOOLTIP = QT_TRANSLATE_NOOP(
    "ModePicker", "The built-in agent: every model call goes through the providers and the category router"
)


def acp_choice(name: str) -> str:
    return f"acp:{name}"


def parse_choice(choice: str) -> tuple[ExecutionMode, str | None]:
    """``"native"`` or ``"acp:NAME"`` → the mode and provider for ``set_execution``."""
    if choice.startswith("acp:"):
        return ExecutionMode.ACP, choice[4:]
    return ExecutionMode.NATIVE, None


def category_tooltip(category: str) -> str:
    return QCoreApplication.translate(
        "ModePicker",
        "Not available: this line carries the category “{category}”. Its content may only reach providers "
        "tagged with it, and agent CLIs do not go through the category router.",
    ).format(category=category)


class ModePicker(QComboBox):
    """The "Built-in agent" entry and the ACP agents; a choice is read with ``chosen()``.

    Signals: only QComboBox's own (the window listens to ``currentIndexChanged``,
    which is never emitted for changes made by ``set_agents`` or ``show_line``).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modePicker")
        self.setAccessibleName(self.tr("Execution mode"))
        self.setToolTip(self.tr("Who runs this line: the built-in agent, or an external agent CLI over ACP"))
        self._agents: list[ProviderRecord] = []
        self._agent_entries: tuple[tuple[str, tuple[str, ...]], ...] = ()
        self._category: str | None = None
        self._entries: tuple[object, ...] | None = None  # what the entries were built from: agents, category
        self._unconfigured = False  # an entry names the shown line's agent that is no longer configured
        self._rebuild(NATIVE_CHOICE)

    # -- filling --------------------------------------------------------------

    def set_agents(self, providers: Sequence[ProviderRecord]) -> None:
        """The configured ACP agents (other providers are ignored); keeps the current choice."""
        self._agents = [p for p in providers if p.kind is ProviderKind.ACP]
        self._agent_entries = tuple((p.name, p.acp_command) for p in self._agents)
        self._rebuild(self.chosen() or NATIVE_CHOICE)

    def show_line(self, view: LineView) -> None:
        """Select the line's execution binding; disable ACP on a category line (CAT-3)."""
        binding = view.thread.execution_binding
        choice = acp_choice(binding.provider or "") if binding.mode is ExecutionMode.ACP else NATIVE_CHOICE
        self._category = view.thread.category
        self._rebuild(choice)

    def _rebuild(self, choice: str) -> None:
        # The window re-shows the line on every update; an open popup must not be rebuilt under the cursor.
        entries = (self._agent_entries, self._category)
        if entries == self._entries and self.chosen() == choice:
            return
        if entries == self._entries and not self._unconfigured and (index := self.findData(choice)) >= 0:
            # Issue 34 item 1: a switch between lines of the same agents and category only selects.
            blocked = self.blockSignals(True)
            self.setCurrentIndex(index)
            self.blockSignals(blocked)
            return
        self._entries, self._unconfigured = entries, False
        blocked = self.blockSignals(True)
        try:
            self.clear()
            self.addItem(QCoreApplication.translate("ModePicker", NATIVE_LABEL), NATIVE_CHOICE)
            self.setItemData(0, QCoreApplication.translate("ModePicker", NATIVE_TOOLTIP), Qt.ItemDataRole.ToolTipRole)
            self.insertSeparator(self.count())
            if not self._agents:
                self.addItem(QCoreApplication.translate("ModePicker", NO_AGENTS_LABEL), None)
                self._disable(
                    self.count() - 1, self.tr("Settings → Providers → Find agent CLIs on PATH, or add one by hand")
                )
            for record in self._agents:
                self.addItem(self.tr("{name} (ACP)").format(name=record.name), acp_choice(record.name))
                row = self.count() - 1
                if self._category is not None:
                    self._disable(row, category_tooltip(self._category))
                else:
                    tip = self.tr("Run this line with {name} over ACP: {command}").format(
                        name=record.name, command=" ".join(record.acp_command)
                    )
                    self.setItemData(row, tip, Qt.ItemDataRole.ToolTipRole)
            index = self.findData(choice)
            if index < 0 and choice != NATIVE_CHOICE:
                # The line names an agent that is no longer configured: say so rather than pretend.
                self.addItem(self.tr("{name} (ACP — not configured)").format(name=choice[4:]), choice)
                index = self.count() - 1
                self._disable(index, self.tr("This agent was removed from Settings → Providers; choose another"))
                self._unconfigured = True  # that entry is this line's only: the next line's rebuilds
            self.setCurrentIndex(max(index, 0))
        finally:
            self.blockSignals(blocked)

    def _disable(self, row: int, tooltip: str) -> None:
        model = self.model()
        if isinstance(model, QStandardItemModel):
            item = model.item(row)
            if item is not None:
                item.setEnabled(False)
        self.setItemData(row, tooltip, Qt.ItemDataRole.ToolTipRole)

    # -- reading --------------------------------------------------------------

    def chosen(self) -> str | None:
        data = self.currentData()
        return str(data) if data else None

    def is_enabled_at(self, row: int) -> bool:
        model = self.model()
        if isinstance(model, QStandardItemModel):
            item = model.item(row)
            return item is not None and item.isEnabled()
        return True

    def choices(self) -> list[tuple[str, str | None, bool]]:
        """Every entry as (label, choice, enabled); separators left out."""
        out: list[tuple[str, str | None, bool]] = []
        for row in range(self.count()):
            if self.itemData(row, Qt.ItemDataRole.AccessibleDescriptionRole) == "separator":
                continue
            data = self.itemData(row)
            out.append((self.itemText(row), str(data) if data else None, self.is_enabled_at(row)))
        return out
