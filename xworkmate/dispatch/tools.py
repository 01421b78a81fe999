"""The agent-facing dispatch tools: ``task_start`` and ``task_send`` (SPEC §5, CAT-5, CAT-9, PROV-4).

The schemas are the same in every thread (a session's tool list is frozen), so
``category`` is always offered; where it does not apply the call fails with an
error that says what to do instead. An omitted ``category`` means a *normal*
task: an agent never inherits its conversation's category silently (CAT-5).
Dispatching a normal task from a category conversation adds the one CAT-9
reminder to ``task_start``'s result, and only there: ``task_send`` chooses no
category, so it has nothing to remind of.

``task_send`` stores the agent's text as component input, not as the human's
words: what one agent tells another is never evidence for a write (WR-1).
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Mapping
from typing import Any

from xworkmate.agents.tools import ToolResult
from xworkmate.dispatch.service import DispatchError, DispatchService, UnknownThreadError
from xworkmate.domain.categories import InvalidCategoryError, TaskCategoryError
from xworkmate.domain.messages import MessageSource
from xworkmate.domain.permissions import DISPATCH_TOOL_NAMES, TASK_SEND, TASK_START
from xworkmate.domain.threads import ThreadKind
from xworkmate.domain.tool_errors import ToolErrorKind
from xworkmate.domain.viewers import DeliveryFlowError
from xworkmate.llm.errors import LLMError

log = logging.getLogger(__name__)


_SCHEMAS: list[dict[str, Any]] = [
    {
        "name": TASK_START,
        "description": (
            "Start a background task in its own working folder. Write a self-contained goal; the task also"
            " receives references to the person's recent messages in this conversation. Omit `category` for a"
            " normal task (any model, but it cannot read category content); pass this conversation's own"
            " category only when the task's work involves that category's content."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "goal": {"type": "string", "description": "What the task should do, self-contained."},
                "context": {"type": "string", "description": "Anything else the task needs to know."},
                "category": {
                    "type": ["string", "null"],
                    "description": (
                        "This conversation's content category, to make a category task. Omit for a normal task."
                    ),
                },
            },
            "required": ["goal"],
            "additionalProperties": False,
        },
    },
    {
        "name": TASK_SEND,
        "description": (
            "Send a follow-up instruction to a task you started (by its key, as task_start returned it). The"
            " task's references to the person's messages are refreshed from this conversation."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "task": {"type": "string", "description": "The task's key, e.g. draft:01J…"},
                "text": {"type": "string", "description": "The instruction to send."},
            },
            "required": ["task", "text"],
            "additionalProperties": False,
        },
    },
]


def dispatch_tool_schemas() -> list[dict[str, Any]]:
    """The two tools in the OpenAI ``tools=[...]`` shape; a fresh copy the caller may modify."""
    return [{"type": "function", "function": copy.deepcopy(schema)} for schema in _SCHEMAS]


class _BadArguments(ValueError):
    pass


def _error(name: str, text: str, kind: str = ToolErrorKind.DISPATCH_REFUSED) -> ToolResult:
    return ToolResult(ok=False, content=text, tool_name=name, error_kind=kind)


def _arguments(name: str, arguments_json: str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(arguments_json, Mapping):
        args = dict(arguments_json)
    else:
        try:
            parsed = json.loads(arguments_json or "{}")
        except json.JSONDecodeError as exc:
            raise _BadArguments(
                f"the arguments of {name} are not valid JSON ({exc.msg}); call it again with a JSON object"
            ) from None
        if not isinstance(parsed, dict):
            raise _BadArguments(f"the arguments of {name} must be a JSON object")
        args = parsed
    allowed = set(next(s for s in _SCHEMAS if s["name"] == name)["parameters"]["properties"])
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise _BadArguments(f"{name} takes no argument {', '.join(unknown)}; it takes {', '.join(sorted(allowed))}")
    return args


def _string(name: str, args: Mapping[str, Any], field: str, *, required: bool) -> str:
    value = args.get(field)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise _BadArguments(f"{name} needs `{field}` as a non-empty string")
    return value


def handle_dispatch_tool(
    service: DispatchService, name: str, arguments_json: str | Mapping[str, Any], dispatcher_key: str
) -> ToolResult:
    """Run one ``task_start`` / ``task_send`` call made by the agent of ``dispatcher_key``.

    Every failure is a ``ToolResult`` with ``ok=False`` and a message the model
    can act on; nothing raises.
    """
    if name not in DISPATCH_TOOL_NAMES:
        return _error(name, f"no dispatch tool named {name!r}", ToolErrorKind.UNKNOWN_TOOL)
    try:
        args = _arguments(name, arguments_json)
        if name == TASK_START:
            return _task_start(service, args, dispatcher_key)
        return _task_send(service, args, dispatcher_key)
    except _BadArguments as exc:
        return _error(name, str(exc), ToolErrorKind.INVALID_ARGUMENTS)
    except (
        TaskCategoryError,
        InvalidCategoryError,
        DispatchError,
        UnknownThreadError,
        DeliveryFlowError,
        LLMError,
    ) as exc:
        log.info("%s refused for %s: %s", name, dispatcher_key, exc)
        return _error(name, str(exc))


async def handle_dispatch_tool_async(
    service: DispatchService, name: str, arguments_json: str | Mapping[str, Any], dispatcher_key: str
) -> ToolResult:
    """``handle_dispatch_tool`` for the agent loop (short database work, run on the calling thread)."""
    return handle_dispatch_tool(service, name, arguments_json, dispatcher_key)


def _task_start(service: DispatchService, args: Mapping[str, Any], dispatcher_key: str) -> ToolResult:
    goal = _string(TASK_START, args, "goal", required=True)
    context = _string(TASK_START, args, "context", required=False)
    category = args.get("category")  # omitted → None → a normal task (CAT-5), never NOT_PASSED
    if category is not None and not isinstance(category, str):
        raise _BadArguments(f"{TASK_START} takes `category` as a string, or omit it for a normal task")
    started = service.start_task(dispatcher_key, goal, context, category=category)
    kind = f"a {started.task.category!r} category task" if started.task.category else "a normal task"
    lines = [
        f"Started task {started.key} ({started.task.title!r}), {kind}, with {len(started.source_ids)} of the"
        f' person\'s messages as its dispatch sources. Send it more with task_send(task="{started.key}", text=...).'
    ]
    if started.reminder:
        lines.append(started.reminder)  # CAT-9
    return ToolResult(ok=True, content="\n".join(lines), tool_name=TASK_START)


def _task_send(service: DispatchService, args: Mapping[str, Any], dispatcher_key: str) -> ToolResult:
    task_key = _string(TASK_SEND, args, "task", required=True).strip()
    text = _string(TASK_SEND, args, "text", required=True)
    dispatcher = service.labels(dispatcher_key)
    task = service.labels(task_key)
    if task.kind is not ThreadKind.TASK or task.parent_key != dispatcher.thread_id:
        raise DispatchError(
            f"{task.thread_id} is not a task this conversation started; task_send only reaches tasks started"
            " here with task_start"
        )
    sent = service.send_followup(task.thread_id, text, source=MessageSource.COMPONENT_INPUT)
    # No CAT-9 reminder here: it is said once, where the category is chosen (task_start).
    content = f"Sent to task {sent.task_key}; its dispatch sources were refreshed ({len(sent.source_ids)} messages)."
    return ToolResult(ok=True, content=content, tool_name=TASK_SEND)
