"""What a switch between two lines costs (issue 34 item 1; SPEC §6): a switch back to a line already painted
builds and renders none of its rows again, and what no one looks at first (the folder's tree, its watch, the
Changes tab) waits until the conversation is painted. Counts and orders, never wall-clock times.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QSize, QTimer
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import ExecutionMode
from xworkmate.store import Store
from xworkmate.testing.acp_scripts import scripted_agent
from xworkmate.ui import MainWindow
from xworkmate.ui.background import jobs_waiting
from xworkmate.ui.window.shown import AFTER_PAINT_MS, AfterPaint

from .conftest import open_window
from .support import click_line, message_texts, settled

ANSWER = "## Notes\n\nThe **release** checks:\n\n- the notes\n- the version\n\n```python\nprint('done')\n```\n"


def _line_with_messages(controller: SessionController, store: Store, title: str, count: int = 4) -> str:
    key = controller.lines.create_line(title).thread_id
    for n in range(count):
        store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"{title} question {n}")
        store.messages.append(key, role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content=f"{n}\n{ANSWER}")
    return key


def _painted(window: MainWindow) -> None:
    """Until the conversation has been painted with what the model holds (the rows it shows rendered)."""
    window.message_list.viewport().repaint()
    QApplication.processEvents()


def _window(qtbot: QtBot, controller: SessionController) -> MainWindow:
    window = open_window(qtbot, controller)
    window.resize(1200, 800)
    settled(qtbot, window)
    return window


def test_a_switch_back_to_a_line_already_painted_builds_and_renders_none_of_its_rows_again(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    first = _line_with_messages(sqlite_controller, sqlite_store, "First")
    second = _line_with_messages(sqlite_controller, sqlite_store, "Second")
    window = _window(qtbot, sqlite_controller)
    model, delegate = window.message_model, window.message_list.message_delegate
    click_line(qtbot, window, first)
    _painted(window)
    shown_first = message_texts(window)
    click_line(qtbot, window, second)
    _painted(window)
    assert model.key == second and model.rows_built > 0 and delegate.bodies_built > 0
    rows, bodies = model.rows_built, delegate.bodies_built

    click_line(qtbot, window, first)
    _painted(window)

    assert model.key == first and message_texts(window) == shown_first
    assert model.rows_built == rows  # every row of the first line as it was built before the switch away
    assert delegate.bodies_built == bodies  # and its Markdown rendered before, not again


def test_a_switch_back_builds_only_the_rows_of_messages_that_came_while_the_line_was_away(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    first = _line_with_messages(sqlite_controller, sqlite_store, "First")
    second = _line_with_messages(sqlite_controller, sqlite_store, "Second")
    window = _window(qtbot, sqlite_controller)
    model = window.message_model
    click_line(qtbot, window, first)
    _painted(window)
    click_line(qtbot, window, second)
    _painted(window)
    # Written while the first line is away (another process, as far as this window knows).
    sqlite_store.messages.append(first, role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content="Later news")
    rows = model.rows_built

    click_line(qtbot, window, first)
    _painted(window)

    assert model.key == first and message_texts(window)[-1] == "Later news"
    assert model.rows_built == rows + 1  # the new message's row; the others as they were built before


def test_a_height_change_of_the_conversation_measures_no_row_again_and_a_width_change_does(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    """A bar shown or hidden above the composer on a switch (an ACP line's agent bar) changes only the
    conversation's height: the rows' heights are kept per width."""
    key = _line_with_messages(sqlite_controller, sqlite_store, "Measured")
    window = _window(qtbot, sqlite_controller)
    click_line(qtbot, window, key)
    _painted(window)
    view, delegate = window.message_list, window.message_list.message_delegate
    measured = delegate.rows_measured
    assert measured > 0

    view.resize(QSize(view.width(), view.height() - 40))
    _painted(window)
    assert delegate.rows_measured == measured

    view.resize(QSize(view.width() - 60, view.height()))
    _painted(window)
    assert delegate.rows_measured > measured


class _PaintWatch(QObject):
    """The workspace tree's root each time the conversation starts painting."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self._window = window
        self.roots: list[str | None] = []
        window.message_list.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.roots.append(self._window.workspace_pane.root)
        return False


def test_a_switch_shows_the_folder_tree_right_after_the_conversations_first_paint(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store
) -> None:
    first = _line_with_messages(sqlite_controller, sqlite_store, "First")
    second = _line_with_messages(sqlite_controller, sqlite_store, "Second")
    folders = {key: sqlite_controller.lines.line_view(key).thread.workspace_binding.path for key in (first, second)}
    assert folders[first] != folders[second] and all(Path(f or "").is_dir() for f in folders.values())
    window = _window(qtbot, sqlite_controller)
    click_line(qtbot, window, first)
    _painted(window)
    assert window.workspace_pane.root == folders[first]
    watch = _PaintWatch(window)

    click_line(qtbot, window, second)
    _painted(window)

    assert window.workspace_pane.root == folders[second]  # settled: the work left for after the paint ran
    assert window.workspace_pane.path_label.toolTip() == folders[second]
    assert watch.roots and watch.roots[0] == folders[first]  # the conversation painted before the tree changed
    assert window.workspace.folder_watcher.directories() == [folders[second]]


def test_work_left_for_after_the_paint_runs_once_and_at_once_when_nothing_is_painted(qtbot: QtBot) -> None:
    shown, hidden = QWidget(), QWidget()
    qtbot.addWidget(shown)
    qtbot.addWidget(hidden)
    shown.show()
    qtbot.waitExposed(shown)
    ran: list[str] = []
    owner = QObject()

    def on_shown() -> None:
        ran.append("shown")

    def on_hidden() -> None:
        ran.append("hidden")

    after_shown, after_hidden = AfterPaint(shown, owner), AfterPaint(hidden, owner)
    after_shown.add(on_shown)
    after_shown.add(on_shown)  # asked twice before the paint: runs once
    after_hidden.add(on_hidden)
    assert ran == [] and after_shown.pending == 1

    qtbot.waitUntil(lambda: "hidden" in ran, timeout=AFTER_PAINT_MS // 2)  # not painted: no wait for a paint
    assert "shown" not in ran or ran.index("hidden") < ran.index("shown")
    shown.update()
    qtbot.waitUntil(lambda: "shown" in ran)
    QApplication.processEvents()
    assert sorted(ran) == ["hidden", "shown"] and after_shown.pending == 0


def test_a_switch_between_lines_offering_the_same_providers_neither_works_them_out_nor_fills_the_picker_again(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("alpha", "beta", "gamma"):
        sqlite_controller.providers.add_provider(
            ProviderRecord(name=name, base_url=f"http://127.0.0.1:9/{name}", model="m", is_default=name == "alpha")
        )
    first = _line_with_messages(sqlite_controller, sqlite_store, "First", count=1)
    second = _line_with_messages(sqlite_controller, sqlite_store, "Second", count=1)
    window = _window(qtbot, sqlite_controller)
    click_line(qtbot, window, first)
    picker = window.message_pane.provider_picker
    offered = [picker.itemText(i) for i in range(picker.count())]
    assert len(offered) == 4  # "Default — alpha" and the three
    emptied: list[int] = []
    picker.model().rowsRemoved.connect(lambda *_args: emptied.append(1))
    picker.model().modelReset.connect(lambda *_args: emptied.append(1))
    providers, worked_out = sqlite_controller.providers, []
    real = providers.provider_choices

    def counted(key: str, *args: Any) -> Any:
        worked_out.append(key)
        return real(key, *args)

    monkeypatch.setattr(providers, "provider_choices", counted)

    click_line(qtbot, window, second)
    click_line(qtbot, window, first)

    assert emptied == []
    assert [picker.itemText(i) for i in range(picker.count())] == offered
    assert worked_out == []  # both lines of no category, pinned to none: worked out once, before


def test_work_left_for_after_the_paint_runs_at_once_when_the_conversation_goes_before_it_is_painted(
    qtbot: QtBot,
) -> None:
    """A switch to a line with no messages hides the conversation (its empty state shows): no paint comes."""
    conversation = QWidget()
    qtbot.addWidget(conversation)
    conversation.show()
    qtbot.waitExposed(conversation)
    QApplication.processEvents()
    ran: list[str] = []
    after = AfterPaint(conversation, conversation)
    after.add(lambda: ran.append("ran"))

    conversation.hide()

    qtbot.waitUntil(lambda: ran == ["ran"], timeout=AFTER_PAINT_MS // 2)


class _Paints(QObject):
    """Each paint of the conversation, as the key the window's header showed then; and of the header's key."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self._window = window
        self.keys: list[str] = []
        self.header: list[str] = []
        window.message_list.viewport().installEventFilter(self)
        window.message_pane.session_key_label.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            key = self._window.message_pane.session_key_label.text()
            (self.header if watched is self._window.message_pane.session_key_label else self.keys).append(key)
        return False


def test_a_switch_paints_the_line_once_within_the_click_before_the_work_queued_meanwhile(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store, tmp_path: Path
) -> None:
    """Issue 34 item 1: while twenty lines stream, their records and reads queue up on the event loop; the line
    switched to is painted at once, not after all of that has run, and once: an ACP line's agent bar under the
    composer changes the conversation's height, laid out before that paint, not after it."""
    first = _line_with_messages(sqlite_controller, sqlite_store, "First")
    second = _line_with_messages(sqlite_controller, sqlite_store, "Second")
    scripted_agent(sqlite_controller, tmp_path, "agent", turn=[{"say": "done"}])
    sqlite_controller.line_settings.set_execution(second, ExecutionMode.ACP, "agent")
    window = _window(qtbot, sqlite_controller)
    click_line(qtbot, window, first)
    click_line(qtbot, window, second)
    _painted(window)
    assert window.message_pane.agent_bar.isVisible()
    for key in (first, second, first):
        paints, queued = _Paints(window), []
        QTimer.singleShot(0, lambda paints=paints, queued=queued: queued.append(list(paints.keys)))  # queued before

        window.task_pane.list_view.setCurrentIndex(window.task_list.proxy_index_of(key))  # as a click selects

        assert window.shown.shown_key == key
        assert paints.keys and key in paints.keys[0]  # painted with the line asked for, within the click
        assert paints.header and key in paints.header[0]  # and the pane's header with it (what changed is painted)
        settled(qtbot, window)
        _painted(window)  # one more, asked for here
        assert queued and queued[0] and key in queued[0][0]  # before the work queued before it ran
        assert window.message_pane.agent_bar.isVisible() == (key == second)
        assert len(paints.keys) == 2, paints.keys  # the switch's own paint, and this test's: none made again
        assert message_texts(window)[-1] == f"3\n{ANSWER}"


class _AtPaint(QObject):
    """What the skill picker and the mode picker held each time the conversation started painting."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self._window = window
        self.seen: list[tuple[str, int, bool, str | None]] = []
        window.message_list.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            pane = self._window.message_pane
            picker = pane.skill_picker
            key = pane.session_key_label.text()
            self.seen.append((key, jobs_waiting(picker), picker.catalog is not None, pane.mode_picker.chosen()))
        return False


def test_a_switch_selects_the_lines_mode_without_refilling_the_picker_and_reads_its_skills_once_painted(
    qtbot: QtBot, sqlite_controller: SessionController, sqlite_store: Store, tmp_path: Path
) -> None:
    """Issue 34 item 1: between a native and an ACP line of the same agents, the mode picker only selects (its
    four agents were rebuilt at every switch); the skills, which only the popup and ``/`` need, are read once
    the switch is painted, not beside it. SKL-1, ISO-5: the picker still shows the shown line's skills."""
    for name in ("one", "two", "three"):
        scripted_agent(sqlite_controller, tmp_path, name, turn=[{"say": "done"}])
    native = _line_with_messages(sqlite_controller, sqlite_store, "Native", count=1)
    acp = _line_with_messages(sqlite_controller, sqlite_store, "Agent", count=1)
    sqlite_controller.line_settings.set_execution(acp, ExecutionMode.ACP, "two")
    window = _window(qtbot, sqlite_controller)
    click_line(qtbot, window, native)
    _painted(window)
    picker = window.message_pane.mode_picker
    offered = picker.choices()
    refilled: list[int] = []
    picker.model().rowsRemoved.connect(lambda *_args: refilled.append(1))
    picker.model().modelReset.connect(lambda *_args: refilled.append(1))
    at_paint = _AtPaint(window)

    for key, mode in ((acp, "acp:two"), (native, "native"), (acp, "acp:two")):
        click_line(qtbot, window, key)
        assert picker.chosen() == mode
        settled(qtbot, window)
        skills = window.message_pane.skill_picker
        qtbot.waitUntil(lambda skills=skills: skills.catalog is not None)  # read for this line, after the paint

    assert refilled == [] and picker.choices() == offered
    firsts = [next(seen for seen in at_paint.seen if seen[0] == key) for key in (acp, native)]
    assert [(waiting, read) for _key, waiting, read, _mode in firsts] == [(0, False), (0, False)]
    assert [mode for *_rest, mode in firsts] == ["acp:two", "native"]  # painted with the line's own mode

    sqlite_controller.providers.remove_provider("two")  # the ACP line now names an agent no longer configured
    window.line_settings.refresh_providers()
    settled(qtbot, window)
    assert ("two (ACP — not configured)", "acp:two", False) in picker.choices()
    click_line(qtbot, window, native)
    assert picker.chosen() == "native" and all(choice != "acp:two" for _label, choice, _on in picker.choices())
