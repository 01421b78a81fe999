"""Approval cards: the agent asks before an edit or a command, the person answers (SPEC §5, §6).

A card shows what the agent wants to do (the controller's one-line summary)
and the call's arguments, with Allow once / Reject / Always for this line.
The focused card answers from the keyboard (LOOP-2): Y allows, N rejects, A
is "always" where the card offers it; the buttons say so ("Allow once (Y)").
The cards are widgets above the composer, not rows of the message list: they
carry buttons, and there are only ever a few.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QFontDatabase, QFontMetrics, QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import ApprovalRequested
from xworkmate.domain.permissions import always_level
from xworkmate.domain.threads import PermissionLevel
from xworkmate.ui.wording import plain_words

ALLOW = "allow"
REJECT = "reject"
ALWAYS = "always"

DECISION_KEYS: dict[Qt.Key, str] = {Qt.Key.Key_Y: ALLOW, Qt.Key.Key_N: REJECT, Qt.Key.Key_A: ALWAYS}
"""The focused card's keys (issue 17, item 3); "always" only where the card offers it."""
ARGUMENT_LINES = 8


def always_tooltip(tool: str) -> str:
    level = always_level(tool)
    if level is PermissionLevel.AUTO_EDIT:
        effect = QCoreApplication.translate(
            "ApprovalCard", "edits inside the line's folder run without asking (commands still ask)"
        )
    else:
        effect = QCoreApplication.translate("ApprovalCard", "edits and commands run without asking")
    return QCoreApplication.translate(
        "ApprovalCard",
        "Allow this call and raise this line's permission to {level}: from the next turn on, {effect}. "
        "The permission picker below changes it back. (An ACP agent instead remembers the answer for its session.)",
    ).format(level=level.value, effect=effect)


def pretty_arguments(arguments: str) -> str:
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return arguments
    return json.dumps(parsed, indent=2, ensure_ascii=False)


class ApprovalCard(QFrame):
    """One waiting approval.

    Signals:
        decided(int, str): the approval id and ``"allow"``, ``"reject"`` or ``"always"``.
    """

    decided = Signal(int, str)

    def __init__(self, request: ApprovalRequested, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.request = request

        self.summary_label = QLabel(self.tr("The agent asks to {summary}").format(summary=plain_words(request.summary)))
        self.summary_label.setObjectName("approvalSummary")
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self.summary_label.setWordWrap(True)
        self.arguments_view = QPlainTextEdit(pretty_arguments(request.arguments))
        self.arguments_view.setObjectName("approvalArguments")
        self.arguments_view.setReadOnly(True)
        self.arguments_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        lines = min(max(self.arguments_view.blockCount(), 2), ARGUMENT_LINES)
        self.arguments_view.setFixedHeight(QFontMetrics(self.arguments_view.font()).lineSpacing() * lines + 12)
        self.arguments_view.setToolTip(
            self.tr("The arguments of {tool}, exactly as the agent sent them").format(tool=request.tool)
        )

        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # it takes Y / N / A when focused
        self.setToolTip(self.tr("With this card focused: Y allows once, N rejects, A allows always (where offered)"))
        self.approve_button = QPushButton(self.tr("Allow once (Y)"))
        self.approve_button.setObjectName("approveButton")
        self.approve_button.setToolTip(self.tr("Run this one call; the agent asks again next time"))
        self.reject_button = QPushButton(self.tr("Reject (N)"))
        self.reject_button.setObjectName("rejectButton")
        self.reject_button.setToolTip(self.tr("Refuse; the agent is told the person rejected it and nothing runs"))
        self.always_button = QPushButton(self.tr("Always for this line (A)"))
        self.always_button.setObjectName("alwaysButton")
        self.always_button.setToolTip(always_tooltip(request.tool))

        # SBX-1: say plainly when this would run without a sandbox; "always" would not stop the asking.
        self.warning_label: QLabel | None = None
        if request.unsandboxed is not None:
            self.warning_label = QLabel(
                self.tr("⚠ This command will run without a sandbox, with all your rights: {reason}").format(
                    reason=plain_words(request.unsandboxed)
                )
            )
            self.warning_label.setObjectName("approvalWarning")
            self.warning_label.setTextFormat(Qt.TextFormat.PlainText)
            self.warning_label.setWordWrap(True)
            self.always_button.setEnabled(False)
            self.always_button.setToolTip(
                self.tr("Without a sandbox every command asks; install bubblewrap to stop asking")
            )

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.always_button)
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.approve_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.summary_label)
        if self.warning_label is not None:
            layout.addWidget(self.warning_label)
        layout.addWidget(self.arguments_view)
        layout.addLayout(buttons)

        self.approve_button.clicked.connect(partial(self._decide, ALLOW))
        self.reject_button.clicked.connect(partial(self._decide, REJECT))
        self.always_button.clicked.connect(partial(self._decide, ALWAYS))

    @property
    def approval_id(self) -> int:
        return self.request.approval_id

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Y / N / A on the focused card (or one of its buttons) press its button, if that button is enabled."""
        decision = DECISION_KEYS.get(Qt.Key(event.key()))
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        button = {ALLOW: self.approve_button, REJECT: self.reject_button, ALWAYS: self.always_button}.get(
            decision or ""
        )
        if plain and button is not None:
            if button.isEnabled():
                button.click()
            event.accept()
            return
        super().keyPressEvent(event)

    def _decide(self, decision: str) -> None:
        for button in (self.approve_button, self.reject_button, self.always_button):
            button.setEnabled(False)  # one answer per card; the card goes when the controller settles it
        self.decided.emit(self.request.approval_id, decision)


class ApprovalArea(QWidget):
    """The current line's waiting approvals, oldest first; hidden when there are none.

    Signals:
        decided(int, str): re-emitted from the cards.
    """

    decided = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalArea")
        self._cards: dict[int, ApprovalCard] = {}
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.hide()

    @property
    def cards(self) -> list[ApprovalCard]:
        return [self._cards[i] for i in sorted(self._cards)]

    def show_approvals(self, approvals: Sequence[ApprovalRequested]) -> None:
        wanted = {a.approval_id: a for a in approvals}
        for approval_id in [i for i in self._cards if i not in wanted]:
            card = self._cards.pop(approval_id)
            self._layout.removeWidget(card)
            card.hide()
            card.deleteLater()
        added = False
        for approval_id in sorted(wanted):
            if approval_id not in self._cards:
                added = True
                card = ApprovalCard(wanted[approval_id], self)
                card.decided.connect(self.decided)
                self._cards[approval_id] = card
                self._layout.addWidget(card)
        self.setVisible(bool(self._cards))
        if added:
            self._focus_oldest()

    def _focus_oldest(self) -> None:
        """A new card: the oldest takes the keyboard, unless the person is typing somewhere (then Tab or a click)."""
        cards = self.cards
        focused = QApplication.focusWidget()
        if not cards or (focused is not None and self.isAncestorOf(focused)):
            return
        if _has_typed_text(focused):
            return
        cards[0].setFocus(Qt.FocusReason.OtherFocusReason)


def _has_typed_text(widget: QWidget | None) -> bool:
    """The person is typing there (an editable field with text): Y / N / A must stay letters."""
    if isinstance(widget, QLineEdit):
        return not widget.isReadOnly() and bool(widget.text())
    if isinstance(widget, QPlainTextEdit):
        return not widget.isReadOnly() and bool(widget.toPlainText())
    return False
