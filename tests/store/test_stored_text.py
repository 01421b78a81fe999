"""ERR-3: both databases keep the same text — a NUL byte becomes U+FFFD on every path to storage.

PostgreSQL refuses NUL in a text value (``psycopg.DataError``); SQLite keeps it. Each test runs on
a SQLite file and on a real PostgreSQL database, writes through the Python API, and reads the
columns back with plain SQL, so what is checked is what the database holds.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.providers import InvalidProviderError, ProviderKind, ProviderRecord
from xworkmate.domain.stored_text import NUL_REPLACED_KEY
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import Store

R = "\ufffd"


def column_values(store: Store, sql: str, **params: Any) -> list[Any]:
    with store.engine.connect() as conn:
        return list(conn.execute(text(sql), params).one())


def test_titles_and_goals_with_nul_are_stored_with_the_replacement_character_err_3(
    controller: SessionController, store: Store
) -> None:
    """ERR-3: a line's title (new and renamed) and a task's goal and title keep U+FFFD, not NUL."""
    line = controller.lines.create_line("plan\x00A")
    assert line.title == f"plan{R}A"
    renamed = controller.lines.rename_line(line.thread_id, "plan\x00B")
    assert renamed.title == f"plan{R}B"
    started = controller.tasks.start_task(line.thread_id, "find\x00the bug", title="task\x00title")
    assert started.task.title == f"task{R}title"

    assert column_values(store, "SELECT title FROM threads WHERE thread_id = :k", k=line.thread_id) == [f"plan{R}B"]
    assert column_values(store, "SELECT title FROM threads WHERE thread_id = :k", k=started.task.thread_id) == [
        f"task{R}title"
    ]
    (goal,) = column_values(store, "SELECT content FROM messages WHERE id = :i", i=started.goal_message_id)
    assert f"find{R}the bug" in goal and "\x00" not in goal
    assert controller.get_thread(line.thread_id).title == f"plan{R}B"


def test_provider_fields_with_nul_are_stored_with_the_replacement_character_err_3(store: Store) -> None:
    """ERR-3: every text field of a provider, JSON lists included, keeps U+FFFD on both databases.

    The CLI and the dialogs refuse such a record at the door (``ProviderRecord.checked``, issue 19); the
    store must still keep the same text whatever reaches it (a row from an older version), so these
    records are built without the record's own checks.
    """
    with pytest.raises(InvalidProviderError):
        ProviderRecord.checked(name="lo\x00cal", base_url="http://127.0.0.1:1/v1", model="m")
    openai = ProviderRecord.model_construct(
        name="lo\x00cal",
        base_url="http://127.0.0.1:1/v1\x00",
        model="m\x00odel",
        tags=("ta\x00g",),
        api_key_env="KEY\x00ENV",
    )
    acp = ProviderRecord.model_construct(
        name="agent",
        kind=ProviderKind.ACP,
        acp_command=("agent\x00bin", "--acp"),
        acp_env_refs=(("TOKEN\x00", "env:OTHER\x00"),),
        acp_state_dirs=("~/.agent\x00state",),
    )
    stored = store.providers.add(openai)
    store.providers.add(acp)

    assert stored.name == f"lo{R}cal"
    assert (stored.base_url, stored.model, stored.tags, stored.api_key_env) == (
        f"http://127.0.0.1:1/v1{R}",
        f"m{R}odel",
        (f"ta{R}g",),
        f"KEY{R}ENV",
    )
    # Looking a provider up by the name it was given finds it: the key is replaced the same way.
    assert store.providers.get("lo\x00cal") == stored
    agent = store.providers.get("agent")
    assert agent is not None
    assert agent.acp_command == (f"agent{R}bin", "--acp")
    assert agent.acp_env_refs == ((f"TOKEN{R}", f"env:OTHER{R}"),)
    assert agent.acp_state_dirs == (f"~/.agent{R}state",)

    raw = column_values(
        store, "SELECT tags, acp_command, acp_env_refs, acp_state_dirs FROM providers WHERE name = 'agent'"
    ) + column_values(store, "SELECT name, tags FROM providers WHERE name <> 'agent'")
    assert not any("\x00" in value or "\\u0000" in value for value in raw if value is not None)


def test_messages_app_state_and_line_settings_with_nul_keep_the_replacement_character_err_3(
    controller: SessionController, store: Store
) -> None:
    """ERR-3: message text, its frozen model text, its JSON payload (keys too), app state and env names."""
    line = controller.lines.create_line("msgs")
    message = store.messages.append(
        line.thread_id,
        role=MessageRole.TOOL,
        source=MessageSource.TOOL,
        content="out\x00put",
        model_visible_text="seen\x00",
        payload={"tool_call_id": "c\x001", "arguments": {"command": "printf 'a\\0b'", "k\x00": ["d\x00iff"]}},
    )
    # What the caller gets back is what both databases hold, with the flag the card reads.
    assert message.content == f"out{R}put"
    assert message.payload == {
        "tool_call_id": f"c{R}1",
        "arguments": {"command": "printf 'a\\0b'", f"k{R}": [f"d{R}iff"]},
        NUL_REPLACED_KEY: True,
    }
    assert store.messages.get_many([message.id], viewer=DESKTOP)[message.id] == message
    content, visible = column_values(
        store, "SELECT content, model_visible_text FROM messages WHERE id = :i", i=message.id
    )
    assert (content, visible) == (f"out{R}put", f"seen{R}")

    # A payload holding a backslash followed by "u0000" is text, not a NUL: it is kept as it is.
    literal = store.messages.append(
        line.thread_id, role=MessageRole.TOOL, source=MessageSource.TOOL, content="ok", payload={"note": "\\u0000"}
    )
    assert literal.payload == {"note": "\\u0000"}

    store.app_state.set("ui.note", "geo\x00metry")
    assert store.app_state.get("ui.note") == f"geo{R}metry"
    assert column_values(store, "SELECT value FROM app_state WHERE name = 'ui.note'") == [f"geo{R}metry"]

    store.threads.set_sandbox(line.thread_id, command_env_names=("STAGE\x00",))
    (names,) = column_values(store, "SELECT command_env_names FROM threads WHERE thread_id = :k", k=line.thread_id)
    assert "\\u0000" not in names
    assert store.threads.get(line.thread_id).context_state.command_env_names == (f"STAGE{R}",)  # type: ignore[union-attr]
