"""The composer's skill picker (SPEC §11 SKL-1, ISO-5): it always shows the current line's selection, through
switches and a restart; its list is keyboard-searchable with checkboxes and a tick is saved as the line's."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import open_store

from .conftest import open_window
from .support import click_line

POPUP_NOISE = pytest.mark.qt_log_ignore(
    r"This plugin does not support (raise\(\)|grabbing the keyboard|propagateSizeHints\(\))"
)


def write_skill(folder: Path, name: str, description: str) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n")


@POPUP_NOISE
def test_the_picker_follows_the_current_line_across_switches_and_a_restart(
    qtbot: QtBot, sqlite_controller: SessionController, settings: Settings
) -> None:
    """SKL-1, ISO-5: line A's selection on A, B's (none) on B, A's again after a switch back and a restart."""
    controller = sqlite_controller
    write_skill(settings.home / "skills", "pdf-forms", "Fill in PDF forms.")
    write_skill(settings.home / "skills", "release-notes", "Write release notes.")
    a = controller.lines.create_line("A").thread_id
    b = controller.lines.create_line("B").thread_id
    write_skill(Path(controller.get_thread(b).workspace_binding.path or "") / ".agents" / "skills", "b-only", "B's.")
    controller.skills.set_skills(a, add=["pdf-forms"])
    window = open_window(qtbot, controller)
    picker = window.skill_picker
    assert picker.objectName() == "skillPicker"

    click_line(qtbot, window, a)
    assert picker.key == a and picker.text() == "Skills (1)"
    assert picker.toolTip() == "Skills selected for this line: pdf-forms"
    click_line(qtbot, window, b)
    assert picker.key == b and picker.text() == "Skills"
    picker.click()
    popup = picker.popup
    qtbot.waitUntil(lambda: "b-only" in popup.names())  # B's own folder's skill, read off the GUI thread
    assert popup.names() == ["pdf-forms", "release-notes", "b-only"] and popup.checked() == []
    qtbot.keyClicks(popup.filter, "release")  # keyboard search, then Enter ticks the one left
    assert [popup.list.item(r).isHidden() for r in range(popup.list.count())] == [True, False, True]
    qtbot.keyClick(popup.filter, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: controller.get_thread(b).context_state.selected_skills == ("release-notes",))
    popup.hide()
    qtbot.waitUntil(lambda: picker.toolTip() == "Skills selected for this line: release-notes")

    click_line(qtbot, window, a)
    assert picker.toolTip() == "Skills selected for this line: pdf-forms"  # A's, never B's
    picker.click()
    qtbot.waitUntil(lambda: popup.names() == ["pdf-forms", "release-notes"])  # b-only stays on its line
    assert popup.checked() == ["pdf-forms"]
    popup.hide()
    window.close()
    controller.close()

    store = open_store(settings.effective_database_url)
    try:
        again = SessionController(store, settings)
        reopened = open_window(qtbot, again)
        click_line(qtbot, reopened, b)
        assert reopened.skill_picker.toolTip() == "Skills selected for this line: release-notes"
        click_line(qtbot, reopened, a)
        assert reopened.skill_picker.toolTip() == "Skills selected for this line: pdf-forms"
        assert reopened.skill_picker.text() == "Skills (1)"
        reopened.close()
    finally:
        store.close()


@POPUP_NOISE
def test_slash_in_the_composer_offers_the_lines_skills_and_choosing_one_selects_it(
    qtbot: QtBot, sqlite_controller: SessionController, settings: Settings
) -> None:
    """SKL-1: the composer's ``/`` completion lists the shown line's skills; choosing one selects it for the
    line (saved off the GUI thread) and leaves no text behind."""
    controller = sqlite_controller
    write_skill(settings.home / "skills", "pdf-forms", "Fill in PDF forms.")
    line = controller.lines.create_line("A").thread_id
    window = open_window(qtbot, controller)
    click_line(qtbot, window, line)
    completer = window.slash_completer
    qtbot.waitUntil(lambda: window.skill_picker.catalog is not None)
    qtbot.keyClicks(window.composer, "/pdf")
    qtbot.waitUntil(lambda: completer.popup().isVisible())
    assert completer.currentCompletion() == "/pdf-forms"
    qtbot.keyClick(window.composer, Qt.Key.Key_Return)  # chooses in the list; it does not send "/pdf"
    qtbot.waitUntil(lambda: controller.get_thread(line).context_state.selected_skills == ("pdf-forms",))
    assert window.composer.toPlainText() == ""
    assert controller.lines.messages(line) == []
    qtbot.waitUntil(lambda: window.skill_picker.text() == "Skills (1)")
