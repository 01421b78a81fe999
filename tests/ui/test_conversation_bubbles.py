"""Issue 30 item 1: the person's messages are soft bubbles at the right, as wide as their text and at most
``BUBBLE_SHARE`` of the row; the agent's answers are flat and take the whole width. And the row's selectable
text (``messageTextView``, issue 18) follows the rows when they wrap again (a pane shown or hidden).

Real window, real SQLite store, offscreen; sizes measured on the delegate's rects and on painted pixels."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QAction, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store import Store
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation.view import BUBBLE_SHARE, MessageDelegate
from xworkmate.ui.message_text import MessageTextView
from xworkmate.ui.theme import current

from .conftest import open_window

SHORT = "Hi there"
LONG = " ".join(["Please read the notes file and list three things I should check before the release."] * 4)
ANSWER = "Here are three things: the notes, the version and the changelog, each checked against the release."


def _window(qtbot: QtBot, controller: SessionController, store: Store) -> MainWindow:
    for content in (SHORT, LONG):
        store.messages.append("main", role=MessageRole.USER, source=MessageSource.HUMAN, content=content)
    store.messages.append("main", role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content=ANSWER)
    window = open_window(qtbot, controller)
    window.resize(1200, 800)
    qtbot.waitUntil(lambda: window.message_model.rowCount() == 3)
    QApplication.processEvents()
    return window


def _card(window: MainWindow, row: int) -> QRect:
    view = window.message_list
    delegate = view.message_delegate
    assert isinstance(delegate, MessageDelegate)
    index = window.message_model.index(row, 0)
    return delegate.card_rect(view.visualRect(index), index, view.font()).toAlignedRect()


def test_the_persons_short_message_is_a_bubble_at_the_right_that_hugs_its_text(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    window = _window(qtbot, sqlite_controller, sqlite_store)
    view = window.message_list
    viewport = view.viewport().rect()
    short, answer = _card(window, 0), _card(window, 2)
    text = view.fontMetrics().horizontalAdvance(SHORT)
    assert short.width() < viewport.width() / 2  # not the full width
    assert text < short.width() < text + 120  # its text, its header and the padding: no more
    assert answer.width() > viewport.width() - 20  # the agent's answer: flat, the whole width
    assert abs(short.right() - answer.right()) <= 1  # at the right, where the answers end

    image: QImage = view.viewport().grab().toImage()
    if image.devicePixelRatio() != 1:
        image = image.scaled(viewport.size())
    middle = short.center().y()
    theme = current()
    assert image.pixelColor(QPoint(short.left() + 3, middle)).name() == theme.hex("card-user")  # the bubble
    assert image.pixelColor(QPoint(short.left() - 20, middle)).name() == theme.hex("surface")  # the list beside it


def test_the_persons_long_message_is_capped_at_three_quarters_of_the_row(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    window = _window(qtbot, sqlite_controller, sqlite_store)
    view = window.message_list
    long, answer = _card(window, 1), _card(window, 2)
    cap = answer.width() * BUBBLE_SHARE
    # At the cap, less what its longest wrapped line leaves free (under a word): not the text's length.
    assert cap - view.fontMetrics().horizontalAdvance("release. Please") <= long.width() <= cap + 2
    assert long.left() > answer.left() + answer.width() // 5  # indented from the left
    line = view.fontMetrics().lineSpacing()
    assert long.height() > 3 * line  # wrapped inside the bubble, the row taller for it

    window.resize(900, 700)  # narrower: the cap follows the row's width
    qtbot.waitUntil(lambda: _card(window, 2).width() < answer.width())
    assert _card(window, 1).width() <= _card(window, 2).width() * BUBBLE_SHARE + 2


def test_the_selectable_text_follows_the_rows_when_a_pane_is_toggled(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """A stale text view stood where its row no longer was after the rows wrapped again, over the
    rows and chips under it: it closes (the next hover opens it again, where the row is now)."""
    window = _window(qtbot, sqlite_controller, sqlite_store)
    view = window.message_list
    index = window.message_model.index(2, 0)
    qtbot.mouseMove(view.viewport(), QPoint(1, 1))
    qtbot.mouseMove(view.viewport(), view.visualRect(index).center())
    editor = view.text_view()
    assert isinstance(editor, MessageTextView) and editor.isVisible()
    before = editor.geometry()

    toggle = window.findChild(QAction, "toggleTaskPaneAction")
    assert toggle is not None and toggle.isChecked()
    toggle.trigger()  # the task list hides: the conversation gets wider and every row wraps again
    qtbot.waitUntil(lambda: view.viewport().width() > before.width() + 100)
    QApplication.processEvents()

    def placed() -> bool:
        shown = view.text_view()
        if shown is None:
            return True
        body = view.message_delegate.body_rect(view.visualRect(index), view.font(), index).toAlignedRect()
        return shown.geometry() == body and shown.document().textWidth() == body.width()

    qtbot.waitUntil(placed)
    qtbot.wait(50)
    assert placed()

    qtbot.mouseMove(view.viewport(), QPoint(1, 1))
    qtbot.mouseMove(view.viewport(), view.visualRect(index).center())
    reopened = view.text_view()
    assert isinstance(reopened, MessageTextView)
    body = view.message_delegate.body_rect(view.visualRect(index), view.font(), index).toAlignedRect()
    assert reopened.geometry() == body
    assert view.visualRect(index).contains(reopened.geometry())
