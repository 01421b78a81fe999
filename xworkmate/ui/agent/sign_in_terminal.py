"""The sign-in terminal: an ACP agent's own login program, running for the person (issue 32 item 4).

A view only. The program runs on a pseudo-terminal in the agent's sandbox (``agents.acp.login_terminal``); its
output arrives on the event loop, never by a blocking read on the GUI thread, and is shown as plain text. The
input line writes a line (with Enter) to the program; Stop ends it. When it ends, one line says how: status 0
signs in and the line's turn goes on by itself; any other status ends the turn, saying so, and the line stays
usable. Closing the window while it runs stops it.
"""

from __future__ import annotations

import shlex

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import SignInTerminalView
from xworkmate.presentation.files import LineCutter

TERMINAL_LINE_CHARS = 10_000
"""A line of the program's output is cut past this many characters. A sign-in address is shown whole (they run
to a few thousand characters); a line of a megabyte is not laid out."""

TERMINAL_LINES = 5_000
"""The output keeps its last this many lines (the first go as more come)."""


class SignInTerminal(QDialog):
    def __init__(self, agent: str, terminal: SignInTerminalView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("signInTerminal")
        self.setWindowTitle(self.tr("Sign in to {agent}").format(agent=agent))
        self.terminal = terminal
        layout = QVBoxLayout(self)
        title = QLabel(
            self.tr("{agent} signs in with its own program: {command}").format(
                agent=agent, command=shlex.join(terminal.command)
            )
        )
        title.setObjectName("signInTerminalTitle")
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setWordWrap(True)
        title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(title)
        self.output = QPlainTextEdit()
        self.output.setObjectName("signInTerminalOutput")
        self.output.setReadOnly(True)
        self.output.setMaximumBlockCount(TERMINAL_LINES)
        self._cutter = LineCutter(TERMINAL_LINE_CHARS)
        self.output.setMinimumSize(520, 240)
        layout.addWidget(self.output, 1)
        row = QHBoxLayout()
        self.input = QLineEdit()
        self.input.setObjectName("signInTerminalInput")
        self.input.setPlaceholderText(self.tr("Type what the program asks for, then Enter"))
        self.input.returnPressed.connect(self._send_line)
        row.addWidget(self.input, 1)
        self.stop_button = QPushButton(self.tr("Stop"))
        self.stop_button.setObjectName("signInTerminalStop")
        self.stop_button.setAutoDefault(False)  # Enter in the input line is a line for the program, never Stop
        self.stop_button.setToolTip(self.tr("End the sign-in program; the turn ends and the line stays usable"))
        self.stop_button.clicked.connect(terminal.stop)
        row.addWidget(self.stop_button)
        layout.addLayout(row)
        self.status = QLabel(self.tr("Running…"))
        self.status.setObjectName("signInTerminalStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.status)
        self._append(terminal.text)
        terminal.listen(self._append, self._ended)
        if terminal.status is not None:
            self._ended(terminal.status)

    def _append(self, text: str) -> None:
        text = self._cutter.feed(text)
        if not text:
            return
        self.output.moveCursor(QTextCursor.MoveOperation.End)
        self.output.insertPlainText(text)
        self.output.moveCursor(QTextCursor.MoveOperation.End)

    def _send_line(self) -> None:
        line = self.input.text()
        self.input.clear()
        try:
            self.terminal.write_line(line)
        except (RuntimeError, OSError) as exc:
            self.status.setText(self.tr("Cannot type into the sign-in program — {error}").format(error=exc))

    def _ended(self, status: int) -> None:
        self.input.setEnabled(False)
        self.stop_button.setEnabled(False)
        if status == 0:
            self.status.setText(self.tr("The sign-in program finished. The turn goes on."))
        elif status < 0:
            self.status.setText(self.tr("The sign-in program was stopped (signal {signal}).").format(signal=-status))
        else:
            self.status.setText(self.tr("The sign-in program exited with status {status}.").format(status=status))

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.terminal.status is None:
            self.terminal.stop()
        super().closeEvent(event)
