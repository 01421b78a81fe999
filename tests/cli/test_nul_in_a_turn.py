"""ERR-3: a turn whose model text and tool output hold NUL bytes completes, on SQLite and on PostgreSQL.

A real OpenAI-compatible server streams text with a NUL in it and asks for ``printf 'a\\0b'``; the
command runs in the bubblewrap sandbox on a ``full`` line, and ``xworkmate run`` runs as a real
process. Before the fix PostgreSQL refused the row (``psycopg.DataError``): the turn died without a
notice, the tool call had no stored result and every later turn on the line failed the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import run_cli
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.domain.messages import MessageRole, MessageState
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.stored_text import NUL_REPLACED_NOTE
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply

R = "\ufffd"


@needs_bwrap
def test_a_turn_with_nul_in_model_text_and_tool_output_completes_and_the_next_turn_works_err_3(
    controller: SessionController, store: Store, database_url: str, home: Path, openai_server: OpenAIServer
) -> None:
    """ERR-3: NUL becomes U+FFFD in what is stored, the call keeps its result, ``messages`` says so."""
    controller.providers.add_provider(
        ProviderRecord(name="local", base_url=openai_server.base_url, model="test-model", is_default=True)
    )
    key = controller.lines.create_line("nul").thread_id
    controller.line_settings.set_permission(key, "full")
    env = {"XWORKMATE_DATABASE_URL": database_url}
    printf = ScriptedToolCall(
        id="call-nul", name="run_command", arguments=json.dumps({"command": "printf 'a\\0b'", "timeout_s": 20})
    )
    openai_server.script(ToolCallReply([printf], text="look\x00ing"), TextReply(["do", "ne\x00 here"]))

    first = run_cli(home, "run", key, "print a NUL", "--json", env=env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["status"] == "finished"

    stored = store.messages.list_for_thread(key, viewer=DESKTOP)
    assert not any("\x00" in m.content for m in stored)
    assert [m.state for m in stored] == [MessageState.COMPLETE] * len(stored)  # no failure notice
    calls = [
        c["id"] for m in stored if m.role is MessageRole.ASSISTANT for c in (m.payload or {}).get("tool_calls", [])
    ]
    results = {(m.payload or {}).get("tool_call_id"): m for m in stored if m.role is MessageRole.TOOL}
    assert calls == ["call-nul"] and set(results) == {"call-nul"}  # the call has its result
    assert results["call-nul"].content.endswith(f"a{R}b")
    assert (results["call-nul"].payload or {})["nul_replaced"] is True
    assert [m.content for m in stored if m.role is MessageRole.ASSISTANT] == [f"look{R}ing", f"done{R} here"]

    shown = run_cli(home, "messages", key, env=env)
    assert shown.returncode == 0, shown.stderr
    assert f"a{R}b" in shown.stdout and f"done{R} here" in shown.stdout
    assert shown.stdout.count(f"({NUL_REPLACED_NOTE})") == 3  # the tool result and both replies
    flagged = [m["nul_replaced"] for m in json.loads(run_cli(home, "messages", key, "--json", env=env).stdout)]
    assert flagged == [False, True, True, True]

    # The line is not stuck: the next turn runs, and the model is sent the stored (replaced) text.
    openai_server.script(TextReply(["second turn"]))
    second = run_cli(home, "run", key, "again", "--json", env=env)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["text"] == "second turn"
    sent = json.dumps(openai_server.chat_requests[-1].body["messages"], ensure_ascii=False)
    assert f"a{R}b" in sent and f"look{R}ing" in sent and "\\u0000" not in sent
