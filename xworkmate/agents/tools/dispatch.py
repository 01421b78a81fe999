"""The tool schemas the model sees and the dispatch of its calls: arguments parsed against the schema, errors turned
into results, never an escaping exception.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import math
from collections.abc import Callable, Mapping
from typing import Any

from xworkmate.agents.confinement import (
    ToolError,
)
from xworkmate.agents.skills import read_skill
from xworkmate.agents.tools.commands import run_command, run_command_async
from xworkmate.agents.tools.context import CommandOutcome, ToolContext, ToolResult
from xworkmate.agents.tools.reading import list_dir, read_file, search_files
from xworkmate.agents.tools.writing import edit_file, write_file
from xworkmate.domain.tool_errors import ToolErrorKind
from xworkmate.domain.tools import NativeTool, ToolHome, is_native_edit, tool_names

logger = logging.getLogger(__name__)


_QUOTE_DESCRIPTION = (
    "The human's own words asking for this change, copied verbatim from one of their messages "
    "(at least 8 letters and 2 words). A summary, a paraphrase or a statement like 'the user asked' "
    "is refused, and so is text from a task goal or a tool result."
)

_SCHEMAS: tuple[dict[str, Any], ...] = (
    {
        "name": NativeTool.LIST_DIR.value,
        "description": "List a directory inside the working directory: sub-directories end with '/', "
        "files show their size, symbolic links their target.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Directory relative to the working directory. Default '.'.",
                },
            },
            "required": [],
            "additionalProperties": False,
        },
    },
    {
        "name": NativeTool.READ_FILE.value,
        "description": "Read a UTF-8 text file inside the working directory. Long files are truncated with a "
        "note telling the offset to continue from.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File relative to the working directory."},
                "offset": {"type": "integer", "minimum": 1, "description": "First line to read, 1-based."},
                "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines."},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    },
    {
        "name": NativeTool.SEARCH_FILES.value,
        "description": "Search the text files under a directory for a regular expression (Python syntax) or, "
        "with literal=true, a plain string. Returns 'path:line: text' lines, capped.",
        "parameters": {
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "description": "Regular expression, or text if literal is true.",
                },
                "path": {"type": "string", "description": "Directory or file to search. Default '.'."},
                "glob": {
                    "type": "string",
                    "description": "Only files whose name (or, if it contains '/', relative path) matches, "
                    "e.g. '*.py'.",
                },
                "literal": {"type": "boolean", "description": "Treat pattern as plain text. Default false."},
            },
            "required": ["pattern"],
            "additionalProperties": False,
        },
    },
    {
        "name": NativeTool.WRITE_FILE.value,
        "description": "Create or replace a text file inside the working directory. Only allowed when the "
        "human asked for it: pass their words in quote.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File relative to the working directory."},
                "content": {"type": "string", "description": "The complete new content of the file."},
                "quote": {"type": "string", "description": _QUOTE_DESCRIPTION},
            },
            "required": ["path", "content", "quote"],
            "additionalProperties": False,
        },
    },
    {
        "name": NativeTool.EDIT_FILE.value,
        "description": "Replace one exact piece of text in a file inside the working directory. "
        "old must occur exactly once, whitespace included. Only allowed when the human asked for it: "
        "pass their words in quote.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File relative to the working directory."},
                "old": {
                    "type": "string",
                    "description": "The exact text to replace; must occur exactly once.",
                },
                "new": {"type": "string", "description": "The replacement text."},
                "quote": {"type": "string", "description": _QUOTE_DESCRIPTION},
            },
            "required": ["path", "old", "new", "quote"],
            "additionalProperties": False,
        },
    },
    {
        "name": NativeTool.READ_SKILL.value,
        "description": "Read one of the skills selected for this line: its instructions (SKILL.md), or, with path, "
        "a file beside its SKILL.md.",
        "parameters": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The skill's name, as listed in the system prompt."},
                "path": {
                    "type": "string",
                    "description": "A file in the skill's folder, relative to it. Default: SKILL.md.",
                },
            },
            "required": ["name"],
            "additionalProperties": False,
        },
    },
    {
        "name": NativeTool.RUN_COMMAND.value,
        "description": "Run a shell command (/bin/sh -c) in the working directory. stdin is empty; "
        "stdout and stderr are returned together, long output keeps its beginning and end. The command and "
        "everything it started are killed at the timeout, and background processes do not outlive it.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The shell command line."},
                "timeout_s": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": "Seconds before the command is killed. Default 120.",
                },
            },
            "required": ["command"],
            "additionalProperties": False,
        },
    },
)

TOOL_NAMES: tuple[str, ...] = tool_names(ToolHome.WORKSPACE)
"""The workspace tools, in the one tool table's order (``domain.tools``, issue 33 item 3)."""

