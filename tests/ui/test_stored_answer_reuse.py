"""Issue 34 item 1: a stored answer takes over what its line streamed instead of being rendered again.

A long answer streams in settled parts (``rendering.StreamingBody``); when its turn stores it, its row used to
render the whole text once more as one document (about 11 ms for 30 KB here, on the GUI thread, at the end of
every long answer, or at the first switch back to a line whose turn ended while another was shown). Now the stored
row takes the streaming body when the stored text is the streamed text (or starts with it: the rest is rendered
then). Counts and types, never wall-clock times.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole
from xworkmate.presentation.messages import DISPLAY_LIMIT
from xworkmate.testing.openai_server import OpenAIServer, TextReply
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation import CONTENT_ROLE, ROLE_ROLE
from xworkmate.ui.rendering import DocumentBody, StreamingBody

from .conftest import open_window
from .support import click_line, settled
from .support_runs import live_text, run, wait_until

PARAGRAPHS = 30


def _answer() -> list[str]:
    """A Markdown answer in chunks, a paragraph each, the last one without a blank line after it."""
    chunks = [f"Paragraph {i} of the answer, with **bold** words and `code`.\n\n" for i in range(PARAGRAPHS)]
    return [*chunks, "The last paragraph."]


def _painted(window: MainWindow) -> None:
    window.message_list.viewport().repaint()
    QApplication.processEvents()


def _answer_index(window: MainWindow) -> int:
    model = window.message_model
    rows = [r for r in range(model.stored_count) if model.index(r, 0).data(ROLE_ROLE) == MessageRole.ASSISTANT.value]
    assert rows, "no stored answer"
    return rows[-1]


def _window(qtbot: QtBot, controller: SessionController) -> tuple[MainWindow, str]:
    window = open_window(qtbot, controller)
    window.resize(1200, 800)
    key = controller.lines.create_line("Long answers").thread_id
    click_line(qtbot, window, key)
    return window, key


def test_a_long_answer_streamed_on_the_shown_line_is_not_rendered_again_when_its_turn_stores_it(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    window, key = _window(qtbot, agent_controller)
    delegate = window.message_list.message_delegate
    openai_server.script(TextReply(_answer(), delay=0.01))
    task = agent_controller.turns.start_turn(key, "a long answer, please")
    run(loop, wait_until(lambda: bool(window.live.streamed_text(key)), what="the answer streaming"))
    run(loop, wait_until(task.done, what="the turn's end"))
    settled(qtbot, window)
    _painted(window)

    body = delegate.body_for(window.message_model.index(_answer_index(window), 0))
    assert isinstance(body, StreamingBody)  # before: a document of its own, the whole answer rendered again
    assert body.text == "".join(_answer())
    assert delegate.bodies_built == 1  # the person's message; the answer's rendering is the streamed one
    # Each character rendered once as it settled, and only tails again: not the whole answer a second time.
    assert delegate.streamed_chars_rendered < 2 * len(body.text)


def test_a_switch_back_to_a_line_whose_turn_ended_meanwhile_renders_only_what_streamed_since(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    window, key = _window(qtbot, agent_controller)
    other = agent_controller.lines.create_line("Elsewhere").thread_id
    delegate = window.message_list.message_delegate
    answer = _answer()
    openai_server.script(TextReply(answer, delay=0.02))
    task = agent_controller.turns.start_turn(key, "a long answer, please")
    half = "".join(answer[: PARAGRAPHS // 2])
    run(loop, wait_until(lambda: (live_text(window) or "").startswith(half), what="half the answer shown"))
    _painted(window)  # the first half rendered while the line is shown
    shown = len(live_text(window) or "")
    click_line(qtbot, window, other)
    rendered, built = delegate.streamed_chars_rendered, delegate.bodies_built
    run(loop, wait_until(task.done, what="the turn's end"))
    settled(qtbot, window)

    click_line(qtbot, window, key)
    _painted(window)
    body = delegate.body_for(window.message_model.index(_answer_index(window), 0))
    assert isinstance(body, StreamingBody) and body.text == "".join(answer)
    assert delegate.bodies_built == built  # before: the whole answer rendered again as a document
    # What streamed while away, and the tail shown then (a paragraph at most): not the part rendered before.
    tail = max(len(chunk) for chunk in answer)
    assert delegate.streamed_chars_rendered - rendered <= len(body.text) - shown + tail


def test_a_search_hit_is_marked_in_whichever_part_of_a_streamed_answer_holds_it(qapp: QApplication) -> None:
    body = StreamingBody(QFont(), 400.0)
    body.update("A first paragraph.\n\nThe")  # settled as it streams: the first paragraph is a part of its own
    body.update("A first paragraph.\n\nThe second one holds the word target here.\n\nAnd a tail")
    assert len(body.parts) == 3
    text = body.plain_text()
    start = text.index("target")
    image = QImage(420, int(body.height()) + 10, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.white)
    palette = QPalette()
    palette.setColor(QPalette.ColorRole.Highlight, QColor(255, 0, 0))
    painter = QPainter(image)
    body.draw(painter, QRectF(0, 0, 420, image.height()), palette, [(start, start + len("target"))])
    painter.end()

    marked = [y for y in range(image.height()) for x in range(0, 420, 2) if image.pixelColor(x, y) == QColor(255, 0, 0)]
    assert marked  # before: a streamed answer drew no search marks at all
    first_part = body.parts[0].height()
    assert min(marked) > first_part  # in the second part, where the word is, not at the same offset in the first


def test_a_code_block_that_starts_a_part_keeps_the_room_of_its_header_above_it(qapp: QApplication) -> None:
    """Qt lays a document's first block out without its top margin, and leaves the last one's bottom margin out of
    its size; a code block's margins hold its header strip and the bottom of its box. A streaming answer's part often
    starts with a code block: its header was drawn over the part before it, its box into the part after it."""
    body = StreamingBody(QFont(), 400.0)
    body.update("A paragraph before the code.\n\n```python")  # the paragraph settles: the code starts a part
    body.update("A paragraph before the code.\n\n```python\nx = 1\n```\n\nAfter.")
    code_part = body.parts[1]
    assert isinstance(code_part, DocumentBody)
    header = code_part.decorations().headers[0]
    assert header.rect.top() >= 0  # the header inside the part (before: above it, over the paragraph)
    assert header.box.bottom() <= code_part.height()  # and the box's bottom too (before: below it)


def test_the_copy_chip_of_a_code_block_in_a_streamed_answer_gives_its_code(qapp: QApplication) -> None:
    body = StreamingBody(QFont(), 400.0)
    body.update("Some text first.\n\n```python")
    body.update("Some text first.\n\n```python\nprint('copied')\n```\n\nAfter.")
    first, code_part = body.parts[0], body.parts[1]
    assert isinstance(code_part, DocumentBody)
    header = code_part.decorations().headers[0]
    top = first.height() + 6.0  # the gap between two parts (``rendering._CHUNK_GAP``)
    chip = header.copy_rect.center() + QPointF(0.0, top)
    assert body.code_at(chip) == "print('copied')"  # before: a streamed answer's chips copied nothing
    assert body.code_at(QPointF(5.0, 2.0)) is None  # the plain text above it


def test_an_answer_longer_than_the_list_shows_stays_whole_where_it_streamed_and_is_not_rendered_again(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, agent_controller: SessionController, openai_server: OpenAIServer
) -> None:
    """The list cuts a stored message past ``DISPLAY_LIMIT`` characters; an answer that long streamed whole, and at
    its turn's end its last third went, replaced by "… (n more characters not shown in the list)", rendered as a
    new 20,000-character document (about 20 ms on the GUI thread; the slowest switches of issue 34 item 1). Now
    the row keeps what streamed, whole; shown afresh (another window, a restart), the list cuts it as before."""
    window, key = _window(qtbot, agent_controller)
    delegate = window.message_list.message_delegate
    paragraph = "A paragraph of a very long answer, with **bold** words and `code` in it.\n\n"
    chunks = [f"{n}. {paragraph}" for n in range(DISPLAY_LIMIT // len(paragraph) * 3 // 2)]
    answer = "".join(chunks)
    assert len(answer) > DISPLAY_LIMIT * 1.4
    openai_server.script(TextReply(chunks, delay=0.001))
    task = agent_controller.turns.start_turn(key, "a very long answer, please")
    run(loop, wait_until(task.done, what="the turn's end"))
    settled(qtbot, window)
    _painted(window)
    built = delegate.bodies_built
    assert built == 1  # the person's message

    index = window.message_model.index(_answer_index(window), 0)
    stored = index.data(CONTENT_ROLE)
    assert stored.startswith(answer.strip()) and len(stored) > DISPLAY_LIMIT  # cut in the list at DISPLAY_LIMIT
    body = delegate.body_for(index)
    assert isinstance(body, StreamingBody)  # before: a document of the cut text, rendered at the turn's end
    assert body.text == stored and "not shown in the list" not in body.text
    other = agent_controller.lines.create_line("Elsewhere").thread_id
    click_line(qtbot, window, other)
    click_line(qtbot, window, key)
    _painted(window)
    assert delegate.body_for(window.message_model.index(_answer_index(window), 0)) is body
    assert delegate.bodies_built == built  # the answer not rendered again on the way back
    whole_height = window.message_list.visualRect(window.message_model.index(_answer_index(window), 0)).height()

    delegate.BODY_CACHE = 1  # the next bodies built push the whole answer's out
    openai_server.script(TextReply(chunks[:80]))  # long enough to scroll too: the same width, no re-measuring
    run(loop, wait_until(agent_controller.turns.start_turn(other, "hello").done, what="the other turn"))
    click_line(qtbot, window, other)
    _painted(window)
    click_line(qtbot, window, key)
    _painted(window)
    index = window.message_model.index(_answer_index(window), 0)
    rebuilt = delegate.body_for(index)
    assert not isinstance(rebuilt, StreamingBody) and "not shown in the list" in rebuilt.document.toPlainText()
    assert window.message_list.visualRect(index).height() < whole_height  # measured again: the cut text's height

    fresh = open_window(qtbot, agent_controller)  # nothing streamed there: the list's cut, as for any long message
    click_line(qtbot, fresh, key)
    _painted(fresh)
    cut = fresh.message_list.message_delegate.body_for(fresh.message_model.index(_answer_index(fresh), 0))
    assert not isinstance(cut, StreamingBody)
    assert "not shown in the list" in cut.document.toPlainText()
