"""The search palette, driven with real keys (SPEC LOOP-3, LOOP-4, CAT-4).

Ctrl+K opens it; typing waits for the debounce, the query runs on a worker thread and the
newest answer wins; Enter switches to the hit's line and scrolls the conversation to the
message, selected — paging older history in when the message is far back.
"""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QInputMethodEvent, QPalette
from PySide6.QtWidgets import QApplication, QLineEdit, QListView
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.preferences import Language
from xworkmate.store import Store
from xworkmate.ui import MainWindow
from xworkmate.ui.conversation import MESSAGE_ID_ROLE as CONVERSATION_MESSAGE_ID
from xworkmate.ui.conversation import SEARCH_HIT_ROLE
from xworkmate.ui.i18n import install_translations, remove_translations
from xworkmate.ui.lines import search_palette
from xworkmate.ui.lines.search_palette import (
    HEADER_ROLE,
    HTML_ROLE,
    KEY_ROLE,
    MESSAGE_ID_ROLE,
    SearchPalette,
    SearchResultsModel,
)


def _say(store: Store, key: str, text: str) -> int:
    return store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=text).id


def _open(qtbot: QtBot, window: MainWindow) -> SearchPalette:
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    palette = window.findChild(SearchPalette, "searchPalette")
    assert palette is not None
    qtbot.waitUntil(palette.isVisible)
    return palette


def _keys(qtbot: QtBot, field: QLineEdit, text: str) -> None:
    """Type as a person does: ASCII as key presses, Chinese as an input method commits it."""
    for chunk in re.findall(r"[\x00-\x7f]+|[^\x00-\x7f]+", text):
        if chunk.isascii():
            qtbot.keyClicks(field, chunk)
        else:
            event = QInputMethodEvent()
            event.setCommitString(chunk)
            QApplication.sendEvent(field, event)


def _type(qtbot: QtBot, palette: SearchPalette, text: str) -> None:
    field = palette.findChild(QLineEdit, "searchInput")
    assert field is not None and field.hasFocus()
    with qtbot.waitSignal(palette.results_shown, timeout=10_000) as shown:
        _keys(qtbot, field, text)
    assert shown.args == [text]


def _rows(palette: SearchPalette) -> list[tuple[bool, str, int]]:
    model = palette.model
    return [
        (
            bool(model.index(r, 0).data(HEADER_ROLE)),
            model.index(r, 0).data(KEY_ROLE),
            model.index(r, 0).data(MESSAGE_ID_ROLE),
        )
        for r in range(model.rowCount())
    ]


def test_ctrl_k_opens_the_palette_and_results_are_grouped_by_line_with_highlights(
    qtbot: QtBot, window: MainWindow, sqlite_store: Store
) -> None:
    controller = window.controller
    first = controller.lines.create_line("蓝色 plans").thread_id
    second = controller.lines.create_line("Other").thread_id
    controller.lines.archive_line(second)
    a = _say(sqlite_store, first, "我喜欢蓝色的天空")
    b = _say(sqlite_store, second, "an archived 蓝色 note")
    c = _say(sqlite_store, first, "plain text")
    del c
    palette = _open(qtbot, window)
    assert palette.findChild(QListView, "searchResults") is palette.search_results
    _type(qtbot, palette, "蓝色")
    assert _rows(palette) == [(True, first, 0), (False, first, a), (True, second, 0), (False, second, b)]
    html = palette.model.index(1, 0).data(HTML_ROLE)
    highlight = palette.palette().color(QPalette.ColorRole.Highlight).name()
    assert f'<span style="background-color:{highlight}; color:' in html and ">蓝色</span>" in html
    assert palette.search_results.currentIndex().row() == 1  # the first hit, ready for Enter
    palette.search_results.viewport().grab().save("/tmp/i17a_search_palette.png")
    qtbot.keyClick(palette.search_input, Qt.Key.Key_Escape)
    assert not palette.isVisible()
    palette = _open(qtbot, window)
    window.composer.setFocus()  # clicking elsewhere closes it too
    qtbot.waitUntil(lambda: not palette.isVisible())


def test_enter_switches_to_the_line_and_scrolls_to_the_message_far_back(
    qtbot: QtBot, window: MainWindow, sqlite_store: Store
) -> None:
    controller = window.controller
    shown_first = controller.lines.create_line("Shown").thread_id
    controller.lines.switch_session(shown_first)
    long_line = controller.lines.create_line("Long").thread_id
    target = _say(sqlite_store, long_line, "the needle 针 is here")
    for n in range(450):  # more than two pages of the message pane
        _say(sqlite_store, long_line, f"filler {n}")
    palette = _open(qtbot, window)
    _type(qtbot, palette, "针")
    qtbot.keyClick(palette.search_input, Qt.Key.Key_Down)  # from the header row to the hit
    qtbot.keyClick(palette.search_input, Qt.Key.Key_Up)
    assert palette.search_results.currentIndex().data(MESSAGE_ID_ROLE) == 0
    qtbot.keyClick(palette.search_input, Qt.Key.Key_Down)
    qtbot.keyClick(palette.search_input, Qt.Key.Key_Return)
    assert not palette.isVisible()
    assert window.shown_key == long_line == controller.lines.current_key
    current = window.message_list.currentIndex()
    assert current.isValid() and current.data(CONVERSATION_MESSAGE_ID) == target
    assert window.message_list.selectionModel().isSelected(current)
    qtbot.waitUntil(lambda: window.message_list.viewport().rect().intersects(window.message_list.visualRect(current)))


