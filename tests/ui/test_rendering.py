"""How messages look: Markdown with highlighted code, the raw toggle, tool cards from stored payloads (SPEC §6)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QImage, QPainter, QTextDocument
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource, MessageState
from xworkmate.presentation.cards import tool_card
from xworkmate.store import Store
from xworkmate.ui.markdown_tables import fix_widths
from xworkmate.ui.rendering import (
    TABLE_CHUNK_ROWS,
    BodyFormat,
    DocumentBody,
    PlainBody,
    StreamingBody,
    build_body,
    build_document,
    is_code_block,
    is_plain_prose,
)

from .conftest import open_window

ANSWER = "Run this:\n\n```python\nprint('hi')  # greet\n```\n\nThen **check** the output."


def _code_blocks(document: QTextDocument) -> list[tuple[str, bool]]:
    """(text, highlighted) for each code block of a rendered document."""
    found: list[tuple[str, bool]] = []
    block = document.begin()
    while block.isValid():
        if is_code_block(block.blockFormat()):
            found.append((block.text(), bool(block.layout().formats())))
        block = block.next()
    return found


def test_markdown_answers_render_with_highlighted_monospace_code_and_the_raw_toggle_shows_the_source(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    sqlite_store.messages.append(
        "main",
        role=MessageRole.ASSISTANT,
        source=MessageSource.AGENT,
        content=ANSWER,
        payload={"tool_calls": [], "provider": "local", "model": "m"},
    )
    window = open_window(qtbot, sqlite_controller)
    index = window.message_model.index(0, 0)
    delegate = window.message_list.message_delegate

    body = delegate.body_for(index)
    assert isinstance(body, DocumentBody)  # Markdown with code is parsed, not laid out as plain text
    rendered = body.document
    text = rendered.toPlainText()
    assert "```" not in text and "**" not in text
    assert "print('hi')  # greet" in text and "check the output" in text
    assert _code_blocks(rendered) == [("print('hi')  # greet", True)]  # a code block, with highlighting
    code = rendered.findBlock(text.index("print"))
    assert "monospace" in (code.begin().fragment().charFormat().fontFamilies() or [])

    qtbot.mouseClick(window.raw_toggle, Qt.MouseButton.LeftButton)
    assert window.raw_toggle.isChecked()
    raw = delegate.body_for(index).plain_text()
    assert raw == ANSWER
    assert "```python" in raw and "**check**" in raw

    qtbot.mouseClick(window.raw_toggle, Qt.MouseButton.LeftButton)
    assert "```" not in delegate.body_for(index).plain_text()
    assert index.data() == ANSWER  # the model keeps the source either way (copy, tests)


def test_user_messages_and_notices_stay_plain_text(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """The person's own words are shown as typed, never reinterpreted as Markdown."""
    sqlite_store.messages.append("main", role=MessageRole.USER, source=MessageSource.HUMAN, content="**not bold**")
    window = open_window(qtbot, sqlite_controller)
    body = window.message_list.message_delegate.body_for(window.message_model.index(0, 0))
    assert isinstance(body, PlainBody)
    assert body.plain_text() == "**not bold**"


