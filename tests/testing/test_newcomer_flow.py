"""A new user's first minutes, in one test through ``WindowDriver`` (issue 30, checks).

First run on a brand-new home with no provider → a provider added in Settings → Providers (the real
test server's base URL) → a first streamed reply → a write that asks for approval, approved, the file
written → the turn's "1 file changed" chip opens the Changes tab on that file → Ctrl+K finds a word of
the reply and opening the hit shows its line and message → File → Export writes the conversation as
Markdown. Every step is a click, a key or a dialog answered through the window's ``ask`` hooks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")  # the Qt-free core job runs without the gui extra

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLineEdit,
    QListView,
    QTabWidget,
)

from xworkmate.domain.export import ExportFormat
from xworkmate.testing.driver import WindowDriver
from xworkmate.testing.llm import DEFAULT_MODEL, ScriptedLLM
from xworkmate.ui.conversation import SEARCH_HIT_ROLE
from xworkmate.ui.conversation.rows import CHIP_ROLE

REPLY = ["Hello, newcomer. ", "Your workbench is ", "ready: ask me for a file."]
NOTE = "# Notes\n\nfirst steps\n"


def _model_texts(view: QAbstractItemView, column: int = 0) -> list[str]:
    model = view.model()
    return [str(model.index(row, column).data()) for row in range(model.rowCount())]


def test_a_newcomer_goes_from_first_run_to_an_exported_conversation(
    xwm_window: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    driver: WindowDriver = xwm_window.driver
    window = xwm_window

    # First run: no provider; the centre offers both ways in.
    assert driver.widget("messageEmptyState").isVisible()
    assert driver.widget("firstRunAddProviderButton", QAbstractButton).isVisible()
    assert driver.widget("firstRunFindAgentsButton", QAbstractButton).isVisible()

    with ScriptedLLM() as llm:
        # Settings → Providers, opened from the first-run button; the form filled as a person types it.
        driver.click("firstRunAddProviderButton")
        dialog = driver.widget("providerSettingsDialog")
        driver.wait_until(dialog.isVisible, what="the Providers dialog")
        driver.click("addProviderButton")
        driver.qtbot.keyClicks(driver.widget("providerNameEdit", QLineEdit), "local")
        driver.qtbot.keyClicks(driver.widget("providerBaseUrlEdit", QLineEdit), llm.base_url)
        driver.widget("providerModelCombo", QComboBox).setEditText(DEFAULT_MODEL)
        driver.click("saveProviderButton")
        driver.wait_until(lambda: not driver.widget("providerForm").isVisible(), what="the provider saved")
        assert [p.name for p in window.controller.providers.records()] == ["local"]
        dialog.reject()

        # The first reply streams in.
        llm.stream(REPLY, delay=0.05)
        key = driver.current_key
        driver.send("hello, who are you?")
        driver.wait_until(lambda: bool(driver.live_text), what="the reply streaming")
        driver.wait_idle()
        assert [(m.role, m.text) for m in driver.messages()] == [
            ("user", "hello, who are you?"),
            ("assistant", "".join(REPLY)),
        ]
        assert llm.chat_requests[0].body["model"] == DEFAULT_MODEL

        # A write asks first; approved, the file is written.
        folder = driver.workspace_path
        assert folder is not None
        llm.tool_call("write_file", path="notes.md", content=NOTE, quote="write my notes")
        llm.reply("Wrote notes.md for you.")
        driver.send("write my notes")
        driver.wait_until(lambda: len(driver.approval_cards()) == 1, what="the approval card")
        assert not (Path(folder) / "notes.md").exists()
        driver.approve()
        driver.wait_idle()
        assert (Path(folder) / "notes.md").exists(), "\n".join(map(str, driver.messages()))
        assert (Path(folder) / "notes.md").read_text(encoding="utf-8") == NOTE

        # The turn's chip opens the Changes tab on the file.
        view = driver.widget("messageList", QListView)
        model = view.model()
        driver.wait_until(
            lambda: any(model.index(r, 0).data(CHIP_ROLE) for r in range(model.rowCount())), what="the chip"
        )
        [row] = [r for r in range(model.rowCount()) if model.index(r, 0).data(CHIP_ROLE)]
        index = model.index(row, 0)
        chip_text = str(index.data(CHIP_ROLE))
        assert chip_text == "1 file changed"
        view.scrollTo(index)
        rect = view.visualRect(index)
        chip = view.itemDelegate().chip_rect(rect, chip_text, view.font()).center().toPoint()
        driver.qtbot.mouseMove(view.viewport(), pos=rect.center())
        driver.qtbot.mouseMove(view.viewport(), pos=chip)
        driver.qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=chip)
        tabs = driver.widget("workspaceTabs", QTabWidget)
        changes = driver.widget("changesView")
        driver.wait_until(lambda: tabs.currentWidget() is changes, what="the Changes tab")
        driver.wait_until(changes.isVisible, what="the Changes tab on screen")
        files = driver.widget("changesFileList", QAbstractItemView)
        driver.wait_until(lambda: "notes.md" in " ".join(_model_texts(files, 1)), what="notes.md in Changes")

        # Ctrl+K finds a word of the first reply; opening the hit shows its line and message.
        later = driver.new_line("Later")  # elsewhere, so that the hit has to bring its line back
        assert driver.current_key == later != key
        window.activateWindow()  # back from the Providers dialog, as a click on the window does
        driver.wait_until(lambda: QApplication.activeWindow() is window, what="the window to be active")
        driver.qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
        palette = driver.widget("searchPalette")
        driver.wait_until(palette.isVisible, what="the search palette")
        search = driver.widget("searchInput", QLineEdit)
        driver.qtbot.keyClicks(search, "workbench")
        results = driver.widget("searchResults", QListView)
        driver.wait_until(lambda: results.model().rowCount() > 0, what="a search hit")
        driver.qtbot.keyClick(search, Qt.Key.Key_Return)
        driver.wait_until(lambda: not palette.isVisible(), what="the palette to close")
        driver.wait_until(lambda: "workbench" in str(view.currentIndex().data()), what="the hit shown")
        current = view.currentIndex()
        assert driver.current_key == key and current.data(SEARCH_HIT_ROLE) == "workbench"  # marked
        assert view.viewport().rect().intersects(view.visualRect(current))

        # File → Export writes the conversation as Markdown.
        target = tmp_path / "first-steps.md"
        monkeypatch.setattr(
            window.search_export, "ask_export_file", lambda _parent, _suggested: (target, ExportFormat.MARKDOWN)
        )
        export = driver.widget("exportAction", QAction)
        assert export in window.chrome.file_menu.actions()
        export.trigger()
        driver.wait_until(target.exists, what="the exported file")
        exported = target.read_text(encoding="utf-8")
        assert "hello, who are you?" in exported and "".join(REPLY) in exported
        assert "write my notes" in exported and "Wrote notes.md for you." in exported
