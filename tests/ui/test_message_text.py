"""Selectable message text and the Markdown look (issue 18, item 4).

Pins: the row under the mouse opens as selectable text over its body
(``messageTextView``) without moving anything; a drag selects part of an
answer; Ctrl+C copies it as plain text and Ctrl+Shift+C as Markdown; F2 opens
it from the keyboard; a code block's "Copy" chip copies the block; Markdown
gets heading-size inline code, inline-code backgrounds, a quote bar and a
code header with its language.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QTextCursor
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store import Store
from xworkmate.ui import MainWindow, markdown_style
from xworkmate.ui.message_text import MessageTextView
from xworkmate.ui.rendering import build_document
from xworkmate.ui.theme import TYPE_SCALE, current

from .conftest import open_window

ANSWER = (
    "First paragraph with plain words in it.\n\n"
    "Second **bold** paragraph and `inline` code.\n\n"
    "> a quoted remark\n\n"
    "```python\nx = 1\ny = 2\n```"
)


def window_with_answer(qtbot: QtBot, controller: SessionController, store: Store) -> MainWindow:
    store.messages.append("main", role=MessageRole.USER, source=MessageSource.HUMAN, content="explain")
    store.messages.append(
        "main", role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content=ANSWER, payload={"model": "m1"}
    )
    window = open_window(qtbot, controller)
    window.resize(1100, 800)
    qtbot.waitUntil(lambda: window.message_model.rowCount() == 2)
    return window


def hover_answer(qtbot: QtBot, window: MainWindow) -> MessageTextView:
    view = window.message_list
    rect: QRect = view.visualRect(window.message_model.index(1, 0))
    qtbot.mouseMove(view.viewport(), QPoint(1, 1))  # Qt drops a move to where the mouse already is
    qtbot.mouseMove(view.viewport(), rect.center())
    editor = view.text_view()
    assert isinstance(editor, MessageTextView)
    return editor


def point_of(editor: MessageTextView, text: str, offset: int = 0) -> QPoint:
    position = editor.document().toPlainText().index(text) + offset
    cursor = QTextCursor(editor.document())
    cursor.setPosition(position)
    return editor.cursorRect(cursor).center()


def test_a_drag_selects_part_of_an_answer_and_copies_it_as_text_or_markdown(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    window = window_with_answer(qtbot, sqlite_controller, sqlite_store)
    before = window.message_list.viewport().grab().toImage()
    window.composer.setFocus()
    editor = hover_answer(qtbot, window)
    assert editor.objectName() == "messageTextView" and editor.isVisible()
    assert window.focusWidget() is window.composer  # hovering never takes the focus
    assert editor.accessibleName()
    row = window.message_list.visualRect(window.message_model.index(1, 0))
    assert row.contains(editor.geometry().topLeft())
    after = window.message_list.viewport().grab().toImage()
    # The text did not move: the paragraphs and the quote look the same with the text view over them.
    text_top, text_bottom = editor.geometry().top(), editor.geometry().top() + point_of(editor, "quoted").y() + 8

    def delta(x: int, y: int) -> int:
        a, b = before.pixelColor(x, y), after.pixelColor(x, y)
        return max(abs(a.red() - b.red()), abs(a.green() - b.green()), abs(a.blue() - b.blue()))

    # Antialiasing differs a little (up to ~40 of 255); text shifted by one pixel differs by ~240.
    changed = [
        (x, y)
        for y in range(text_top, text_bottom)
        for x in range(editor.geometry().left(), editor.geometry().right())
        if delta(x, y) > 64
    ]
    assert not changed, changed[:10]

    start, end = point_of(editor, "bold"), point_of(editor, "inline", 3)
    qtbot.mousePress(editor.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(editor.viewport(), end)
    qtbot.mouseRelease(editor.viewport(), Qt.MouseButton.LeftButton, pos=end)
    selected = editor.textCursor().selectedText()
    assert selected == "bold paragraph and inl"  # part of the answer, not the whole card

    editor.setFocus()
    qtbot.keyClick(editor, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.clipboard().text() == selected

    cursor = editor.textCursor()
    text = editor.document().toPlainText()
    cursor.setPosition(text.index("Second"))
    cursor.setPosition(text.index("paragraph and"), QTextCursor.MoveMode.KeepAnchor)
    editor.setTextCursor(cursor)
    modifiers = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(editor, Qt.Key.Key_C, modifiers)
    assert QApplication.clipboard().text().strip() == "Second **bold**"

    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_C, modifiers)
    assert QApplication.clipboard().text() == ANSWER  # all of it: the stored Markdown


def test_f2_opens_the_current_message_for_keyboard_selection(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    window = window_with_answer(qtbot, sqlite_controller, sqlite_store)
    view = window.message_list
    view.setFocus()
    view.setCurrentIndex(window.message_model.index(1, 0))
    qtbot.keyClick(view, Qt.Key.Key_F2)
    editor = view.text_view()
    assert isinstance(editor, MessageTextView) and window.focusWidget() is editor
    editor.moveCursor(QTextCursor.MoveOperation.Start)
    for _ in range(5):
        qtbot.keyClick(editor, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert editor.textCursor().selectedText() == "First"


def test_the_copy_chip_copies_the_code_block(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    window = window_with_answer(qtbot, sqlite_controller, sqlite_store)
    editor = hover_answer(qtbot, window)
    [header] = markdown_style.decorations(editor.document()).headers
    assert header.language == "python" and header.code == "x = 1\ny = 2"
    QApplication.clipboard().clear()
    qtbot.mouseClick(editor.viewport(), Qt.MouseButton.LeftButton, pos=header.copy_rect.center().toPoint())
    assert QApplication.clipboard().text() == "x = 1\ny = 2"

    window.message_list.close_text_view()  # the painted row's chip works too
    QApplication.clipboard().clear()
    view = window.message_list
    index = window.message_model.index(1, 0)
    origin = view.message_delegate.body_rect(view.visualRect(index), view.font()).topLeft()
    chip = (header.copy_rect.center() + origin).toPoint()
    qtbot.wait(QApplication.doubleClickInterval() + 50)  # a press right after an editor closed is not a click
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=chip)
    assert QApplication.clipboard().text() == "x = 1\ny = 2"


def test_markdown_gets_spacing_quote_bar_inline_code_background_and_heading_size(qapp: QApplication) -> None:
    document = build_document(
        "# Run `make` now\n\nUse `ls`.\n\n> quoted\n\n```sh\nls\n```", "markdown", qapp.font(), 400
    )
    heading = document.begin()
    sizes = set()
    it = heading.begin()
    while not it.atEnd():
        fmt = it.fragment().charFormat()
        sizes.add(round(fmt.fontPointSize(), 2))  # inline code too: not shrunk to the body's size
        it += 1
    # Issue 30: the type scale's heading, at most ~1.3x the body (it was Qt's xx-large, a poster).
    assert sizes == {round(qapp.font().pointSizeF() * TYPE_SCALE["heading-1"], 2)}
    assert 1.0 < TYPE_SCALE["heading-1"] <= 1.3
    paragraph = heading.next()
    code = [it for it in _fragments(paragraph) if it.charFormat().fontFixedPitch()]
    assert code and code[0].charFormat().background().color() == QColor(current().hex("code-bg"))
    assert paragraph.blockFormat().topMargin() > 0 and heading.blockFormat().bottomMargin() > 0
    found = markdown_style.decorations(document)
    assert len(found.quote_bars) == 1 and found.quote_bars[0].height() > 5
    assert [h.language for h in found.headers] == ["sh"]


def _fragments(block: object) -> list:  # type: ignore[type-arg]
    out = []
    it = block.begin()  # type: ignore[attr-defined]
    while not it.atEnd():
        out.append(it.fragment())
        it += 1
    return out
