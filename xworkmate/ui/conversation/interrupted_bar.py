"""Issue 31 in the window: a turn a crash interrupted, and the way to continue it (ERR-2, ISO-4).

``InterruptedTurnBar`` sits under the conversation while the shown line's last turn was cut short by a
crash and not yet resumed (``domain.interruptions.pending_interruption``): it says what was kept and
offers Resume (``resumeTurnButton``), which the window answers with the controller's ``resume``.
Nothing runs again until the person presses it.
"""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget


class InterruptedTurnBar(QFrame):
    """Shown while the shown line has an interrupted turn to resume. Signal: ``resume_requested()``."""

    resume_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("interruptedTurnBar")
        self.key: str | None = None
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.resume_button = QPushButton(self.tr("Resume"))
        self.resume_button.setObjectName("resumeTurnButton")
        self.resume_button.setToolTip(self.tr("Run the interrupted turn's last step again from what was kept"))
        self.resume_button.clicked.connect(self._resume)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.resume_button)
        self.setVisible(False)

    def show_interrupted(self, key: str | None, *, kept: int = 0, partial: bool = False) -> None:
        """``key``: the line whose turn was interrupted (None hides the bar)."""
        self.key = key
        self.resume_button.setEnabled(key is not None)
        if key is not None:
            if partial:
                what = self.tr("what the agent had written so far is kept above")
            elif kept:
                what = self.tr("what the agent had stored is kept above")
            else:
                what = self.tr("your message is kept above")
            self.label.setText(
                self.tr("This line's last turn was interrupted by a crash; {what}. Resume continues it.").format(
                    what=what
                )
            )
        self.setVisible(key is not None)

    @Slot()
    def _resume(self) -> None:
        if self.key is not None:
            self.resume_button.setEnabled(False)  # one press, one resume
            self.resume_requested.emit()
