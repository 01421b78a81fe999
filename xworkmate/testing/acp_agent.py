"""A real ACP agent process, built on the SDK's agent side, that follows a JSON script.

Run it as ``python -m xworkmate.testing.acp_agent`` with the script in the
``XWM_ACP_SCRIPT`` environment variable (JSON text), or with the path of a
JSON file as the first argument. It imports nothing from XWorkmate, so the
runner under test talks to it exactly as to ``qwen --acp`` or ``codex-acp``.

Script keys (all optional)::

    {
      "report": "/tmp/x/report.jsonl",   # one JSON object a line: what the agent saw and did
      "pid_file": "/tmp/x/pid",          # the agent writes its pid here first thing
      "state": "/tmp/x/sessions.json",   # sessions survive the process: session/load reads them
      "load_session": true,              # advertise loadSession
      "load_fails": false,               # answer session/load with an error
      "session_id": "s-1",               # id for session/new (default: random)
      "new_session_error": null,         # "auth": answer session/new with "authentication required"
      "auth_methods": [],                # advertised in initialize: {"id", "name", "description",
                                         #   "type": "terminal"|"env_var" (optional), "_meta": {...}}
      "require_auth": false,             # session/new and session/load answer "authentication required"
                                         #   until authenticate was called with an accepted id
      "auth_accepts": null,              # ids authenticate accepts (default: every advertised id);
                                         #   each call is reported as {"event": "authenticate", "method_id", "ok"}
      "login": {"file": "/tmp/x/login", "token": "t0k", "outside": null},   # the agent's own login program
                                         #   (a terminal method's args include "--login"): on a TTY it asks
                                         #   "token:", and the right token writes ``file``, which counts as
                                         #   signed in; it also tries to write ``outside`` (a sandbox probe);
                                         #   reported as {"event": "login", "tty", "ok", "env", "wrote_outside"}
      "protocol_version": 1,
      "on_initialize": null,             # "exit" | "hang" | "garbage"
      "exit_code": 3, "stderr": "...",   # for "exit": what to print on stderr and exit with
      "ignore_sigterm": false,           # only SIGKILL stops the process
      "stop_reason": "end_turn",
      "modes": {"current": "ask", "available": [{"id", "name", "description"}]},   # session modes
      "models": {"current": "m1", "available": [{"modelId", "name", "description"}]},  # unstable models
      "config_options": [ACP configOptions: {"id", "name", "type": "select", "currentValue",
                         "options": [{"value", "name"}]} or {"type": "boolean", ...}],
      "commands": [{"name", "description", "hint"}],  # available_commands_update after session/new|load
      "refuse_set": ["mode"|"model"|"config"],        # answer those set requests with an error
      "resume_session": false,           # advertise sessionCapabilities.resume (session/resume)
      "list_sessions": false,            # advertise sessionCapabilities.list (session/list)
      "delete_sessions": false,          # advertise sessionCapabilities.delete (session/delete)
      "close_sessions": false,           # advertise sessionCapabilities.close (session/close)
      "close_mode": "ok",                # session/close: "ok", "error" (an error answer) or "hang" (no answer)
      "mcp_http": false,                 # advertise mcpCapabilities.http
      "mcp_sse": false,                  # advertise mcpCapabilities.sse
      "prompt_capabilities": {"image": true, "embeddedContext": true},  # promptCapabilities (ATT-1)
      "embedded_context": false,         # shorthand: advertise promptCapabilities.embeddedContext (SKL-2)
      "prompt_usage": {"inputTokens", "outputTokens", "totalTokens"},  # PromptResponse.usage
      "turn": [ ...steps... ]
    }

Every session/new|load|resume reports the MCP servers it was given (``mcp``: name, command or url,
env as NAME=value); set_mode / set_model / set_config_option are reported as ``set``.

Steps of ``turn`` (run in order by ``session/prompt``)::

    {"say": "text"}                      agent_message_chunk
    {"burst": ["text" | {raw update}, ...]}   one session/update each (a text: an agent_message_chunk), all
                                         written to stdout at once (one write: a busy agent's lines, which the
                                         client reads together)
    {"think": "text"}                    agent_thought_chunk
    {"plan": [["content", "status"], ...]}
    {"tool": {"id", "title", "kind", "status", "raw_input", "locations": [path...],
              "diff": {"path", "old", "new"}, "text": "..."}}       tool_call
    {"tool_update": {same keys}}         tool_call_update
    {"permission": {"id", "title", "kind", "locations": [...], "options": "default"|"once"}}
    {"write": {"path", "content"}}       fs/write_text_file through the client
    {"read": {"path", "line", "limit"}}  fs/read_text_file through the client
    {"shell": "command"}                 run a shell command itself (its own tool; the client is not asked)
    {"terminal": {"command", "args": [...], "cwd", "env": {NAME: value}, "output_byte_limit",
                  "kill_after": seconds, "tool_id": "t1", "release": true}}
                                         terminal/create through the client, then terminal/wait_for_exit
                                         (or, with kill_after, terminal/kill after that many seconds),
                                         terminal/output and terminal/release (unless release is false).
                                         With tool_id, a tool_call (kind execute) shows the terminal
                                         and is completed after it. Reported as {"event": "terminal",
                                         "ok", "terminal_id", "output", "truncated", "exit_code",
                                         "signal", "error", "after_release"}; a refused create has ok false
                                         and the error message.
    {"garbage": "text"}                  raw text on stdout (not JSON-RPC)
    {"stderr": "text"}
    {"sleep": seconds}
    {"exit": code}                       leave at once, mid-turn
    {"hang": true, "ignore_cancel": false}   wait for session/cancel (or forever)
    {"echo_prompt": true}                say the prompt text back
    {"echo_cwd": true}                   say the process's working directory
    {"echo_env": "NAME"}                 say NAME=value (or NAME unset) from the environment
    {"raw_update": {...}}                a session/update with this raw update object (unknown kinds too)
    {"notify": {"method", "params"}}     a notification of the agent's own (``qwen/notify/...``)
    {"mode_update": "id"}                current_mode_update (the agent switched by itself)
    {"config_update": [configOptions]}   config_option_update
    {"usage": {"used", "size", "cost": {"amount", "currency"}}}   usage_update
    {"elicit": {"message", "schema": {requestedSchema}}}   elicitation/create in form mode, for the session
    {"elicit_url": {"message", "url", "id"}}   elicitation/create in url mode, then elicitation/complete
                                         Both reported as {"event": "elicitation", "action", "content"} (an
                                         error as "error") and said as "[elicitation ACTION CONTENT-JSON]".
    {"session_info": {"title", "updatedAt"}}   session_info_update
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import uuid
from pathlib import Path
from typing import Any

from acp import (
    Agent,
    AuthenticateResponse,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    run_agent,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    ClientCapabilities,
    CloseSessionResponse,
    EnvVariable,
    ForkSessionResponse,
    Implementation,
    ListSessionsResponse,
    PermissionOption,
    PlanEntry,
    ResumeSessionResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TerminalToolCallContent,
    ToolCallLocation,
    ToolCallUpdate,
)

SCRIPT_ENV = "XWM_ACP_SCRIPT"


# ``models`` is unstable in ACP and not in this SDK's schema; real agents (Qwen Code…) send it.
class _NewSession(NewSessionResponse):
    models: dict[str, Any] | None = None


class _LoadSession(LoadSessionResponse):
    models: dict[str, Any] | None = None


class _ResumeSession(ResumeSessionResponse):
    models: dict[str, Any] | None = None


def load_script(argv: list[str]) -> dict[str, Any]:
    if len(argv) > 1:
        return dict(json.loads(Path(argv[1]).read_text(encoding="utf-8")))
    raw = os.environ.get(SCRIPT_ENV)
    return dict(json.loads(raw)) if raw else {}


class ScriptedAgent(Agent):
    def __init__(self, script: dict[str, Any]) -> None:
        self.script = script
        self.conn: Client | None = None
        self.cancelled: dict[str, asyncio.Event] = {}
        self.client_capabilities: ClientCapabilities | None = None
        self.signed_in: str | None = None

    # -- bookkeeping ----------------------------------------------------------------

    def on_connect(self, conn: Client) -> None:
        self.conn = conn

    def report(self, event: str, **data: Any) -> None:
        path = self.script.get("report")
        if not path:
            return
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"event": event, **data}) + "\n")
            fh.flush()

    def _sessions(self) -> dict[str, list[str]]:
        path = self.script.get("state")
        if not path or not Path(path).exists():
            return {}
        return dict(json.loads(Path(path).read_text(encoding="utf-8")))

    def _save_session(self, session_id: str, said: list[str]) -> None:
        path = self.script.get("state")
        if not path:
            return
        sessions = self._sessions()
        sessions.setdefault(session_id, []).extend(said)
        Path(path).write_text(json.dumps(sessions), encoding="utf-8")

    def _exit(self, code: int, stderr: str | None) -> None:
        if stderr:
            sys.stderr.write(stderr + "\n")
            sys.stderr.flush()
        self.report("exit", code=code)
        os._exit(code)

    # -- ACP methods ------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.client_capabilities = client_capabilities
        fs = client_capabilities.fs if client_capabilities else None
        self.report(
            "initialize",
            protocol_version=protocol_version,
            fs_read=bool(fs and fs.read_text_file),
            fs_write=bool(fs and fs.write_text_file),
            terminal=bool(client_capabilities and client_capabilities.terminal),
            auth_terminal=bool(client_capabilities and client_capabilities.auth and client_capabilities.auth.terminal),
            client=client_info.name if client_info else None,
        )
        mode = self.script.get("on_initialize")
        if mode == "exit":
            self._exit(int(self.script.get("exit_code", 3)), self.script.get("stderr"))
        if mode == "hang":
            await asyncio.Event().wait()
        if mode == "garbage":
            os.write(1, b"Welcome to the scripted agent! (this line is not JSON-RPC)\n")
        info = self.script.get("agent_info") or {"name": "scripted-agent", "version": "1.0"}
        return InitializeResponse.model_validate(
            {
                "protocolVersion": int(self.script.get("protocol_version", protocol_version)),
                "agentCapabilities": {
                    **AgentCapabilities(load_session=bool(self.script.get("load_session", False))).model_dump(
                        by_alias=True, exclude_none=True
                    ),
                    "sessionCapabilities": {
                        **({"resume": {}} if self.script.get("resume_session") else {}),
                        **({"list": {}} if self.script.get("list_sessions") else {}),
                        **({"delete": {}} if self.script.get("delete_sessions") else {}),
                        **({"close": {}} if self.script.get("close_sessions") else {}),
                    },
                    "mcpCapabilities": {
                        "http": bool(self.script.get("mcp_http")),
                        "sse": bool(self.script.get("mcp_sse")),
                    },
                    "promptCapabilities": {
                        **({"embeddedContext": True} if self.script.get("embedded_context") else {}),
                        **dict(self.script.get("prompt_capabilities") or {}),
                    },
                },
                "agentInfo": {"name": info["name"], "version": info["version"]},
                # Raw, as an agent sends them (qwen marks its terminal method in _meta only).
                "authMethods": list(self.script.get("auth_methods") or []),
            }
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        accepts = self.script.get("auth_accepts")
        if accepts is None:
            accepts = [m["id"] for m in self.script.get("auth_methods") or []]
        ok = method_id in accepts
        self.report("authenticate", method_id=method_id, ok=ok)
        if not ok:
            raise RequestError.invalid_params({"details": f"unknown sign-in method {method_id}"})
        self.signed_in = method_id
        return AuthenticateResponse()

    def _check_signed_in(self) -> None:
        login = self.script.get("login") or {}
        if login.get("file") and Path(login["file"]).exists():
            return  # signed in by its login program (a terminal method)
        if self.script.get("require_auth") and self.signed_in is None:
            raise RequestError.auth_required({"details": "sign in first"})

    async def new_session(
        self, cwd: str, additional_directories: list[str] | None = None, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        if self.script.get("new_session_error") == "auth":
            raise RequestError.auth_required({"details": "run `scripted login` first"})
        self._check_signed_in()
        session_id = str(self.script.get("session_id") or f"s-{uuid.uuid4().hex[:12]}")
        self.report("new_session", cwd=cwd, session_id=session_id, process_cwd=os.getcwd(), **_mcp_report(mcp_servers))
        self._save_session(session_id, [])
        await self._send_commands(session_id)
        return _NewSession.model_validate({"sessionId": session_id, **self._offers()})

    # -- modes, models, config options, commands (issue 15) -------------------------------

    def _offers(self) -> dict[str, Any]:
        offers: dict[str, Any] = {}
        modes = self.script.get("modes")
        if modes:
            offers["modes"] = {
                "currentModeId": self.state_of("mode", modes["current"]),
                "availableModes": modes["available"],
            }
        if self.script.get("config_options"):
            offers["configOptions"] = self._config_options()
        models = self.script.get("models")
        if models:
            offers["models"] = {
                "currentModelId": self.state_of("model", models["current"]),
                "availableModels": models["available"],
            }
        return offers

    def state_of(self, what: str, default: Any) -> Any:
        return getattr(self, f"current_{what}", None) or default

    def _config_options(self) -> list[dict[str, Any]]:
        options = [dict(o) for o in self.script.get("config_options") or []]
        chosen: dict[str, Any] = getattr(self, "current_config", {})
        for option in options:
            if option["id"] in chosen:
                option["currentValue"] = chosen[option["id"]]
        return options

    async def _send_commands(self, session_id: str) -> None:
        commands = self.script.get("commands")
        if not commands or self.conn is None:
            return
        available = [
            {
                "name": c["name"],
                "description": c.get("description", ""),
                **({"input": {"hint": c["hint"]}} if c.get("hint") else {}),
            }
            for c in commands
        ]
        await self.conn._conn.send_notification(  # type: ignore[attr-defined]
            "session/update",
            {
                "sessionId": session_id,
                "update": {"sessionUpdate": "available_commands_update", "availableCommands": available},
            },
        )

    def _refuse(self, what: str, value: Any) -> None:
        if what in (self.script.get("refuse_set") or []):
            self.report("set", what=what, value=value, ok=False)
            raise RequestError.invalid_params({"details": f"cannot switch {what} now"})

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse | None:
        self._refuse("mode", mode_id)
        ids = [m["id"] for m in (self.script.get("modes") or {}).get("available", [])]
        if mode_id not in ids:
            self.report("set", what="mode", value=mode_id, ok=False)
            raise RequestError.invalid_params({"details": f"unknown mode {mode_id}"})
        self.current_mode = mode_id
        self.report("set", what="mode", value=mode_id, ok=True)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse | None:
        self._refuse("config", value)
        chosen = getattr(self, "current_config", {})
        chosen[config_id] = value
        self.current_config = chosen
        self.report("set", what="config", config_id=config_id, value=value, ok=True)
        return SetSessionConfigOptionResponse.model_validate({"configOptions": self._config_options()})

    async def set_model(self, params: dict[str, Any]) -> dict[str, Any]:
        model_id = params.get("modelId")
        self._refuse("model", model_id)
        self.current_model = model_id
        self.report("set", what="model", value=model_id, ok=True)
        return {}

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: Any = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        self.report("resume_session", cwd=cwd, session_id=session_id, **_mcp_report(mcp_servers))
        self._check_signed_in()
        if session_id not in self._sessions():
            raise RequestError.resource_not_found(f"session:{session_id}")
        await self._send_commands(session_id)
        return _ResumeSession.model_validate(self._offers())

    async def delete_session(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id = str(params.get("sessionId"))
        self.report("delete_session", session_id=session_id)
        sessions = self._sessions()
        if session_id not in sessions:
            raise RequestError.resource_not_found(f"session:{session_id}")
        del sessions[session_id]
        Path(str(self.script["state"])).write_text(json.dumps(sessions), encoding="utf-8")
        return {}

    # What this agent does not offer is refused as a real agent refuses it ("method not found"), not
    # answered with the protocol class's empty body.
    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: Any = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        raise RequestError.method_not_found("session/fork")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        self.report("ext_notification", method=method)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        self.report("close_session", session_id=session_id)
        mode = self.script.get("close_mode", "ok")
        if mode == "hang":
            await asyncio.Event().wait()
        if mode == "error":
            raise RequestError.internal_error({"details": "the scripted agent fails session/close"})
        return CloseSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        self.report("list_sessions", cwd=cwd)
        sessions = [
            {"sessionId": sid, "cwd": cwd or "/", "title": (said[0][:40] if said else None)}
            for sid, said in self._sessions().items()
        ]
        return ListSessionsResponse.model_validate({"sessions": sessions})

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: Any = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse | None:
        self.report("load_session", cwd=cwd, session_id=session_id, **_mcp_report(mcp_servers))
        self._check_signed_in()
        sessions = self._sessions()
        if self.script.get("load_fails") or session_id not in sessions:
            raise RequestError.resource_not_found(f"session:{session_id}")
        assert self.conn is not None
        # Replay the conversation, as the protocol asks an agent to do on load.
        for said in sessions[session_id]:
            await self.conn.session_update(session_id=session_id, update=update_user_message_text("(earlier)"))
            await self.conn.session_update(session_id=session_id, update=update_agent_message_text(said))
        await self._send_commands(session_id)
        return _LoadSession.model_validate(self._offers())

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.report("cancel", session_id=session_id)
        self.cancelled.setdefault(session_id, asyncio.Event()).set()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        # Every block as it came (type, and an image's mime type and data, a resource's uri and text).
        blocks = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in prompt]
        self.report("prompt", session_id=session_id, text=text, blocks=blocks)
        cancelled = self.cancelled.setdefault(session_id, asyncio.Event())
        said: list[str] = []
        try:
            for step in self.script.get("turn", []):
                if cancelled.is_set():
                    return PromptResponse(stop_reason="cancelled")
                outcome = await self._step(session_id, step, text, said, cancelled)
                if outcome is not None:
                    return PromptResponse(stop_reason=outcome)
        finally:
            if said:
                self._save_session(session_id, ["".join(said)])
        usage = self.script.get("prompt_usage")
        return PromptResponse.model_validate(
            {"stopReason": self.script.get("stop_reason", "end_turn"), **({"usage": usage} if usage else {})}
        )

    # -- steps ------------------------------------------------------------------------

    async def _elicit(self, session_id: str, step: dict[str, Any], said: list[str]) -> None:
        """``elicitation/create`` as a raw request (the JSON an agent writes), form or url mode."""
        assert self.conn is not None
        rpc = self.conn._conn  # type: ignore[attr-defined]
        if "elicit" in step:
            spec = step["elicit"]
            params = {"sessionId": session_id, "mode": "form", "message": spec["message"]}
            params["requestedSchema"] = spec["schema"]
        else:
            spec = step["elicit_url"]
            params = {
                "sessionId": session_id,
                "mode": "url",
                "message": spec["message"],
                "url": spec["url"],
                "elicitationId": spec.get("id", "e-1"),
            }
        try:
            answer = await rpc.send_request("elicitation/create", params)
        except RequestError as exc:
            self.report("elicitation", error=str(exc), code=exc.code)
            await self._say(session_id, f"[elicitation refused: {exc}]", said)
            return
        action, content = answer.get("action"), answer.get("content")
        self.report("elicitation", action=action, content=content)
        if "elicit_url" in step and action == "accept":
            await rpc.send_notification("elicitation/complete", {"elicitationId": params["elicitationId"]})
        await self._say(session_id, f"[elicitation {action} {json.dumps(content, sort_keys=True)}]", said)

    async def _raw(self, session_id: str, update: dict[str, Any]) -> None:
        assert self.conn is not None
        await self.conn._conn.send_notification(  # type: ignore[attr-defined]
            "session/update", {"sessionId": session_id, "update": update}
        )

    async def _say(self, session_id: str, text: str, said: list[str]) -> None:
        assert self.conn is not None
        said.append(text)
        await self.conn.session_update(session_id=session_id, update=update_agent_message_text(text))

    async def _burst(self, session_id: str, items: list[str | dict[str, Any]], said: list[str]) -> None:
        """Many updates in one write, through the connection's own writer (so nothing sent before is overtaken)."""
        assert self.conn is not None
        lines = []
        for item in items:
            if isinstance(item, str):
                said.append(item)
                chunk = update_agent_message_text(item)
                update = chunk.model_dump(mode="json", by_alias=True, exclude_none=True)
            else:
                update = item
            params = {"sessionId": session_id, "update": update}
            message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
            lines.append(json.dumps(message, separators=(",", ":")) + "\n")
        writer = self.conn._conn._transport._sender._writer  # type: ignore[attr-defined]
        writer.write("".join(lines).encode("utf-8"))
        await writer.drain()

    async def _step(
        self, session_id: str, step: dict[str, Any], prompt: str, said: list[str], cancelled: asyncio.Event
    ) -> str | None:
        conn = self.conn
        assert conn is not None
        if "say" in step:
            await self._say(session_id, step["say"], said)
        elif "burst" in step:
            await self._burst(session_id, list(step["burst"]), said)
        elif step.get("echo_prompt"):
            await self._say(session_id, prompt, said)
        elif step.get("echo_cwd"):
            await self._say(session_id, os.getcwd(), said)
        elif "echo_env" in step:
            name = step["echo_env"]
            value = os.environ.get(name)
            await self._say(session_id, f"{name}={value}" if value is not None else f"{name} unset", said)
        elif "raw_update" in step:
            # Below the typed API on purpose: an update kind this SDK version does not know.
            await conn._conn.send_notification(  # type: ignore[attr-defined]
                "session/update", {"sessionId": session_id, "update": step["raw_update"]}
            )
        elif "notify" in step:
            await conn._conn.send_notification(  # type: ignore[attr-defined]
                step["notify"]["method"], step["notify"].get("params", {})
            )
        elif "elicit" in step or "elicit_url" in step:
            await self._elicit(session_id, step, said)
        elif "session_info" in step:
            await self._raw(session_id, {"sessionUpdate": "session_info_update", **step["session_info"]})
        elif "mode_update" in step:
            self.current_mode = step["mode_update"]
            await self._raw(session_id, {"sessionUpdate": "current_mode_update", "currentModeId": step["mode_update"]})
        elif "config_update" in step:
            self.script["config_options"] = step["config_update"]
            await self._raw(
                session_id, {"sessionUpdate": "config_option_update", "configOptions": step["config_update"]}
            )
        elif "usage" in step:
            await self._raw(session_id, {"sessionUpdate": "usage_update", **step["usage"]})
        elif "think" in step:
            await conn.session_update(session_id=session_id, update=update_agent_thought_text(step["think"]))
        elif "plan" in step:
            entries = [PlanEntry(content=c, status=s, priority="medium") for c, s in step["plan"]]
            await conn.session_update(session_id=session_id, update=update_plan(entries))
        elif "tool" in step:
            spec = step["tool"]
            await conn.session_update(
                session_id=session_id,
                update=start_tool_call(
                    spec["id"],
                    spec.get("title", spec["id"]),
                    kind=spec.get("kind"),
                    status=spec.get("status"),
                    content=_tool_content(spec),
                    locations=_locations(spec),
                    raw_input=spec.get("raw_input"),
                ),
            )
        elif "tool_update" in step:
            spec = step["tool_update"]
            await conn.session_update(
                session_id=session_id,
                update=update_tool_call(
                    spec["id"],
                    title=spec.get("title"),
                    kind=spec.get("kind"),
                    status=spec.get("status"),
                    content=_tool_content(spec),
                    locations=_locations(spec),
                    raw_input=spec.get("raw_input"),
                    raw_output=spec.get("raw_output"),
                ),
            )
        elif "permission" in step:
            spec = step["permission"]
            options = [
                PermissionOption(option_id="allow-once", name="Allow", kind="allow_once"),
                PermissionOption(option_id="allow-always", name="Always allow", kind="allow_always"),
                PermissionOption(option_id="reject-once", name="Reject", kind="reject_once"),
            ]
            if spec.get("options") == "once":
                options = [options[0], options[2]]
            response = await conn.request_permission(
                session_id=session_id,
                tool_call=ToolCallUpdate(
                    tool_call_id=spec["id"],
                    title=spec.get("title"),
                    kind=spec.get("kind"),
                    status="pending",
                    locations=_locations(spec),
                    raw_input=spec.get("raw_input"),
                    content=_tool_content(spec),
                ),
                options=options,
            )
            outcome = response.outcome
            chosen = getattr(outcome, "option_id", None) or outcome.outcome
            self.report("permission", id=spec["id"], outcome=chosen)
            await self._say(session_id, f"[permission {spec['id']}: {chosen}]", said)
        elif "write" in step:
            spec = step["write"]
            try:
                await conn.write_text_file(session_id=session_id, path=spec["path"], content=spec["content"])
            except RequestError as exc:
                self.report("write", path=spec["path"], ok=False, error=str(exc), data=exc.data)
                await self._say(session_id, f"[write {spec['path']} refused]", said)
            else:
                self.report("write", path=spec["path"], ok=True)
                await self._say(session_id, f"[wrote {spec['path']}]", said)
        elif "read" in step:
            spec = step["read"]
            try:
                got = await conn.read_text_file(
                    session_id=session_id, path=spec["path"], line=spec.get("line"), limit=spec.get("limit")
                )
            except RequestError as exc:
                self.report("read", path=spec["path"], ok=False, error=str(exc))
            else:
                self.report("read", path=spec["path"], ok=True, content=got.content)
        elif "shell" in step:
            # The agent's own shell tool, as OpenCode's bash: it does not ask the client (SBX-1 must contain it).
            done = await asyncio.create_subprocess_shell(
                step["shell"],
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            output, _ = await done.communicate()
            text = output.decode("utf-8", "replace")
            self.report("shell", command=step["shell"], exit_code=done.returncode, output=text)
            await self._say(session_id, f"[shell exit {done.returncode}] {text}", said)
        elif "terminal" in step:
            await self._terminal(session_id, step["terminal"], said)
        elif "garbage" in step:
            os.write(1, (step["garbage"] + "\n").encode())
        elif "stderr" in step:
            sys.stderr.write(step["stderr"] + "\n")
            sys.stderr.flush()
        elif "sleep" in step:
            await asyncio.sleep(float(step["sleep"]))
        elif "exit" in step:
            self._exit(int(step["exit"]), step.get("message"))
        elif step.get("hang"):
            if step.get("ignore_cancel"):
                await asyncio.Event().wait()
            await cancelled.wait()
            self.report("stopped_after_cancel", session_id=session_id)
            return "cancelled"
        else:
            raise ValueError(f"unknown step {step!r}")
        return None

    async def _terminal(self, session_id: str, spec: dict[str, Any], said: list[str]) -> None:
        conn = self.conn
        assert conn is not None
        env = [EnvVariable(name=k, value=v) for k, v in (spec.get("env") or {}).items()]
        try:
            created = await conn.create_terminal(
                session_id=session_id,
                command=spec["command"],
                args=spec.get("args"),
                cwd=spec.get("cwd"),
                env=env or None,
                output_byte_limit=spec.get("output_byte_limit"),
            )
        except RequestError as exc:
            self.report("terminal", command=spec["command"], ok=False, error=str(exc), data=exc.data)
            await self._say(session_id, f"[terminal refused: {exc}]", said)
            return
        terminal_id = created.terminal_id
        tool_id = spec.get("tool_id")
        if tool_id:
            await conn.session_update(
                session_id=session_id,
                update=start_tool_call(
                    tool_id,
                    spec["command"],
                    kind="execute",
                    status="in_progress",
                    content=[TerminalToolCallContent(type="terminal", terminal_id=terminal_id)],
                ),
            )
        exit_code = signal_name = None
        if spec.get("kill_after") is not None:
            await asyncio.sleep(float(spec["kill_after"]))
            await conn.kill_terminal(session_id=session_id, terminal_id=terminal_id)
        waited = await conn.wait_for_terminal_exit(session_id=session_id, terminal_id=terminal_id)
        exit_code, signal_name = waited.exit_code, waited.signal
        output = await conn.terminal_output(session_id=session_id, terminal_id=terminal_id)
        after_release = None
        if spec.get("release", True):
            await conn.release_terminal(session_id=session_id, terminal_id=terminal_id)
            try:
                await conn.terminal_output(session_id=session_id, terminal_id=terminal_id)
                after_release = "still there"
            except RequestError as exc:
                after_release = str(exc)
        if tool_id:
            await conn.session_update(session_id=session_id, update=update_tool_call(tool_id, status="completed"))
        self.report(
            "terminal",
            command=spec["command"],
            ok=True,
            terminal_id=terminal_id,
            output=output.output,
            truncated=output.truncated,
            exit_code=exit_code,
            signal=signal_name,
            output_exit_code=output.exit_status.exit_code if output.exit_status else None,
            after_release=after_release,
        )
        await self._say(session_id, f"[terminal exit {exit_code} {signal_name}] {output.output}", said)


def _mcp_report(servers: Any) -> dict[str, Any]:
    """``{"mcp": [...]}`` for the report when the agent was given MCP servers, else nothing."""
    out: list[dict[str, Any]] = []
    for server in servers or []:
        entry: dict[str, Any] = {"name": server.name}
        if getattr(server, "url", None):
            entry["url"] = server.url
            entry["type"] = server.type
            entry["headers"] = {h.name: h.value for h in server.headers}
        else:
            entry["command"] = [server.command, *server.args]
            entry["env"] = {e.name: e.value for e in server.env}
        out.append(entry)
    return {"mcp": out} if out else {}


def _locations(spec: dict[str, Any]) -> list[ToolCallLocation] | None:
    paths = spec.get("locations")
    return [ToolCallLocation(path=p) for p in paths] if paths is not None else None


def _tool_content(spec: dict[str, Any]) -> list[Any] | None:
    content: list[Any] = []
    if "diff" in spec:
        diff = spec["diff"]
        content.append(tool_diff_content(diff["path"], diff["new"], diff.get("old")))
    if "text" in spec:
        content.append(tool_content(text_block(spec["text"])))
    return content or None


def login(script: dict[str, Any]) -> int:
    """The agent's own login program (an ACP terminal sign-in method): it needs a TTY, as real ones do."""
    spec = script.get("login") or {}
    agent = ScriptedAgent(script)
    tty = os.isatty(0) and os.isatty(1)
    if not tty:
        agent.report("login", tty=False, ok=False, env=os.environ.get("LOGIN_MODE"))
        print("login: not a terminal", file=sys.stderr)
        return 4
    sys.stdout.write("\x1b[1;33mtoken:\x1b[0m ")  # coloured, as login prompts are
    sys.stdout.flush()
    token = sys.stdin.readline().strip()
    ok = bool(spec.get("file")) and token == spec.get("token")
    wrote_outside = None
    if spec.get("outside"):
        try:
            Path(spec["outside"]).write_text("pwned\n", encoding="utf-8")
            wrote_outside = True
        except OSError:
            wrote_outside = False
    agent.report("login", tty=True, ok=ok, env=os.environ.get("LOGIN_MODE"), wrote_outside=wrote_outside)
    if not ok:
        print("login: wrong token")
        return 2
    Path(spec["file"]).write_text("signed in\n", encoding="utf-8")
    print("login: signed in")
    return 0


def main(argv: list[str]) -> None:
    script = load_script(argv)
    if "--login" in argv[2:]:
        sys.exit(login(script))
    if script.get("pid_file"):
        Path(script["pid_file"]).write_text(str(os.getpid()), encoding="utf-8")
    if script.get("ignore_sigterm"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    agent = ScriptedAgent(script)
    _route_set_model(agent)
    asyncio.run(run_agent(agent, use_unstable_protocol=True))


def _route_set_model(agent: ScriptedAgent) -> None:
    """``session/set_model`` (unstable, not routed by this SDK): answered as Qwen Code answers it; and
    ``session/delete`` (stable, not in this SDK version yet)."""
    import acp.agent.connection as agent_connection
    from acp.agent.router import build_agent_router as build
    from acp.interfaces import Agent as AgentInterface
    from acp.router import MessageRouter, Route

    def build_with_set_model(target: AgentInterface, use_unstable_protocol: bool = False) -> MessageRouter:
        router = build(target, use_unstable_protocol=use_unstable_protocol)

        async def set_model(params: Any) -> Any:
            return await agent.set_model(params if isinstance(params, dict) else {})

        async def delete_session(params: Any) -> Any:
            return await agent.delete_session(params if isinstance(params, dict) else {})

        router.add_route(Route(method="session/set_model", func=set_model, kind="request"))
        router.add_route(Route(method="session/delete", func=delete_session, kind="request"))
        return router

    # The connection module looks the builder up by name when the agent connects: replaced there, by name
    # (the SDK does not export it, so a plain assignment would be an untyped reach into the module).
    setattr(agent_connection, "build_agent_router", build_with_set_model)  # noqa: B010


if __name__ == "__main__":
    main(sys.argv)
