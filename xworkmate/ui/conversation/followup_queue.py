"""The follow-up queue above the composer (issue 31 item 3): ``followUpQueue``.

While a turn runs, Send queues the person's follow-up; this strip shows the shown line's queue,
in delivery order, with Edit (inline: the item's text in a field, Enter or Save keeps it), move
up / down, Remove and "Send now" (steer: the running turn's next safe point). It asks for each
change with a signal; the window runs it off the GUI thread and shows the queue it read back.
It shows one line's queue (``key``) and hides when that queue is empty (ISO-5: it follows every
switch, as the window calls ``show_queue`` for the line it shows).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from xworkmate.domain.followup_queue import QueuedFollowup

SHOWN_CHARS = 160
"""An item's label holds its first line up to this many characters; the tooltip holds it all."""


def _first_line(text: str) -> str:
    lines = text.strip().splitlines() or [""]
    if len(lines[0]) > SHOWN_CHARS:
        return lines[0][:SHOWN_CHARS] + "…"
    return lines[0] + (" …" if len(lines) > 1 else "")


class QueueItemRow(QWidget):
    """One queued follow-up: its number and text, and its buttons."""

    def __init__(self, strip: FollowUpQueueStrip, item: QueuedFollowup, count: int) -> None:
        super().__init__(strip)
        self.setObjectName("queueItem")
        self.item = item
        self.number = QLabel(f"{item.position}.")
        self.label = QLabel(_first_line(item.text))
        self.label.setObjectName("queueItemText")
        self.label.setToolTip(item.text)
        # A long item must not widen the conversation pane: the label takes the room left (the tooltip has it all).
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.editor = QLineEdit(item.text)
        self.editor.setObjectName("queueEditField")
        self.editor.setAccessibleName(self.tr("Queued follow-up {n}").format(n=item.position))
        self.editor.hide()
        self.edit_button = self._button("queueEditButton", self.tr("Edit"), self.tr("Change this follow-up's text"))
        self.save_button = self._button("queueSaveButton", self.tr("Save"), self.tr("Keep the changed text"))
        self.save_button.hide()
        self.up_button = self._button("queueUpButton", "↑", self.tr("Deliver this follow-up earlier"))
        self.up_button.setAccessibleName(self.tr("Move up"))
        self.up_button.setEnabled(item.position > 1)
        self.down_button = self._button("queueDownButton", "↓", self.tr("Deliver this follow-up later"))
        self.down_button.setAccessibleName(self.tr("Move down"))
        self.down_button.setEnabled(item.position < count)
        self.remove_button = self._button("queueRemoveButton", self.tr("Remove"), self.tr("Do not send it"))
        self.send_now_button = self._button(
            "queueSendNowButton",
            self.tr("Send now"),
            self.tr(
                "Give it to the running turn at its next safe point (a native agent's next step; an ACP agent's"
                " next prompt), ahead of the rest of the queue"
            ),
        )
        # A screen reader names which item each button acts on.
        self.edit_button.setAccessibleName(self.tr("Edit follow-up {n}").format(n=item.position))
        self.remove_button.setAccessibleName(self.tr("Remove follow-up {n}").format(n=item.position))
        self.send_now_button.setAccessibleName(self.tr("Send follow-up {n} now").format(n=item.position))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.number)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.editor, 1)
        for button in (
            self.save_button,
            self.edit_button,
            self.up_button,
            self.down_button,
            self.remove_button,
            self.send_now_button,
        ):
            layout.addWidget(button)
        position = item.position
        self.edit_button.clicked.connect(self.start_editing)
        self.save_button.clicked.connect(self.save)
        self.editor.returnPressed.connect(self.save)
        self.up_button.clicked.connect(lambda: strip.move_requested.emit(position, position - 1))
        self.down_button.clicked.connect(lambda: strip.move_requested.emit(position, position + 1))
        self.remove_button.clicked.connect(lambda: strip.remove_requested.emit(position))
        self.send_now_button.clicked.connect(lambda: strip.send_now_requested.emit(position))
        self._strip = strip

    def _button(self, name: str, text: str, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setToolTip(tip)
        return button

    def start_editing(self) -> None:
        self.label.hide()
        self.edit_button.hide()
        self.editor.show()
        self.save_button.show()
        self.editor.setFocus()
        self.editor.selectAll()

    def save(self) -> None:
        text = self.editor.text()
        if text.strip() and text != self.item.text:
            self._strip.edit_requested.emit(self.item.position, text)
        self.editor.hide()
        self.save_button.hide()
        self.label.show()
        self.edit_button.show()


class FollowUpQueueStrip(QFrame):
    """The shown line's queued follow-ups; hidden when it has none."""

    edit_requested = Signal(int, str)
    move_requested = Signal(int, int)
    remove_requested = Signal(int)
    send_now_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("followUpQueue")
        self.key: str | None = None
        self.rows: list[QueueItemRow] = []
        self.title = QLabel()
        self.title.setObjectName("followUpQueueTitle")
        self.title.setWordWrap(True)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(6, 2, 6, 2)
        self._layout.setSpacing(2)
        self._layout.addWidget(self.title)
        self.setVisible(False)

    def show_queue(self, key: str, items: Sequence[QueuedFollowup]) -> None:
        """Show ``key``'s queue (the window's shown line), replacing whatever line's queue was shown."""
        self.key = key
        for row in self.rows:
            self._layout.removeWidget(row)
            row.deleteLater()
        self.rows = [QueueItemRow(self, item, len(items)) for item in items]
        for row in self.rows:
            self._layout.addWidget(row)
        self.title.setText(self.tr("Queued follow-ups — sent in this order, one turn each, when the line's turn ends"))
        self.setVisible(bool(items))

    def texts(self) -> list[str]:
        """What the strip shows, in order (the item texts)."""
        return [row.item.text for row in self.rows]
