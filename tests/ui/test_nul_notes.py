"""ERR-3 in the window: a turn with NUL bytes completes, and the tool card says they were replaced.

A real turn against the scripted OpenAI-compatible server on a ``full`` line: the model's text holds
a NUL and its ``printf 'a\\0b'`` prints one, run in the bubblewrap sandbox.
"""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot

from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.domain.stored_text import NUL_REPLACED_NOTE
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply
from xworkmate.ui import MainWindow

from .support import click_line, finished, message_texts, send
from .support_runs import call, run, tool_rows, wait_until

R = "\ufffd"


@needs_bwrap
def test_the_tool_card_and_the_reply_say_nul_bytes_were_replaced_err_3(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    """ERR-3: the card shows the output with U+FFFD and the note; the line runs again afterwards."""
    window = agent_window
    line = agent_controller.lines.create_line("NUL")
    agent_controller.line_settings.set_permission(line.thread_id, "full")
    click_line(qtbot, window, line.thread_id)
    openai_server.script(ToolCallReply([call("run_command", command="printf 'a\\0b'")]), TextReply(["printed a\x00b"]))
    send(qtbot, window, "print a NUL")
    run(loop, wait_until(finished(agent_controller, line.thread_id), what="the turn to end"))

    [row] = tool_rows(window)
    index = window.message_model.index(row, 0)
    card = str(index.data())
    assert card.startswith("$ printf 'a\\0b' — exit 0")
    assert card.splitlines()[1:] == [NUL_REPLACED_NOTE, f"a{R}b"]
    # What the delegate paints (the card's rich text) says it too.
    painted = window.message_list.message_delegate.body_for(index).plain_text()
    assert NUL_REPLACED_NOTE in painted and f"a{R}b" in painted
    assert message_texts(window)[row + 1] == f"printed a{R}b\n\n({NUL_REPLACED_NOTE})"

    openai_server.script(TextReply(["again"]))
    send(qtbot, window, "once more")
    run(loop, wait_until(lambda: message_texts(window)[-1] == "again", what="the second reply"))
