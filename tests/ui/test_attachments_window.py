"""Attachments in the window (SPEC ATT-1, issue 31): paste into the composer, chips with remove, Send stores them."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtGui import QColor, QGuiApplication, QImage
from PySide6.QtWidgets import QToolButton
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.attachments import attachments_in
from xworkmate.domain.messages import MessageSource
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation.composer import AttachmentStrip

from .support import click_line, label_text, message_texts


def _image() -> QImage:
    image = QImage(64, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("teal"))
    return image


def _paste_image(qtbot: QtBot, window: MainWindow, strip: AttachmentStrip, count: int) -> None:
    mime = QMimeData()
    mime.setImageData(_image())
    QGuiApplication.clipboard().setMimeData(mime)
    window.composer.setFocus()
    window.composer.paste()
    qtbot.waitUntil(lambda: len(strip.attachments()) == count, timeout=5000)


def test_a_pasted_image_shows_a_chip_can_be_removed_and_send_stores_it_with_the_message(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    line = sqlite_controller.lines.create_line("Pictures")
    click_line(qtbot, window, line.thread_id)
    strip = window.findChild(AttachmentStrip, "attachmentStrip")
    assert strip is not None and strip.isHidden()

    _paste_image(qtbot, window, strip, 1)
    assert strip.isVisible() and window.composer.toPlainText() == ""  # an image, not text
    [attachment] = strip.attachments()
    assert attachment.name == "pasted-image.png" and attachment.mime_type == "image/png"
    removes = strip.findChildren(QToolButton, "attachmentRemoveButton")
    assert len(removes) == 1
    qtbot.mouseClick(removes[0], Qt.MouseButton.LeftButton)
    assert strip.attachments() == () and strip.isHidden()

    _paste_image(qtbot, window, strip, 1)
    qtbot.keyClicks(window.composer, "what colour is this?")
    qtbot.keyClick(window.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: strip.attachments() == (), timeout=5000)

    [mine] = [m for m in sqlite_controller.lines.messages(line.thread_id) if m.source is MessageSource.HUMAN]
    assert mine.content == "what colour is this?"
    [stored] = attachments_in(mine.payload)
    assert stored.name == "pasted-image.png" and stored.is_image and stored.size > 0
    shown = message_texts(window)[0]
    assert shown.startswith("what colour is this?") and "📎 pasted-image.png" in shown


def test_attachments_stay_with_their_line_across_a_switch(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-5: what was attached on one line is never sent on another."""
    first = sqlite_controller.lines.create_line("First")
    second = sqlite_controller.lines.create_line("Second")
    click_line(qtbot, window, first.thread_id)
    strip = window.findChild(AttachmentStrip, "attachmentStrip")
    assert strip is not None
    _paste_image(qtbot, window, strip, 1)
    click_line(qtbot, window, second.thread_id)
    assert strip.attachments() == ()
    click_line(qtbot, window, first.thread_id)
    assert len(strip.attachments()) == 1


def test_a_dropped_text_file_becomes_a_chip_and_a_binary_one_is_refused_in_one_line(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    line = sqlite_controller.lines.create_line("Files")
    click_line(qtbot, window, line.thread_id)
    strip = window.findChild(AttachmentStrip, "attachmentStrip")
    assert strip is not None
    notes = tmp_path / "notes.md"
    notes.write_text("# plan\n", encoding="utf-8")
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x00\x01\x02")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(notes)), QUrl.fromLocalFile(str(blob))])
    assert window.composer.canInsertFromMimeData(mime)
    window.composer.insertFromMimeData(mime)  # what a drop and a paste of files both call
    qtbot.waitUntil(lambda: strip.preparing == 0, timeout=5000)
    assert [a.name for a in strip.attachments()] == ["notes.md"]
    assert window.composer.toPlainText() == ""  # the files' paths are not typed into the message
    status = label_text(window, "lineStatusLabel")
    assert "blob.bin" in status and "neither an image" in status and "\n" not in status


def test_a_tasks_follow_up_with_attachments_is_refused_and_nothing_is_lost(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    line = sqlite_controller.lines.create_line("Parent")
    task = sqlite_controller.tasks.start_task(line.thread_id, "look at the logo").task
    click_line(qtbot, window, task.thread_id)
    strip = window.findChild(AttachmentStrip, "attachmentStrip")
    assert strip is not None
    before = sqlite_controller.lines.messages(task.thread_id)
    _paste_image(qtbot, window, strip, 1)
    qtbot.keyClicks(window.composer, "and this one")
    qtbot.keyClick(window.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert "takes text only" in label_text(window, "lineStatusLabel")
    assert sqlite_controller.lines.messages(task.thread_id) == before
    assert len(strip.attachments()) == 1 and window.composer.toPlainText() == "and this one"
