"""The left pane and switching: task lines as rows, one current key everywhere (SPEC §2, §6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QColor, QPaintEvent, QPalette
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController, UnknownSessionKeyError
from xworkmate.domain.keys import MAIN_KEY
from xworkmate.domain.runs import ExecutionResult
from xworkmate.domain.threads import ThreadStatus, ThreadSummary
from xworkmate.ui import MainWindow
from xworkmate.ui.lines.task_lines import BADGE_ROLE, KEY_ROLE, STATUS_ROLE, WORKSPACE_PATH_ROLE

from .support import click_line, label_text, message_texts, proxy_index, selected_key, settled

_GROUPS = (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive)


def _close(a: QColor, b: QColor, tolerance: int = 8) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a.getRgb(), b.getRgb(), strict=True))


def new_line_keys(window: MainWindow) -> list[str]:
    return [key for key in window.task_model.line_keys() if key != MAIN_KEY]


def test_two_clicks_on_new_task_line_make_two_lines_with_their_own_keys_and_folders(xwm_window: MainWindow) -> None:
    """ISO-1, ISO-2, ISO-3: each click allocates a new ``draft:`` key and a folder under threads_root.

    Written with the tester's WindowDriver (issue 21): what a person sees, not the models behind it.
    """
    driver = xwm_window.driver
    keys = [driver.new_line(), driver.new_line()]

    assert keys[0] != keys[1] and all(key.startswith("draft:") for key in keys)
    folders = {line.key: Path(line.workspace_path or "") for line in driver.lines() if line.key in keys}
    assert folders[keys[0]] != folders[keys[1]]
    threads_root = xwm_window.controller.settings.threads_root
    for folder in folders.values():
        assert folder.is_dir()
        assert folder.parent == threads_root
        assert ":" not in folder.name
    # The newest line became current, and every pane says so.
    assert driver.current_key == keys[1] == xwm_window.controller.lines.current_key
    assert selected_key(xwm_window) == keys[1]
    assert driver.workspace_path == str(folders[keys[1]])


def test_clicking_a_line_switches_key_label_folder_messages_and_controller_together(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-5: list selection → switch_session → every pane shows the same key."""
    line_a = sqlite_controller.lines.create_line("Line A")
    line_b = sqlite_controller.lines.create_line("Line B")
    sqlite_controller.send(line_a.thread_id, "only on A")

    click_line(qtbot, window, line_a.thread_id)
    assert sqlite_controller.lines.current_key == line_a.thread_id
    assert label_text(window, "sessionKeyLabel") == line_a.thread_id
    assert label_text(window, "workspacePathLabel") == line_a.workspace_binding.path
    assert window.message_model.key == line_a.thread_id
    assert "only on A" in message_texts(window)
    assert window.workspace_pane.root == line_a.workspace_binding.path

    click_line(qtbot, window, line_b.thread_id)
    assert sqlite_controller.lines.current_key == line_b.thread_id
    assert label_text(window, "sessionKeyLabel") == line_b.thread_id
    assert label_text(window, "workspacePathLabel") == line_b.workspace_binding.path
    assert window.message_model.key == line_b.thread_id
    assert message_texts(window) == []
    assert window.message_pane.stack.currentWidget() is window.message_pane.empty_state
    assert "No messages yet" in label_text(window, "messageEmptyLabel")
    assert selected_key(window) == line_b.thread_id


