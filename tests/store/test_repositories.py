"""Threads and messages round-trip through the store, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError

from xworkmate.domain.keys import allocate_draft_key
from xworkmate.domain.messages import MessageRole, MessageSource, MessageState
from xworkmate.domain.threads import BoundBy, TaskThread, WorkspaceBinding
from xworkmate.domain.viewers import DESKTOP
from xworkmate.store import Store
from xworkmate.store.repositories import utcnow


def _thread(key: str | None = None, **kw: object) -> TaskThread:
    now = utcnow()
    return TaskThread(
        thread_id=key or allocate_draft_key(),
        title=str(kw.pop("title", "t")),
        workspace_binding=WorkspaceBinding(path="/tmp/x", bound_by=BoundBy.EXPLICIT),
        created_at=now,
        updated_at=now,
        **kw,  # type: ignore[arg-type]
    )


def test_thread_round_trips_every_binding_field(store: Store) -> None:
    thread = _thread(title="Write the report")
    store.threads.insert(thread)
    loaded = store.threads.get(thread.thread_id)
    assert loaded is not None
    assert loaded.model_dump() == thread.model_dump()


def test_two_threads_cannot_share_a_key(store: Store) -> None:
    """ISO-1: the key is the thread's identity."""
    key = allocate_draft_key()
    store.threads.insert(_thread(key))
    with pytest.raises(IntegrityError):
        store.threads.insert(_thread(key))


def test_archived_threads_leave_the_default_list(store: Store) -> None:
    a, b = _thread(title="a"), _thread(title="b")
    store.threads.insert(a)
    store.threads.insert(b)
    store.threads.set_archived(a.thread_id, True)
    assert [s.thread_id for s in store.threads.summaries()] == [b.thread_id]
    assert {s.thread_id for s in store.threads.summaries(include_archived=True)} == {a.thread_id, b.thread_id}


def test_message_for_a_missing_thread_is_refused_by_the_foreign_key(store: Store) -> None:
    with pytest.raises(IntegrityError):
        store.messages.append("draft:nothing", role=MessageRole.USER, source=MessageSource.HUMAN, content="x")


def test_messages_page_from_newest_to_oldest(store: Store) -> None:
    thread = _thread()
    other = _thread()
    store.threads.insert(thread)
    store.threads.insert(other)
    ids = [
        store.messages.append(thread.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content=str(i)).id
        for i in range(25)
    ]
    store.messages.append(other.thread_id, role=MessageRole.USER, source=MessageSource.HUMAN, content="other")
    newest = store.messages.page_ids(thread.thread_id, limit=10, viewer=DESKTOP)
    assert newest == ids[-10:]
    older = store.messages.page_ids(thread.thread_id, before_id=newest[0], limit=10, viewer=DESKTOP)
    assert older == ids[-20:-10]
    rows = store.messages.get_many(older, viewer=DESKTOP)
    assert [rows[i].content for i in older] == [str(i) for i in range(5, 15)]
    assert store.messages.count(thread.thread_id, viewer=DESKTOP) == 25


def test_message_state_and_source_are_kept(store: Store) -> None:
    thread = _thread()
    store.threads.insert(thread)
    msg = store.messages.append(
        thread.thread_id,
        role=MessageRole.SYSTEM,
        source=MessageSource.FRAMEWORK_EVENT,
        content="notice",
        state=MessageState.ERROR,
    )
    again = store.messages.get_many([msg.id], viewer=DESKTOP)[msg.id]
    assert (again.role, again.source, again.state) == (
        MessageRole.SYSTEM,
        MessageSource.FRAMEWORK_EVENT,
        MessageState.ERROR,
    )


def test_the_lines_bound_to_an_agent_session_are_found_by_agent_and_session(store: Store) -> None:
    """Issue 32 item 6: after session/delete, every line continuing that agent's session (archived ones too)."""
    from xworkmate.domain.threads import ExecutionBinding, ExecutionMode

    keys = []
    for provider, session in [("qwen", "s-1"), ("qwen", "s-1"), ("qwen", "s-2"), ("codex", "s-1"), ("qwen", None)]:
        thread = _thread()
        store.threads.insert(thread)
        binding = ExecutionBinding(mode=ExecutionMode.ACP, provider=provider, acp_session_id=session)
        store.threads.set_execution(thread.thread_id, binding)
        keys.append(thread.thread_id)
    store.threads.set_archived(keys[1], True)
    assert store.threads.bound_to_acp_session("qwen", "s-1") == sorted(keys[:2])
    assert store.threads.bound_to_acp_session("codex", "s-1") == [keys[3]]
    assert store.threads.bound_to_acp_session("qwen", "s-9") == []
