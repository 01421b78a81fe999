"""The sign-in card: an ACP agent needs a sign-in and offers several methods (issue 15).

A view only. It lists each method with its description; a method of type
terminal shows its command: ACP's ``type: "terminal"`` runs in the window's
sign-in terminal (issue 32 item 4), an older marking is run by the person first. "Sign in with …" answers with the
method's id, "Cancel" with an empty one (the turn then ends, saying why).

Signals:
    chosen(int, str): the request id and the method id ("" to give up).
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from xworkmate.controllers import SignInRequested
from xworkmate.presentation.files import cut_lines


class SignInCard(QFrame):
    chosen = Signal(int, str)

    def __init__(self, request: SignInRequested, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("signInCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.request = request
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        title = QLabel(
            self.tr("{agent} needs you to sign in before it can work on this line. Choose how:").format(
                agent=request.agent
            )
        )
        title.setObjectName("signInTitle")
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setWordWrap(True)
        layout.addWidget(title)
        self.method_buttons: dict[str, QPushButton] = {}
        for method in request.methods:
            row = QHBoxLayout()
            lines = [method.name]
            if method.description:
                lines.append(method.description)
            if method.command and method.opens_terminal:
                lines.append(self.tr("Opens a sign-in terminal running: {command}").format(command=method.command))
            elif method.command:
                lines.append(self.tr("First run in a terminal: {command}").format(command=method.command))
            text = QLabel(cut_lines("\n".join(lines)))  # an agent's words: long lines cut (issue 34)
            text.setTextFormat(Qt.TextFormat.PlainText)
            text.setWordWrap(True)
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            button = QPushButton(self.tr("Sign in with {method}").format(method=method.name))
            button.setObjectName("signInMethodButton")
            button.setProperty("methodId", method.id)
            button.clicked.connect(partial(self._choose, method.id))
            self.method_buttons[method.id] = button
            row.addWidget(text, 1)
            row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            layout.addLayout(row)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("signInCancelButton")
        self.cancel_button.setToolTip(self.tr("Do not sign in now; the turn ends and the line stays usable"))
        self.cancel_button.clicked.connect(partial(self._choose, ""))
        cancel_row = QHBoxLayout()
        cancel_row.addStretch(1)
        cancel_row.addWidget(self.cancel_button)
        layout.addLayout(cancel_row)

    def _choose(self, method_id: str) -> None:
        for button in [*self.method_buttons.values(), self.cancel_button]:
            button.setEnabled(False)  # one answer; the card goes when the controller settles it
        self.chosen.emit(self.request.request_id, method_id)