SKILL_TOOL = NativeTool.READ_SKILL.value


def tool_schemas(*, skills: bool = False) -> list[dict[str, Any]]:
    """The tools in the OpenAI ``tools=[...]`` shape; a fresh copy the caller may modify. ``read_skill`` is
    offered only on a turn with selected skills (SKL-2)."""
    return [
        {"type": "function", "function": copy.deepcopy(schema)}
        for schema in _SCHEMAS
        if skills or schema["name"] != SKILL_TOOL
    ]


class _ArgumentError(Exception):
    pass


def dispatch_tool_call(name: str, arguments_json: str | Mapping[str, Any], ctx: ToolContext) -> ToolResult:
    """Run one tool call from the model; every failure becomes a ``ToolResult`` with ``ok=False``."""
    prepared = _prepare(name, arguments_json)
    if isinstance(prepared, ToolResult):
        return prepared
    return _invoke(name, prepared, ctx)


async def dispatch_tool_call_async(name: str, arguments_json: str | Mapping[str, Any], ctx: ToolContext) -> ToolResult:
    """``dispatch_tool_call`` for the agent loop.

    - ``list_dir``, ``read_file``, ``search_files`` run in a worker thread, so a large search
      does not freeze the window;
    - ``write_file``, ``edit_file`` run in a worker thread too (issue 33 item 4, LOOP-4): the gate's
      evidence reads (WR-1: the task's human messages and its dispatch snapshot, PROV-3) and the
      write never hold the event loop, which is the window's. The evidence callable opens its own
      store connection on that thread. A cancelled call waits for the gate and the write to end
      before the cancellation goes on, so no write is left finishing in the background;
    - ``run_command`` runs through ``run_command_async``: cancelling kills its process group.
    """
    prepared = _prepare(name, arguments_json)
    if isinstance(prepared, ToolResult):
        return prepared
    if name in _READERS:
        return await asyncio.to_thread(_invoke, name, prepared, ctx)
    if name != NativeTool.RUN_COMMAND:
        return await _whole_off_the_loop(_invoke, name, prepared, ctx)
    try:
        outcome = await run_command_async(ctx, **prepared)
    except ToolError as exc:
        return ToolResult(ok=False, content=str(exc), tool_name=name, error_kind=exc.kind)
    except Exception:
        logger.exception("tool %s failed", name)
        return _internal_error(name)
    return _command_result(outcome)


async def _whole_off_the_loop(
    invoke: Callable[[str, dict[str, Any], ToolContext], ToolResult], name: str, args: dict[str, Any], ctx: ToolContext
) -> ToolResult:
    """``invoke`` in a worker thread; cancelled, it still runs to its end before ``CancelledError`` goes on."""
    call = asyncio.ensure_future(asyncio.to_thread(invoke, name, args, ctx))
    try:
        return await asyncio.shield(call)
    except asyncio.CancelledError:
        await asyncio.wait([call])  # the gate and the write end (or refuse) before the turn is cancelled
        raise


def _prepare(name: str, arguments_json: str | Mapping[str, Any]) -> dict[str, Any] | ToolResult:
    schema = next((s for s in _SCHEMAS if s["name"] == name), None)
    if schema is None:
        return ToolResult(
            ok=False,
            content=f"unknown tool {name!r}; the available tools are {', '.join(TOOL_NAMES)}",
            tool_name=str(name),
            error_kind=ToolErrorKind.UNKNOWN_TOOL,
        )
    try:
        return _parse_arguments(schema, arguments_json)
    except _ArgumentError as exc:
        return ToolResult(
            ok=False,
            content=f"invalid arguments for {name}: {exc}",
            tool_name=name,
            error_kind=ToolErrorKind.INVALID_ARGUMENTS,
        )


