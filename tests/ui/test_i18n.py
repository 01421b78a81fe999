"""The window in Simplified Chinese (issue 20): choosing the language, the translators, the walk of every widget.

Pins: Settings → Language saves the choice in the preferences file and a
second window (and the next start) reads it back; the app's catalogue and
Qt's own are installed before the window is built, a missing catalogue means
English and one warning; ``plain_words`` shows the core's refusals and the
CAT-9 reminder in the seed's Chinese; and with zh_CN, no visible text of the
main window (a line with messages and an approval card) or of Settings →
Providers is still English, proper names, keys, paths and model names aside.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, Qt
from PySide6.QtGui import QAction, QTextDocumentFragment
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDialogButtonBox,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QTableView,
    QTextEdit,
    QTreeView,
    QWidget,
)
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.categories import ACP_CATEGORY_REFUSAL, normal_task_reminder
from xworkmate.preferences import LANGUAGE_ENV, Language, chosen_language, load_preferences
from xworkmate.presentation.wording import core_text, plain_words
from xworkmate.settings import Settings
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply
from xworkmate.ui import MainWindow, i18n
from xworkmate.ui.i18n import active_language, install_chosen_translations, install_translations, remove_translations
from xworkmate.ui.rendering import tool_card

from .conftest import open_window
from .support import click_line, label_text
from .support_runs import call, run, wait_until

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "resources" / "i18n" / "xworkmate_zh_CN.ts"
SEED_REMINDER = "这是普通任务：goal / context 里不要带本类别（'medical'）的内容；要派与本类别相关的活，传 category"

# Words that stay as they are in the Chinese window (GLOSSARY.md): proper names, keys on the keyboard, protocol
# and file-format names.
KEPT_WORDS = frozenset(
    [
        "XWorkmate",
        "OpenAI",
        "MCP",
        "ACP",
        "API",
        "URL",
        "JSON",
        "HTTP",
        "HTTPS",
        "Markdown",
        "git",
        "Git",
        "GitHub",
        "Qt",
        "CLI",
        "LLM",
        "SQLite",
        "PostgreSQL",
        "Ctrl",
        "Shift",
        "Alt",
        "Esc",
        "Enter",
        "Return",
        "Backspace",
        "Tab",
        "Del",
        "Delete",
        "Space",
        "Home",
        "End",
        "PgUp",
        "PgDown",
        "Meta",
        "Cmd",
        "English",
        "goal",
        "context",
        "category",
        "ok",
        "OK",
        # proper names and the example values of the ACP form (agent CLIs, local servers, env syntax)
        "Ollama",
        "LM",
        "Studio",
        "qwen",
        "gemini",
        "codex",
        "claude",
        "opencode",
        "goose",
        "openai",
        "PATH",
        "ID",
        "NAME",
        "env",
        "VAR",
        "keyring",
        "ENTRY",
        "acp",
    ]
)
_PATH_OR_KEY = re.compile(r"\S*[/\\]\S*|\S+\.[A-Za-z0-9]{1,5}\b|\b[0-9A-HJKMNP-TV-Z]{26}\b|\b\w+[-_]\w+[-_\w]*\b")
_ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    """The app speaks zh_CN for one test (the translators of a real start), English again after it."""
    assert install_translations(qapp, Language.CHINESE) is Language.CHINESE, (
        "no compiled Chinese catalogue: run `make translations` (pyside6-lrelease)"
    )
    yield
    remove_translations(qapp)


def test_settings_language_is_remembered_for_the_next_start(
    qtbot: QtBot, qapp: QApplication, window: MainWindow, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(LANGUAGE_ENV)  # the preference file decides, as on a person's machine
    settings_menu = next(a.menu() for a in window.menuBar().actions() if a.menu() and a.text() == "&Settings")
    language_menu = window.findChild(QMenu, "languageMenu")
    assert language_menu is not None and language_menu.menuAction() in settings_menu.actions()
    system = window.findChild(QAction, "languageSystemAction")
    chosen = window.findChild(QAction, "languageChineseAction")
    assert system.isChecked() and not chosen.isChecked()
    assert [a.text() for a in language_menu.actions()] == ["Follow the system", "English", "简体中文"]

    chosen.trigger()
    assert chosen.isChecked() and not system.isChecked()
    assert load_preferences(settings.home).language is Language.CHINESE
    assert chosen_language(settings.home) is Language.CHINESE
    assert label_text(window, "lineStatusLabel") == "The language changes when XWorkmate starts again."

    second = open_window(qtbot, window.controller)  # the next start reads the same file
    assert second.findChild(QAction, "languageChineseAction").isChecked()
    try:
        assert install_chosen_translations(qapp, settings.home) is Language.CHINESE
        assert QCoreApplication.translate("LanguageMenu", "Follow the system") == "跟随系统"
    finally:
        remove_translations(qapp)

    second.findChild(QAction, "languageEnglishAction").trigger()  # what this window already speaks
    assert load_preferences(settings.home).language is Language.ENGLISH
    assert label_text(second, "lineStatusLabel") == "XWorkmate already speaks this language."


def test_the_system_language_decides_when_the_person_follows_it() -> None:
    assert i18n.resolve_language(Language.SYSTEM, QLocale("zh_CN")) is Language.CHINESE
    assert i18n.resolve_language(Language.SYSTEM, QLocale("de_DE")) is Language.ENGLISH
    assert i18n.resolve_language(Language.ENGLISH, QLocale("zh_CN")) is Language.ENGLISH


def test_chinese_installs_the_apps_and_qts_catalogues(qapp: QApplication, chinese: None) -> None:
    assert active_language() is Language.CHINESE
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    assert sorted(b.text() for b in buttons.buttons()) == sorted(["确定", "取消"])  # qtbase_zh_CN.qm


def test_a_missing_catalogue_means_english_and_one_warning(
    qapp: QApplication, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(i18n, "resource_dir_candidates", lambda: [tmp_path])
    with caplog.at_level(logging.WARNING, logger="xworkmate.ui.i18n"):
        assert install_translations(qapp, Language.CHINESE) is Language.ENGLISH
    assert len(caplog.records) == 1 and "no zh_CN catalogue" in caplog.records[0].getMessage()
    assert QCoreApplication.translate("LanguageMenu", "Follow the system") == "Follow the system"


def test_plain_words_shows_the_cores_texts_in_the_seeds_chinese(chinese: None) -> None:
    """CAT-9's reminder and a CAT-6 refusal quoted inside a notice, re-rendered with their values."""
    assert plain_words(normal_task_reminder("medical", None) or "").startswith(SEED_REMINDER)
    refusal = ACP_CATEGORY_REFUSAL.format(category="medical")
    shown = plain_words(f"Not dispatched — {refusal}")
    assert shown.startswith("Not dispatched — 类别为 'medical' 的任务不能在 ACP 模式下运行")
    assert "CAT-" not in shown and "'medical' 标签的模型" in shown
    assert plain_words("ready") == "就绪"
    # A short core text is translated only as the whole shown text: inside another sentence it is more
    # likely an ordinary word ("could not write notes.txt", "the run failed") than that core text.
    assert plain_words("Runnable — ready.") == "Runnable — ready."
    assert plain_words("could not write notes.txt: the run failed") == "could not write notes.txt: the run failed"
    assert plain_words("write notes.txt") == "写入 notes.txt"
    assert plain_words("already, ready-made") == "already, ready-made"  # whole words only


