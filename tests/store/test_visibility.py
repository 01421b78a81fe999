"""One visibility predicate for every message read; relabels move subtrees (CAT-4, CAT-10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dispatch.support import make_line, say
from xworkmate.domain.threads import ThreadKind, ThreadSummary
from xworkmate.domain.viewers import (
    AUDITOR,
    DESKTOP,
    HIDDEN_TITLE,
    NEUTRAL_STATUS_TEXT,
    DeliveryFlowError,
    NeutralThreadStatus,
    Viewer,
    ViewerRole,
    assert_delivery_flow,
)
from xworkmate.store import Store
from xworkmate.store.repositories import CategoryConflictError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path


def test_every_message_read_applies_the_viewers_category(store: Store, root: Path) -> None:
    """CAT-4: normal rows for everyone, category rows only for that category and global roles."""
    medical = make_line(store, root, category="medical")
    secret = say(store, medical.thread_id, "the diagnosis is confirmed")
    normal_reader = make_line(store, root)
    medical_reader = make_line(store, root, category="medical")
    legal_reader = make_line(store, root, category="legal")
    for viewer in (normal_reader, legal_reader):
        as_viewer = store.threads.viewer(viewer.thread_id)
        assert store.messages.list_for_thread(medical.thread_id, viewer=as_viewer) == []
        assert store.messages.page_ids(medical.thread_id, viewer=as_viewer) == []
        assert store.messages.get_many([secret.id], viewer=as_viewer) == {}
        assert store.messages.count(medical.thread_id, viewer=as_viewer) == 0
        assert store.messages.recent_human(medical.thread_id, viewer=as_viewer) == []
        assert store.messages.model_view(medical.thread_id, viewer=as_viewer) == []
        assert store.messages.provenance([secret.id], viewer=as_viewer) == {}
    for viewer in (store.threads.viewer(medical_reader.thread_id), DESKTOP, AUDITOR):
        assert [m.content for m in store.messages.list_for_thread(medical.thread_id, viewer=viewer)] == [
            "the diagnosis is confirmed"
        ]
        assert store.messages.count(medical.thread_id, viewer=viewer) == 1
    # Normal rows are readable by every thread.
    plain = say(store, normal_reader.thread_id, "hello")
    assert store.messages.get_many([plain.id], viewer=store.threads.viewer(legal_reader.thread_id)).keys() == {plain.id}
    # Without a viewer the reader is the person at the desktop (existing callers).
    assert store.messages.list_for_thread(medical.thread_id, viewer=DESKTOP) == [secret]


def test_a_stale_viewer_value_reads_with_the_threads_current_category(store: Store, root: Path) -> None:
    """CAT-4: the predicate looks the reader's category up in the same query."""
    medical = make_line(store, root, category="medical")
    say(store, medical.thread_id, "private")
    reader = make_line(store, root, category="medical")
    stale = Viewer.of_thread(reader.thread_id, "medical")
    assert store.messages.count(medical.thread_id, viewer=stale) == 1
    store.threads.set_category(reader.thread_id, None)
    assert store.messages.count(medical.thread_id, viewer=stale) == 0
    # A viewer that is not a thread but carries a category reads by that category.
    assert store.messages.count(medical.thread_id, viewer=Viewer(role=ViewerRole.THREAD, category="medical")) == 1


def test_threads_a_viewer_may_not_read_show_only_a_neutral_status(store: Store, root: Path) -> None:
    """CAT-4: title hidden, "category task running", nothing of the content or folder."""
    medical = make_line(store, root, category="medical", title="Oncology notes")
    normal = make_line(store, root, title="Colour picker")
    listed = {s.thread_id: s for s in store.threads.summaries_for(store.threads.viewer(normal.thread_id))}
    hidden = listed[medical.thread_id]
    assert isinstance(hidden, NeutralThreadStatus)
    assert (hidden.title, hidden.status_text) == (HIDDEN_TITLE, NEUTRAL_STATUS_TEXT)
    assert "Oncology" not in hidden.model_dump_json()
    assert isinstance(listed[normal.thread_id], ThreadSummary)
    for viewer in (DESKTOP, store.threads.viewer(medical.thread_id)):
        assert all(isinstance(s, ThreadSummary) for s in store.threads.summaries_for(viewer))


def test_relabelling_moves_the_whole_subtree_including_normal_tasks(store: Store, root: Path) -> None:
    """CAT-10: a person's relabel moves every descendant; seal levels are untouched by it."""
    top = make_line(store, root)
    task = make_line(store, root, kind=ThreadKind.TASK, parent_key=top.thread_id, category_own=True)
    nested = make_line(store, root, kind=ThreadKind.TASK, parent_key=task.thread_id, category_own=True)
    branch = make_line(store, root, kind=ThreadKind.BRANCH, parent_key=nested.thread_id)
    store.threads.set_seal_level(top.thread_id, 1)
    keys = [top.thread_id, task.thread_id, nested.thread_id, branch.thread_id]
    assert store.threads.set_category(top.thread_id, "Medical") == keys
    assert [store.threads.labels(k).category for k in keys] == ["medical"] * 4  # type: ignore[union-attr]
    assert store.threads.set_category(top.thread_id, None) == keys
    assert [store.threads.labels(k).category for k in keys] == [None] * 4  # type: ignore[union-attr]
    assert [store.threads.labels(k).seal_level for k in keys] == [1] * 4  # type: ignore[union-attr]


def test_a_child_cannot_be_relabelled_away_from_its_category_parent(store: Store, root: Path) -> None:
    """CAT-7, CAT-10: refused clearly before the trigger would; an own-category task may become normal."""
    top = make_line(store, root, category="medical")
    branch = make_line(store, root, kind=ThreadKind.BRANCH, parent_key=top.thread_id)
    task = make_line(store, root, kind=ThreadKind.TASK, parent_key=top.thread_id, category="medical", category_own=True)
    with pytest.raises(CategoryConflictError, match="relabel the top of that tree"):
        store.threads.set_category(branch.thread_id, None)
    with pytest.raises(CategoryConflictError, match="relabel the top of that tree"):
        store.threads.set_category(task.thread_id, "legal")
    assert store.threads.set_category(task.thread_id, None) == [task.thread_id]
    assert store.threads.labels(task.thread_id).category is None  # type: ignore[union-attr]
    assert store.threads.labels(branch.thread_id).category == "medical"  # type: ignore[union-attr]


def test_delivery_flows_only_where_the_target_may_read_the_source(store: Store, root: Path) -> None:
    """CAT-4: normal → anything; category → same category only."""
    medical = make_line(store, root, category="medical")
    legal = make_line(store, root, category="legal")
    normal = make_line(store, root)
    assert_delivery_flow(normal, medical)
    assert_delivery_flow(medical, medical)
    for target in (normal, legal):
        with pytest.raises(DeliveryFlowError, match=f"content of {medical.thread_id}"):
            assert_delivery_flow(medical, target)
