"""Attachments on an ACP line (SPEC ATT-1, issue 31): blocks as the agent's promptCapabilities take them."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest

from tests.cli.test_cli_attachments import png_bytes
from xworkmate.controllers import SessionController
from xworkmate.controllers.session import RunRefused
from xworkmate.domain.attachments import attachment_from_bytes
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.testing.acp_scripts import report_events, scripted_agent


def _acp_line(controller: SessionController) -> str:
    line = controller.lines.create_line("A")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    return line.thread_id


def test_an_image_reaches_an_agent_that_takes_images_as_an_image_block(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(
        controller, tmp_path, prompt_capabilities={"image": True, "embeddedContext": True}, turn=[{"say": "seen"}]
    )
    key = _acp_line(controller)
    image = attachment_from_bytes("shot.png", png_bytes())
    notes = attachment_from_bytes("notes.txt", b"step one, step two")
    outcome = asyncio.run(controller.turns.run_turn(key, "look", attachments=(image, notes)))
    assert outcome.status == "finished", outcome.error
    [prompt] = report_events(report, "prompt")
    assert prompt["blocks"][0] == {"type": "text", "text": "look"}
    assert prompt["blocks"][1] == {
        "type": "image",
        "mimeType": "image/png",
        "data": base64.b64encode(png_bytes()).decode(),
    }
    resource = prompt["blocks"][2]
    assert resource["type"] == "resource" and resource["resource"]["text"] == "step one, step two"
    assert resource["resource"]["uri"].endswith("notes.txt")


def test_a_text_file_goes_as_text_to_an_agent_without_embedded_context(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, prompt_capabilities={}, turn=[{"say": "ok"}])
    key = _acp_line(controller)
    notes = attachment_from_bytes("notes.txt", b"step one, step two")
    assert asyncio.run(controller.turns.run_turn(key, "read it", attachments=(notes,))).status == "finished"
    [prompt] = report_events(report, "prompt")
    assert prompt["blocks"] == [
        {
            "type": "text",
            "text": "read it\n\n--- attached file: notes.txt ---\nstep one, step two\n--- end of notes.txt ---",
        }
    ]


def test_an_image_is_refused_in_one_line_for_an_agent_without_image_capability(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, prompt_capabilities={"embeddedContext": True}, turn=[{"say": "x"}])
    key = _acp_line(controller)
    image = attachment_from_bytes("shot.png", png_bytes())
    outcome = asyncio.run(controller.turns.run_turn(key, "look", attachments=(image,)))
    assert outcome.status != "finished"
    assert outcome.error is not None and "does not take images" in outcome.error and "\n" not in outcome.error
    assert report_events(report, "prompt") == []  # the prompt was never sent
    mine = [m for m in controller.lines.messages(key) if m.source is MessageSource.HUMAN]
    assert mine[-1].payload and mine[-1].payload["attachments"][0]["name"] == "shot.png"
    assert not [m for m in controller.lines.messages(key) if m.role is MessageRole.ASSISTANT and m.content]


def test_an_agent_known_not_to_take_images_is_refused_before_the_message_is_stored(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """ERR-2: once the agent has said (when it last started) that it takes no images, the gate refuses."""
    controller = sqlite_controller
    report = scripted_agent(controller, tmp_path, prompt_capabilities={}, turn=[{"say": "ok"}])
    key = _acp_line(controller)
    assert asyncio.run(controller.turns.run_turn(key, "hello")).status == "finished"
    before = controller.lines.messages(key)
    image = attachment_from_bytes("shot.png", png_bytes())
    with pytest.raises(RunRefused, match="does not take images"):
        asyncio.run(controller.turns.run_turn(key, "look", attachments=(image,)))
    assert controller.lines.messages(key) == before
    assert len(report_events(report, "prompt")) == 1
