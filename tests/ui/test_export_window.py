"""File → Export… (SPEC LOOP-3, CAT-4, ERR-1): the shown line and its tasks, written off the GUI thread.

The file dialog and the category confirmation are the window's ``ask`` hooks (STYLE lesson 6).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from pytestqt.qtbot import QtBot

from xworkmate.domain.export import ExportFormat, LineExport
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store import Store
from xworkmate.ui import MainWindow
from xworkmate.ui.lines.export_dialog import category_export_question, format_for


def _export_action(window: MainWindow) -> QAction:
    action = window.findChild(QAction, "exportAction")
    assert action is not None and action in window.chrome.file_menu.actions()
    return action


def test_export_writes_the_shown_line_to_the_chosen_file(
    qtbot: QtBot, window: MainWindow, sqlite_store: Store, tmp_path: Path
) -> None:
    controller = window.controller
    key = controller.lines.create_line("Colours").thread_id
    controller.lines.switch_session(key)
    sqlite_store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content="蓝色 please")
    asked: list[str] = []
    target = tmp_path / "colours.json"

    def choose(_parent: object, suggested: str) -> tuple[Path, ExportFormat]:
        asked.append(suggested)
        return target, ExportFormat.JSON

    window.search_export.ask_export_file = choose
    window.search_export.confirm_category_export = lambda *_args: (_ for _ in ()).throw(
        AssertionError("not a category line")
    )
    _export_action(window).trigger()
    qtbot.waitUntil(lambda: window.message_pane.status_label.text() == f"Exported to {target}", timeout=10_000)
    assert asked == ["Colours.md"]
    exported = LineExport.model_validate_json(target.read_text(encoding="utf-8"))
    assert exported.root_key == key and [m.content for m in exported.root.messages] == ["蓝色 please"]


def test_a_category_line_asks_first_and_a_no_writes_nothing(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    controller = window.controller
    key = controller.lines.create_line("Ward notes").thread_id
    controller.tasks.set_category(key, "medical")
    controller.lines.switch_session(key)
    questions: list[tuple[str, str]] = []
    answer = [False]
    target = tmp_path / "ward.md"

    def confirm(_parent: object, title: str, category: str) -> bool:
        questions.append((title, category))
        return answer[0]

    window.search_export.confirm_category_export = confirm
    window.search_export.ask_export_file = lambda *_args: (target, ExportFormat.MARKDOWN)
    _export_action(window).trigger()
    qtbot.waitUntil(lambda: questions == [("Ward notes", "medical")], timeout=10_000)
    qtbot.wait(50)  # a declined export writes nothing, not even later
    assert not target.exists()
    answer[0] = True
    _export_action(window).trigger()
    qtbot.waitUntil(target.exists, timeout=10_000)
    qtbot.waitUntil(lambda: window.message_pane.status_label.text() == f"Exported to {target}", timeout=10_000)
    assert "Category: **medical**" in target.read_text(encoding="utf-8").split("\n## ")[0]
    assert category_export_question("Ward notes", "medical").startswith("This line carries category medical")


def test_an_unwritable_file_is_one_line_in_the_status(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    target = tmp_path / "missing" / "x.md"
    window.search_export.ask_export_file = lambda *_args: (target, ExportFormat.MARKDOWN)
    _export_action(window).trigger()
    qtbot.waitUntil(lambda: window.message_pane.status_label.text().startswith("Export failed — cannot write"))
    assert str(target) in window.message_pane.status_label.text()


def test_the_suffix_picks_the_format() -> None:
    assert format_for(Path("a.json"), "Markdown (*.md)") is ExportFormat.JSON
    assert format_for(Path("a.MD"), "JSON (*.json)") is ExportFormat.MARKDOWN
    assert format_for(Path("a"), "JSON (*.json)") is ExportFormat.JSON


def test_a_category_task_under_a_normal_line_is_asked_about(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    """CAT-4: the question follows every category in the exported subtree, not only the shown line's."""
    controller = window.controller
    key = controller.lines.create_line("Clinic admin").thread_id
    _say(window, key, "book the rooms")
    task = controller.tasks.start_task(key, "the ward's notes").task.thread_id
    controller.tasks.set_category(task, "medical")  # CAT-10: a human relabels the task alone
    controller.lines.switch_session(key)
    questions: list[tuple[str, str]] = []
    target = tmp_path / "clinic.json"

    def confirm(_parent: object, title: str, category: str) -> bool:
        questions.append((title, category))
        return True

    window.search_export.confirm_category_export = confirm
    window.search_export.ask_export_file = lambda *_args: (target, ExportFormat.JSON)
    _export_action(window).trigger()
    qtbot.waitUntil(lambda: window.message_pane.status_label.text() == f"Exported to {target}", timeout=10_000)
    assert questions == [("Clinic admin", "medical")]
    assert LineExport.model_validate_json(target.read_text(encoding="utf-8")).categories == ("medical",)


def test_a_normal_task_of_a_category_line_exports_without_its_dispatchers_words(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """CAT-8: the task's export reads its sources as the task: nothing of the medical conversation, no question."""
    controller = window.controller
    ward = controller.lines.create_line("Ward").thread_id
    controller.tasks.set_category(ward, "medical")
    _say(window, ward, "the patient's results are attached")
    task = controller.tasks.start_task(ward, "write a date picker", category=None).task.thread_id
    controller.lines.switch_session(task)
    qtbot.waitUntil(lambda: window.shown_key == task, timeout=10_000)
    target = tmp_path / "picker.json"
    window.search_export.confirm_category_export = lambda *_args: (_ for _ in ()).throw(
        AssertionError("no category in it")
    )
    window.search_export.ask_export_file = lambda *_args: (target, ExportFormat.JSON)
    _export_action(window).trigger()
    qtbot.waitUntil(lambda: window.message_pane.status_label.text() == f"Exported to {target}", timeout=10_000)
    text = target.read_text(encoding="utf-8")
    assert "patient" not in text
    exported = LineExport.model_validate_json(text)
    assert exported.categories == () and exported.root.dispatch_sources == ()


def _say(window: MainWindow, key: str, text: str) -> None:
    """A human message in ``key``, as the person's own words (PROV-1: what a task is dispatched on)."""
    window.controller._store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=text)
