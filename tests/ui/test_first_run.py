"""First run (issue 18, item 8): the empty conversation says what to do; the status agrees with the banner.

Pins: with no provider, an empty line shows "Add a provider…" and "Use an
agent found on PATH…" (which open the providers dialog, the second already
looking on PATH), and the status says nothing will run instead of a green
"Runnable — ready"; once a provider exists, both go back to normal.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.providers import ProviderRecord
from xworkmate.testing.openai_server import OpenAIServer
from xworkmate.ui.first_run import NO_PROVIDER_EMPTY_TEXT, NO_PROVIDER_STATUS

from .conftest import open_window
from .support import label_text, send, settled
from .support_runs import run, wait_until


def test_an_empty_first_run_line_offers_both_ways_and_the_status_agrees(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController, openai_server: OpenAIServer
) -> None:
    window = open_window(qtbot, bare_controller)
    pane = window.message_pane
    # Issue 30: said once, not three times: the centre explains, with its buttons; no banner under it.
    assert not pane.provider_banner.isVisible()
    assert pane.stack.currentWidget() is pane.empty_state
    assert label_text(window, "messageEmptyLabel") == NO_PROVIDER_EMPTY_TEXT
    add, find = pane.empty_state.add_provider_button, pane.empty_state.find_agents_button
    assert add.isVisible() and find.isVisible()
    status = label_text(window, "lineStatusLabel")
    assert status == NO_PROVIDER_STATUS and "ready" not in status.lower() and "only saved" in status
    assert pane.status_label.property("severity") == "warning"

    qtbot.mouseClick(find, Qt.MouseButton.LeftButton)
    dialog = window.line_settings.provider_dialog
    assert dialog is not None and dialog.isVisible()
    run(loop, wait_until(lambda: "Looking" not in dialog.acp_section.status_label.text(), what="the PATH scan"))
    dialog.reject()

    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    assert window.line_settings.provider_dialog is not None and window.line_settings.provider_dialog.isVisible()
    window.line_settings.provider_dialog.reject()

    send(qtbot, window, "a note for later")  # saved only: now the banner under the messages says it
    qtbot.waitUntil(lambda: pane.stack.currentWidget() is pane.message_list)
    assert pane.provider_banner.isVisible() and not add.isVisible()

    bare_controller.providers.add_provider(
        ProviderRecord(name="local", base_url=openai_server.base_url, model="test-model", is_default=True)
    )
    window.line_settings.refresh_providers()
    settled(qtbot, window)  # the providers are read on the store worker (issue 33 item 2)
    assert not pane.provider_banner.isVisible()
    assert not add.isVisible() and not find.isVisible()
    assert label_text(window, "lineStatusLabel").startswith("Runnable — ready")
    assert pane.status_label.property("severity") == "ok"
