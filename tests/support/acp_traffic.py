"""Every ACP message of a test, checked against the official v1 schema (issue 32, item 7).

``xworkmate.agents.acp.process.connect`` appends each JSON-RPC message to the file named by
``XWORKMATE_ACP_TRACE`` (``{"dir": "out"|"in", "msg": …}``; ``out`` is XWorkmate's). ``problems``
reads such a file and says, one line each, what does not match the schema in ``acp_schema/``:

* a request or notification whose method the schema does not have for that side (``_``-prefixed
  extension methods excepted), or whose params do not match the method's ``x-method`` type;
* a result that does not match the answered method's response type; an error without an integer
  ``code`` and a string ``message``;
* any message that is not a JSON-RPC 2.0 message of its side (the schema's ``Client``/``Agent`` branch).

A trace may hold several connections (several turns, several processes): each line names its
connection, and a response is matched to the request with its id on the same connection.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA = Path(__file__).parent / "acp_schema" / "schema.v1.json"

# The side that *handles* a method, as the schema's ``x-side`` says: XWorkmate (the client) sends
# requests the agent handles, and answers those the client handles.
HANDLER = {"out": "agent", "in": "client"}
BRANCH = {"out": "Client", "in": "Agent"}


@dataclass(frozen=True)
class Methods:
    params: dict[tuple[str, str], str]  # (side, method) -> the $defs name of its params
    results: dict[tuple[str, str], str]  # (side, method) -> the $defs name of its result


@cache
def _schema() -> dict[str, Any]:
    return dict(json.loads(SCHEMA.read_text(encoding="utf-8")))


@cache
def _methods() -> Methods:
    params: dict[tuple[str, str], str] = {}
    results: dict[tuple[str, str], str] = {}
    for name, definition in _schema()["$defs"].items():
        method, side = definition.get("x-method"), definition.get("x-side")
        if not isinstance(method, str) or not isinstance(side, str):
            continue
        (results if name.endswith("Response") else params)[(side, method)] = name
    return Methods(params, results)


@cache
def _validator(name: str) -> Draft202012Validator:
    """A validator for one ``$defs`` entry; ``Client``/``Agent``: one side's whole message (a top-level branch)."""
    schema = _schema()
    if name in ("Client", "Agent"):
        branch = next(b for b in schema["anyOf"] if b.get("title") == name)
        return Draft202012Validator({**branch, "$defs": schema["$defs"]})
    return Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": schema["$defs"]})


def _errors(name: str, instance: Any) -> list[str]:
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '.'}: {e.message[:160]}"
        for e in _validator(name).iter_errors(instance)
    ]


def check(direction: str, msg: Any, asked: dict[str, dict[Any, str]]) -> list[str]:
    """What is wrong with one message sent in ``direction``; ``asked`` keeps each direction's open requests."""
    if not isinstance(msg, dict):
        return [f"{direction}: not a JSON object: {str(msg)[:80]}"]
    side = HANDLER[direction]
    where = f"{direction} {msg.get('method') or 'response ' + str(msg.get('id'))}"
    found = [f"{where}: {e}" for e in _errors(BRANCH[direction], msg)][:1]
    method = msg.get("method")
    if isinstance(method, str):
        if "id" in msg:
            asked[direction][msg["id"]] = method
        if method.startswith("_"):
            return found  # an extension method: its shape is the extension's
        if method == "$/cancel_request":
            return found + [f"{where}: {e}" for e in _errors("CancelRequestNotification", msg.get("params"))]
        name = _methods().params.get((side, method))
        if name is None:
            return [*found, f"{where}: the schema has no method {method!r} handled by the {side}"]
        return found + [f"{where}: {e}" for e in _errors(name, msg.get("params"))]
    answered = asked["in" if direction == "out" else "out"].pop(msg.get("id"), None)
    if "error" in msg:
        error = msg["error"]
        if not (
            isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str)
        ):
            found.append(f"{where}: an error needs an integer code and a string message: {error!r:.120}")
        return found
    if answered is None or answered.startswith("_"):
        return found
    # The answer to a request the other side handled: its type is that method's response.
    name = _methods().results.get((HANDLER["in" if direction == "out" else "out"], answered))
    if name is None:
        return found
    return found + [f"{where} ({answered}): {e}" for e in _errors(name, msg.get("result"))]


def problems(trace: Path) -> dict[str, list[str]]:
    """``{"out": [...], "in": [...]}``: one line per schema problem, by direction."""
    found: dict[str, list[str]] = {"out": [], "in": []}
    asked: dict[str, dict[str, dict[Any, str]]] = {}
    if not trace.exists():
        return found
    for raw in trace.read_text(encoding="utf-8").splitlines():
        entry = json.loads(raw)
        pending = asked.setdefault(entry["conn"], {"out": {}, "in": {}})
        found[entry["dir"]].extend(check(entry["dir"], entry["msg"], pending))
    return found


def handled_by(side: str) -> set[str]:
    """The methods of the schema that ``side`` (``agent`` or ``client``) handles."""
    return {method for (s, method) in _methods().params if s == side}
