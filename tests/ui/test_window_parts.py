"""The window cut into its parts (issue 33 item 1): one module builds and wires them, one table routes the
controller's change records, and every part shows a line through the one ``LinePart`` contract."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

from pytestqt.qtbot import QtBot

import xworkmate.ui.window as window_package
from xworkmate.controllers import LineView, SessionController
from xworkmate.controllers.changes import AgentMcpFailed, Change
from xworkmate.controllers.views import LinePanes
from xworkmate.ui.window.main_window import MainWindow

from .support import settled

WINDOW_MODULE_LINES = 400  # the budget for the module that builds and wires the window


class Recorder:
    """A part that records what it was shown: (key, the key shown before, whether panes were read for it)."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str | None, bool]] = []

    def show_line(self, view: LineView, previous: LineView | None, panes: LinePanes | None) -> None:
        self.shown.append((view.key, previous.key if previous is not None else None, panes is not None))


def test_every_change_record_type_has_its_handlers_in_the_window_table(window: MainWindow) -> None:
    """A record type the controller adds without telling the window would be dropped silently."""
    assert window.router.kinds() == set(get_args(Change))


def test_a_switch_and_the_shown_lines_update_reach_every_part_through_show_line(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    line = sqlite_controller.lines.create_line("Second")
    settled(qtbot, window)
    recorder = Recorder()
    window.shown.parts = (*window.shown.parts, recorder)
    before = window.shown_key

    window.open_line(line.thread_id)
    qtbot.waitUntil(lambda: window.shown_key == line.thread_id)
    settled(qtbot, window)
    assert recorder.shown[0] == (line.thread_id, before, True)  # the fresh read of every pane, in one go

    recorder.shown.clear()
    window.task_list.ask_title = lambda _parent, _current: "Renamed"
    window.task_list.rename_line(line.thread_id)
    settled(qtbot, window)
    assert (line.thread_id, line.thread_id, False) in recorder.shown  # LineUpdated: the view read with it
    assert "Renamed" in window.windowTitle()  # the parts showed the updated view


def test_the_parts_never_import_the_window_and_its_module_only_builds_and_wires() -> None:
    folder = Path(window_package.__file__).parent
    for module in sorted(folder.glob("*.py")):
        if module.name == "main_window.py":
            continue
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {
            node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module is not None
        }
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        assert "xworkmate.ui.window.main_window" not in imported, module.name
        assert "MainWindow" not in names, module.name  # a part sees the window as WindowServices only
    lines = (folder / "main_window.py").read_text(encoding="utf-8").count("\n")
    assert lines <= WINDOW_MODULE_LINES, f"ui/window/main_window.py has {lines} lines"


FEATURE_FOLDERS = ("lines", "conversation", "agent", "changes", "settings")


def _imported_modules(source: Path) -> set[str]:
    tree = ast.parse(source.read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return imported


def test_the_widgets_in_the_feature_folders_never_import_the_window_or_its_parts() -> None:
    """Issue 33 item 1: the parts in ui/window drive the widgets; a widget that imported a part (or the
    window) would tie the two layers of the window into one again."""
    ui = Path(window_package.__file__).parent.parent
    widgets = [module for name in FEATURE_FOLDERS for module in sorted((ui / name).glob("*.py"))]
    assert len(widgets) > len(FEATURE_FOLDERS)  # the folders hold the widgets
    for module in widgets:
        reaching = {name for name in _imported_modules(module) if name.startswith("xworkmate.ui.window")}
        assert reaching <= {"xworkmate.ui.window.services"}, f"{module.relative_to(ui)} imports {reaching}"


def test_a_feature_folders_package_imports_nothing_so_a_widget_costs_only_itself() -> None:
    """Importing ``xworkmate.ui.lines.first_list`` at start-up must not load the task list's or the
    search palette's code through the package (issue 34 item 4)."""
    ui = Path(window_package.__file__).parent.parent
    for name in FEATURE_FOLDERS:
        if name == "conversation":
            continue  # its package re-exports the pane's names on purpose (ui/conversation/__init__)
        assert _imported_modules(ui / name / "__init__.py") == set(), name


def test_mcp_servers_failing_inside_the_shown_lines_agent_are_said_in_its_status_line(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """Issue 32 item 5 (ERR-1): the record an agent's MCP failure becomes reaches the window through its table;
    another line's failure is not said on the shown one (ISO-5)."""
    other = sqlite_controller.lines.create_line("Elsewhere")
    settled(qtbot, window)
    shown = window.shown_key
    assert shown is not None and shown != other.thread_id
    window.router.route(AgentMcpFailed(other.thread_id, ("search",), "search failed to start"))
    assert "search" not in window.message_pane.status_label.text()
    window.router.route(AgentMcpFailed(shown, ("search", "files"), "search, files failed to start"))
    status = window.message_pane.status_label
    assert "search, files" in status.text() and status.property("severity") == "error"
