"""Issue 30, item 2: the line's header gives the room to the work.

The title first and whole; the session key as a small chip that copies it (sessionKeyLabel); the workspace
path elided in the middle with the whole path in its tooltip (workspacePathLabel); the usage meter
(usageMeter) kept across a switch away and back. Real widgets, offscreen, real clicks."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.agent_session import LineUsage
from xworkmate.preferences import Language
from xworkmate.testing.acp_scripts import scripted_agent
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.agent_session import UsageMeter
from xworkmate.ui.i18n import install_translations, remove_translations
from xworkmate.ui.layout import shown_text
from xworkmate.ui.theme import current

from .conftest import open_window
from .support import click_line, finished, send, settled
from .support_runs import run, wait_until

# Issue 30 showed "Second line: list thr…" beside the whole key. At 900x600 with the app's type scale, a title
# this long shows whole beside the compact chip; a much longer one is still elided (the chip keeps its width).
LONG_TITLE = "Second line: list three things to check"


def _label(window: MainWindow, name: str) -> QLabel:
    label = window.findChild(QLabel, name)
    assert label is not None, f"no label named {name}"
    return label


def test_the_title_is_shown_whole_beside_a_long_session_key_at_900x600(
    qtbot: QtBot, sqlite_controller: SessionController, app_style: None
) -> None:
    """With the app's own stylesheet (a test that starts the app leaves it on for the rest of the run)."""
    line = sqlite_controller.lines.create_line(LONG_TITLE)
    window = open_window(qtbot, sqlite_controller)
    window.resize(900, 600)
    click_line(qtbot, window, line.thread_id)
    qtbot.waitUntil(lambda: window.message_pane.title_label.text() != "")
    QApplication.processEvents()
    title = window.message_pane.title_label
    assert line.thread_id.startswith("draft:") and len(line.thread_id) > 20  # a long key beside it
    assert title.text() == LONG_TITLE
    assert shown_text(title) == LONG_TITLE  # not elided: the key's chip made room
    chip = _label(window, "sessionKeyLabel")
    assert chip.x() > title.x()  # the title first
    assert shown_text(chip) != line.thread_id and "…" in shown_text(chip)  # a small chip, elided in the middle
    assert line.thread_id in (window.chrome.elider.tooltip_for(chip) or "")  # whole in its tooltip


# Issue 30 item 3 (w30): a title this long was still cut at 900x600, the chip keeping its width.
VERY_LONG_TITLE = "Second line: list three things to check before the release"


def test_a_very_long_title_stays_whole_at_900x600_the_key_chip_gives_way(
    qtbot: QtBot, sqlite_controller: SessionController, app_style: None
) -> None:
    """The title first and whole; the chip shrinks (elided in the middle) or hides when there is no room left
    for it, and comes back whole when the window is wide again."""
    assert len(VERY_LONG_TITLE) >= 55
    line = sqlite_controller.lines.create_line(VERY_LONG_TITLE)
    window = open_window(qtbot, sqlite_controller)
    window.resize(900, 600)
    click_line(qtbot, window, line.thread_id)
    qtbot.waitUntil(lambda: window.message_pane.title_label.text() == VERY_LONG_TITLE)
    QApplication.processEvents()
    title, chip = window.message_pane.title_label, _label(window, "sessionKeyLabel")
    assert window.width() == 900
    assert shown_text(title) == VERY_LONG_TITLE  # whole
    assert title.width() >= title.fontMetrics().horizontalAdvance(VERY_LONG_TITLE)
    if chip.isVisible():  # what room is left: the chip in it, never over the title
        assert chip.x() >= title.geometry().right() and "…" in shown_text(chip)
    assert line.thread_id in (window.chrome.elider.tooltip_for(chip) or chip.text())

    window.resize(1440, 800)
    qtbot.waitUntil(lambda: window.width() == 1440)
    QApplication.processEvents()
    qtbot.waitUntil(chip.isVisible)
    assert shown_text(title) == VERY_LONG_TITLE
    assert chip.width() > chip.fontMetrics().horizontalAdvance("M" * 10)  # room again: the chip at its width


def test_a_click_on_the_session_key_chip_copies_the_key(qtbot: QtBot, sqlite_controller: SessionController) -> None:
    line = sqlite_controller.lines.create_line("Copy me")
    window = open_window(qtbot, sqlite_controller)
    click_line(qtbot, window, line.thread_id)
    QApplication.clipboard().setText("something else")
    chip = _label(window, "sessionKeyLabel")
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == line.thread_id