def test_plain_words_keeps_english_without_a_translator() -> None:
    reminder = normal_task_reminder("medical", None) or ""
    assert plain_words(reminder) == reminder


# -- the walk ---------------------------------------------------------------------------------------------------


def _catalogue_sources() -> dict[str, re.Pattern[str]]:
    """The English source texts whose Chinese differs (a text kept as is, like a name, is not one)."""
    import xml.etree.ElementTree as ET

    sources: dict[str, re.Pattern[str]] = {}
    for context in ET.parse(CATALOGUE).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            translation = message.find("translation")
            if translation is not None and (translation.text or "") == source:
                continue
            if not _ENGLISH_WORD.search(re.sub(r"\{[^}]*\}|%n", "", source)):
                continue  # fields and punctuation only ("{what} — {error}"): any text would match it
            try:
                sources[source] = core_text(name, source.replace("%n", "{n}")).pattern
            except ValueError:
                sources[source] = re.compile(re.escape(source))
    return sources


def _plain(text: str) -> str:
    if re.search(r"<[a-zA-Z][^>]*>", text):  # rich text: what shows is its plain text
        text = QTextDocumentFragment.fromHtml(text).toPlainText()
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").strip()


def _model_texts(view: QAbstractItemView) -> Iterator[str]:
    """The rows a person can see: under the view's root, in columns it shows (a header: its shown sections)."""
    model = view.model()
    if model is None:
        return
    if isinstance(view, QHeaderView):
        for section in range(view.count()):
            if not view.isSectionHidden(section):
                value = model.headerData(section, view.orientation(), Qt.ItemDataRole.DisplayRole)
                if isinstance(value, str):
                    yield value
        return
    root = view.rootIndex()
    for row in range(min(model.rowCount(root), 200)):
        for column in range(8):  # list models answer columnCount only privately; 8 covers every table here
            index = model.index(row, column, root)
            if not index.isValid():
                break
            if isinstance(view, (QTreeView, QTableView)) and view.isColumnHidden(column):
                continue
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = index.data(role)
                if isinstance(value, str):
                    yield value


