"""The line's ACP agent in the composer area: its modes, models and config options, the slash
completer, and the usage meter in the line header (issue 15, items 4-6).

Views only. ``AgentSessionBar`` shows ``AgentSessionState`` and reports picks;
``SlashCompleter`` offers the agent's commands when the composer starts with
``/``; ``UsageMeter`` shows ``LineUsage``. The window asks the controller to
apply a pick (``choose_agent_mode`` …) and re-shows the state it gets back.

``AgentSessionDeleter`` answers the bar's ``session_delete_requested``: it asks the controller to delete
the agent's session (``session/delete``) off the GUI thread and shows what the agent has left.

Signals:
    AgentSessionBar.mode_picked(str), model_picked(str), config_picked(str, object), session_picked(str),
    session_delete_requested(str)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QPainter, QPaintEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QCompleter,
    QHBoxLayout,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QTreeView,
    QWidget,
)

from xworkmate.domain.agent_session import (
    AgentChoice,
    AgentCommand,
    AgentConfigOption,
    AgentSessionState,
    LineUsage,
)
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.pickers import fill
from xworkmate.ui.settings.mcp_servers import McpPicker
from xworkmate.ui.theme import METRICS, current

if TYPE_CHECKING:
    from xworkmate.controllers.agent_session import AgentSessionController


class AgentSession(Protocol):
    """One of the agent's sessions as ``session/list`` named it (the ui imports no agent code)."""

    @property
    def session_id(self) -> str: ...

    @property
    def title(self) -> str | None: ...


class AgentSessions(Protocol):
    """What ``controller.agents.agent_sessions`` answers: whether the agent lists (and deletes) sessions, and
    which it has."""

    @property
    def supported(self) -> bool: ...

    @property
    def deletes(self) -> bool: ...

    @property
    def sessions(self) -> Sequence[AgentSession]: ...


__all__ = [
    "METER_FULL",
    "AgentSessionBar",
    "AgentSessionDeleter",
    "SessionDeleteDialog",
    "SlashCompleter",
    "UsageMeter",
    "session_label",
]

log = logging.getLogger(__name__)

METER_FULL = 0.8
"""From this fill of the context on, the usage meter's bar is painted in the warning colour."""

_PICKER_MIN_WIDTH = 90


def _fill(picker: QComboBox, choices: tuple[AgentChoice, ...], current: str | None) -> None:
    fill(picker, [(choice.name, choice.id, choice.description or "") for choice in choices])  # issue 34: if changed
    blocked = picker.blockSignals(True)
    try:
        index = picker.findData(current) if current is not None else -1
        picker.setCurrentIndex(max(index, 0))
    finally:
        picker.blockSignals(blocked)