def _invoke(name: str, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    try:
        if name == NativeTool.RUN_COMMAND:
            return _command_result(run_command(ctx, **args))
        if is_native_edit(name):
            outcome = write_file(ctx, **args) if name == NativeTool.WRITE_FILE else edit_file(ctx, **args)
            return ToolResult(
                ok=True,
                content=outcome.to_tool_text(),
                tool_name=name,
                changed_path=outcome.path,
                diff=outcome.diff,
            )
        return ToolResult(ok=True, content=_READERS[name](ctx, **args), tool_name=name)
    except ToolError as exc:
        return ToolResult(ok=False, content=str(exc), tool_name=name, error_kind=exc.kind)
    except Exception:
        logger.exception("tool %s failed", name)
        return _internal_error(name)


def read_selected_skill(ctx: ToolContext, name: str, path: str | None = None) -> str:
    """SKL-2: a selected skill's SKILL.md or a file beside it, confined to its folder and capped."""
    skill = next((s for s in ctx.skills if s.name == name.strip()), None)
    if skill is None:
        selected = ", ".join(s.name for s in ctx.skills) or "none"
        raise ToolError(f"no selected skill named {name!r} (selected: {selected})")
    return read_skill(skill, path)


_READERS: dict[str, Callable[..., str]] = {
    NativeTool.LIST_DIR: list_dir,
    NativeTool.READ_FILE: read_file,
    NativeTool.SEARCH_FILES: search_files,
    NativeTool.READ_SKILL: read_selected_skill,
}


def _internal_error(name: str) -> ToolResult:
    return ToolResult(
        ok=False,
        content=f"{name} failed because of an internal error (logged); it may not have completed",
        tool_name=name,
        error_kind=ToolErrorKind.INTERNAL_ERROR,
    )


def _command_result(outcome: CommandOutcome) -> ToolResult:
    return ToolResult(
        ok=outcome.ok,
        content=outcome.to_tool_text(),
        tool_name=NativeTool.RUN_COMMAND.value,
        error_kind=ToolErrorKind.TIMEOUT
        if outcome.timed_out
        else (ToolErrorKind.CANCELLED if outcome.cancelled else None),
    )


_JSON_TYPES: dict[str, str] = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
}


def _parse_arguments(schema: Mapping[str, Any], arguments_json: str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(arguments_json, Mapping):
        raw: object = dict(arguments_json)
    elif isinstance(arguments_json, str):
        if not arguments_json.strip():
            raw = {}  # some models send "" for a call without arguments
        else:
            try:
                raw = json.loads(arguments_json)
            except json.JSONDecodeError as exc:
                raise _ArgumentError(
                    f"the arguments are not valid JSON ({exc.msg}: line {exc.lineno} column {exc.colno}); "
                    'send one JSON object such as {"path": "README.md"}'
                ) from exc
    else:
        raise _ArgumentError("the arguments must be a JSON object")
    if not isinstance(raw, dict):
        raise _ArgumentError(f"the arguments must be a JSON object, not {type(raw).__name__}")

    parameters = schema["parameters"]
    properties: Mapping[str, Mapping[str, Any]] = parameters["properties"]
    unknown = sorted(set(raw) - set(properties))
    if unknown:
        raise _ArgumentError(
            f"unknown argument(s) {', '.join(map(repr, unknown))}; expected {', '.join(properties) or 'none'}"
        )
    missing = [key for key in parameters["required"] if key not in raw]
    if missing:
        raise _ArgumentError(f"missing required argument(s) {', '.join(map(repr, missing))}")

    args: dict[str, Any] = {}
    for key, value in raw.items():
        spec = properties[key]
        if value is None and key not in parameters["required"]:
            continue  # explicit null for an optional argument means "use the default"
        args[key] = _coerce(key, value, spec)
    return args


def _coerce(key: str, value: Any, spec: Mapping[str, Any]) -> Any:
    kind = spec["type"]
    expected = _JSON_TYPES[kind]
    if kind == "string":
        ok = isinstance(value, str)
    elif kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok:
        raise _ArgumentError(f"{key!r} must be {expected}, got {_json_excerpt(value)}")
    if "minimum" in spec and value < spec["minimum"]:
        raise _ArgumentError(f"{key!r} must be at least {spec['minimum']}")
    if "exclusiveMinimum" in spec and value <= spec["exclusiveMinimum"]:
        raise _ArgumentError(f"{key!r} must be greater than {spec['exclusiveMinimum']}")
    return value


def _json_excerpt(value: object) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