def _menu_texts(menu: QMenu, where: str) -> Iterator[tuple[str, str]]:
    yield where, menu.title()
    for action in menu.actions():
        name = f"{where} → {action.objectName() or action.text()}"
        yield name, action.text()
        yield name, action.toolTip() if action.toolTip() != action.text().replace("&", "") else ""
        if action.menu() is not None:
            yield from _menu_texts(action.menu(), name)


def shown_texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) for every text a person sees in ``root``: titles, labels, buttons, tooltips, placeholders,
    tabs, picker items, list and tree rows, menus and their actions."""
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        where = widget.objectName() or type(widget).__name__
        if widget.isWindow():
            yield where, widget.windowTitle()
        yield where, widget.toolTip()
        if isinstance(widget, (QLabel, QAbstractButton)):
            yield where, widget.text()
        if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit)):
            yield where, widget.placeholderText()
        if isinstance(widget, QGroupBox):
            yield where, widget.title()
        if isinstance(widget, QTabBar):
            for tab in range(widget.count()):
                yield f"{where}[{tab}]", widget.tabText(tab)
                yield f"{where}[{tab}]", widget.tabToolTip(tab)
        if isinstance(widget, QComboBox):
            for item in range(widget.count()):
                yield f"{where}[{item}]", widget.itemText(item)
        if isinstance(widget, QAbstractItemView):
            for text in _model_texts(widget):
                yield where, text
        for action in widget.actions():
            if action.menu() is None and action.isVisible() and action.text():
                yield f"{where} → {action.objectName() or 'action'}", action.text()
    menu_bar = getattr(root, "menuBar", None)
    if callable(menu_bar):
        for action in menu_bar().actions():
            if action.menu() is not None:
                yield from _menu_texts(action.menu(), action.menu().objectName() or "menu")


def still_english(texts: Iterator[tuple[str, str]], data: set[str]) -> list[str]:
    """The shown texts that are an English source of the catalogue, or carry English words no rule keeps.

    ``data`` are the test's own values (titles, messages, names): what the person wrote is not the window's.
    """
    sources = _catalogue_sources()
    found: dict[str, str] = {}
    for where, raw in texts:
        text = _plain(raw)
        if not text:
            continue
        rest = text
        for value in sorted(data, key=len, reverse=True):
            rest = rest.replace(value, " ")
        rest = _PATH_OR_KEY.sub(" ", rest)
        untranslated = any(pattern.fullmatch(text) for pattern in sources.values())
        words = [w for w in _ENGLISH_WORD.findall(rest) if w not in KEPT_WORDS]
        if untranslated or words:
            found.setdefault(f"{where}: {text[:300]!r}", where)
    return sorted(found)


TITLE = "修复配置加载"
QUESTION = "请创建 hello.txt，写一句问候"
ANSWER = "完成。"
AGAIN = "把 hello.txt 改成再见"


def test_the_chinese_window_shows_no_english_source_text(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    chinese: None,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """Issue 20: the main window with a line, its messages and an approval card, and Settings → Providers."""
    window = open_window(qtbot, agent_controller)  # built after the translators, as run_gui does
    line = agent_controller.lines.create_line(TITLE)
    click_line(qtbot, window, line.thread_id)
    openai_server.script(
        ToolCallReply([call("write_file", path="hello.txt", content="你好\n", quote="创建 hello.txt")]),
        TextReply([ANSWER]),
    )
    window.composer.setPlainText(QUESTION)  # typed as a person's input method commits it (keyClicks is per key)
    qtbot.mouseClick(window.send_button, Qt.MouseButton.LeftButton)
    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1 and area.isVisible(), what="the approval card"))
    dialog = window.line_settings.on_provider_settings_requested()
    qtbot.waitExposed(dialog)

    data = {TITLE, QUESTION, ANSWER, "创建 hello.txt", "hello.txt", "你好", line.thread_id, "main", "local"}
    data |= {"test-model", openai_server.base_url, str(line.workspace_binding.path)}
    data |= {"write_file", '"path"', '"content"', "XWorkmate"}
    offenders = still_english(shown_texts(window), data)  # the dialog is the window's child: walked with it
    dialog.reject()
    assert not offenders, "English still shown in the zh_CN window:\n" + "\n".join(offenders)


def test_the_language_menu_speaks_chinese(qtbot: QtBot, chinese: None, sqlite_controller: SessionController) -> None:
    """The part of the walk this branch owns: Settings → Language and its notice."""
    window = open_window(qtbot, sqlite_controller)
    menu = window.findChild(QMenu, "languageMenu")
    assert menu.title() == "语言(&L)"
    assert not still_english(_menu_texts(menu, "languageMenu"), set())
    window.findChild(QAction, "languageEnglishAction").trigger()
    assert label_text(window, "lineStatusLabel") == "语言将在 XWorkmate 下次启动时切换。"


def test_a_task_start_card_shows_the_reminder_in_the_seeds_chinese(chinese: None) -> None:
    """Issue 20, item 6 (CAT-9): the reminder the agent read in English shows on the task_start card in the
    seed's words; a program's output on another card stays as the program wrote it."""
    reminder = normal_task_reminder("medical", None) or ""
    result = f"Started task draft:01ABC ('look up'), a normal task, with 1 of the person's messages.\n{reminder}"
    card = tool_card({"name": "task_start", "arguments": {"goal": "look up"}, "summary": "task_start"}, result)
    assert SEED_REMINDER in card.body and "Reminder:" not in card.body
    listing = tool_card({"name": "list_dir", "arguments": {"path": "."}}, reminder)
    assert listing.body == reminder  # a listing that happens to hold those words is not the product speaking


def test_a_commands_refused_host_reads_in_chinese_on_its_card(chinese: None) -> None:
    """SBX-4 (issue 29): the card's line for a refused host and its button, in zh_CN."""
    payload = {
        "name": "run_command",
        "arguments": {"command": "curl https://example.com"},
        "ok": True,
        "connections": [{"host": "example.com", "port": 443, "allowed": False}],
    }
    [refused] = tool_card(payload, "").refused
    assert refused.text == "网络被拒绝：example.com:443——不在这条任务线的允许列表中"
    assert refused.action == "为这条任务线允许此主机"