class AgentSessionBar(QWidget):
    """Mode, model and config-option pickers of the line's ACP agent; hidden where it offers none."""

    mode_picked = Signal(str)
    session_picked = Signal(str)
    session_delete_requested = Signal(str)
    """Issue 32 item 6: the person chose to delete one of the agent's sessions and confirmed it."""
    model_picked = Signal(str)
    config_picked = Signal(str, object)
    editors_rebuilt = Signal()
    """The config options' pickers were made anew (the window's Elider watches them: issue 30 item 4)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("acpSessionBar")
        self.mode_picker = QComboBox()
        self.mode_picker.setObjectName("acpModePicker")
        self.mode_picker.setAccessibleName(self.tr("Agent mode"))
        self.mode_picker.setToolTip(self.tr("The agent's mode (sent as its mode option, or session/set_mode)"))
        self.model_picker = QComboBox()
        self.model_picker.setObjectName("acpModelPicker")
        self.model_picker.setAccessibleName(self.tr("Agent model"))
        self.model_picker.setToolTip(self.tr("The agent's model (sent as its model option)"))
        self.config_area = QWidget()
        self.config_area.setObjectName("acpConfigOptions")
        self._config_layout = QHBoxLayout(self.config_area)
        self._config_layout.setContentsMargins(0, 0, 0, 0)
        for picker in (self.mode_picker, self.model_picker):
            picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            picker.setMinimumContentsLength(4)
            picker.setMinimumWidth(_PICKER_MIN_WIDTH)
        self.mcp_picker = McpPicker()  # item 3: on every ACP line, offers or not
        # Item 7: the agent's existing sessions (session/list), offered when a line is bound to it.
        self.session_picker = QComboBox()
        self.session_picker.setObjectName("acpSessionPicker")
        self.session_picker.setAccessibleName(self.tr("Agent session"))
        self.session_picker.setToolTip(self.tr("Continue one of the agent's existing sessions, or start a new one"))
        self.session_picker.setVisible(False)
        self.session_picker.activated.connect(self._on_session)
        # Issue 32 item 6: delete one of them (session/delete), offered only where the agent advertises it.
        self.session_delete = QToolButton()
        self.session_delete.setObjectName("acpSessionDelete")
        self.session_delete.setText(self.tr("Delete…"))
        self.session_delete.setAccessibleName(self.tr("Delete an agent session"))
        self.session_delete.setToolTip(self.tr("Delete one of the agent's sessions; the agent forgets it for good"))
        self.session_delete.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._delete_menu = QMenu(self.session_delete)
        self._delete_menu.setObjectName("acpSessionDeleteMenu")
        self.session_delete.setMenu(self._delete_menu)
        self.session_delete.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.mcp_picker)
        layout.addWidget(self.session_picker)
        layout.addWidget(self.session_delete)
        layout.addWidget(self.mode_picker)
        layout.addWidget(self.model_picker)
        layout.addWidget(self.config_area)
        layout.addStretch(1)
        self._shown: AgentSessionState | None = None
        self._config_shape: tuple[object, ...] = ()
        self.mode_picker.activated.connect(self._on_mode)
        self.model_picker.activated.connect(self._on_model)
        self.hide()

    def show_state(self, state: AgentSessionState | None) -> None:
        """The line's offers and picks; None (not an ACP line) hides the bar."""
        if state is None:
            self._shown = state
            self.hide()
            return
        if state == self._shown and self.isVisible():
            return  # an open popup is not rebuilt under the cursor
        self._shown = state
        _fill(self.mode_picker, state.modes, state.shown_mode)
        self.mode_picker.setVisible(bool(state.modes))
        _fill(self.model_picker, state.models, state.shown_model)
        self.model_picker.setVisible(bool(state.models))
        self._show_config(state)
        self.config_area.setVisible(bool(state.other_options))
        self.show()

    def _show_config(self, state: AgentSessionState) -> None:
        # A mode or model option is shown by the mode or model picker, not a second time here (issue 32).
        options = state.other_options
        shape = tuple((o.id, o.name, o.kind, o.choices) for o in options)
        if shape != self._config_shape:  # new options: new widgets; otherwise only their values change
            self._config_shape = shape
            while self._config_layout.count():
                item = self._config_layout.takeAt(0)
                widget = item.widget() if item is not None else None
                if widget is not None:
                    widget.deleteLater()
            for option in options:
                self._config_layout.addWidget(self._config_editor(option))
            self.editors_rebuilt.emit()
        for option in options:
            widget = self.config_widget(option.id)
            value = state.shown_config(option)
            blocked = widget.blockSignals(True) if widget is not None else False
            if isinstance(widget, QCheckBox):
                widget.setChecked(bool(value))
            elif isinstance(widget, QComboBox):
                widget.setCurrentIndex(max(widget.findData(str(value)), 0))
            if widget is not None:
                widget.blockSignals(blocked)

    def _config_editor(self, option: AgentConfigOption) -> QWidget:
        tip = f"{option.name}: {option.description}" if option.description else option.name
        if option.kind == "boolean":
            box = QCheckBox(option.name)
            box.setObjectName(f"acpConfigOption:{option.id}")
            box.setToolTip(tip)
            box.clicked.connect(lambda checked, oid=option.id: self.config_picked.emit(oid, bool(checked)))
            return box
        picker = QComboBox()
        picker.setObjectName(f"acpConfigOption:{option.id}")
        picker.setAccessibleName(option.name)
        picker.setToolTip(tip)
        _fill(picker, option.choices, None)
        picker.activated.connect(lambda _i, oid=option.id, p=picker: self.config_picked.emit(oid, str(p.currentData())))
        return picker

    def config_widget(self, config_id: str) -> QWidget | None:
        return self.config_area.findChild(QWidget, f"acpConfigOption:{config_id}")

    def show_sessions(self, sessions: list[tuple[str, str]], *, deletable: bool = False) -> None:
        """(id, label) of the agent's sessions for this line's folder; empty hides the picker. ``deletable``:
        the agent advertises session/delete, so each can be deleted (``acpSessionDelete``)."""
        blocked = self.session_picker.blockSignals(True)
        try:
            self.session_picker.clear()
            self.session_picker.addItem(self.tr("New session"), "")
            for session_id, label in sessions:
                self.session_picker.addItem(label, session_id)
        finally:
            self.session_picker.blockSignals(blocked)
        self.session_picker.setVisible(bool(sessions))
        self._delete_menu.clear()
        for session_id, label in sessions if deletable else []:
            action = QAction(label, self._delete_menu)
            action.setObjectName(f"acpDeleteSession:{session_id}")
            action.triggered.connect(lambda _checked=False, sid=session_id, text=label: self._on_delete(sid, text))
            self._delete_menu.addAction(action)
        self.session_delete.setVisible(bool(sessions) and deletable)

    def show_agent_sessions(self, found: AgentSessions) -> None:
        """What ``agent_sessions`` answered: its sessions, each deletable where the agent deletes sessions."""
        shown = [(s.session_id, session_label(s)) for s in found.sessions] if found.supported else []
        self.show_sessions(shown, deletable=found.deletes)

    def delete_actions(self) -> list[QAction]:
        """The sessions offered for deletion, in the menu's order."""
        return list(self._delete_menu.actions())

    def _on_delete(self, session_id: str, label: str) -> None:
        if SessionDeleteDialog.ask(self, label):
            self.session_delete_requested.emit(session_id)

    def _on_session(self, _index: int) -> None:
        data = self.session_picker.currentData()
        if data:
            self.session_picked.emit(str(data))

    def _on_mode(self, _index: int) -> None:
        data = self.mode_picker.currentData()
        if data is not None:
            self.mode_picked.emit(str(data))

    def _on_model(self, _index: int) -> None:
        data = self.model_picker.currentData()
        if data is not None:
            self.model_picked.emit(str(data))


