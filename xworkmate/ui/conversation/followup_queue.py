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
    """One queued follow-up: its number and text, and its buttons. Its buttons act on the item itself
    (by its id), wherever the queue has moved it since; ``show_item`` shows it as the queue reads now."""

    def __init__(self, strip: FollowUpQueueStrip, item: QueuedFollowup, count: int) -> None:
        super().__init__(strip)
        self.setObjectName("queueItem")
        self.item = item
        self.number = QLabel()
        self.label = QLabel()
        self.label.setObjectName("queueItemText")
        # A long item must not widen the conversation pane: the label takes the room left (the tooltip has it all).
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.editor = QLineEdit(item.text)
        self.editor.setObjectName("queueEditField")
        self.editor.hide()
        self.edit_button = self._button("queueEditButton", self.tr("Edit"), self.tr("Change this follow-up's text"))
        self.save_button = self._button("queueSaveButton", self.tr("Save"), self.tr("Keep the changed text"))
        self.save_button.hide()
        self.up_button = self._button("queueUpButton", "↑", self.tr("Deliver this follow-up earlier"))
        self.up_button.setAccessibleName(self.tr("Move up"))
        self.down_button = self._button("queueDownButton", "↓", self.tr("Deliver this follow-up later"))
        self.down_button.setAccessibleName(self.tr("Move down"))
        self.remove_button = self._button("queueRemoveButton", self.tr("Remove"), self.tr("Do not send it"))
        self.send_now_button = self._button(
            "queueSendNowButton",
            self.tr("Send now"),
            self.tr(
                "Give it to the running turn at its next safe point (a native agent's next step; an ACP agent's"
                " next prompt), ahead of the rest of the queue"
            ),
        )
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
        self.edit_button.clicked.connect(self.start_editing)
        self.save_button.clicked.connect(self.save)
        self.editor.returnPressed.connect(self.save)
        self.up_button.clicked.connect(lambda: strip.move_requested.emit(self.item, -1))
        self.down_button.clicked.connect(lambda: strip.move_requested.emit(self.item, 1))
        self.remove_button.clicked.connect(lambda: strip.remove_requested.emit(self.item))
        self.send_now_button.clicked.connect(lambda: strip.send_now_requested.emit(self.item))
        self._strip = strip
        self.show_item(item, count)

    def _button(self, name: str, text: str, tip: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setToolTip(tip)
        return button

    def show_item(self, item: QueuedFollowup, count: int) -> None:
        """Show ``item`` (this row's item as read now: its place, its text) in a queue of ``count``.
        An edit in progress keeps the person's text, focus and cursor."""
        self.item = item
        n = item.position
        self.number.setText(f"{n}.")
        self.label.setText(_first_line(item.text))
        self.label.setToolTip(item.text)
        if not self.editing:
            self.editor.setText(item.text)
        self.up_button.setEnabled(n > 1)
        self.down_button.setEnabled(n < count)
        # A screen reader names which item each button acts on.
        self.editor.setAccessibleName(self.tr("Queued follow-up {n}").format(n=n))
        self.edit_button.setAccessibleName(self.tr("Edit follow-up {n}").format(n=n))
        self.remove_button.setAccessibleName(self.tr("Remove follow-up {n}").format(n=n))
        self.send_now_button.setAccessibleName(self.tr("Send follow-up {n} now").format(n=n))

    @property
    def editing(self) -> bool:
        return not self.editor.isHidden()

    @property
    def unsaved_text(self) -> str | None:
        """The person's changed text in an edit not saved yet (``None``: no edit, or nothing changed)."""
        text = self.editor.text()
        return text if self.editing and text.strip() and text != self.item.text else None

    def start_editing(self) -> None:
        self.label.hide()
        self.edit_button.hide()
        self.editor.show()
        self.save_button.show()
        self.editor.setFocus()
        self.editor.selectAll()

    def resume_editing(self, text: str) -> None:
        """An edit left unsaved on this line when another was shown: the person's text, the cursor at its end."""
        self.start_editing()
        self.editor.setText(text)

    def save(self) -> None:
        text = self.editor.text()
        if text.strip() and text != self.item.text:
            self._strip.edit_requested.emit(self.item, text)
        self.editor.hide()
        self.save_button.hide()
        self.label.show()
        self.edit_button.show()


class FollowUpQueueStrip(QFrame):
    """The shown line's queued follow-ups; hidden when it has none.

    The queue is read again at each change (the person's, the running turn taking its next item,
    another process's). A row stays the same widget while its item is queued, so an edit in
    progress keeps its text, focus and cursor through those reads; an edit left unsaved on a line
    the person switches away from waits for that line. An edit whose item is delivered or removed
    before it is saved is handed back (``edit_left``): the window puts the text where the person
    can send it, never lost.
    """

    edit_requested = Signal(object, str)  # the item (QueuedFollowup) as shown, its new text
    move_requested = Signal(object, int)  # the item, -1 (earlier) or 1 (later)
    remove_requested = Signal(object)
    send_now_requested = Signal(object)
    edit_left = Signal(object, str)  # an item gone from the shown line's queue, the person's unsaved text for it

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("followUpQueue")
        self.key: str | None = None
        self.rows: list[QueueItemRow] = []
        self._unsaved: dict[str, dict[int, tuple[QueuedFollowup, str]]] = {}  # other lines' unsaved edits, by key
        self.title = QLabel()
        self.title.setObjectName("followUpQueueTitle")
        self.title.setWordWrap(True)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(6, 2, 6, 2)
        self._layout.setSpacing(2)
        self._layout.addWidget(self.title)
        self.setVisible(False)

    def switch_to(self, key: str) -> None:
        """The strip is ``key``'s now, its queue not read yet: nothing shown (never another line's queue,
        ISO-5). Edits left unsaved on the line shown before wait for it."""
        if key == self.key:
            return
        if self.key is not None:
            unsaved = self._unsaved.setdefault(self.key, {})  # (with any not resumed yet: its queue was not read)
            for row in self.rows:
                if (text := row.unsaved_text) is not None:
                    unsaved[row.item.id] = (row.item, text)
        for row in self.rows:
            self._drop(row)
        self.rows = []
        self.key = key
        self.setVisible(False)

    def show_queue(self, key: str, items: Sequence[QueuedFollowup]) -> None:
        """Show ``key``'s queue as read now (the window's shown line), replacing whatever line's was shown."""
        self.switch_to(key)
        waiting = self._unsaved.pop(key, {})
        kept = {row.item.id: row for row in self.rows}
        for row in self.rows:
            self._layout.removeWidget(row)  # added again below, in the queue's order now
        self.rows = []
        for item in items:
            if item.id in kept:
                shown = kept.pop(item.id)
                shown.show_item(item, len(items))
            else:
                shown = QueueItemRow(self, item, len(items))
                if item.id in waiting:
                    shown.resume_editing(waiting.pop(item.id)[1])
            self._layout.addWidget(shown)
            self.rows.append(shown)
        for gone in kept.values():  # delivered or removed since the last read
            if (text := gone.unsaved_text) is not None:
                waiting[gone.item.id] = (gone.item, text)
            self._drop(gone)
        for item, text in waiting.values():
            self.edit_left.emit(item, text)
        self.title.setText(self.tr("Queued follow-ups — sent in this order, one turn each, when the line's turn ends"))
        self.setVisible(bool(items))

    def _drop(self, row: QueueItemRow) -> None:
        self._layout.removeWidget(row)
        row.hide()  # at once: deleteLater waits for the event loop
        row.deleteLater()

    def texts(self) -> list[str]:
        """What the strip shows, in order (the item texts)."""
        return [row.item.text for row in self.rows]