def test_the_workspace_path_elides_in_the_middle_with_the_whole_path_in_its_tooltip(
    qtbot: QtBot, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    folder = tmp_path / "a-rather-long-folder-name-for-the-workspace" / "with-more-levels-below" / "project-end"
    folder.mkdir(parents=True)
    line = sqlite_controller.lines.create_line("Path")
    sqlite_controller.lines.bind_workspace(line.thread_id, str(folder))
    window = open_window(qtbot, sqlite_controller)
    window.resize(1300, 760)  # at 900 wide the workspace pane makes way for the conversation
    click_line(qtbot, window, line.thread_id)
    label = _label(window, "workspacePathLabel")
    qtbot.waitUntil(lambda: str(folder) in label.toolTip())
    QApplication.processEvents()
    assert label.width() < label.fontMetrics().horizontalAdvance(str(folder))  # it cannot be shown whole
    text = shown_text(label)
    assert "…" in text and text != str(folder)
    head, tail = text.split("…", 1)
    assert str(folder).startswith(head) and str(folder).endswith(tail)
    assert tail.endswith("project-end") and head  # the middle went, both ends stay


def test_a_folder_under_home_is_shown_home_relative_with_the_whole_path_in_its_tooltip(
    qtbot: QtBot, sqlite_controller: SessionController, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30: the pane shows ``~/projects/demo`` (the screenshots showed random /tmp paths)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    folder = tmp_path / "projects" / "demo"
    folder.mkdir(parents=True)
    line = sqlite_controller.lines.create_line("Demo", workspace=folder)
    window = open_window(qtbot, sqlite_controller)
    window.resize(1300, 760)
    click_line(qtbot, window, line.thread_id)
    label = _label(window, "workspacePathLabel")
    qtbot.waitUntil(lambda: label.text() == "~/projects/demo")
    assert label.toolTip() == str(folder.resolve())


def test_the_usage_meter_survives_a_switch_away_and_back(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    scripted_agent(
        controller,
        tmp_path,
        session_id="s-1",
        prompt_usage={"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        turn=[{"usage": {"used": 15, "size": 128000}}, {"say": "ok"}],
    )
    line = controller.lines.create_line("agent")
    other = controller.lines.create_line("other")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    window: MainWindow = open_window(qtbot, controller)
    click_line(qtbot, window, line.thread_id)
    send(qtbot, window, "hello")
    run(loop, wait_until(finished(controller, line.thread_id), what="the turn"))
    meter = window.usage_meter
    qtbot.waitUntil(meter.isVisible)
    shown, fill = meter.text(), meter.fill
    assert shown == "15/128k" and fill == pytest.approx(15 / 128000)
    assert "Tokens in: 10, out: 5" in meter.toolTip()

    click_line(qtbot, window, other.thread_id)
    qtbot.waitUntil(lambda: window.shown_key == other.thread_id)
    click_line(qtbot, window, line.thread_id)
    qtbot.waitUntil(lambda: window.shown_key == line.thread_id)
    settled(qtbot, window)
    assert meter.isVisible() and meter.text() == shown and meter.fill == fill
    assert not meter.bar_rect().isEmpty()


def _pixel(image: QImage, point: QPoint) -> str:
    return image.pixelColor(point).name()


def test_the_usage_meter_is_a_painted_bar_of_the_contexts_fill_with_the_details_on_hover(
    qtbot: QtBot, app_style: None
) -> None:
    """Issue 30 item 2: a compact bar, themed from the tokens (fill ``accent`` over the ``border`` track),
    its figure beside it, the numbers in the tooltip; no bar where the agent did not say the context's size."""
    meter = UsageMeter()
    qtbot.addWidget(meter)
    meter.show_usage(LineUsage(context_used=32000, context_size=128000, tokens_in=2400, tokens_out=600))
    meter.show()
    qtbot.waitExposed(meter)
    assert meter.text() == "32k/128k" and meter.fill == pytest.approx(0.25)
    assert meter.toolTip().splitlines()[:2] == ["Context: 32,000 of 128,000 tokens", "Tokens in: 2,400, out: 600"]
    bar = meter.bar_rect()
    assert bar.width() >= 40 and bar.height() >= 4 and meter.width() >= bar.right()
    image = meter.grab().toImage()
    if image.devicePixelRatio() != 1:
        image = image.scaled(meter.size())
    middle = bar.center().y()
    theme = current()
    assert _pixel(image, QPoint(bar.left() + bar.width() // 8, middle)) == theme.hex("accent")  # a quarter filled
    assert _pixel(image, QPoint(bar.left() + bar.width() * 3 // 4, middle)) == theme.hex("border")  # the rest
    assert meter.sizeHint().width() > bar.width() + meter.fontMetrics().horizontalAdvance("32k/128k") - 1

    meter.show_usage(LineUsage(context_used=120000, context_size=128000))
    image = meter.grab().toImage()
    assert _pixel(image, QPoint(bar.left() + bar.width() // 2, middle)) == theme.hex("danger-border")  # nearly full

    meter.show_usage(LineUsage(tokens_in=4100, tokens_out=812))
    assert meter.fill is None and meter.bar_rect().isEmpty() and meter.text() == "↑4.1k ↓812"
    assert meter.isVisible()
    meter.show_usage(LineUsage())
    assert not meter.isVisible()


def test_the_usage_meters_details_speak_chinese(qtbot: QtBot, qapp: QApplication) -> None:
    """Issue 30: ``ctx · in · out`` was English in a Chinese window; the details on hover are translated."""
    assert install_translations(qapp, Language.CHINESE) is Language.CHINESE
    try:
        meter = UsageMeter()
        qtbot.addWidget(meter)
        meter.show_usage(LineUsage(context_used=5400, context_size=128000, tokens_in=1200, tokens_out=300))
        details = meter.toolTip()
        assert "上下文" in details and "输入" in details and "输出" in details
        assert not any(word in details for word in ("Context", "Tokens", "ctx", " in ", " out"))
    finally:
        remove_translations(qapp)