def session_label(session: AgentSession) -> str:
    """How the picker names an agent's session: its title and id, or its id."""
    return f"{session.title} ({session.session_id})" if session.title else session.session_id


class SessionDeleteDialog:
    """Deleting an agent's session cannot be undone (the agent forgets it): only when the person says so."""

    @classmethod
    def ask(cls, parent: QWidget | None, label: str) -> bool:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            QCoreApplication.translate("SessionDeleteDialog", "Delete agent session"),
            QCoreApplication.translate(
                "SessionDeleteDialog", "Delete the agent's session “{label}”? The agent forgets it for good."
            ).format(label=label),
            parent=parent,
        )
        box.setObjectName("sessionDeleteDialog")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText(
            QCoreApplication.translate("SessionDeleteDialog", "Delete session")
        )
        return box.exec() == QMessageBox.StandardButton.Yes


class AgentSessionDeleter(QObject):
    """Issue 32 item 6: the bar's ``session_delete_requested`` → ``session/delete`` through the controller
    (``agent_sessions(key, delete=…)``: the agent started as for a listing, off the GUI thread, on the loop);
    the bar then shows what the agent has left. A refusal or failure is one line through ``show_error``
    (ERR-1); a line bound to the deleted session starts a new one on its next turn (the controller's rule).

    ``shown_key`` says which line the bar shows (None: none). The window makes one and keeps it."""

    def __init__(
        self,
        bar: AgentSessionBar,
        agents: AgentSessionController,
        shown_key: Callable[[], str | None],
        show_error: Callable[[str], None],
    ) -> None:
        super().__init__(bar)
        self._bar = bar
        self._agents = agents
        self._shown_key = shown_key
        self._show_error = show_error
        self.pending: asyncio.Future[Any] | None = None
        """The deletion under way (tests and the window may wait for it)."""
        bar.session_delete_requested.connect(self.on_session_delete_requested)

    def on_session_delete_requested(self, session_id: str) -> None:
        key = self._shown_key()
        if key is None:
            return
        self._bar.session_delete.setEnabled(False)  # one deletion at a time
        self.pending = asyncio.ensure_future(self._delete(key, session_id))

    async def _delete(self, key: str, session_id: str) -> None:
        try:
            found = await self._agents.agent_sessions(key, delete=session_id)
        except Exception as exc:  # ERR-1: the agent refused or could not be asked; one line, the log has the rest
            log.info("session/delete of %s on %s failed", session_id, key, exc_info=True)
            message = QCoreApplication.translate("AgentSessionDeleter", "Agent session not deleted — {error}")
            self._show_error(message.format(error=plain_words(str(exc))))
            return
        finally:
            self._bar.session_delete.setEnabled(True)
        if self._shown_key() == key:
            self._bar.show_agent_sessions(found)


