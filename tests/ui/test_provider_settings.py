"""Settings → Providers against the real OpenAI-compatible test server (SPEC §5, §7, CAT-1)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox
from pytestqt.qtbot import QtBot

from tests.support.keyring_backend import MemoryKeyring
from xworkmate.controllers import SessionController
from xworkmate.domain.providers import ProviderRecord
from xworkmate.settings import Settings
from xworkmate.testing.openai_server import OpenAIServer, TextReply, unused_base_url
from xworkmate.ui import MainWindow
from xworkmate.ui.settings.providers import ProviderSettingsDialog

from .conftest import open_window
from .support import finished, idle, message_texts, send, settled
from .support_runs import run, wait_until


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def bare_window(qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController) -> MainWindow:
    return open_window(qtbot, bare_controller)


def open_dialog(qtbot: QtBot, window: MainWindow) -> ProviderSettingsDialog:
    window.chrome.provider_settings_action.trigger()
    dialog = window.line_settings.provider_dialog
    assert dialog is not None and dialog.isVisible()
    idle(dialog)  # the list is read on the store worker
    assert dialog.objectName() == "providerSettingsDialog"
    return dialog


def fill_form(qtbot: QtBot, dialog: ProviderSettingsDialog, *, name: str, base_url: str, model: str = "") -> None:
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    assert dialog.form.isVisible()
    qtbot.keyClicks(dialog.name_edit, name)
    qtbot.keyClicks(dialog.base_url_edit, base_url)
    if model:
        dialog.model_combo.setEditText(model)


def test_a_provider_added_in_settings_is_listed_offered_and_used(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    bare_window: MainWindow,
    bare_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = bare_window
    banner = window.message_pane.provider_banner
    # An empty line: the centre says it (issue 30: once), the banner waits for messages.
    assert window.message_pane.empty_state.add_provider_button.isVisible() and not banner.isVisible()
    assert "No agent provider is configured" in banner.text()
    assert window.message_pane.provider_names() == []

    banner.linkActivated.emit("settings:providers")  # the link in the empty state opens the dialog
    dialog = window.line_settings.provider_dialog
    assert dialog is not None and dialog.isVisible()
    idle(dialog)
    assert dialog.empty_label.isVisible()
    fill_form(qtbot, dialog, name="local", base_url=openai_server.base_url)
    qtbot.mouseClick(dialog.fetch_models_button, Qt.MouseButton.LeftButton)
    assert not dialog.fetch_models_button.isEnabled()  # scheduled on the loop, not run in a nested one
    run(loop, wait_until(lambda: not dialog.busy, what="the models"))
    assert [dialog.model_combo.itemText(i) for i in range(dialog.model_combo.count())] == ["test-model"]
    assert dialog.model_combo.currentText() == "test-model"
    qtbot.keyClicks(dialog.tags_edit, "Medical, legal")
    assert dialog.default_check.isChecked()  # the first provider becomes the default
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)

    assert not dialog.form.isVisible()
    assert dialog.provider_names() == ["local"]
    row = [dialog.table.item(0, c).text() for c in range(dialog.table.columnCount())]  # type: ignore[union-attr]
    assert row == ["local", "test-model", openai_server.base_url, "legal, medical", "✓"]
    [record] = bare_controller.providers.records()
    assert (record.base_url, record.model, record.tags, record.is_default) == (
        openai_server.base_url,
        "test-model",
        ("legal", "medical"),
        True,
    )
    dialog.reject()
    settled(qtbot, window)  # the window re-reads the providers on the store worker

    assert not banner.isVisible()
    assert window.message_pane.provider_names() == ["local"]
    window.provider_picker.setCurrentIndex(window.provider_picker.findData("local"))
    openai_server.script(TextReply(["Hello from the new provider."]))
    send(qtbot, window, "hello?")  # waits for the send operation: only then is the turn running
    run(loop, wait_until(finished(bare_controller, "main"), what="the turn"))
    assert message_texts(window) == ["hello?", "Hello from the new provider."]
    [request] = openai_server.chat_requests
    assert request.body["model"] == "test-model"


def test_a_validation_error_is_shown_in_the_form_and_nothing_is_saved(
    qtbot: QtBot, bare_window: MainWindow, bare_controller: SessionController
) -> None:
    dialog = open_dialog(qtbot, bare_window)
    fill_form(qtbot, dialog, name="remote", base_url="ftp://models.example.com/v1", model="m1")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)

    assert dialog.form.isVisible()
    error = dialog.form_error_label
    assert error.isVisible() and "base_url" in error.text() and "http" in error.text()
    assert dialog.base_url_edit.property("invalid") is True
    assert dialog.name_edit.property("invalid") is False
    assert bare_controller.providers.records() == [] and dialog.provider_names() == []

    dialog.base_url_edit.setText("http://models.example.com/v1")
    dialog.model_combo.setEditText("")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert "model" in error.text() and dialog.model_combo.property("invalid") is True
    assert bare_controller.providers.records() == []

    dialog.model_combo.setEditText("m1")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert not error.isVisible() and dialog.provider_names() == ["remote"]


def test_a_typed_api_key_goes_to_the_keyring_never_to_the_database(
    qtbot: QtBot,
    bare_window: MainWindow,
    bare_controller: SessionController,
    settings: Settings,
    memory_keyring: MemoryKeyring,
) -> None:
    """SPEC §7: the key lives in the OS keyring; the database only says where to find it."""
    dialog = open_dialog(qtbot, bare_window)
    fill_form(qtbot, dialog, name="router", base_url="https://openrouter.example/api/v1", model="m")
    assert dialog.key_edit.echoMode() == dialog.key_edit.EchoMode.Password
    qtbot.keyClicks(dialog.key_edit, "sk-typed-secret-123")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)

    assert memory_keyring.passwords == {("xworkmate", "router"): "sk-typed-secret-123"}
    [record] = bare_controller.providers.records()
    assert record.api_key_keyring and record.api_key_env is None
    assert dialog.key_edit.text() == ""
    database = Path(settings.effective_database_url.removeprefix("sqlite:///"))
    for path in database.parent.glob(database.name + "*"):
        assert b"sk-typed-secret-123" not in path.read_bytes()

    dialog.select("router")
    qtbot.mouseClick(dialog.edit_button, Qt.MouseButton.LeftButton)
    assert dialog.name_edit.isReadOnly() and "keyring" in dialog.key_edit.placeholderText()
    qtbot.keyClicks(dialog.key_env_edit, "ROUTER_KEY")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    [edited] = bare_controller.providers.records()
    assert edited.api_key_env == "ROUTER_KEY" and edited.api_key_keyring  # the stored key is kept


def test_detect_local_servers_offers_what_answered(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_window: MainWindow, openai_server: OpenAIServer
) -> None:
    dialog = ProviderSettingsDialog.open_for(
        bare_window, bare_window.controller, detect_candidates=(openai_server.base_url, unused_base_url())
    )
    idle(dialog)
    qtbot.mouseClick(dialog.detect_button, Qt.MouseButton.LeftButton)
    assert dialog.status_label.text() == "Looking for local servers…"
    run(loop, wait_until(lambda: not dialog.busy, what="the detection"))

    assert dialog.detected_list.isVisible() and dialog.detected_list.count() == 1
    offered = dialog.detected_list.item(0).text()
    assert openai_server.base_url in offered and "test-model" in offered
    qtbot.mouseClick(dialog.use_detected_button, Qt.MouseButton.LeftButton)
    assert dialog.form.isVisible()
    assert dialog.base_url_edit.text() == openai_server.base_url
    assert dialog.model_combo.currentText() == "test-model"
    assert dialog.name_edit.text() == "local"
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert dialog.provider_names() == ["local"]
    dialog.reject()


def test_nothing_answering_says_so(qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_window: MainWindow) -> None:
    dialog = ProviderSettingsDialog.open_for(
        bare_window, bare_window.controller, detect_candidates=(unused_base_url(),)
    )
    qtbot.mouseClick(dialog.detect_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(lambda: not dialog.busy, what="the detection"))
    assert dialog.detected_list.count() == 0 and not dialog.detected_list.isVisible()
    assert dialog.status_label.text().startswith("No local server answered")
    dialog.reject()


def test_closing_the_dialog_cancels_a_fetch_in_flight_and_applies_no_answer(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    bare_window: MainWindow,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The endpoint has not answered "Fetch models" when the dialog closes: the fetch is cancelled (its coroutine
    sees ``CancelledError``, the server sees the client go) and nothing it could say reaches the dialog."""
    controller = bare_window.controller
    fetch = controller.providers.list_provider_models
    ended: list[str] = []

    async def watched(base_url: str, *, timeout_s: float = 2.0) -> list[str]:
        try:
            return await fetch(base_url, timeout_s=timeout_s)  # the real request, to the real server
        except asyncio.CancelledError:
            ended.append("cancelled")
            raise

    monkeypatch.setattr(controller.providers, "list_provider_models", watched)  # a spy: it only sees how the call ends
    openai_server.hang_models = True
    dialog = open_dialog(qtbot, bare_window)
    fill_form(qtbot, dialog, name="local", base_url=openai_server.base_url)
    qtbot.mouseClick(dialog.fetch_models_button, Qt.MouseButton.LeftButton)
    run(loop, wait_until(lambda: len(openai_server.requests) == 1, what="the fetch to reach the server"))
    asking = dialog.status_label.text()
    assert dialog.busy and asking.startswith("Asking")

    dialog.reject()
    run(loop, wait_until(lambda: not dialog.busy, what="the cancelled fetch"))
    assert ended == ["cancelled"]
    run(loop, wait_until(lambda: openai_server.disconnects == 1, what="the server to see the client go"))
    # Once not busy, an answer would have been applied: neither models nor an error nor a re-enabled button.
    assert dialog.model_combo.count() == 0
    assert dialog.status_label.text() == asking
    assert dialog.form_error_label.text() == ""
    assert not dialog.fetch_models_button.isEnabled()


