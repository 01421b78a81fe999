"""Settings → Providers → ACP agents: found on PATH, or added by hand (SPEC §5: offered, never hard-coded)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.support.fixtures import Cli
from xworkmate.controllers import SessionController
from xworkmate.domain.providers import ProviderKind
from xworkmate.ui import MainWindow
from xworkmate.ui.agent.execution import NO_AGENTS_LABEL
from xworkmate.ui.settings.acp_agents import AcpFormError, agent_record
from xworkmate.ui.settings.providers import ProviderSettingsDialog

from .conftest import open_window
from .support import idle, settled
from .support_runs import run, wait_until


@pytest.fixture
def bare_window(qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController) -> MainWindow:
    return open_window(qtbot, bare_controller)


def open_dialog(window: MainWindow) -> ProviderSettingsDialog:
    window.chrome.provider_settings_action.trigger()
    dialog = window.line_settings.provider_dialog
    assert dialog is not None and dialog.isVisible()
    idle(dialog)  # the providers are read on the store worker (issue 33 item 2)
    return dialog


def test_find_agent_clis_on_path_offers_a_fake_qwen_with_its_version_and_adds_it(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    bare_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window, controller = bare_window, bare_controller
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    dialog = open_dialog(window)
    section = dialog.acp_section
    assert window.mode_picker.choices()[-1] == (NO_AGENTS_LABEL, None, False)

    qtbot.mouseClick(section.find_button, Qt.MouseButton.LeftButton)
    assert not section.find_button.isEnabled()  # in a worker thread; the window keeps running
    run(loop, wait_until(lambda: not dialog.busy, what="the search"))
    status = section.status_label.text()
    assert status.startswith("No agent CLI found on PATH") and "by hand" in status and "qwen --acp" in status
    assert not section.found_list.isVisible()

    qwen = bin_dir / "qwen"
    qwen.write_text('#!/bin/sh\n[ "$1" = "--version" ] && echo "qwen 0.0.14" && exit 0\nexit 1\n')
    qwen.chmod(0o755)
    qtbot.mouseClick(section.find_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(lambda: not dialog.busy, what="the search"))
    assert section.found_texts() == [f"qwen 0.0.14 — {qwen} --acp"]
    assert section.found_list.isVisible() and section.add_found_button.isVisible()

    qtbot.mouseClick(section.add_found_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    [record] = controller.providers.records()
    assert (record.name, record.kind, record.acp_command, record.model) == (
        "qwen",
        ProviderKind.ACP,
        (str(qwen), "--acp"),
        None,
    )
    assert dialog.provider_names() == ["qwen"]
    settled(qtbot, window)  # the window re-reads the providers on the store worker
    assert window.mode_picker.choices()[-1] == ("qwen (ACP)", "acp:qwen", True)

    qtbot.mouseClick(section.find_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(lambda: not dialog.busy, what="the search"))
    assert section.found_texts() == [f"qwen 0.0.14 — {qwen} --acp (already added)"]
    qtbot.mouseClick(section.add_found_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert "already exists" in section.status_label.text()
    assert len(controller.providers.records()) == 1


def test_an_agent_added_by_hand_is_validated_inline_and_nothing_is_saved_on_error(
    qtbot: QtBot, bare_window: MainWindow, bare_controller: SessionController
) -> None:
    window, controller = bare_window, bare_controller
    dialog = open_dialog(window)
    section = dialog.acp_section

    def attempt(name: str, command: str, env: str = "") -> str:
        for edit, text in ((section.name_edit, name), (section.command_edit, command), (section.env_edit, env)):
            edit.setText(text)
        qtbot.mouseClick(section.add_button, Qt.MouseButton.LeftButton)
        idle(dialog)
        return section.error_label.text() if section.error_label.isVisible() else ""

    assert attempt("", "qwen --acp").startswith("name: give the agent a name")
    assert section.name_edit.property("invalid") is True
    assert attempt("my agent", "qwen --acp").startswith("name: the name must not contain spaces")
    assert attempt("mine", "").startswith("command: type the command")
    assert section.command_edit.property("invalid") is True
    assert "No closing quotation" in attempt("mine", 'qwen --acp "unclosed')
    error = attempt("mine", "qwen --acp", "API_KEY=sk-secret-123")
    assert error.startswith("env: API_KEY must look like NAME=env:VAR") and "sk-secret-123" not in error
    assert section.env_edit.property("invalid") is True
    assert controller.providers.records() == []  # nothing saved on any error

    assert attempt("mine", f'{sys.executable} -m my_agent --acp --title "two words"', "API_KEY=env:MY_KEY") == ""
    [record] = controller.providers.records()
    assert record.kind is ProviderKind.ACP
    assert record.acp_command == (sys.executable, "-m", "my_agent", "--acp", "--title", "two words")
    assert record.acp_env_refs == (("API_KEY", "env:MY_KEY"),)
    assert section.name_edit.text() == "" and section.name_edit.property("invalid") is False
    assert "Added mine" in section.status_label.text()
    settled(qtbot, window)  # the window re-reads the providers on the store worker
    assert window.mode_picker.choices()[-1] == ("mine (ACP)", "acp:mine", True)

    assert "already exists" in attempt("mine", "other --acp")
    assert len(controller.providers.records()) == 1


def test_agent_record_reads_env_references_and_refuses_secrets() -> None:
    record = agent_record(" qwen ", "qwen --acp", "A=env:X, B=keyring:entry\nC=env:Y")
    assert record.name == "qwen" and record.acp_env_refs == (("A", "env:X"), ("B", "keyring:entry"), ("C", "env:Y"))
    for bad in ("A=X", "=env:X", "A=env:", "1A=env:X", "A"):
        with pytest.raises(AcpFormError) as caught:
            agent_record("qwen", "qwen --acp", bad)
        assert caught.value.field == "env"


def test_an_agents_writable_folders_are_shown_edited_and_checked(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    bare_window: MainWindow,
    bare_controller: SessionController,
    tmp_path: Path,
) -> None:
    """SBX-1: a known agent gets its own folders by default; the person can edit them; `/` is refused."""
    window, controller = bare_window, bare_controller
    dialog = open_dialog(window)
    section = dialog.acp_section
    qtbot.keyClicks(section.name_edit, "qwen")
    qtbot.keyClicks(section.command_edit, "qwen --acp")
    qtbot.mouseClick(section.add_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    [stored] = [p for p in controller.providers.records() if p.name == "qwen"]
    assert stored.acp_state_dirs is None  # the known agent's defaults

    dialog.select("qwen")
    assert dialog.edit_button.isEnabled()
    qtbot.mouseClick(dialog.edit_button, Qt.MouseButton.LeftButton)
    assert section.add_button.text() == "Save agent" and section.name_edit.isReadOnly()
    assert section.state_dirs_edit.placeholderText() == "default: ~/.qwen"

    qtbot.keyClicks(section.state_dirs_edit, "/")
    qtbot.mouseClick(section.add_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert section.error_label.isVisible() and "root of the file system" in section.error_label.text()
    assert section.state_dirs_edit.property("invalid") is True
    assert next(p for p in controller.providers.records() if p.name == "qwen").acp_state_dirs is None  # nothing saved

    section.state_dirs_edit.clear()
    own = tmp_path / "qwen-state"
    qtbot.keyClicks(section.state_dirs_edit, f"~/.qwen, {own}")
    qtbot.mouseClick(section.add_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    [saved] = [p for p in controller.providers.records() if p.name == "qwen"]
    assert saved.acp_state_dirs == ("~/.qwen", str(own))
    assert section.status_label.text().startswith("Saved qwen")
    assert section.add_button.text() == "Add agent"


def test_an_agents_sign_in_method_is_set_in_the_form_and_shown_again_on_edit(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_window: MainWindow, bare_controller: SessionController
) -> None:
    """Issue 15: the person picks how an agent signs in; the CLI's --acp-auth and the form store the same."""
    dialog = open_dialog(bare_window)
    section = dialog.acp_section
    qtbot.keyClicks(section.name_edit, "qwen")
    qtbot.keyClicks(section.command_edit, "qwen --acp")
    qtbot.keyClicks(section.auth_edit, "openai")
    qtbot.mouseClick(section.add_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert next(p for p in bare_controller.providers.records() if p.name == "qwen").acp_auth_method == "openai"
    dialog.select("qwen")
    qtbot.mouseClick(dialog.edit_button, Qt.MouseButton.LeftButton)
    assert section.auth_edit.text() == "openai"
    section.auth_edit.clear()
    qtbot.mouseClick(section.add_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert next(p for p in bare_controller.providers.records() if p.name == "qwen").acp_auth_method is None


@pytest.mark.parametrize(
    ("name", "env", "field", "words"),
    [
        ("weird", "1 BAD=env:", "env", "must look like NAME=env:VAR"),
        ("weird", "KEY=env:", "env", "must look like NAME=env:VAR"),
        ("weird", "KEY=env:not-a-name", "env", "does not name an environment variable"),
        ("weird", "KEY=vault:x", "env", "must look like NAME=env:VAR"),
        ("my agent", "", "name", "must not contain spaces"),
    ],
)
def test_the_cli_and_the_dialog_refuse_the_same_agent_with_the_same_words(
    xw: Cli, name: str, env: str, field: str, words: str
) -> None:
    """Issue 19 item 3: the rules sit on ProviderRecord, so `provider add` no longer stores what the form
    refuses. The CLI's ``main`` runs in this process (issue 33: a parity check); the smoke test below runs
    it as a real process once."""
    with pytest.raises(AcpFormError) as refused:
        agent_record(name, "true", env)
    assert refused.value.field == field and words in str(refused.value)
    args = ["provider", "add", name, "--acp-command", "true"] + (["--acp-env", env] if env else [])
    code, _out, err = xw(*args)
    assert code == 1
    assert words in err and len(err.strip().splitlines()) == 1
    assert "1 BAD" not in err.replace(name, "")  # a pasted value is never echoed
    code, out, _err = xw("provider", "list", "--json")
    assert code == 0 and out.strip() == "[]"


def test_the_cli_process_refuses_an_agent_the_dialog_refuses_in_one_line_and_stores_nothing(home: Path) -> None:
    """The parity checks above as one real ``xworkmate`` process: its stderr and exit code."""
    from tests.cli.test_cli import run_cli

    words = "must look like NAME=env:VAR"
    with pytest.raises(AcpFormError, match=words):
        agent_record("weird", "true", "1 BAD=env:")
    proc = run_cli(home, "provider", "add", "weird", "--acp-command", "true", "--acp-env", "1 BAD=env:")
    assert proc.returncode == 1
    assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "1 BAD" not in proc.stderr
    listed = run_cli(home, "provider", "list", "--json")
    assert listed.returncode == 0 and listed.stdout.strip() == "[]"