class UsageMeter(QWidget):
    """The line's usage in the header (``usageMeter``, issue 30 item 2): a small painted bar of the context's
    fill beside its compact figure (``12k/128k``; the tokens in and out ``↑4.1k ↓812`` where the agent says
    no context size, then no bar); the tooltip spells it out in the person's language. Colours are the
    theme's tokens: the track ``border``, the fill ``accent`` (``danger-border`` from ``METER_FULL``)."""

    BAR_WIDTH = METRICS["space-5"] * 2
    BAR_HEIGHT = METRICS["space-1"] + 2

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("usageMeter")
        self.setAccessibleName(self.tr("Usage"))
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self._text = ""
        self._fill: float | None = None
        self.show_usage(LineUsage())

    def text(self) -> str:
        """The compact figure painted beside the bar."""
        return self._text

    @property
    def fill(self) -> float | None:
        """The context's fill, 0 to 1; None when the agent did not say its size (no bar then)."""
        return self._fill

    def show_usage(self, usage: LineUsage) -> None:
        self._text = "" if usage.empty else usage.compact()
        size = usage.context_size
        self._fill = min(usage.context_used / size, 1.0) if usage.context_used is not None and size else None
        self.setVisible(not usage.empty)
        self.setToolTip(self._details(usage))
        self.setAccessibleDescription(self.toolTip())
        self.updateGeometry()
        self.update()

    def _details(self, usage: LineUsage) -> str:
        parts = []
        if usage.context_used is not None:
            used = f"{usage.context_used:,}"
            if usage.context_size:
                context = self.tr("Context: {used} of {size} tokens").format(used=used, size=f"{usage.context_size:,}")
            else:
                context = self.tr("Context: {used} tokens (size not reported)").format(used=used)
            parts.append(context)
        parts.append(
            self.tr("Tokens in: {tokens_in}, out: {tokens_out}").format(
                tokens_in=f"{usage.tokens_in:,}", tokens_out=f"{usage.tokens_out:,}"
            )
        )
        cost = (
            f"{usage.cost:.4f} {usage.currency or ''}".rstrip() if usage.cost is not None else self.tr("not reported")
        )
        parts.append(self.tr("Cost: {cost}").format(cost=cost))
        return "\n".join(parts)

    def _bar_room(self) -> int:
        return self.BAR_WIDTH + METRICS["space-1"] if self._fill is not None else 0

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        width = self._bar_room() + metrics.horizontalAdvance(self._text) + 2 * METRICS["space-1"]
        return QSize(width, max(metrics.height(), self.BAR_HEIGHT))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def bar_rect(self) -> QRect:
        """Where the bar is painted (empty when there is none)."""
        if self._fill is None:
            return QRect()
        top = (self.height() - self.BAR_HEIGHT) // 2
        return QRect(METRICS["space-1"], top, self.BAR_WIDTH, self.BAR_HEIGHT)

    def paintEvent(self, event: QPaintEvent) -> None:
        theme = current()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        radius = self.BAR_HEIGHT / 2
        bar = self.bar_rect()
        if self._fill is not None:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(theme.color("border"))
            painter.drawRoundedRect(QRectF(bar), radius, radius)
            filled = QRectF(bar.x(), bar.y(), max(bar.width() * self._fill, self.BAR_HEIGHT), bar.height())
            painter.setBrush(theme.color("danger-border" if self._fill >= METER_FULL else "accent"))
            painter.drawRoundedRect(filled, radius, radius)
        painter.setPen(theme.color("muted-text"))
        painter.setFont(self.font())
        text_rect = self.rect().adjusted(METRICS["space-1"] + self._bar_room(), 0, 0, 0)
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, self._text)
        painter.end()