def test_remove_asks_first_and_then_removes(
    qtbot: QtBot, bare_window: MainWindow, bare_controller: SessionController
) -> None:
    dialog = open_dialog(qtbot, bare_window)
    fill_form(qtbot, dialog, name="gone", base_url="http://127.0.0.1:9/v1", model="m")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    settled(qtbot, bare_window)
    assert bare_window.message_pane.provider_names() == ["gone"]
    asked: list[str] = []
    dialog.confirm = lambda _parent, text: bool(asked.append(text))  # says no
    dialog.select("gone")
    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert asked and "gone" in asked[0] and dialog.provider_names() == ["gone"]
    dialog.confirm = lambda _parent, _text: True
    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    assert dialog.provider_names() == [] and bare_controller.providers.records() == []
    settled(qtbot, bare_window)
    assert bare_window.message_pane.provider_names() == []
    assert bare_window.message_pane.empty_state.add_provider_button.isVisible()  # said again, in the centre


def test_enter_in_any_field_of_the_provider_form_saves_it(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_window: MainWindow, bare_controller: SessionController
) -> None:
    """Issue 30: Enter in the Model field cleared the form and saved nothing; Enter saves, as the Save
    button is the form's default, from the model field as from any other."""
    dialog = open_dialog(qtbot, bare_window)
    fill_form(qtbot, dialog, name="typed", base_url="http://127.0.0.1:9/v1")
    dialog.model_combo.setFocus()
    qtbot.keyClicks(dialog.model_combo, "my-model")
    qtbot.keyClick(dialog.model_combo, Qt.Key.Key_Return)
    idle(dialog)
    assert not dialog.form.isVisible()
    saved = {p.name: p for p in bare_controller.providers.records()}
    assert saved["typed"].model == "my-model" and dialog.isVisible()
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(dialog.name_edit, "second")
    qtbot.keyClicks(dialog.base_url_edit, "http://127.0.0.1:9/v1")
    dialog.model_combo.setEditText("m2")
    qtbot.keyClick(dialog.tags_edit, Qt.Key.Key_Return)
    idle(dialog)
    assert "second" in {p.name for p in bare_controller.providers.records()}


