"""A task's category follows its content, not its dispatcher (seed 000 §5: the eight cases, CAT-5/6/8/9).

No stubs: the router is a real ``ModelRouter`` over two real provider configs
(one untagged, one tagged ``medical``) pointing at the real test server, and
every store test runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.dispatch.support import MED, MED_MODEL, MEDICAL, PLAIN, PLAIN_MODEL, make_line, say
from xworkmate.dispatch import NOT_PASSED, DispatchService, handle_dispatch_tool
from xworkmate.domain.categories import (
    CategoryChoice,
    TaskCategoryError,
    normal_task_reminder,
    task_category_choice,
)
from xworkmate.domain.threads import ExecutionMode, ThreadKind
from xworkmate.llm import CategoryModelError, ModelRouter
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, TextReply


def _ask_model(router: ModelRouter, server: OpenAIServer, category: str | None, pinned: str | None) -> str:
    """One real call through the router, as a task's turn makes it; returns the model the server saw."""
    server.script(TextReply(["ok"]))
    before = len(server.chat_requests)
    completion = asyncio.run(
        router.complete(
            [{"role": "user", "content": "hello"}],
            content_category=category,
            pinned=pinned,
            chain=[] if pinned else None,
        )
    )
    assert completion.text == "ok"
    [request] = server.chat_requests[before:]
    return str(request.body["model"])


# -- the eight cases -----------------------------------------------------------------------


def test_a_task_dispatched_without_a_category_is_normal_and_may_use_an_untagged_model(
    store: Store, service: DispatchService, router: ModelRouter, openai_server: OpenAIServer, lines_root: Path
) -> None:
    """Case 1 (CAT-5, CAT-6): ``category=None`` from a category conversation makes a normal task."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    started = service.start_task(conversation.thread_id, "build a colour picker", category=None, model=PLAIN)
    assert started.task.category is None and started.category_own is True
    assert store.threads.get(started.key).category is None  # type: ignore[union-attr]
    assert started.task.execution_binding.provider == PLAIN
    assert _ask_model(router, openai_server, started.task.category, started.task.execution_binding.provider) == (
        PLAIN_MODEL
    )


def test_a_declared_category_task_has_the_category_and_defaults_to_the_tagged_model(
    store: Store, service: DispatchService, router: ModelRouter, openai_server: OpenAIServer, lines_root: Path
) -> None:
    """Case 2 (CAT-5, CAT-6): the group's first tagged provider is chosen when no model is."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    started = service.start_task(conversation.thread_id, "summarise the notes", category=MEDICAL)
    stored = store.threads.get(started.key)
    assert stored is not None and stored.category == MEDICAL and started.category_own is True
    assert (started.task.execution_binding.provider, started.task.execution_binding.model) == (MED, MED_MODEL)
    assert {p.name for p in router.candidates(stored.category)} == {MED}
    assert _ask_model(router, openai_server, stored.category, None) == MED_MODEL


