"""The centre pane: the line's header and status, the conversation list, approvals and the composer (ISO-4, ISO-5)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics, QGuiApplication, QMouseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import ApprovalRequested, LineView
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.threads import NetworkAccess, PermissionLevel, ThreadStatus
from xworkmate.presentation.wording import line_title, plain_words
from xworkmate.ui.agent.agent_session import AgentSessionBar, SlashCompleter, UsageMeter
from xworkmate.ui.agent.approvals import ApprovalArea
from xworkmate.ui.agent.execution import ModePicker
from xworkmate.ui.agent.skills import SkillPicker
from xworkmate.ui.conversation.composer import AttachmentStrip, Composer
from xworkmate.ui.conversation.followup_queue import FollowUpQueueStrip
from xworkmate.ui.conversation.interrupted_bar import InterruptedTurnBar
from xworkmate.ui.conversation.model import MessageListModel
from xworkmate.ui.conversation.network_bar import NetworkDeniedBar
from xworkmate.ui.conversation.view import MessageListView
from xworkmate.ui.first_run import EmptyConversation, status_without_provider
from xworkmate.ui.layout import grow_to_whole_text
from xworkmate.ui.marks import QT_TRANSLATE_NOOP
from xworkmate.ui.pickers import PickerItem, fill

# The texts below are English; the window shows them through QCoreApplication.translate(context, text).

EMPTY_CONVERSATION_TEXT = QT_TRANSLATE_NOOP("MessagePane", "No messages yet. Type a request below and press Enter.")
NO_PROVIDER_BANNER = QT_TRANSLATE_NOOP(
    "MessagePane",
    'No agent provider is configured, so nothing will run. <a href="settings:providers">Set up a provider…</a>',
)
DEFAULT_PROVIDER_LABEL = QT_TRANSLATE_NOOP("MessagePane", "Default provider")

PERMISSION_CHOICES: tuple[tuple[PermissionLevel, str, str], ...] = (
    (
        PermissionLevel.ASK,
        QT_TRANSLATE_NOOP("MessagePane", "Ask before edits"),
        QT_TRANSLATE_NOOP("MessagePane", "Ask before every edit and every command"),
    ),
    (
        PermissionLevel.AUTO_EDIT,
        QT_TRANSLATE_NOOP("MessagePane", "Auto-edit"),
        QT_TRANSLATE_NOOP("MessagePane", "Edits inside the folder run at once; commands still ask"),
    ),
    (
        PermissionLevel.FULL,
        QT_TRANSLATE_NOOP("MessagePane", "Full access"),
        QT_TRANSLATE_NOOP("MessagePane", "Edits and commands run without asking"),
    ),
)

# SBX-4: the line's network, as the picker beside the permission level offers it.
NETWORK_CHOICES: tuple[tuple[NetworkAccess, str, str], ...] = (
    (
        NetworkAccess.OFF,
        QT_TRANSLATE_NOOP("MessagePane", "Network off"),
        QT_TRANSLATE_NOOP("MessagePane", "Commands run without network; an ACP agent reaches only its model hosts"),
    ),
    (
        NetworkAccess.ALLOW_LIST,
        QT_TRANSLATE_NOOP("MessagePane", "Allow-list"),
        QT_TRANSLATE_NOOP("MessagePane", "Only the hosts listed for this line, through XWorkmate's proxy"),
    ),
    (
        NetworkAccess.ON,
        QT_TRANSLATE_NOOP("MessagePane", "Network on"),
        QT_TRANSLATE_NOOP("MessagePane", "The whole network, local services included"),
    ),
)

# How long a notice stands over the line's run status unless dismissed (see MessagePane.show_status):
# an error long enough to be read even when the person looked away for a moment.
NOTICE_MS = 6_000
ERROR_NOTICE_MS = 15_000

PICKER_MIN_WIDTH = 50
HEADER_LABEL_MIN_WIDTH = 40


def line_status_text(view: LineView, last_failure: str | None = None) -> tuple[str, str]:
    """What ``lineStatusLabel`` says about a line, and how loudly (ISO-4); ``last_failure``: why its last
    run failed, said while it is runnable, until it runs again (ERR-1)."""
    explanation = plain_words(view.explanation)
    if view.needs_sign_in:  # issue 15: waiting for the person, not running
        return QCoreApplication.translate("MessagePane", "Waiting for you — {explanation}.").format(
            explanation=explanation
        ), "error"
    if view.status is ThreadStatus.RUNNABLE and last_failure is not None:
        text = QCoreApplication.translate("MessagePane", "Runnable — the last run failed: {error}")
        return text.format(error=plain_words(last_failure)), "error"
    if view.status is ThreadStatus.RUNNABLE:
        return QCoreApplication.translate("MessagePane", "Runnable — ready."), "ok"
    if view.status is ThreadStatus.RUNNING:
        text = QCoreApplication.translate("MessagePane", "Running — {explanation}. Stop (Esc) interrupts it.")
        return text.format(explanation=explanation), "busy"
    return QCoreApplication.translate("MessagePane", "Not runnable — {explanation}").format(
        explanation=explanation
    ), "blocked"


def _choices_picker(name: str, choices: Sequence[tuple[StrEnum, str, str]], parent: QWidget | None = None) -> QComboBox:
    """A picker of a line's setting: each choice's translated label and tooltip, its value as the item data."""
    picker = QComboBox(parent)
    picker.setObjectName(name)
    for value, label, tip in choices:
        picker.addItem(QCoreApplication.translate("MessagePane", label), value.value)
        picker.setItemData(
            picker.count() - 1, QCoreApplication.translate("MessagePane", tip), Qt.ItemDataRole.ToolTipRole
        )
    return picker


def _show_choice(picker: QComboBox, value: str) -> None:
    """Show the stored ``value`` without it counting as the person's pick."""
    index = picker.findData(value)
    if index >= 0 and index != picker.currentIndex():
        blocked = picker.blockSignals(True)
        picker.setCurrentIndex(index)
        picker.blockSignals(blocked)