def test_the_providers_table_keeps_its_rows_in_view_while_the_form_is_open(
    qtbot: QtBot, bare_window: MainWindow, bare_controller: SessionController
) -> None:
    """Issue 30: opening the form squeezed the list to one row, so the provider being edited was not in
    view beside the others. The table keeps room for four rows."""
    for name in ("one", "two", "three", "four", "five"):
        bare_controller.providers.add_provider(ProviderRecord(name=name, base_url="http://127.0.0.1:9/v1", model="m"))
    dialog = open_dialog(qtbot, bare_window)
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    assert dialog.form.isVisible()
    qtbot.wait(10)
    rows = dialog.table.viewport().height() / dialog.table.rowHeight(0)
    assert rows >= 4, rows


def test_the_vision_checkbox_is_stored_with_the_provider_and_shown_when_it_is_edited(
    qtbot: QtBot, bare_window: MainWindow, bare_controller: SessionController
) -> None:
    """ATT-1: Settings → Providers says whether the model takes images, as `provider add --vision` does."""
    dialog = open_dialog(qtbot, bare_window)
    fill_form(qtbot, dialog, name="eyes", base_url="http://models.example.com/v1", model="m1")
    vision = dialog.findChild(QCheckBox, "providerVisionCheck")
    assert vision is not None and not vision.isChecked()
    vision.setChecked(True)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)
    [record] = bare_controller.providers.records()
    assert record.vision is True
    dialog.table.selectRow(0)
    qtbot.mouseClick(dialog.edit_button, Qt.MouseButton.LeftButton)
    assert dialog.form.isVisible() and vision.isChecked()