def test_a_category_task_with_an_untagged_model_is_refused(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """Case 3 (CAT-6): nothing is created, not even the task's folder."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    before = store.threads.count()
    with pytest.raises(TaskCategoryError, match=f"model '{PLAIN}' is not tagged 'medical'"):
        service.start_task(conversation.thread_id, "summarise", category=MEDICAL, model=PLAIN)
    assert store.threads.count() == before
    assert store.threads.children(conversation.thread_id) == []


def test_a_task_may_declare_its_dispatchers_category_and_no_other(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """Case 4 (CAT-5): another category is refused; the dispatcher's own (in any case) is accepted."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    with pytest.raises(TaskCategoryError, match="not this thread's category"):
        service.start_task(conversation.thread_id, "x", category="legal")
    started = service.start_task(conversation.thread_id, "x", category=" Medical ")
    assert started.task.category == MEDICAL


def test_a_normal_conversation_cannot_declare_a_category(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """Case 5 (CAT-5): the error says that omitting it dispatches a normal task."""
    conversation = make_line(store, lines_root)
    with pytest.raises(TaskCategoryError, match="omit `category` to dispatch a normal task"):
        service.start_task(conversation.thread_id, "x", category=MEDICAL)
    assert store.threads.children(conversation.thread_id) == []


def test_a_normal_task_cannot_read_the_category_thread_that_dispatched_it(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """Case 6 (CAT-8): the same frozen ids resolve to nothing for a normal task, to the text for a category task."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    said = say(store, conversation.thread_id, "the patient's results are attached")
    normal = service.start_task(conversation.thread_id, "write a date picker", category=None)
    medical = service.start_task(conversation.thread_id, "summarise the results", category=MEDICAL)
    assert normal.source_ids == medical.source_ids == (said.id,)
    assert service.task_sources(normal.key) == []
    assert service.evidence_for(normal.key) == []
    assert [m.content for m in service.task_sources(medical.key)] == ["the patient's results are attached"]


def test_the_reminder_appears_only_when_a_category_conversation_dispatches_a_normal_task(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """Case 7 (CAT-9): normal conversation — none; explicit category — none; omitted in a category one — once."""
    normal_conversation = make_line(store, lines_root)
    medical_conversation = make_line(store, lines_root, category=MEDICAL)
    reminder = normal_task_reminder(MEDICAL, None)
    assert reminder is not None

    def start(dispatcher: str, **arguments: object) -> str:
        result = handle_dispatch_tool(service, "task_start", json.dumps({"goal": "g", **arguments}), dispatcher)
        assert result.ok, result.content
        return result.content

    assert "Reminder" not in start(normal_conversation.thread_id)
    assert "Reminder" not in start(medical_conversation.thread_id, category=MEDICAL)
    assert start(medical_conversation.thread_id).count(reminder) == 1
    assert start(medical_conversation.thread_id, category=None).count(reminder) == 1


def test_an_internal_flow_that_passes_no_category_inherits_the_dispatchers(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """Case 8 (CAT-5): ``NOT_PASSED`` inherits, ``category_own`` stays false, and no reminder is added."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    started = service.start_task(conversation.thread_id, "repair the failing signal")
    assert started.task.category == MEDICAL and started.category_own is False
    assert started.task.execution_binding.provider == MED
    assert started.reminder is None


# -- around the eight cases ----------------------------------------------------------------


def test_a_category_task_cannot_run_in_acp_mode_but_a_normal_one_can(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """CAT-3, CAT-6: external agent CLIs do not go through the router."""
    conversation = make_line(store, lines_root, category=MEDICAL)
    with pytest.raises(TaskCategoryError, match="cannot run in ACP mode"):
        service.start_task(conversation.thread_id, "x", category=MEDICAL, execution_mode="acp")
    with pytest.raises(TaskCategoryError, match="cannot run in ACP mode"):
        service.start_task(conversation.thread_id, "x", execution_mode="acp")  # inherits medical
    normal = service.start_task(conversation.thread_id, "x", category=None, execution_mode="acp", model="qwen")
    assert normal.task.execution_binding.mode is ExecutionMode.ACP
    assert normal.task.execution_binding.provider == "qwen"


def test_a_category_without_any_tagged_provider_cannot_start_a_task(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """CAT-2, CAT-6: no out-of-group model is used to make a task start."""
    conversation = make_line(store, lines_root, category="legal")
    with pytest.raises(CategoryModelError, match="'legal'"):
        service.start_task(conversation.thread_id, "x", category="legal")
    assert store.threads.children(conversation.thread_id) == []


def test_a_task_is_a_real_line_with_its_own_folder_and_the_dispatchers_seal_level(
    store: Store, service: DispatchService, lines_root: Path
) -> None:
    """ISO-1, ISO-3, CAT-10: a task row exists, with a folder of its own; seal level is inherited."""
    conversation = make_line(store, lines_root)
    store.threads.set_seal_level(conversation.thread_id, 2)
    started = service.start_task(conversation.thread_id, "x")
    assert started.task.kind is ThreadKind.TASK and started.task.parent_key == conversation.thread_id
    assert started.seal_level == 2
    folder = Path(started.task.workspace_binding.path or "")
    assert folder.is_dir() and folder.name == started.key.replace(":", "-").lower()


# -- the pure rule ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "owner", "expected"),
    [
        (NOT_PASSED, None, CategoryChoice(own=False, category=None)),
        (NOT_PASSED, MEDICAL, CategoryChoice(own=False, category=MEDICAL)),
        (None, None, CategoryChoice(own=True, category=None)),
        (None, MEDICAL, CategoryChoice(own=True, category=None)),
        (MEDICAL, MEDICAL, CategoryChoice(own=True, category=MEDICAL)),
        ("MEDICAL", MEDICAL, CategoryChoice(own=True, category=MEDICAL)),
    ],
)
def test_task_category_choice_is_three_way(declared: object, owner: str | None, expected: CategoryChoice) -> None:
    """CAT-5: not passed → inherit; None → normal; the dispatcher's own label → a category task."""
    assert task_category_choice(declared, owner) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("declared", "owner", "message"),
    [
        ("legal", MEDICAL, "not this thread's category"),
        ("", MEDICAL, "not this thread's category"),
        ("no such: label", MEDICAL, "not this thread's category"),
        (MEDICAL, None, "omit `category` to dispatch a normal task"),
        ("", None, "omit `category` to dispatch a normal task"),
    ],
)
def test_task_category_choice_refuses_other_labels(declared: str, owner: str | None, message: str) -> None:
    """CAT-5: only the dispatcher's own category may be declared."""
    with pytest.raises(TaskCategoryError, match=message):
        task_category_choice(declared, owner)