def test_enter_before_the_answer_opens_the_first_hit_when_it_comes(
    qtbot: QtBot, window: MainWindow, sqlite_store: Store
) -> None:
    line = window.controller.lines.create_line("Quick").thread_id
    target = _say(sqlite_store, line, "quartz")
    palette = _open(qtbot, window)
    _keys(qtbot, palette.search_input, "quar*")
    qtbot.keyClick(palette.search_input, Qt.Key.Key_Return)  # within the debounce
    qtbot.waitUntil(lambda: window.shown_key == line)
    qtbot.waitUntil(lambda: window.message_list.currentIndex().data(CONVERSATION_MESSAGE_ID) == target)


def test_the_newest_query_wins(qtbot: QtBot, window: MainWindow, sqlite_store: Store) -> None:
    line = window.controller.lines.create_line("Race").thread_id
    _say(sqlite_store, line, "alpha one")
    beta = _say(sqlite_store, line, "beta two")
    palette = _open(qtbot, window)
    shown: list[str] = []
    palette.results_shown.connect(shown.append)
    palette.search_input.setText("alpha")
    palette.on_debounced()  # both asked at once: the worker answers alpha first, and it is dropped
    palette.search_input.setText("beta")
    palette.on_debounced()
    palette.debounce.stop()
    qtbot.waitUntil(lambda: shown == ["beta"])
    assert palette.shown_query() == "beta"
    assert [row[2] for row in _rows(palette) if not row[0]] == [beta]
    qtbot.wait(100)
    assert shown == ["beta"]


def test_no_matches_says_so(qtbot: QtBot, window: MainWindow) -> None:
    palette = _open(qtbot, window)
    _type(qtbot, palette, "zzzqqq")
    assert palette.model.rowCount() == 0 and palette.status_label.text() == "No matches for zzzqqq."