def test_a_switch_made_elsewhere_moves_the_list_selection(
    window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-5: the selection follows the controller's current key, not the other way round."""
    line = sqlite_controller.lines.create_line("Elsewhere")
    sqlite_controller.lines.switch_session(line.thread_id)
    assert selected_key(window) == line.thread_id
    assert label_text(window, "sessionKeyLabel") == line.thread_id


def test_switching_among_many_lines_reads_one_line_and_never_reloads_the_list(
    qtbot: QtBot, sqlite_controller: SessionController, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ISO-5, ISO-9: selecting reads one thread; the list model is never reset or re-listed. The shape here
    (500 lines); at 5,000 lines ``python -m benchmarks switching`` times it and counts resets (issue 33)."""
    from .support_bulk import add_lines

    keys = add_lines(sqlite_controller, 500)
    from .conftest import open_window

    window = open_window(qtbot, sqlite_controller)
    assert window.task_model.rowCount() == 501
    resets: list[str] = []
    window.task_model.modelReset.connect(lambda: resets.append("reset"))
    window.task_model.layoutChanged.connect(lambda: resets.append("layout"))
    listed: list[bool] = []
    real_list_lines = sqlite_controller.lines.list_lines

    def counting_list_lines(*, include_archived: bool = False) -> list[ThreadSummary]:
        listed.append(include_archived)
        return real_list_lines(include_archived=include_archived)

    monkeypatch.setattr(sqlite_controller.lines, "list_lines", counting_list_lines)

    for key in (keys[10], keys[400], keys[2]):
        click_line(qtbot, window, key)
        assert sqlite_controller.lines.current_key == key
        assert label_text(window, "sessionKeyLabel") == key
    window.task_line_list.setCurrentIndex(proxy_index(window, keys[499]))
    assert sqlite_controller.lines.current_key == keys[499]

    assert resets == []
    assert listed == []


def test_switching_lines_leaves_the_window_minimum_size_alone(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """Issue 7: a title, key or folder of another width must not move the window's minimum size.
    When it did, a long title made the window at least 1,549 px wide, and every switch re-laid
    out and repainted the whole window."""
    long_title = sqlite_controller.lines.create_line(title="A much longer title than the main line has, " * 3)
    short_title = sqlite_controller.lines.create_line(title="x")
    usable: list[bool] = []
    window.when_usable(lambda: usable.append(True))  # the Changes tab is built then (issue 34 item 4)
    qtbot.waitUntil(lambda: bool(usable))
    qtbot.wait(1)  # the posted layout requests
    minimum = window.minimumSizeHint()
    for key in (long_title.thread_id, MAIN_KEY, short_title.thread_id):
        click_line(qtbot, window, key)
        qtbot.wait(1)
        assert window.minimumSizeHint() == minimum, key


def test_the_list_paints_every_title_the_selection_and_the_badges(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """Issue 7: the list paints its rows in one pass; what shows must be what the delegate paints row by row."""
    plain = sqlite_controller.lines.create_line(title="Plain line")
    gone = sqlite_controller.lines.create_line(title="Folder gone")
    Path(gone.workspace_binding.path or "").rmdir()
    window.task_model.invalidate_status(gone.thread_id)
    click_line(qtbot, window, plain.thread_id)
    view = window.task_line_list
    qtbot.waitUntil(lambda: view.currentIndex() == proxy_index(window, plain.thread_id))
    image = view.viewport().grab().toImage()
    ratio = image.devicePixelRatio()

    def pixels(key: str, left: int, right: int) -> list[QColor]:
        rect = view.visualRect(proxy_index(window, key))
        y = int(rect.center().y() * ratio)
        return [image.pixelColor(int(x * ratio), y) for x in range(left, right)]

    base = view.palette().color(QPalette.ColorRole.Base)
    highlights = [view.palette().color(group, QPalette.ColorRole.Highlight) for group in _GROUPS]
    selected = pixels(plain.thread_id, 2, 3)[0]
    assert any(_close(selected, colour) for colour in highlights)  # the selection panel (the style may shade it)
    assert pixels(MAIN_KEY, 2, 3)[0] == base
    for key in (MAIN_KEY, plain.thread_id, gone.thread_id):  # a title is drawn on every row
        assert any(colour != pixels(key, 2, 3)[0] for colour in pixels(key, 10, 60)), key
    width = view.viewport().width()
    assert any(c.red() > c.green() + 60 for c in pixels(gone.thread_id, width - 90, width - 8))  # the red pill
    assert not any(c.red() > c.green() + 60 for c in pixels(plain.thread_id, width - 90, width - 8))


class _PaintedRegions(QObject):
    """The regions a widget is asked to paint."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__()
        self.regions: list[QRect] = []
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QPaintEvent):
            self.regions.append(event.region().boundingRect())
        return False


def test_a_change_of_one_lines_row_repaints_that_row_alone_and_shows_it(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """Issue 34 item 1: with twenty lines streaming, each status change repainted every row of the list (~3 ms):
    ``QListView`` lays all rows out again for any row's change. The rows are one height: the changed one alone is
    repainted, and shows its new state."""
    lines = [sqlite_controller.lines.create_line(title=f"Line {n}") for n in range(6)]
    settled(qtbot, window)
    view = window.task_line_list
    changed = lines[3]
    Path(changed.workspace_binding.path or "").rmdir()
    qtbot.wait(50)  # the rows' own first layout and paint
    painted = _PaintedRegions(view.viewport())
    window.task_model.invalidate_status(changed.thread_id)
    row = view.visualRect(proxy_index(window, changed.thread_id))
    qtbot.waitUntil(lambda: bool(painted.regions))
    qtbot.wait(50)  # a layout Qt had scheduled would repaint the list within this (its timer is 0 ms)
    assert painted.regions and all(row.contains(region) for region in painted.regions), (row, painted.regions)
    assert view.height() > 4 * row.height()  # the list shows several rows: the whole of it was not asked for
    assert proxy_index(window, changed.thread_id).data(BADGE_ROLE) == "⚠ needs folder"


def test_filter_narrows_the_list_without_switching_and_shows_an_empty_state(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """SPEC §6: filtering is a view of the list; it never changes the current line (ISO-9)."""
    apples = sqlite_controller.lines.create_line("Apples")
    sqlite_controller.lines.create_line("Pears")
    sqlite_controller.lines.switch_session(apples.thread_id)

    qtbot.keyClicks(window.task_pane.filter_edit, "pear")
    assert window.task_proxy.rowCount() == 1
    assert sqlite_controller.lines.current_key == apples.thread_id
    assert label_text(window, "sessionKeyLabel") == apples.thread_id
    assert selected_key(window) is None  # the current line is filtered out, not replaced

    window.task_pane.filter_edit.setText("no such line")
    assert window.task_proxy.rowCount() == 0
    assert window.task_pane.stack.currentWidget() is window.task_pane.empty_label
    assert "No task lines match “no such line”" in label_text(window, "taskLineEmptyLabel")
    assert sqlite_controller.lines.current_key == apples.thread_id

    window.task_pane.filter_edit.clear()
    assert window.task_proxy.rowCount() == 3
    assert window.task_pane.stack.currentWidget() is window.task_line_list
    assert selected_key(window) == apples.thread_id


def test_filter_matches_the_session_key_too(window: MainWindow, sqlite_controller: SessionController) -> None:
    """A person pasting a key from a log finds the line."""
    line = sqlite_controller.lines.create_line("Untitled")
    window.task_pane.filter_edit.setText(line.thread_id[-8:].lower())
    assert window.task_proxy.rowCount() == 1
    assert window.task_proxy.index(0, 0).data(KEY_ROLE) == line.thread_id


def test_archive_button_hides_the_line_and_the_window_follows_the_controller_to_main(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-4: archived lines are not runnable; archiving the current line returns to main."""
    line = sqlite_controller.lines.create_line("Done soon")
    click_line(qtbot, window, line.thread_id)
    switches: list[str] = []
    sqlite_controller.subscribe(
        lambda change: switches.append(change.key) if change.kind == "current_changed" else None
    )

    qtbot.mouseClick(window.task_pane.archive_button, Qt.MouseButton.LeftButton)

    assert switches == [MAIN_KEY]  # straight to main: hiding the row did not pick a neighbour
    assert sqlite_controller.lines.current_key == MAIN_KEY
    assert label_text(window, "sessionKeyLabel") == MAIN_KEY
    assert not proxy_index(window, line.thread_id).isValid()

    window.task_pane.show_archived_check.setChecked(True)
    index = proxy_index(window, line.thread_id)
    assert index.isValid()
    assert index.data(STATUS_ROLE) == ThreadStatus.ARCHIVED.value
    assert index.data(BADGE_ROLE) == "archived"
    assert sqlite_controller.lines.current_key == MAIN_KEY


def test_main_cannot_be_archived_from_the_window(window: MainWindow) -> None:
    """ISO-2: the one main thread stays."""
    assert window.controller.lines.current_key == MAIN_KEY
    assert not window.task_pane.archive_button.isEnabled()
    window.task_list.set_archived(MAIN_KEY, True)
    assert "cannot be archived" in label_text(window, "lineStatusLabel")


def test_context_menu_renames_and_archives_a_line(window: MainWindow, sqlite_controller: SessionController) -> None:
    """SPEC §6: new/archive from the list; rename goes through a replaceable hook."""
    line = sqlite_controller.lines.create_line("Old title")
    window.task_list.ask_title = lambda _parent, current: f"{current} → new"
    menu = window.task_list.task_line_menu(line.thread_id)
    actions = {action.text(): action for action in menu.actions() if action.text()}
    assert set(actions) >= {"Rename…", "Archive", "Copy session key"}

    actions["Rename…"].trigger()
    assert sqlite_controller.get_thread(line.thread_id).title == "Old title → new"
    assert proxy_index(window, line.thread_id).data() == "Old title → new"

    actions["Archive"].trigger()
    assert sqlite_controller.get_thread(line.thread_id).archived
    menu.deleteLater()


def test_a_failed_switch_shows_the_error_and_keeps_the_current_selection(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ISO-5: an unknown key leaves the current line, and the list selection, as they were."""
    line = sqlite_controller.lines.create_line("Vanishing")

    def refuse(key: str) -> None:
        raise UnknownSessionKeyError(key)

    monkeypatch.setattr(sqlite_controller.lines, "switch_session", refuse)
    click_line(qtbot, window, line.thread_id)

    assert sqlite_controller.lines.current_key == MAIN_KEY
    qtbot.waitUntil(lambda: selected_key(window) == MAIN_KEY, timeout=2000)
    assert label_text(window, "sessionKeyLabel") == MAIN_KEY
    status = label_text(window, "lineStatusLabel")
    assert "Cannot switch" in status and line.thread_id in status


def test_a_result_for_line_a_after_switching_to_b_updates_a_and_not_b(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """ISO-8: a late execution result lands on the line that started the run, not the current one."""
    line_a = sqlite_controller.lines.create_line("A")
    line_b = sqlite_controller.lines.create_line("B")
    click_line(qtbot, window, line_b.thread_id)
    resolved = tmp_path / "resolved-by-a"
    resolved.mkdir()

    sqlite_controller.lines.apply_execution_result(
        line_a.thread_id, ExecutionResult(resolved_working_directory=str(resolved))
    )

    row_a = proxy_index(window, line_a.thread_id)
    assert row_a.data(WORKSPACE_PATH_ROLE) == str(resolved)
    assert str(resolved) in row_a.data(Qt.ItemDataRole.ToolTipRole)
    assert proxy_index(window, line_b.thread_id).data(WORKSPACE_PATH_ROLE) == line_b.workspace_binding.path
    assert sqlite_controller.lines.current_key == line_b.thread_id
    assert label_text(window, "sessionKeyLabel") == line_b.thread_id
    assert label_text(window, "workspacePathLabel") == line_b.workspace_binding.path
    assert window.workspace_pane.root == line_b.workspace_binding.path


def test_ctrl_n_creates_and_selects_a_new_line(qtbot: QtBot, window: MainWindow) -> None:
    """Keyboard: Ctrl+N is New task line."""
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    keys = new_line_keys(window)
    assert len(keys) == 1
    assert window.controller.lines.current_key == keys[0]
    assert selected_key(window) == keys[0]


def test_ctrl_digit_jumps_to_the_nth_visible_line(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """Keyboard: Ctrl+1…9 select the n-th visible row (after filtering)."""
    lines = [sqlite_controller.lines.create_line(f"Line {n}") for n in range(1, 4)]

    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert sqlite_controller.lines.current_key == lines[1].thread_id  # row 1 is main
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert sqlite_controller.lines.current_key == MAIN_KEY

    window.task_pane.filter_edit.setText("Line 3")
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert sqlite_controller.lines.current_key == lines[2].thread_id
    qtbot.keyClick(window, Qt.Key.Key_9, Qt.KeyboardModifier.ControlModifier)  # no ninth row: nothing happens
    assert sqlite_controller.lines.current_key == lines[2].thread_id
    assert label_text(window, "sessionKeyLabel") == lines[2].thread_id


def test_rows_show_a_needs_folder_badge_and_the_key_in_the_tooltip(
    window: MainWindow, sqlite_controller: SessionController
) -> None:
    """ISO-4: a line whose folder is gone is marked in the list too."""
    line = sqlite_controller.lines.create_line("Lost folder")
    Path(line.workspace_binding.path or "").rmdir()
    window.task_model.invalidate_status(line.thread_id)
    index = proxy_index(window, line.thread_id)
    assert index.data(BADGE_ROLE) == "⚠ needs folder"
    tooltip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert line.thread_id in tooltip and "needs_workspace" in tooltip


def test_a_nested_tasks_title_keeps_its_room_beside_its_badges(
    qtbot: QtBot, window: MainWindow, sqlite_controller: SessionController
) -> None:
    """Issue 30: in a narrow list a task's badges (its kind, its category, a missing folder) took the whole
    row and its title showed as "↳…"; the title keeps room for its first words, a badge that would take it
    is left out."""
    parent = sqlite_controller.lines.create_line(title="Ward")
    sqlite_controller.tasks.set_category(parent.thread_id, "medical")
    task = sqlite_controller.tasks.start_task(parent.thread_id, "summarise the notes", title="Summarise notes").key
    Path(sqlite_controller.get_thread(task).workspace_binding.path or "").rmdir()  # a "needs folder" badge too
    window.task_model.invalidate_status(task)
    view = window.task_line_list
    view.setMaximumWidth(190)  # a narrow list, whatever the pane's own minimum under the app's stylesheet
    qtbot.waitUntil(lambda: view.viewport().width() < 200)
    qtbot.wait(20)
    image = view.viewport().grab().toImage()
    ratio = image.devicePixelRatio()
    rect = view.visualRect(proxy_index(window, task))
    text = view.palette().color(QPalette.ColorRole.Text)
    metrics = view.fontMetrics()
    left = rect.left() + 10 + 16  # the row's indent under its dispatcher
    inked = [
        x
        for x in range(left, left + metrics.horizontalAdvance("↳ Summarise"))
        if any(
            _close(image.pixelColor(int(x * ratio), int(y * ratio)), text, tolerance=60)
            for y in range(rect.top() + 3, rect.bottom() - 3)
        )
    ]
    # "↳ …" puts the title's colour on a few columns only (a pill's text is the pill's colour).
    assert len(inked) > metrics.horizontalAdvance("Sum"), len(inked)


def test_records_leave_the_list_where_the_person_scrolled_it(qtbot: QtBot, window: MainWindow) -> None:
    """Issue 34 item 1: every store record (a message stored, a line renamed: hundreds a minute with twenty
    lines streaming) put the selection back on the shown line and scrolled the list to it, so a person
    scrolling the list to find another line was pulled back at once. A record keeps the selection on the shown
    line and leaves the scrolling to the person; a switch still brings the line into view."""
    controller = window.controller
    keys = [controller.lines.create_line(f"Line {n}").thread_id for n in range(60)]
    click_line(qtbot, window, keys[-1])  # the newest: the list's end
    view = window.task_line_list
    bar = view.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    bar.setValue(0)  # the person scrolls up to the oldest lines
    for n in (3, 4, 5):
        controller.lines.rename_line(keys[n], f"Renamed {n}")
    controller.lines.rename_line(keys[-1], "The shown line, renamed")
    settled(qtbot, window)
    summary = window.task_model.summary(keys[3])
    assert summary is not None and summary.title == "Renamed 3"
    assert bar.value() == 0
    assert selected_key(window) == keys[-1]
    window.shown.switch_to(keys[30])
    settled(qtbot, window)
    assert selected_key(window) == keys[30] and view.visualRect(proxy_index(window, keys[30])).intersects(
        view.viewport().rect()
    )
