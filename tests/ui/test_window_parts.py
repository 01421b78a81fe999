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