KEY_CHIP_CHARS = 16
"""How many characters of the session key the header's chip shows at most (``draft:…D4XAMA``)."""
KEY_CHIP_MIN_CHARS = 8
"""Below room for this many, the chip is hidden rather than cut to a stub: the title keeps the room."""


class KeyChip(QLabel):
    """The line's session key as a small chip (``sessionKeyLabel``): elided in the middle by the window's
    ``Elider`` (its ``text()`` stays the whole key), whole in its tooltip; a click copies it (``copied``)."""

    copied = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sessionKeyLabel")
        self._widths: dict[tuple[str, int], int] = {}
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setProperty("elideMode", "middle")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        self.setMaximumWidth(self.width_for(KEY_CHIP_CHARS))
        self.setToolTip(self.tr("This line's session key; click to copy it"))  # after the whole key, when elided

    def width_for(self, chars: int) -> int:
        """The chip's width showing ``chars`` characters of its font (its padding included), or its whole
        text if that is narrower. Kept per text until the font or style changes (a switch asks it twice a
        header fit, and each fit measured the text again: issue 34 item 1)."""
        key = (self.text(), chars)
        width = self._widths.get(key)
        if width is None:
            metrics, whole = self.fontMetrics(), self.sizeHint().width()
            chrome = max(whole - metrics.horizontalAdvance(self.text()), 0)
            width = self._widths[key] = min(whole, metrics.horizontalAdvance("M" * chars) + chrome)
            if len(self._widths) > 64:  # one key at a time is shown: never let this grow
                self._widths = {key: width}
        return width

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._widths.clear()
        super().changeEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            QGuiApplication.clipboard().setText(self.text())
            self.copied.emit(self.text())
            event.accept()
            return
        super().mouseReleaseEvent(event)


