"""The composer: the message box and its attachments (SPEC ATT-1, issue 31; issue 33 item 1).

Paste or drop images and files; a strip of chips.

``Composer`` is the message box: a pasted or dropped image, or dropped files, are offered as
attachments instead of text. ``AttachmentStrip`` (``attachmentStrip``) holds what Send will send,
one chip each (a thumbnail for an image) with its remove button (``attachmentRemoveButton``).
Encoding a pasted image (PNG, up to 10 MB) and reading a dropped file run off the GUI thread
(``ui/background.run_off_thread``): the composer stays responsive while they are made (LOOP-4).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QToolButton, QWidget

from xworkmate.controllers.attachments import attachment_from_file
from xworkmate.domain.attachments import Attachment, attachment_from_bytes
from xworkmate.presentation.messages import attachment_chip
from xworkmate.ui.background import run_off_thread

THUMBNAIL = QSize(48, 48)
PASTED_NAME = "pasted-image.png"


@dataclass(frozen=True)
class PreparedAttachment:
    """An attachment made off the GUI thread, with its small thumbnail (PNG bytes) when it is an image."""

    attachment: Attachment
    thumbnail: bytes = b""


def _png(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stubs say bytes; PySide6 takes str
    buffer.close()
    return bytes(data.data())


def _thumbnail(image: QImage) -> bytes:
    small = image.scaled(THUMBNAIL, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
    return _png(small)


def prepare_pasted_image(image: QImage, name: str = PASTED_NAME) -> PreparedAttachment:
    """A pasted image as a PNG attachment and its thumbnail. Runs on a worker: encoding is the slow part."""
    attachment = attachment_from_bytes(name, _png(image))
    return PreparedAttachment(attachment, _thumbnail(image))


def prepare_file(path: str | Path) -> PreparedAttachment:
    """A dropped or chosen file as an attachment (refused in one line: ``AttachmentError``). On a worker."""
    attachment = attachment_from_file(path)
    if not attachment.is_image:
        return PreparedAttachment(attachment)
    image = QImage.fromData(base64.b64decode(attachment.data_base64 or ""))
    return PreparedAttachment(attachment, _thumbnail(image) if not image.isNull() else b"")


class Composer(QPlainTextEdit):
    """The message box. Images and files pasted or dropped into it become attachments (``offered``)."""

    image_offered = Signal(QImage)
    files_offered = Signal(list)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return source.hasImage() or _local_files(source) != [] or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        files = _local_files(source)
        if files:
            self.files_offered.emit(files)
            return
        if source.hasImage():
            image = source.imageData()
            if isinstance(image, QImage) and not image.isNull():
                self.image_offered.emit(image)
                return
        super().insertFromMimeData(source)


def _local_files(source: QMimeData) -> list[str]:
    if not source.hasUrls():
        return []
    return [url.toLocalFile() for url in source.urls() if url.isLocalFile()]


class AttachmentStrip(QWidget):
    """The attachments Send will send with the message, one chip each; hidden while there are none."""

    changed = Signal()
    refused = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentStrip")
        self._items: list[tuple[PreparedAttachment, QWidget]] = []
        self._pending = 0
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addStretch(1)
        self.hide()

    # -- what Send sends

    def attachments(self) -> tuple[Attachment, ...]:
        return tuple(prepared.attachment for prepared, _ in self._items)

    def prepared(self) -> list[PreparedAttachment]:
        """What the strip holds, to keep with the line's draft while another line is shown (ISO-5)."""
        return [prepared for prepared, _ in self._items]

    def restore(self, items: Sequence[PreparedAttachment]) -> None:
        if not items and not self._items:
            return  # a switch between lines with nothing attached changes nothing (issue 34 item 1)
        self.clear()
        for prepared in items:
            self.add_prepared(prepared)

    @property
    def preparing(self) -> int:
        """How many pasted or dropped attachments are still being made off the GUI thread."""
        return self._pending

    def clear(self) -> None:
        for _, chip in self._items:
            chip.deleteLater()
        self._items.clear()
        self._update()

    # -- adding

    def add_image(self, image: QImage) -> None:
        """A pasted image: encoded on a worker; its chip appears when it is ready."""
        copy = image.copy()  # the clipboard's image may change under the worker
        self._prepare(lambda: prepare_pasted_image(copy))

    def add_files(self, paths: Sequence[str]) -> None:
        for path in paths:
            self._prepare(lambda path=path: prepare_file(path))  # type: ignore[misc]

    def _prepare(self, work: Callable[[], PreparedAttachment]) -> None:
        self._pending += 1

        def ready(prepared: PreparedAttachment) -> None:
            self._pending -= 1
            self.add_prepared(prepared)

        def failed(error: BaseException) -> None:
            self._pending -= 1
            self.refused.emit(str(error).splitlines()[0] if str(error) else type(error).__name__)

        run_off_thread(work, ready, failed, parent=self)

    def add_prepared(self, prepared: PreparedAttachment) -> None:
        chip = self._chip(prepared)
        self._items.append((prepared, chip))
        self._layout.insertWidget(self._layout.count() - 1, chip)
        self._update()

    def _chip(self, prepared: PreparedAttachment) -> QWidget:
        attachment = prepared.attachment
        chip = QFrame(self)
        chip.setObjectName("attachmentChip")
        chip.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(chip)
        row.setContentsMargins(4, 2, 2, 2)
        if prepared.thumbnail:
            thumb = QLabel(chip)
            thumb.setObjectName("attachmentThumbnail")
            pixmap = QPixmap()
            pixmap.loadFromData(prepared.thumbnail, "PNG")  # small: made on the worker
            thumb.setPixmap(pixmap)
            row.addWidget(thumb)
        label = QLabel(attachment_chip(attachment), chip)
        label.setObjectName("attachmentName")
        label.setToolTip(attachment.name)
        row.addWidget(label)
        remove = QToolButton(chip)
        remove.setObjectName("attachmentRemoveButton")
        remove.setText("×")
        remove.setToolTip(self.tr("Remove this attachment"))
        remove.setAccessibleName(self.tr("Remove {name}").format(name=attachment.name))
        remove.clicked.connect(lambda: self._remove(chip))
        row.addWidget(remove)
        return chip

    def _remove(self, chip: QWidget) -> None:
        self._items = [(a, c) for a, c in self._items if c is not chip]
        chip.deleteLater()
        self._update()

    def _update(self) -> None:
        self.setVisible(bool(self._items))
        self.changed.emit()
