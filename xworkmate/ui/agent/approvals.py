"""Approval cards: the agent asks before an edit or a command, the person answers (SPEC §5, §6).

A card shows what the agent wants to do (the controller's one-line summary) and what will happen
(issue 30 item 3, worded by ``presentation.approvals``): a write's path and its diff against the
current file, or a new file's content, highlighted; a command in a shell block with its folder and
the line's network setting. The raw arguments only show under "Details". Then Allow once / Reject /
Always for this line.
The focused card answers from the keyboard (LOOP-2): Y allows, N rejects, A
is "always" where the card offers it; the buttons say so ("Allow once (Y)").
The cards are widgets above the composer, not rows of the message list: they
carry buttons, and there are only ever a few.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QFontDatabase, QFontMetrics, QKeyEvent, QKeySequence, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import ApprovalRequested
from xworkmate.domain.permissions import always_level
from xworkmate.domain.threads import PermissionLevel
from xworkmate.presentation.approvals import ApprovalView, approval_view
from xworkmate.presentation.files import shown_line
from xworkmate.presentation.shortcuts import shortcut_keys
from xworkmate.presentation.wording import plain_words
from xworkmate.ui import theme
from xworkmate.ui.rendering import CodeHighlighter

if TYPE_CHECKING:  # issue 34 item 4: imported at first use (an elicitation, a diff to approve)
    from xworkmate.ui.agent.elicitation import ElicitationCard

ALLOW = "allow"
REJECT = "reject"
ALWAYS = "always"

DECISION_KEYS: dict[Qt.Key, str] = {
    # QKeySequence[i] is its i-th key at run time; PySide6's stubs do not declare __getitem__.
    QKeySequence(shortcut_keys(action)[0])[0].key(): decision  # type: ignore[index]
    for action, decision in (("approvalAllow", ALLOW), ("approvalReject", REJECT), ("approvalAlways", ALWAYS))
}
"""The focused card's keys (issue 17, item 3); "always" only where the card offers it."""
ARGUMENT_LINES = 8
BODY_LINES = 14
"""The most lines of diff, content or command a card shows before it scrolls."""


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


def _fixed_height(view: QPlainTextEdit | QTextEdit, lines: int) -> None:
    lines = min(max(lines, 1), BODY_LINES)
    view.setFixedHeight(QFontMetrics(view.font()).lineSpacing() * lines + 14)


def _code_block(view: QPlainTextEdit | QTextEdit) -> None:
    """A tinted monospace block, like code in a message."""
    view.setReadOnly(True)
    view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    palette = view.palette()
    palette.setColor(QPalette.ColorRole.Base, theme.current().color("code-bg"))
    view.setPalette(palette)


