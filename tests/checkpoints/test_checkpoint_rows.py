"""LOOP-1: the checkpoint rows (migration 0009) on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import FileChange, FileChangeKind
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store import Store
from xworkmate.store.checkpoints import CheckpointRepository
from xworkmate.store.repositories import utcnow


def test_turns_are_numbered_per_line_and_keep_their_change_set(store: Store, controller: SessionController) -> None:
    rows = CheckpointRepository(store)
    a = controller.lines.create_line("a").thread_id
    b = controller.lines.create_line("b").thread_id
    prompt = store.messages.append(a, role=MessageRole.USER, source=MessageSource.HUMAN, content="go")
    first = rows.begin(a, "c0")
    assert (first.turn, first.after_commit, first.files, first.fork_before_id) == (1, None, None, prompt.id)
    assert rows.begin(b, "x0").turn == 1
    reply = store.messages.append(a, role=MessageRole.ASSISTANT, source=MessageSource.AGENT, content="done")
    files = (
        FileChange(path="a.bin", kind=FileChangeKind.ADDED, additions=0, deletions=0, binary=True),
        FileChange(path="b.sh", kind=FileChangeKind.MODIFIED, additions=1, deletions=2, mode_changed=True),
    )
    rows.finish(a, 1, "c1", files, "finished")
    stored = rows.get(a, 1)
    assert stored is not None
    assert (stored.after_commit, stored.files, stored.message_id, stored.status) == ("c1", files, reply.id, "finished")
    second = rows.begin(a, "c1")
    # The newest message is the agent's: the fork point is after it.
    assert second.turn == 2 and second.fork_before_id == reply.id + 1
    assert [r.turn for r in rows.turns(a)] == [1, 2]
    last = rows.last(a)
    assert last is not None and last.turn == 2 and last.finished_at is None  # running
    # Issue 29 item 5: an after-snapshot that failed still ends the row (no commit, no change set).
    rows.finish(a, 2, None, None, "finished")
    ended = rows.get(a, 2)
    assert ended is not None and (ended.after_commit, ended.files, ended.status) == (None, None, "finished")
    assert ended.finished_at is not None and ended.message_id == reply.id


def test_archived_lines_are_found_for_pruning_and_forgotten(store: Store, controller: SessionController) -> None:
    rows = CheckpointRepository(store)
    live = controller.lines.create_line("live").thread_id
    old = controller.lines.create_line("old").thread_id
    bare = controller.lines.create_line("archived, never checkpointed").thread_id
    for key in (live, old):
        rows.begin(key, "c0")
    controller.lines.archive_line(old)
    controller.lines.archive_line(bare)
    assert rows.archived_before(utcnow() - timedelta(days=1)) == []
    assert rows.archived_before(utcnow() + timedelta(seconds=1)) == [old]
    assert rows.forget(old) == 1
    assert rows.turns(old) == [] and len(rows.turns(live)) == 1