def test_interrupted_answers_and_thoughts_are_labelled_in_the_header(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    sqlite_store.messages.append(
        "main", role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content="half", state=MessageState.INTERRUPTED
    )
    sqlite_store.messages.append(
        "main", role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content="hmm", payload={"thought": True}
    )
    window = open_window(qtbot, sqlite_controller)
    from .support import message_headers

    headers = message_headers(window)
    assert headers[0].startswith("Agent · ") and headers[0].endswith("interrupted")
    assert headers[1].startswith("Agent (thinking) · ")


PLAIN_PROSE = [
    "I looked; it is fine.",
    "Done. The build passes on both databases (SQLite, PostgreSQL), 100% green?",
    "我看过了，没问题。",
    "Version 2.1 is out: see the notes.",
]
MARKDOWN_SYNTAX = [
    "It is **fine**.",
    "Use `make test`.",
    "- a list item",
    "1. first",
    "3) third",
    "> a quote",
    "# Heading",
    "see https://example.com",
    "see www.example.com",
    "mail me@example.com",
    "a | b",
    "~~gone~~",
    "Tom &amp; Jerry",
    "two\nlines",
    "    indented code",
    "trailing break  ",
    "snake_case_name",
    "a\\b",
    "<b>html</b>",
    "[link](x)",
    "",
]


@pytest.mark.parametrize("text", PLAIN_PROSE)
def test_plain_prose_answers_skip_the_markdown_parser_and_look_the_same(qapp: QApplication, text: str) -> None:
    """Issue 7: an answer without Markdown syntax is laid out as plain text, with the same text and height."""
    assert is_plain_prose(text)
    font = qapp.font()
    fast = build_body(text, "markdown", font, 240)
    assert isinstance(fast, PlainBody)
    parsed = build_document(text, "markdown", font, 240, raw=True)  # the defaults a row's document gets
    parsed.setMarkdown(text)
    assert fast.plain_text() == parsed.toPlainText().strip("\n")
    assert fast.height() == parsed.size().height()


PLAIN_TEXTS = [
    "one line",
    "",
    "two\nlines",
    "a blank line\n\nbetween paragraphs\n",
    "windows\r\nline ends",
    "tab\tseparated\tcolumns",
    "a-very-long-word-" * 30,
    "wrapping prose " * 40,
    "中文的句子没有空格，也要换行。" * 12,
    "emoji 🎉 and combining é",
]


@pytest.mark.parametrize("text", PLAIN_TEXTS)
@pytest.mark.parametrize("body_format", ["plain", "thought"])
def test_plain_bodies_measure_exactly_as_a_plain_text_document(
    qapp: QApplication, text: str, body_format: BodyFormat
) -> None:
    """Issue 7: a plain body skips QTextDocument, so its height must be the document's, at every width."""
    font = qapp.font()
    body = build_body(text, body_format, font, 300)
    document = build_document(text, body_format, font, 300)
    assert isinstance(body, PlainBody)
    assert body.plain_text() == text
    for width in (300, 120, 641, 10):
        body.set_width(width)
        document.setTextWidth(width)
        assert body.height() == document.size().height(), width


def test_a_very_long_plain_text_is_laid_out_by_a_document(qapp: QApplication) -> None:
    """A pasted log of megabytes is painted paragraph by paragraph, not laid out as one paragraph."""
    assert isinstance(build_body("a log line\n" * 5_000, "plain", qapp.font(), 300), DocumentBody)


@pytest.mark.parametrize("text", MARKDOWN_SYNTAX)
def test_answers_with_any_markdown_syntax_go_through_the_parser(text: str) -> None:
    assert not is_plain_prose(text)


def _answer(paragraphs: int) -> str:
    """A long Markdown answer: prose, lists and fenced code (with a blank line inside the fence)."""
    parts = []
    for n in range(paragraphs):
        if n % 7 == 3:
            parts.append(f"```python\ndef step_{n}(x):\n    y = x + {n}\n\n    return y  # blank line above\n```")
        elif n % 7 == 5:
            parts.append(f"- item {n}\n- item {n + 1}")
        else:
            parts.append(f"Paragraph {n} explains a step in **plain** words, with `code` in it.")
    return "\n\n".join(parts)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_a_streaming_answer_renders_each_settled_part_once(qapp: QApplication) -> None:
    """Issue 7: per flush only the unsettled tail is rendered again, so the total work grows
    linearly with the answer's length, not with its square, and the text shown is the whole answer."""
    answer = _answer(150)
    body = StreamingBody(qapp.font(), 400)
    flushes = 0
    for end in range(40, len(answer) + 40, 40):  # a flush every 40 characters, as tokens arrive
        body.update(answer[:end])
        flushes += 1
    assert flushes > 200
    assert body.rendered_chars < 3 * len(answer)  # re-rendering everything would be ~flushes/2 times that
    assert _lines(body.plain_text()) == _lines(build_document(answer, "markdown", qapp.font(), 400).toPlainText())
    assert len(body.parts) > 100 and body.height() > 0


def test_a_streaming_answers_flush_measures_only_its_tail_not_every_settled_part_again(qapp: QApplication) -> None:
    """Issue 34 item 1: each flush of the shown line's answer is measured (the row's height) and painted; the
    settled parts' heights are kept, so the layouts asked grow with the parts and the flushes, not with their
    product (before, every flush asked every part at least twice: 34,748 here)."""
    answer = _answer(150)
    body = StreamingBody(qapp.font(), 400)
    image = QImage(420, 300, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    flushes = 0
    for end in range(40, len(answer) + 40, 40):
        body.update(answer[:end])
        height = body.height()
        assert height == sum(part.height() for part in body.parts) + 6.0 * (len(body.parts) - 1)
        body.draw(painter, QRectF(0, max(height - 300, 0), 400, 300), qapp.palette())  # the newest text shows
        flushes += 1
    painter.end()
    assert flushes > 200 and len(body.parts) > 100
    assert body.parts_measured <= len(body.parts) + 3 * flushes, body.parts_measured

    body.set_width(300)  # another width: each part is measured once more
    measured = body.parts_measured
    assert body.height() == sum(part.height() for part in body.parts) + 6.0 * (len(body.parts) - 1)
    assert body.parts_measured <= measured + len(body.parts)


def test_a_streaming_code_fence_grows_in_place_and_ends_as_one_rendering_would_show_it(qapp: QApplication) -> None:
    """Issue 34 item 1: nothing inside an open fence settles, so a model writing a file of 2,000 lines in one
    fence had the whole fence rendered again at each flush (131 ms a flush at its end, 14 s of the GUI thread
    over the stream). Past ``GROWN_TAIL_CHARS`` the tail's document grows by what came; once the fence closes
    it is the settled part as it is. What shows is what one rendering of the answer shows: text, height,
    highlighting, one code header whose "Copy" copies all of the code."""
    body, lines, answer = _streamed_fence(qapp, 600)
    longer, _, longer_answer = _streamed_fence(qapp, 1_200)
    # The work grows with the answer, not with its square (rendered again per flush: ~2 million more).
    assert longer.rendered_chars - body.rendered_chars < 3 * (len(longer_answer) - len(answer))

    fresh = build_body("```python\n" + "\n".join(lines) + "\n```", "markdown", qapp.font(), 500)
    assert isinstance(fresh, DocumentBody)
    [before, fence, after] = body.parts
    assert isinstance(fence, DocumentBody)
    assert fence.plain_text() == fresh.plain_text() == "\n".join(lines)
    assert fence.height() == fresh.height()  # the same lines, margins and closing room
    assert body.height() == before.height() + fence.height() + after.height() + 2 * 6.0
    [header] = fence.decorations().headers
    [fresh_header] = fresh.decorations().headers
    assert header.language == "python" and header.code == "\n".join(lines) and header.box == fresh_header.box
    late = fence.document.lastBlock()  # a line added in place is highlighted as the rendering does it
    assert late.text() == lines[-1] and late.layout().formats() == fresh.document.lastBlock().layout().formats()
    assert _painted(qapp, fence, fresh.height()) == _painted(qapp, fresh, fresh.height())  # pixel for pixel


@pytest.mark.parametrize("marker", ["- ", "{n}. "])
def test_a_streaming_list_of_a_thousand_items_settles_item_by_item_and_shows_as_one_list(
    qapp: QApplication, marker: str
) -> None:
    """Issue 34 item 1: a list has no blank line, so nothing of it settled and it was rendered again whole at
    each flush (1,000 findings: 84 ms a flush at the end). A tail past ``GROWN_TAIL_CHARS`` settles where its
    last top-level item starts; the parts paint as the whole list does, an ordered one's numbers going on."""

    def streamed(count: int) -> tuple[StreamingBody, str]:
        items = "".join(marker.format(n=n + 1) + f"finding {n}: the old name still works\n" for n in range(count))
        answer = f"Findings:\n\n{items}\nThat is all."
        return _streamed(qapp, answer, 30), answer

    body, answer = streamed(1_000)
    longer, _ = streamed(2_000)
    assert longer.rendered_chars < 2.3 * body.rendered_chars  # twice the list, twice the work (not four times)
    whole = build_body(answer, "markdown", qapp.font(), 500)
    assert body.height() == whole.height()
    assert _lines(body.plain_text()) == _lines(whole.plain_text())
    assert _painted(qapp, body, whole.height()) == _painted(qapp, whole, whole.height())


def test_a_streaming_table_of_hundreds_of_rows_settles_every_few_rows_and_shows_as_one_table(
    qapp: QApplication,
) -> None:
    """Issue 34 item 1: a table has no blank line, so nothing of it settled, and a table is laid out whole at
    each change: 1,500 rows streamed took ~0.6 s a flush at the end. It settles every ``TABLE_CHUNK_ROWS`` rows;
    each part goes on with the table's columns (the whole width, shared as its first part shares it) and its
    borders meet the part above: painted, the parts are the table laid out once with those widths, pixel for
    pixel."""

    def streamed(count: int) -> tuple[StreamingBody, str]:
        row = "| src/module_{n}/file_{n}.py | {size} KB | `fn_{n}` changed, **tests** pass |\n"
        rows = "".join(row.format(n=n, size=n * 37) for n in range(count))
        answer = "| file | size | notes |\n|---|:--:|---|\n" + rows
        return _streamed(qapp, answer, 40), answer

    body, answer = streamed(300)
    longer, _ = streamed(600)
    assert longer.rendered_chars < 2.3 * body.rendered_chars  # twice the table, twice the work (not four times)
    assert len(body.parts) == 300 // TABLE_CHUNK_ROWS
    assert _lines(body.plain_text()) == _lines(build_body(answer, "markdown", qapp.font(), 500).plain_text())

    whole = build_body(answer, "markdown", qapp.font(), 500)
    assert isinstance(whole, DocumentBody) and body.table_widths is not None
    fix_widths(whole.document, body.table_widths, first=True, last=True)
    assert body.height() == whole.height()
    assert _painted(qapp, body, whole.height()) == _painted(qapp, whole, whole.height())


def test_a_long_paragraph_is_not_split_before_a_line_that_only_looks_like_a_list_item(qapp: QApplication) -> None:
    """An ordered item not numbered 1 cannot start a list inside a paragraph: "2024. was…" goes on with it."""
    answer = "A long paragraph, " + "word " * 400 + "and then\n2024. was the year it changed.\n- then a list\n"
    body = StreamingBody(qapp.font(), 500)
    for end in range(30, len(answer) + 30, 30):
        body.update(answer[:end])
    whole = build_body(answer.strip("\n"), "markdown", qapp.font(), 500)
    assert not any(part.plain_text().startswith("2024") for part in body.parts)
    assert body.height() == whole.height()
    assert _painted(qapp, body, whole.height()) == _painted(qapp, whole, whole.height())


def _streamed(qapp: QApplication, answer: str, step: int) -> StreamingBody:
    """``answer`` given to a row's ``StreamingBody`` ``step`` characters a flush, measured as the row does."""
    body = StreamingBody(qapp.font(), 500)
    for end in range(step, len(answer) + step, step):
        body.update(answer[:end])
        body.height()
    return body


def _painted(qapp: QApplication, body: StreamingBody | DocumentBody | PlainBody, height: float) -> QImage:
    """``body`` painted on white, ``height`` (and 2 px) tall."""
    rows = int(height) + 2
    image = QImage(520, rows, QImage.Format.Format_ARGB32)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    body.draw(painter, QRectF(0, 0, 520, rows), qapp.palette())
    painter.end()
    return image


def _streamed_fence(qapp: QApplication, count: int) -> tuple[StreamingBody, list[str], str]:
    """An answer with a fence of ``count`` lines of code, streamed 30 characters a flush (mid-line as often as
    not), each flush measured as the row does."""
    lines = [f"    value_{n} = compute({n}, name='x')  # note {n}" for n in range(count)]
    answer = "Here is the file:\n\n```python\n" + "\n".join(lines) + "\n```\n\nThat is all.\n"
    body = StreamingBody(qapp.font(), 500)
    image = QImage(520, 300, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    for end in range(30, len(answer) + 30, 30):
        body.update(answer[:end])
        height = body.height()
        body.draw(painter, QRectF(0, max(height - 300, 0), 520, 300), qapp.palette())  # the newest text shows
    painter.end()
    return body, lines, answer


def test_a_streaming_code_block_with_blank_lines_stays_one_block(qapp: QApplication) -> None:
    """A blank line inside a fence is not a boundary: the block is rendered whole, highlighted."""
    answer = "Intro.\n\n```python\na = 1\n\nb = 2\n```\n\nAfter."
    body = StreamingBody(qapp.font(), 400)
    body.update(answer[: answer.index("b = 2")])
    assert [part.plain_text() for part in body.parts] == ["Intro.", "a = 1"]  # the open fence is the tail
    body.update(answer)
    assert [part.plain_text() for part in body.parts] == ["Intro.", "a = 1\n\nb = 2", "After."]
    code = body.parts[1]
    assert isinstance(code, DocumentBody)
    assert _code_blocks(code.document) == [("a = 1", True), ("", False), ("b = 2", True)]  # one block, highlighted


def test_a_streaming_body_starts_over_for_another_answer(qapp: QApplication) -> None:
    body = StreamingBody(qapp.font(), 400)
    body.update("First answer.\n\nSecond paragraph.")
    body.update("Something else entirely.")
    assert body.plain_text() == "Something else entirely."


def test_a_card_of_a_minified_output_and_a_heredoc_title_is_a_few_lines_tall(qapp: QApplication) -> None:
    """Issue 34 (LOOP-1): a 64 KB line of output made a "collapsed" card 13,000 px tall, a 50 KB heredoc
    its title 10,000 px; the card is a title line and at most ``LONG_LINE_CHARS`` of each body line."""
    heredoc = "cat > data.py <<'EOF'\n" + "\n".join(f"VALUE_{i} = {i}  # a comment" for i in range(1500)) + "\nEOF"
    card = tool_card({"name": "run_command", "arguments": {"command": heredoc}, "ok": True}, "x" * 65_536)
    font = QFont()
    document = build_document("", "tool", font, 600, card=card)
    line = QFontMetricsF(font).lineSpacing()
    assert document.size().height() < 30 * line  # ~11 lines of the cut output, the title, the note
