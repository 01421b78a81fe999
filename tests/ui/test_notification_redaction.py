"""SEC-1: a desktop notification is derived text shown outside the window; a key never reaches it.

Real window, real turns against the scripted OpenAI-compatible server, the notifier's recording
backend (as in ``test_notifications``).
"""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.secrets import REDACTED
from xworkmate.testing.openai_server import OpenAIServer, TextReply
from xworkmate.ui import MainWindow

from .support_runs import turn_on
from .test_notifications import RecordingBackend, activate, elsewhere
from .test_notifications import recorded as recorded  # the fixture: the notifier's recording backend

KEY = "sk-proj-Q7vR2mXk9LpT4wZc8NbY3hJd6FgS1aE5"


def test_a_key_in_the_first_message_or_in_a_title_never_reaches_a_notification(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
    recorded: RecordingBackend,
) -> None:
    """The title made from the first message is redacted before it is stored; a title that holds a key
    anyway (the person typed it, an older database) is redacted as the notification is worded."""
    activate(qtbot, agent_window)
    elsewhere(qtbot)
    derived = agent_controller.lines.create_line().thread_id
    turn_on(loop, openai_server, agent_controller, derived, f"rotate {KEY} today", TextReply(["Rotated."]))
    named = agent_controller.lines.create_line(f"keys {KEY}").thread_id
    turn_on(loop, openai_server, agent_controller, named, "list them", TextReply(["Listed."]))

    assert recorded.shown == [
        (derived, f"XWorkmate: rotate {REDACTED} today", f"“rotate {REDACTED} today” finished — a new answer to read."),
        (
            named,
            f"XWorkmate: keys {REDACTED}",
            f"“keys {REDACTED}” finished — a new answer to read.\n2 lines need you.",
        ),
    ]
    assert agent_controller.get_thread(derived).title == f"rotate {REDACTED} today"