class SlashCompleter(QCompleter):
    """The agent's slash commands, offered when the composer's text starts with ``/`` (each with its
    description); choosing one puts ``/name `` in the composer."""

    NAME_ROLE = Qt.ItemDataRole.UserRole + 1
    SKILL_ROLE = Qt.ItemDataRole.UserRole + 2
    skill_chosen = Signal(str)
    """SKL-1: a skill chosen from the ``/`` list: the window selects it for the line (no text is inserted)."""

    def __init__(self, composer: QPlainTextEdit) -> None:
        super().__init__(composer)
        self.setObjectName("slashCompleter")
        self._composer = composer
        self._model = QStandardItemModel(0, 2, self)
        self.setModel(self._model)
        self.setCompletionColumn(0)
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        popup = QTreeView()
        popup.setObjectName("slashCompleterPopup")
        popup.setRootIsDecorated(False)
        popup.setHeaderHidden(True)
        popup.setUniformRowHeights(True)
        popup.setMinimumWidth(360)
        self.setPopup(popup)
        self.setWidget(composer)
        self.activated[str].connect(self.on_chosen)  # type: ignore[index]
        composer.textChanged.connect(self.on_text_changed)
        composer.installEventFilter(self)
        self._commands: tuple[AgentCommand, ...] = ()
        self._skills: tuple[tuple[str, str], ...] = ()

    def set_skills(self, skills: tuple[tuple[str, str], ...]) -> None:
        """SKL-1: the shown line's skills (name, description), offered after the agent's commands."""
        if skills != self._skills:
            self._skills = skills
            self._rebuild()

    def set_commands(self, commands: tuple[AgentCommand, ...]) -> None:
        if commands == self._commands:
            return
        self._commands = commands
        self._rebuild()

    def _rebuild(self) -> None:
        commands = self._commands
        self._model.setRowCount(0)
        for command in commands:
            name = QStandardItem(f"/{command.name}")
            name.setData(command.name, self.NAME_ROLE)
            description = command.description + (f" — {command.hint}" if command.hint else "")
            name.setToolTip(description)
            self._model.appendRow([name, QStandardItem(description)])
        for skill, about in self._skills:
            if any(c.name == skill for c in commands):
                continue  # the agent's own command keeps the name
            item = QStandardItem(f"/{skill}")
            item.setData(skill, self.NAME_ROLE)
            item.setData(True, self.SKILL_ROLE)
            shown = QCoreApplication.translate("SlashCompleter", "Skill: {description}").format(description=about)
            item.setToolTip(shown)
            self._model.appendRow([item, QStandardItem(shown)])
        popup = self.popup()
        if isinstance(popup, QTreeView):
            popup.resizeColumnToContents(0)

    def commands(self) -> tuple[AgentCommand, ...]:
        return self._commands

    def _list(self) -> QAbstractItemView:
        popup = self.popup()  # QCompleter makes its list on first use; never None after
        assert popup is not None
        return popup

    def on_text_changed(self) -> None:
        text = self._composer.toPlainText()
        word = text.split(maxsplit=1)[0] if text.strip() else ""
        if not (self._commands or self._skills) or not text.startswith("/") or " " in text or "\n" in text:
            self._list().hide()
            return
        self.setCompletionPrefix(word)
        if self.completionCount() == 0:
            self._list().hide()
            return
        rect = self._composer.cursorRect()
        rect.setWidth(self._list().sizeHintForColumn(0) + self._list().sizeHintForColumn(1) + 24)
        self.complete(rect)

    def on_chosen(self, text: str) -> None:
        found = self._model.findItems(text, Qt.MatchFlag.MatchExactly, 0)
        if found and found[0].data(self.SKILL_ROLE):
            self._list().hide()
            self._composer.clear()
            self.skill_chosen.emit(str(found[0].data(self.NAME_ROLE)))
            return
        self._composer.setPlainText(f"{text} ")
        cursor = self._composer.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self._composer.setTextCursor(cursor)
        self._list().hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # While the list is open, Return/Tab choose in it and must not also reach the composer.
        if watched is self._composer and event.type() == QEvent.Type.KeyPress and self._list().isVisible():
            key = event.key() if isinstance(event, QKeyEvent) else None
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
                index = self._list().currentIndex()
                chosen = index.siblingAtColumn(0).data() if index.isValid() else self.currentCompletion()
                if chosen:
                    self.on_chosen(str(chosen))
                return True
        return super().eventFilter(watched, event)