# -- the painted rows (issue 30, checks) ---------------------------------------------------------------------------


def painted_texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) for what the delegates paint and ``shown_texts`` does not read: each conversation row's
    header, body (a tool card's lines folded and unfolded) and "files changed" chip, and each task line's
    badges and marker."""
    from xworkmate.ui.conversation.rows import CHIP_ROLE, ROW_ROLE, RowView
    from xworkmate.ui.conversation.view import MessageListView
    from xworkmate.ui.lines.task_lines import BADGE_ROLE, KIND_MARKER_ROLE, TaskLineListView

    for view in root.findChildren(MessageListView):
        model = view.model()
        if not view.isVisible() or model is None:
            continue
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            painted = index.data(ROW_ROLE)
            assert isinstance(painted, RowView)
            where = f"conversation[{row}] {painted.role}"
            yield f"{where} header", painted.header
            yield f"{where} body", painted.text
            if painted.card is not None:
                yield f"{where} card", painted.card.plain_text(expanded=False)
                yield f"{where} card unfolded", painted.card.plain_text(expanded=True)
            chip = index.data(CHIP_ROLE)
            yield f"{where} chip", chip if isinstance(chip, str) else ""
    for lines in root.findChildren(TaskLineListView):
        model = lines.model()
        if not lines.isVisible() or model is None:
            continue
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            for role in (BADGE_ROLE, KIND_MARKER_ROLE):
                value = index.data(role)
                yield f"taskLines[{row}] badge", value if isinstance(value, str) else ""


def test_the_chinese_conversation_paints_no_english_after_a_turn_with_tools(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    chinese: None,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """Issue 30 (checks): in zh_CN, with a tool call done, an approval card waiting and then the turn ended,
    no widget text and no painted row text (headers, cards, chips, notices, badges, status line) is English."""
    window = open_window(qtbot, agent_controller)
    empty = still_english(iter([*shown_texts(window), *painted_texts(window)]), {"main", "local", "test-model"})
    assert not empty, "English shown in the empty window:\n" + "\n".join(empty)
    line = agent_controller.lines.create_line(TITLE)
    click_line(qtbot, window, line.thread_id)
    workspace = Path(line.workspace_binding.path)
    (workspace / "readme.md").write_text("说明\n", encoding="utf-8")
    openai_server.script(
        ToolCallReply([call("read_file", path="readme.md")]),
        ToolCallReply([call("write_file", path="hello.txt", content="你好\n", quote="创建 hello.txt")]),
        TextReply([ANSWER]),
    )
    window.composer.setPlainText(QUESTION)
    qtbot.mouseClick(window.send_button, Qt.MouseButton.LeftButton)
    area = window.message_pane.approval_area
    run(loop, wait_until(lambda: len(area.cards) == 1 and area.isVisible(), what="the approval card"))

    data = {TITLE, QUESTION, ANSWER, "创建 hello.txt", "hello.txt", "readme.md", "说明", "你好", line.thread_id}
    data |= {"main", "local", "test-model", openai_server.base_url, str(workspace), "XWorkmate"}
    data |= {"write_file", "read_file", '"path"', '"content"'}

    def offenders() -> list[str]:
        return still_english(iter([*shown_texts(window), *painted_texts(window)]), data)

    waiting = offenders()
    assert not waiting, "English shown while the approval card waits:\n" + "\n".join(waiting)

    area.cards[0].findChild(QAbstractButton, "approveButton").click()
    run(
        loop,
        wait_until(
            lambda: (workspace / "hello.txt").exists() and not window.controller.turns.is_running(line.thread_id),
            what="the turn's end",
        ),
    )
    ended = offenders()
    cards = [text for where, text in painted_texts(window) if where.endswith(" card")]
    assert len(cards) == 2 and "hello.txt" in cards[1], cards  # the walk saw both tool cards

    # A write the person rejects (its card said the raw code ``not_approved``), then Ctrl+K with hits of both
    # roles open over the conversation (the roles were ``user`` / ``assistant``).
    openai_server.script(
        ToolCallReply([call("write_file", path="hello.txt", content="再见\n", quote=AGAIN)]), TextReply([ANSWER])
    )
    run(loop, wait_until(lambda: window.operations.running == 0, what="the window's store work"))
    window.composer.setPlainText(AGAIN)
    qtbot.waitUntil(window.send_button.isEnabled)
    qtbot.mouseClick(window.send_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(lambda: len(area.cards) == 1 and area.isVisible(), what="the second approval card"))
    area.cards[0].findChild(QAbstractButton, "rejectButton").click()
    run(
        loop, wait_until(lambda: not window.controller.turns.is_running(line.thread_id), what="the rejected turn's end")
    )
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    palette = window.findChild(QWidget, "searchPalette")
    assert palette is not None
    qtbot.waitUntil(palette.isVisible)
    qtbot.keyClicks(palette.findChild(QLineEdit, "searchInput"), "hello")
    results = palette.findChild(QAbstractItemView, "searchResults")
    qtbot.waitUntil(lambda: results.model().rowCount() >= 3)
    data |= {AGAIN, "再见", "hello", '"quote"'}  # the agent's call as it sent it (its arguments' keys)
    data |= {"conf*"}  # the search field's example of the prefix syntax
    # The tool hits are worded as their cards (issue 30 item 5): no "created hello.txt (7 bytes written)".
    rejected = offenders()
    assert not rejected, "English shown after a rejection, with search open:\n" + "\n".join(rejected)
    assert not ended, "English shown after the turn:\n" + "\n".join(ended)