def test_a_save_the_store_refuses_says_so_in_one_line_and_keeps_what_was_typed(
    qtbot: QtBot, bare_window: MainWindow, bare_controller: SessionController, settings: Settings
) -> None:
    """Issue 33 item 2 (LOOP-4, ERR-1): the save runs as a named operation on the store worker; when the database
    fails it (here its providers table is gone, a real SQLite error), the form says so in one line naming what
    did not happen, and every field keeps what the person typed, so nothing is lost."""
    import sqlite3

    dialog = open_dialog(qtbot, bare_window)
    fill_form(qtbot, dialog, name="kept", base_url="http://127.0.0.1:9/v1", model="m1")
    qtbot.keyClicks(dialog.tags_edit, "legal")
    database = settings.effective_database_url.removeprefix("sqlite:///")
    with sqlite3.connect(database) as broken:
        broken.execute("ALTER TABLE providers RENAME TO providers_away")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    idle(dialog)

    error = dialog.form_error_label
    assert error.isVisible() and error.text().startswith("Could not save the provider kept — ")
    assert "\n" not in error.text()
    assert dialog.form.isVisible() and dialog.save_button.isEnabled()
    typed = (dialog.name_edit.text(), dialog.base_url_edit.text(), dialog.model_combo.currentText())
    assert typed == ("kept", "http://127.0.0.1:9/v1", "m1") and dialog.tags_edit.text() == "legal"

    with sqlite3.connect(database) as mended:
        mended.execute("ALTER TABLE providers_away RENAME TO providers")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)  # the same form, saved once the store is back
    idle(dialog)
    assert [p.name for p in bare_controller.providers.records()] == ["kept"] and not dialog.form.isVisible()
