"""SBX-4, issue 29: a line's command with the network ``on`` cannot reach the host's abstract sockets.

Through the whole path: a scripted model asks the native agent to run a command on a ``full`` line
whose network is ``on``; the command tries a host process's abstract Unix socket (as an X11 display's
``@/tmp/.X11-unix/X0``) and, in the same command, a loopback TCP port of the host.
"""

from __future__ import annotations

import asyncio
import json
import socket
import uuid

import pytest

from tests.controllers.conftest import scripted_controller
from tests.support.sandboxing import needs_bwrap
from xworkmate.agents import scope_exec
from xworkmate.domain.messages import MessageRole
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


@needs_bwrap
@pytest.mark.skipif(scope_exec.landlock_abi() < scope_exec.SCOPED_ABI, reason="Landlock ABI < 6 (Linux 6.12+)")
def test_a_network_on_lines_command_is_refused_the_hosts_abstract_socket_but_reaches_loopback(
    sqlite_store: Store, settings: Settings, openai_server: OpenAIServer
) -> None:
    controller = scripted_controller(sqlite_store, settings, openai_server)
    name = f"xworkmate-line-{uuid.uuid4().hex}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + name)
    abstract.listen(1)
    try:
        line = controller.lines.create_line("net")
        controller.line_settings.set_permission(line.thread_id, "full")
        controller.line_settings.set_network(line.thread_id, "on")
        port = openai_server.base_url.split(":")[-1].split("/")[0]
        probe = (
            "python3 -c 'import socket\n"
            "c = socket.socket(socket.AF_UNIX)\n"
            "try:\n"
            f'    c.connect("\\0{name}"); print("ABSTRACT-CONNECTED")\n'
            "except OSError as e:\n"
            '    print("ABSTRACT-REFUSED", e.errno)\n'
            f'socket.create_connection(("127.0.0.1", {port}), 5); print("TCP-CONNECTED")\''
        )
        call = ScriptedToolCall(
            id="probe", name="run_command", arguments=json.dumps({"command": probe, "timeout_s": 20})
        )
        openai_server.script(ToolCallReply([call]), TextReply(["ok"]))
        asyncio.run(controller.turns.run_turn(line.thread_id, "probe", headless=True))
        out = next(
            m.content
            for m in controller.lines.messages(line.thread_id)
            if m.role is MessageRole.TOOL and (m.payload or {}).get("tool_call_id") == "probe"
        )
        assert "ABSTRACT-REFUSED 1" in out and "ABSTRACT-CONNECTED" not in out, out
        assert "TCP-CONNECTED" in out, out
    finally:
        abstract.close()
