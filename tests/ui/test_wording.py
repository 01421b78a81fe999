"""Plain words in the window (issue 18, item 4): headers say You / Agent / Notice / Tool, no spec id shows.

Pins: no string literal of the ui package (docstrings aside) carries a spec
id; the rendered window, after a refusal whose controller text cites one
(CAT-3), shows none in any label, button, picker, action, tooltip or row;
headers use plain words and name the model when it is known.
"""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QComboBox, QLabel, QLineEdit, QPlainTextEdit, QWidget
from pytestqt.qtbot import QtBot

import xworkmate.ui
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.presentation.wording import SPEC_ID, plain_words
from xworkmate.store import Store
from xworkmate.testing.acp_scripts import scripted_agent
from xworkmate.ui import MainWindow

from .conftest import open_window
from .support import click_line, label_text, message_headers, settled

UI_PACKAGE = Path(xworkmate.ui.__file__).resolve().parent
INTERNAL_WORDS = ("framework event", "framework_event", "component input", "component_input", "· human")


def _non_doc_strings(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            docs.add(id(node.value))  # module, class, function and attribute docstrings
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def test_no_spec_id_in_the_ui_packages_strings() -> None:
    found = [
        f"{path.name}:{line}: {text[:80]!r}"
        for path in sorted(UI_PACKAGE.rglob("*.py"))
        if path.name != "wording.py"
        for line, text in _non_doc_strings(path)
        if SPEC_ID.search(text)
    ]
    assert not found, found


def test_plain_words_drops_citations_and_bare_ids() -> None:
    assert plain_words("not tagged 'medical' (CAT-6); choose one") == "not tagged 'medical'; choose one"
    assert plain_words("empty key (ISO-7)") == "empty key"
    assert plain_words("see CAT-3 and PROV-4: done") == "see and done"
    assert plain_words("UTF-8 text") == "UTF-8 text"


def _model_texts(model: QAbstractItemModel) -> Iterator[str]:
    for row in range(min(model.rowCount(), 200)):
        index = model.index(row, 0)
        for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = index.data(role)
            if isinstance(value, str):
                yield value


def visible_texts(window: MainWindow) -> Iterator[tuple[str, str]]:
    """Every text the window can show a person: (where, text)."""
    yield "windowTitle", window.windowTitle()
    for widget in window.findChildren(QWidget):
        name = widget.objectName() or type(widget).__name__
        yield f"{name}.toolTip", widget.toolTip()
        if isinstance(widget, (QLabel, QAbstractButton)):
            yield f"{name}.text", widget.text()
        elif isinstance(widget, (QLineEdit, QPlainTextEdit)):
            yield f"{name}.placeholder", widget.placeholderText()
        elif isinstance(widget, QComboBox):
            for i in range(widget.count()):
                yield f"{name}[{i}]", widget.itemText(i)
                tip = widget.itemData(i, Qt.ItemDataRole.ToolTipRole)
                yield f"{name}[{i}].toolTip", tip if isinstance(tip, str) else ""
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:
            for text in _model_texts(widget.model()):
                yield f"{name}.row", text
    for action in window.findChildren(QAction):
        yield f"{action.objectName()}.text", action.text()
        yield f"{action.objectName()}.toolTip", action.toolTip()
    for header in message_headers(window):
        yield "header", header


def assert_plain(window: MainWindow) -> None:
    bad = [(where, text) for where, text in visible_texts(window) if text and SPEC_ID.search(text)]
    assert not bad, bad
    internal = [(w, t) for w, t in visible_texts(window) if any(word in t.lower() for word in INTERNAL_WORDS)]
    assert not internal, internal


def test_the_rendered_window_shows_no_spec_id_after_a_refusal_that_cites_one(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController, tmp_path: Path
) -> None:
    controller = bare_controller
    window = open_window(qtbot, controller)
    scripted_agent(controller, tmp_path)
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    line = controller.lines.create_line("Clinic")
    controller.tasks.set_category(line.thread_id, "medical")
    click_line(qtbot, window, line.thread_id)
    assert_plain(window)

    picker = window.mode_picker
    picker.setCurrentIndex(picker.findText("scripted (ACP)"))  # forced: the controller refuses, citing CAT-3
    settled(qtbot, window)
    status = label_text(window, "lineStatusLabel")
    assert status.startswith("Execution mode not changed") and "category 'medical'" in status
    assert_plain(window)
    window.task_pane.filter_edit.setText("Clin")
    assert_plain(window)


def test_headers_use_plain_words_and_name_the_model(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    messages = sqlite_store.messages
    messages.append("main", role=MessageRole.USER, source=MessageSource.HUMAN, content="hello")
    messages.append(
        "main", role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content="hi", payload={"model": "qwen2.5-7b"}
    )
    messages.append("main", role=MessageRole.SYSTEM, source=MessageSource.FRAMEWORK_EVENT, content="Stopped (ISO-4).")
    messages.append("main", role=MessageRole.USER, source=MessageSource.COMPONENT_INPUT, content="do it")
    messages.append(
        "main",
        role=MessageRole.TOOL,
        source=MessageSource.TOOL,
        content="x",
        payload={"name": "read_file", "arguments": {"path": "a"}, "ok": True},
    )
    window = open_window(qtbot, sqlite_controller)
    headers = [header.rsplit(" · ", 1)[0] for header in message_headers(window)]
    assert headers == ["You", "Agent · qwen2.5-7b", "Notice", "Request · from the dispatching agent", "Tool"]
    rows = window.message_model
    assert str(rows.index(2, 0).data()) == "Stopped."
    assert_plain(window)