def _highlighted(content: str, language: str) -> QTextDocument:
    """A new file's content as one fenced code block, for ``rendering.CodeHighlighter``."""
    longest = 0
    run = 0
    for char in content:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    document = QTextDocument()
    document.setDefaultFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    document.setMarkdown(f"{fence}{language}\n{content}\n{fence}\n")
    return document


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

        # An agent's title may be its whole command (megabytes): at most a long line's worth here (issue 34).
        heading = self.tr("The agent asks to {summary}").format(summary=shown_line(plain_words(request.summary)))
        self.view: ApprovalView = approval_view(request, heading)
        self.summary_label = QLabel(self.view.heading)
        self.summary_label.setObjectName("approvalSummary")
        self.summary_label.setTextFormat(Qt.TextFormat.PlainText)
        self.summary_label.setWordWrap(True)
        self.target_label = self._label("approvalTarget", self.view.target)
        self.body_view = self._body(self.view)
        self.note_label = self._label("approvalNote", self.view.note)
        self.facts_label = self._label("approvalFacts", " · ".join(self.view.facts))

        # The call exactly as the agent sent it: only under "Details".
        self.details_button = QToolButton()
        self.details_button.setObjectName("approvalDetailsToggle")
        self.details_button.setText(self.tr("Details"))
        self.details_button.setCheckable(True)
        self.details_button.setAutoRaise(True)
        self.details_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.details_button.setArrowType(Qt.ArrowType.RightArrow)
        self.details_button.setToolTip(self.tr("Show the call's arguments exactly as the agent sent them"))
        self.details_button.toggled.connect(self._show_details)
        self.arguments_view = QPlainTextEdit(self.view.details)
        self.arguments_view.setObjectName("approvalArguments")
        self.arguments_view.setReadOnly(True)
        self.arguments_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        lines = min(max(self.arguments_view.blockCount(), 2), ARGUMENT_LINES)
        self.arguments_view.setFixedHeight(QFontMetrics(self.arguments_view.font()).lineSpacing() * lines + 12)
        self.arguments_view.setToolTip(
            self.tr("The arguments of {tool}, exactly as the agent sent them").format(tool=request.tool)
        )
        self.arguments_view.setVisible(False)

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
        for part in (self.target_label, self.body_view, self.note_label, self.facts_label):
            if part is not None:
                layout.addWidget(part)
        buttons.insertWidget(0, self.details_button)
        layout.addWidget(self.arguments_view)
        layout.addLayout(buttons)

        self.approve_button.clicked.connect(partial(self._decide, ALLOW))
        self.reject_button.clicked.connect(partial(self._decide, REJECT))
        self.always_button.clicked.connect(partial(self._decide, ALWAYS))

    @property
    def approval_id(self) -> int:
        return self.request.approval_id

    def _label(self, name: str, text: str) -> QLabel | None:
        if not text:
            return None
        label = QLabel(text)
        label.setObjectName(name)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def _body(self, view: ApprovalView) -> QPlainTextEdit | QTextEdit | None:
        """The diff (``approvalDiff``), the new file (``approvalContent``) or the command (``approvalCommand``)."""
        if view.body_kind == "diff":
            from xworkmate.ui.changes.diff_view import DiffView

            diff = DiffView()
            diff.setObjectName("approvalDiff")
            diff.set_patch(view.body)
            _fixed_height(diff, len(view.body.splitlines()))
            return diff
        if view.body_kind == "content":
            content = QTextEdit()
            content.setObjectName("approvalContent")
            _code_block(content)
            content.setLineWrapMode(QTextEdit.LineWrapMode.NoWrap)
            document = _highlighted(view.body, view.language)
            document.setParent(content)
            content.setDocument(document)
            if view.language:  # prose (a .md, a .txt) stays plain: keywords there are ordinary words
                self._highlighter = CodeHighlighter(document)
            _fixed_height(content, len(view.body.splitlines()))
            return content
        if view.body_kind == "command":
            command = QPlainTextEdit(view.body)
            command.setObjectName("approvalCommand")
            _code_block(command)
            command.setToolTip(self.tr("The command, run by the line's shell"))
            _fixed_height(command, command.blockCount())
            return command
        return None

    def _show_details(self, shown: bool) -> None:
        self.arguments_view.setVisible(shown)
        self.details_button.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

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
    """The current line's waiting approvals, oldest first; hidden when there are none. An agent's form
    (issue 32 item 3) is an ``ElicitationCard`` among them.

    Signals:
        decided(int, str): re-emitted from the approval cards.
        answered(int, str, object): re-emitted from the form cards.
    """

    decided = Signal(int, str)
    answered = Signal(int, str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalArea")
        self._cards: dict[int, ApprovalCard | ElicitationCard] = {}
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.hide()

    @property
    def cards(self) -> list[ApprovalCard | ElicitationCard]:
        return [self._cards[i] for i in sorted(self._cards)]

    def show_approvals(self, approvals: Sequence[ApprovalRequested]) -> None:
        wanted = {a.approval_id: a for a in approvals}
        for approval_id in [i for i in self._cards if i not in wanted]:
            gone = self._cards.pop(approval_id)
            self._layout.removeWidget(gone)
            gone.hide()
            gone.deleteLater()
        added = False
        for approval_id in sorted(wanted):
            if approval_id not in self._cards:
                added = True
                request = wanted[approval_id]
                card: ApprovalCard | ElicitationCard
                if request.form is not None:
                    from xworkmate.ui.agent.elicitation import ElicitationCard

                    card = ElicitationCard(request, self)
                    card.answered.connect(self.answered)
                else:
                    card = ApprovalCard(request, self)
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