def test_the_results_model_passes_the_model_tester(
    qtmodeltester: ModelTester, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    line = sqlite_controller.lines.create_line("Model 蓝").thread_id
    for n in range(5):
        _say(sqlite_store, line, f"蓝 {n}")
    model = SearchResultsModel()
    qtmodeltester.check(model)
    model.set_results(sqlite_controller.search("蓝"), QPalette())
    assert model.rowCount() == 6
    qtmodeltester.check(model)


# -- issue 30 item 5: plain snippets, You/Agent, the hit marked after the jump -----------------

MARKDOWN_REPLY = """## Rollout **plan**

Run `make deploy` and check the *canary* first, see [the runbook](https://example.org/runbook).

| host | state |
|------|-------|
| web1 | ready |
"""


def _agent_says(store: Store, key: str, text: str) -> int:
    return store.messages.append(key, role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content=text).id


def _hit_texts(palette: SearchPalette) -> dict[int, tuple[str, str]]:
    """Each hit row's text and HTML, by message id."""
    model = palette.model
    return {
        model.index(r, 0).data(MESSAGE_ID_ROLE): (
            model.index(r, 0).data(Qt.ItemDataRole.DisplayRole),
            model.index(r, 0).data(HTML_ROLE),
        )
        for r in range(model.rowCount())
        if not model.index(r, 0).data(HEADER_ROLE)
    }


def test_a_hit_in_a_markdown_reply_reads_as_plain_text_from_the_agent_and_the_persons_from_you(
    qtbot: QtBot, window: MainWindow, sqlite_store: Store
) -> None:
    line = window.controller.lines.create_line("Rollout").thread_id
    asked = _say(sqlite_store, line, "what about the **canary**?")
    answered = _agent_says(sqlite_store, line, MARKDOWN_REPLY)
    palette = _open(qtbot, window)
    _type(qtbot, palette, "canary")
    texts = _hit_texts(palette)
    reply, reply_html = texts[answered]
    assert reply.startswith("Agent · ")
    assert reply.endswith(
        "— Rollout plan Run make deploy and check the canary first, see the runbook. host · state web1 · ready"
    )
    assert not any(syntax in reply for syntax in ("**", "`", "#", "](", "|", "*"))
    assert ">canary</span>" in reply_html and "**" not in reply_html
    question, _ = texts[asked]
    assert question.startswith("You · ") and question.endswith("— what about the canary?")
    palette.grab().save("/tmp/search30_palette_offscreen.png")


def test_opening_a_hit_selects_its_message_and_marks_it_for_a_moment(
    qtbot: QtBot, window: MainWindow, sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_palette, "HIT_MARK_MS", 400)
    window.controller.lines.switch_session(window.controller.lines.create_line("Elsewhere").thread_id)
    line = window.controller.lines.create_line("Long rollout").thread_id
    target = _agent_says(sqlite_store, line, MARKDOWN_REPLY)
    for n in range(60):
        _say(sqlite_store, line, f"filler {n}")
    palette = _open(qtbot, window)
    _type(qtbot, palette, "canary")
    qtbot.keyClick(palette.search_input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.shown_key == line)
    qtbot.waitUntil(lambda: window.message_list.currentIndex().data(CONVERSATION_MESSAGE_ID) == target)
    current = window.message_list.currentIndex()
    assert window.message_list.selectionModel().isSelected(current)
    assert current.data(SEARCH_HIT_ROLE) == "canary"  # marked, its matches painted selected
    others = [window.message_model.index(r, 0) for r in range(window.message_model.rowCount())]
    assert [i.row() for i in others if i.data(SEARCH_HIT_ROLE) is not None] == [current.row()]
    qtbot.waitUntil(lambda: window.message_list.viewport().rect().intersects(window.message_list.visualRect(current)))
    window.message_list.viewport().grab().save("/tmp/search30_marked_offscreen.png")
    qtbot.waitUntil(lambda: current.data(SEARCH_HIT_ROLE) is None, timeout=3000)  # the mark fades
    assert window.message_list.selectionModel().isSelected(current)  # the selection stays


def test_roles_in_results_speak_chinese(
    qtbot: QtBot, qapp: QApplication, sqlite_store: Store, window: MainWindow
) -> None:
    assert install_translations(qapp, Language.CHINESE) is Language.CHINESE
    try:
        line = window.controller.lines.create_line("发布").thread_id
        _say(sqlite_store, line, "**蓝色** 方案?")
        _agent_says(sqlite_store, line, "## 蓝色方案\n\n- 先看 `canary`")
        palette = _open(qtbot, window)
        _type(qtbot, palette, "蓝色")
        texts = sorted(text for text, _ in _hit_texts(palette).values())
        assert texts[0].startswith("你 · ") and texts[0].endswith("— 蓝色 方案?")
        assert texts[1].startswith("智能体 · ") and texts[1].endswith("— 蓝色方案 • 先看 canary")
    finally:
        remove_translations(qapp)


def _tool_says(store: Store, key: str, content: str, payload: dict[str, object]) -> int:
    return store.messages.append(
        key, role=MessageRole.TOOL, source=MessageSource.TOOL, content=content, payload=payload
    ).id


def test_tool_hits_are_worded_as_their_cards_in_chinese(
    qtbot: QtBot, qapp: QApplication, sqlite_store: Store, window: MainWindow
) -> None:
    """Issue 30, item 5: a tool hit said "created hello.txt (7 bytes written)" and "not_approved" in a Chinese
    window. It reads as the conversation's card does (one wording, ``presentation.cards``), the query still
    highlighted; a file read keeps its output's snippet, after the card's title."""
    assert install_translations(qapp, Language.CHINESE) is Language.CHINESE
    try:
        line = window.controller.lines.create_line("工具").thread_id
        args = '{"path": "hello.txt", "content": "hi\\n"}'
        wrote = _tool_says(
            sqlite_store,
            line,
            "created hello.txt (7 bytes written)",
            {"name": "write_file", "arguments": args, "summary": "write hello.txt", "ok": True},
        )
        refused = _tool_says(
            sqlite_store,
            line,
            "not_approved: the person rejected writing hello.txt",
            {
                "name": "write_file",
                "arguments": args,
                "summary": "write hello.txt",
                "ok": False,
                "error_kind": "not_approved",
            },
        )
        read = _tool_says(
            sqlite_store,
            line,
            "print('hello world')",
            {"name": "read_file", "arguments": '{"path": "hello.py"}', "summary": "read file hello.py", "ok": True},
        )
        palette = _open(qtbot, window)
        _type(qtbot, palette, "hello")
        texts = _hit_texts(palette)
        assert texts[wrote][0].startswith("工具 · ") and texts[wrote][0].endswith(
            "— 写入了 hello.txt — 新文件 · 7 字节"
        )
        assert texts[refused][0].endswith("— 写入 hello.txt — 你拒绝了此操作")  # worded, not "not_approved"
        assert ">hello</span>.txt — 新文件" in texts[wrote][1]  # the match, highlighted in the worded text
        assert texts[read][0].endswith("— 读取了 hello.py — print('hello world')")
        assert ">hello</span>.py" in texts[read][1] and ">hello</span> world" in texts[read][1]
    finally:
        remove_translations(qapp)