class MessagePane(QWidget):
    """Centre pane: header with the raw toggle; the conversation; approvals; composer, pickers, Stop and Send.

    A view only: the window connects to its child widgets.

    Signals:
        provider_settings_requested(): the person followed the "set up a provider" link.
    """

    provider_settings_requested = Signal()

    def __init__(self, model: MessageListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messagePane")
        # Issue 34 item 4: built from the top down, each row in the pane's layout before its widgets go in, and in
        # the layout's order (which is the order Tab walks what the window does not order itself): Qt styles
        # each widget once where it stays, where a row styled and then moved into the pane was styled again,
        # widget by widget (``tests/ui/test_startup_styling.py``).
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)

        header_row = QHBoxLayout()
        self._header_row = header_row
        layout.addLayout(header_row)
        self.title_label = QLabel()
        self.title_label.setObjectName("lineTitleLabel")
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)
        # Issue 30 item 2: the title takes the header's room; the key is a small chip (elided in the middle,
        # whole in its tooltip) that copies itself when clicked.
        self.title_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        # An explicit minimum keeps the window's minimum size the same whatever the line's title or
        # key: otherwise each switch changes it, and the whole window is laid out and painted again.
        self.title_label.setMinimumWidth(HEADER_LABEL_MIN_WIDTH)
        header_row.addWidget(self.title_label, 1)
        # Issue 16: a worktree line's branch, beside its title.
        self.branch_label = QLabel()
        self.branch_label.setObjectName("lineBranchLabel")
        self.branch_label.setTextFormat(Qt.TextFormat.PlainText)
        self.branch_label.setVisible(False)
        header_row.addWidget(self.branch_label)
        # Issue 15: the ACP agent's modes, models, config options and slash commands; the usage meter.
        self.usage_meter = UsageMeter(self)
        header_row.addWidget(self.usage_meter)  # issue 15, item 6
        self.raw_toggle = QToolButton(self)
        self.raw_toggle.setObjectName("rawToggle")
        self.raw_toggle.setText(self.tr("Raw"))
        self.raw_toggle.setCheckable(True)
        self.raw_toggle.setToolTip(self.tr("Show the agent's answers as plain Markdown source instead of rendered"))
        header_row.addWidget(self.raw_toggle)
        self.session_key_label = KeyChip(self)
        self.session_key_label.copied.connect(self._on_key_copied)
        self.session_key_label.setMinimumWidth(HEADER_LABEL_MIN_WIDTH)
        header_row.addWidget(self.session_key_label)

        self.status_label = QLabel()
        self.status_label.setObjectName("lineStatusLabel")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.status_label)

        self.stack = QStackedWidget(self)
        self.stack.setObjectName("messageStack")
        layout.addWidget(self.stack, 1)
        # Made on its own, at a top-level window's default size, as before: until the layout gives it its own,
        # that is the height the first page of a line opened meanwhile is measured on (``rows_to_fill``); a
        # child's default (100x30) would read the fewest rows and then a whole page more once it is laid out.
        self.message_list = MessageListView()
        self.message_list.setModel(model)
        self.stack.addWidget(self.message_list)
        self.empty_label = QLabel(QCoreApplication.translate("MessagePane", EMPTY_CONVERSATION_TEXT))
        self.empty_label.setObjectName("messageEmptyLabel")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_state = EmptyConversation(self.empty_label, self.stack)  # issue 18: first-run buttons under the text
        self.stack.addWidget(self.empty_state)
        self._provider_missing = False
        self._shown_view: LineView | None = None
        self._last_failure: str | None = None
        self._notice: tuple[str, str] | None = None  # see show_status
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.timeout.connect(self.clear_notice)
        self.status_label.installEventFilter(self)

        self.provider_banner = QLabel(QCoreApplication.translate("MessagePane", NO_PROVIDER_BANNER), self)
        self.provider_banner.setObjectName("noProviderBanner")
        self.provider_banner.setTextFormat(Qt.TextFormat.RichText)
        self.provider_banner.setWordWrap(True)
        self.provider_banner.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.provider_banner.linkActivated.connect(self._on_banner_link)
        self.provider_banner.hide()
        layout.addWidget(self.provider_banner)

        self.network_bar = NetworkDeniedBar(self)
        layout.addWidget(self.network_bar)  # SBX-4: a refused host, and "Allow this host for this line"
        self.interrupted_bar = InterruptedTurnBar(self)
        layout.addWidget(self.interrupted_bar)  # issue 31: a turn a crash cut short, and Resume
        self.approval_area = ApprovalArea(self)
        layout.addWidget(self.approval_area)
        self.followup_queue = FollowUpQueueStrip(self)  # issue 31: what Send queued while a turn runs
        layout.addWidget(self.followup_queue)
        # ATT-1: images and files pasted or dropped into the composer, sent with the message.
        self.attachment_strip = AttachmentStrip(self)
        self.attachment_strip.refused.connect(lambda line: self.show_status(line, "error"))
        layout.addWidget(self.attachment_strip)

        composer_row = QHBoxLayout()
        layout.addLayout(composer_row)
        self.composer = Composer(self)
        self.composer.setObjectName("composer")
        self.composer.image_offered.connect(self.attachment_strip.add_image)
        self.composer.files_offered.connect(self.attachment_strip.add_files)
        self.composer.setTabChangesFocus(True)
        self.composer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.composer.setFixedHeight(QFontMetrics(self.composer.font()).lineSpacing() * 5 + 12)
        composer_row.addWidget(self.composer, 1)
        button_column = QVBoxLayout()
        composer_row.addLayout(button_column)
        # SKL-1, ISO-5: the shown line's selected skills, and the list to change them.
        self.skill_picker = SkillPicker(self)
        button_column.addWidget(self.skill_picker)  # beside the composer: the picker row keeps its width
        button_column.addStretch(1)
        self.stop_button = QPushButton(self.tr("Stop"), self)
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setToolTip(self.tr("Stop this line's running turn (Esc); what streamed so far is kept"))
        self.stop_button.setEnabled(False)
        button_column.addWidget(self.stop_button)
        self.send_button = QPushButton(self.tr("Send"), self)
        self.send_button.setObjectName("sendButton")
        self.send_button.setToolTip(self.tr("Send to this task line (Enter, or Ctrl+Enter)"))
        self.send_button.setEnabled(False)
        button_column.addWidget(self.send_button)

        picker_row = QHBoxLayout()
        layout.addLayout(picker_row)
        self.mode_picker = ModePicker(self)
        picker_row.addWidget(self.mode_picker, 1)
        self.permission_picker = _choices_picker("permissionPicker", PERMISSION_CHOICES, self)
        self.permission_picker.setToolTip(self.tr("What the agent may do on this line without asking"))
        picker_row.addWidget(self.permission_picker, 1)
        # SBX-4: beside the permission level, what network the line's sandboxed processes reach.
        self.network_picker = _choices_picker("networkPicker", NETWORK_CHOICES, self)
        self.network_picker.setAccessibleName(self.tr("Network for commands"))
        self.network_picker.setToolTip(
            self.tr("What network this line's commands and agent reach: none, only the hosts on its allow-list, or all")
        )
        picker_row.addWidget(self.network_picker)
        self.provider_picker = QComboBox(self)
        self.provider_picker.setObjectName("providerPicker")
        self.provider_picker.setProperty("elideMode", "middle")  # "provider · model": both ends say the most
        self.provider_picker.setToolTip(self.tr("The provider for the next turn; Default uses the default provider"))
        picker_row.addWidget(self.provider_picker, 1)
        picker_row.addStretch(0)  # only what no picker can use: each grows to its whole text first
        self.set_providers([])
        for name, picker in (
            (self.tr("Execution mode"), self.mode_picker),
            (self.tr("Permission"), self.permission_picker),
            (self.tr("Provider"), self.provider_picker),
        ):
            picker.setAccessibleName(name)  # no label beside them: the items say what they are
            # They may shrink with the pane: the full text is in the popup and the tooltip.
            picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            picker.setMinimumContentsLength(4)
            picker.setMinimumWidth(PICKER_MIN_WIDTH)  # three pickers must not widen the narrowest window
            grow_to_whole_text(picker)  # and, with room, none is cut

        self.agent_bar = AgentSessionBar(self)
        layout.addWidget(self.agent_bar)
        self.slash_completer = SlashCompleter(self.composer)

        self.raw_toggle.toggled.connect(self.message_list.set_raw)

    # -- showing ------------------------------------------------------------

    def show_line(self, view: LineView, *, last_failure: str | None = None) -> None:
        """``last_failure``: why the line's last run failed, said in its status while it is runnable (ERR-1)."""
        if self._shown_view is not None and self._shown_view.key != view.key:
            self.clear_notice()  # another line: the notice was about the one left
        self._shown_view = view
        self._last_failure = last_failure
        self.title_label.setText(line_title(view.thread.thread_id, view.thread.title))
        self.session_key_label.setText(view.key)
        self._fit_header()
        binding = view.thread.workspace_binding
        self.branch_label.setVisible(binding.branch is not None)
        self.branch_label.setText(f"⎇ {binding.branch}" if binding.branch else "")
        self.branch_label.setToolTip(
            self.tr("git worktree of {repo}, on branch {branch}").format(repo=binding.repo, branch=binding.branch)
            if binding.branch
            else ""
        )
        self._show_status_line()
        self.show_permission(view.thread.context_state.permission_level)
        self.show_network(view.thread.context_state.network)
        self.mode_picker.show_line(view)
        self.mode_picker.setEnabled(view.status is not ThreadStatus.RUNNING)  # one way of running per turn
        self.skill_picker.show_selection(view.key, view.thread.context_state.selected_skills)  # ISO-5
        self.stop_button.setEnabled(view.status is ThreadStatus.RUNNING)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Resize, QEvent.Type.StyleChange):
            self._fit_header()  # a title, a meter or a branch changed width, or the pane did
        return handled

    def _fit_header(self) -> None:
        """Issue 30 item 2: the title first and whole, the key's chip with the room left — up to
        ``KEY_CHIP_CHARS`` characters, elided in the middle below that, hidden below ``KEY_CHIP_MIN_CHARS``
        (it shows again when the room comes back)."""
        chip, row = self.session_key_label, self._header_row
        layout = self.layout()
        margins = layout.contentsMargins() if layout is not None else None
        room = self.width() - (margins.left() + margins.right() if margins is not None else 0)
        others = [w for w in (self.branch_label, self.usage_meter, self.raw_toggle) if not w.isHidden()]
        spacing = max(row.spacing(), 0)
        taken = sum(w.sizeHint().width() for w in others) + spacing * (len(others) + 1)
        left = room - taken - self.title_label.sizeHint().width()
        wanted = chip.width_for(KEY_CHIP_CHARS)
        fits = left >= min(chip.width_for(KEY_CHIP_MIN_CHARS), wanted)
        width = max(min(left, wanted), 0) if fits else wanted
        if chip.maximumWidth() != width:
            chip.setMaximumWidth(width)
        if chip.isHidden() == fits:
            chip.setVisible(fits)

    def show_status(self, text: str, severity: str) -> None:
        """A notice: an operation's failure (``"error"``), or what one did (``"info"``, ``"ok"``).

        The one home of the status line's rule: a notice stands over the line's run status — a turn that
        ends a moment later does not replace it with "Runnable" — until the person has had the time to
        read it: ``NOTICE_MS`` (longer for an error), a click on it, a switch to another line, their next
        Send (``clear_notice``), or the next notice."""
        self._notice = (text, severity)
        self._notice_timer.start(ERROR_NOTICE_MS if severity == "error" else NOTICE_MS)
        self.status_label.setToolTip(self.tr("Click to dismiss"))
        self._show_status_line()

    def clear_notice(self) -> None:
        """The notice has been read, or is no longer about what is shown: the line's run status again."""
        self._notice_timer.stop()
        if self._notice is None:
            return
        self._notice = None
        self.status_label.setToolTip("")
        self._show_status_line()

    @property
    def notice_shown(self) -> bool:
        return self._notice is not None

    def _show_status_line(self) -> None:
        if self._notice is not None:
            text, severity = self._notice
        elif self._shown_view is not None:
            text, severity = line_status_text(self._shown_view, self._last_failure)
            text, severity = status_without_provider(text, severity, self._provider_missing)
        else:
            return
        self.status_label.setText(plain_words(text))
        if self.status_label.property("severity") != severity:
            self.status_label.setProperty("severity", severity)
            # A dynamic property only restyles after a re-polish.
            self.status_label.style().unpolish(self.status_label)
            self.status_label.style().polish(self.status_label)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # A click on a notice dismisses it; a drag that selects its text (to copy it) does not.
        if (
            watched is self.status_label
            and event.type() == QEvent.Type.MouseButtonRelease
            and self._notice is not None
            and not self.status_label.hasSelectedText()
        ):
            self.clear_notice()
        return super().eventFilter(watched, event)

    def show_empty_state(self, rows: int) -> None:
        self.stack.setCurrentWidget(self.message_list if rows else self.empty_state)
        self._show_banner()

    def _show_banner(self) -> None:
        """Issue 30: what to do without a provider is said once: on an empty line the centre says it, with
        its two buttons; once the line has messages, the banner under them does."""
        self.provider_banner.setVisible(self._provider_missing and self.stack.currentWidget() is not self.empty_state)

    def show_provider_banner(self, missing: bool) -> None:
        self.empty_state.show_provider_missing(missing)
        if missing != self._provider_missing:
            self._provider_missing = missing
            self._show_status_line()  # the status agrees with the banner (issue 18)
        self._show_banner()

    def show_sign_in(self, card: QWidget) -> None:
        """Put a sign-in card above the approvals (issue 15); the window removes it when settled."""
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(self.approval_area), card)

    def show_approvals(self, approvals: Sequence[ApprovalRequested]) -> None:
        self.approval_area.show_approvals(approvals)

    # -- pickers --------------------------------------------------------------

    def show_permission(self, level: PermissionLevel) -> None:
        _show_choice(self.permission_picker, level.value)

    def show_network(self, network: NetworkAccess) -> None:
        _show_choice(self.network_picker, network.value)

    def chosen_network(self) -> NetworkAccess:
        return NetworkAccess(self.network_picker.currentData())

    def chosen_permission(self) -> PermissionLevel:
        return PermissionLevel(self.permission_picker.currentData())

    def set_providers(self, providers: Sequence[ProviderRecord], default_label: str = DEFAULT_PROVIDER_LABEL) -> None:
        """Fill the provider picker: "Default" and every OpenAI-compatible provider, keeping the choice."""
        chosen = self.chosen_provider()
        items: list[PickerItem] = [(QCoreApplication.translate("MessagePane", default_label), None, "")]
        for record in providers:
            if record.kind is not ProviderKind.OPENAI:
                continue
            label = f"{record.name} · {record.model}" if record.model else record.name
            tags = self.tr("tags: {tags}").format(tags=", ".join(record.tags)) if record.tags else ""
            tip = " · ".join(part for part in (record.base_url or "", tags) if part)
            items.append((label, record.name, tip))
        if fill(self.provider_picker, items):  # issue 34 item 1: a switch to a line of the same providers: kept
            self.choose_provider(chosen)

    def chosen_provider(self) -> str | None:
        data = self.provider_picker.currentData()
        return str(data) if data else None

    def choose_provider(self, name: str | None) -> None:
        index = self.provider_picker.findData(name) if name else 0
        blocked = self.provider_picker.blockSignals(True)
        self.provider_picker.setCurrentIndex(max(index, 0))
        self.provider_picker.blockSignals(blocked)

    def provider_names(self) -> list[str]:
        return [str(self.provider_picker.itemData(i)) for i in range(1, self.provider_picker.count())]

    def _on_key_copied(self, key: str) -> None:
        self.show_status(self.tr("Copied the session key {key}").format(key=key), "ok")

    def _on_banner_link(self, _link: str) -> None:
        self.provider_settings_requested.emit()
