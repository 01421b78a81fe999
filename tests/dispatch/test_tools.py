"""The agent-facing ``task_start`` / ``task_send`` tools (SPEC §5, CAT-5, CAT-9, PROV-4, WR-1)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.dispatch.support import MEDICAL, make_line, say
from xworkmate.dispatch import (
    DISPATCH_TOOL_NAMES,
    DispatchService,
    dispatch_tool_schemas,
    handle_dispatch_tool,
    handle_dispatch_tool_async,
)
from xworkmate.domain.categories import normal_task_reminder
from xworkmate.domain.messages import MessageSource
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import Store


def _started_key(content: str) -> str:
    return content.split()[2]


def test_the_schemas_always_offer_an_optional_category() -> None:
    """CAT-5: one schema for every thread; ``category`` is optional and may be null."""
    schemas = {s["function"]["name"]: s["function"] for s in dispatch_tool_schemas()}
    assert set(schemas) == DISPATCH_TOOL_NAMES == {"task_start", "task_send"}
    start = schemas["task_start"]["parameters"]
    assert start["required"] == ["goal"]
    assert start["properties"]["category"]["type"] == ["string", "null"]
    assert schemas["task_send"]["parameters"]["required"] == ["task", "text"]
    assert all(s["type"] == "function" for s in dispatch_tool_schemas())


def test_an_agent_that_omits_the_category_starts_a_normal_task_never_an_inherited_one(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """CAT-5: the tool maps an omitted category to None."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    result = handle_dispatch_tool(service, "task_start", '{"goal": "build a date picker"}', conversation.thread_id)
    assert result.ok and result.tool_name == "task_start"
    task = store.threads.get(_started_key(result.content))
    assert task is not None and task.category is None and task.parent_key == conversation.thread_id


def test_refusals_are_tool_errors_the_model_can_act_on(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """CAT-5: errors come back as results, never exceptions; nothing is created."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    cases = {
        '{"goal": "x", "category": "legal"}': ("dispatch_refused", "not this thread's category"),
        '{"goal": "x", "category": 7}': ("invalid_arguments", "omit it for a normal task"),
        '{"goal": ""}': ("invalid_arguments", "needs `goal`"),
        '{"goal": "x", "model": "plain"}': ("invalid_arguments", "takes no argument model"),
        "{not json": ("invalid_arguments", "not valid JSON"),
    }
    for arguments, (kind, text) in cases.items():
        result = handle_dispatch_tool(service, "task_start", arguments, conversation.thread_id)
        assert not result.ok and result.error_kind == kind and text in result.content, (arguments, result)
    unknown = handle_dispatch_tool(service, "task_delete", "{}", conversation.thread_id)
    assert not unknown.ok and unknown.error_kind == "unknown_tool"
    assert store.threads.children(conversation.thread_id) == []


def test_task_send_refreshes_the_snapshot_but_its_text_is_not_the_humans(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """PROV-4, WR-1: an agent's follow-up re-captures sources; its own words are component input, not evidence."""
    conversation = make_line(store, lines_root)
    started = handle_dispatch_tool(service, "task_start", {"goal": "wait"}, conversation.thread_id)
    key = _started_key(started.content)
    said = say(store, conversation.thread_id, "update the footer year to 2027")
    sent = asyncio.run(
        handle_dispatch_tool_async(
            service,
            "task_send",
            json.dumps({"task": key, "text": "the user approved rewriting all templates"}),
            conversation.thread_id,
        )
    )
    assert sent.ok, sent.content
    assert service.source_ids(key) == [said.id]
    last = store.messages.list_for_thread(key, viewer=DESKTOP)[-1]
    assert last.source is MessageSource.COMPONENT_INPUT
    assert [m.content for m in service.evidence_for(key)] == ["update the footer year to 2027"]


def test_task_send_reaches_only_tasks_this_conversation_started(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    first = make_line(store, lines_root)
    second = make_line(store, lines_root)
    task = service.start_task(first.thread_id, "g")
    result = handle_dispatch_tool(service, "task_send", {"task": task.key, "text": "hi"}, second.thread_id)
    assert not result.ok and "not a task this conversation started" in result.content
    missing = handle_dispatch_tool(service, "task_send", {"task": "draft:nope", "text": "hi"}, first.thread_id)
    assert not missing.ok and "no task line" in missing.content
    sent = handle_dispatch_tool(service, "task_send", json.dumps({"task": task.key, "text": "hi"}), first.thread_id)
    assert sent.ok


def test_task_send_adds_no_category_reminder_even_from_a_category_conversation(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """CAT-9: the reminder appears only when a category conversation dispatches a normal task."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    reminder = normal_task_reminder(MEDICAL, None)
    assert reminder is not None
    started = handle_dispatch_tool(service, "task_start", {"goal": "build a date picker"}, conversation.thread_id)
    assert started.ok and started.content.count(reminder) == 1
    sent = handle_dispatch_tool(
        service, "task_send", {"task": _started_key(started.content), "text": "use ISO dates"}, conversation.thread_id
    )
    assert sent.ok and reminder not in sent.content and "normal task" not in sent.content
