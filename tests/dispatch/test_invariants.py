"""Random trees of threads, dispatches, relabels and compactions never leak a category (CAT-2, CAT-4, CAT-7, PROV-3).

SQLite only, to stay fast; the rules themselves are tested on both databases elsewhere.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.dispatch.support import make_line, say
from xworkmate.dispatch import NOT_PASSED, DispatchError, DispatchService
from xworkmate.domain.categories import TaskCategoryError
from xworkmate.domain.keys import key_to_dir_name
from xworkmate.domain.messages import Message, MessageRole, MessageSource
from xworkmate.domain.threads import ThreadKind
from xworkmate.domain.viewers import DESKTOP, QuarantineMark
from xworkmate.llm import ModelRouter, ProviderConfig
from xworkmate.store import Store, open_store
from xworkmate.store.repositories import CategoryConflictError

CATEGORIES = (None, "medical", "legal")
NOWHERE = "http://127.0.0.1:9/v1"  # candidates() is pure: nothing is ever sent
ROUTER = ModelRouter(
    [
        ProviderConfig(name="plain", base_url=NOWHERE, model="p", is_default=True),
        ProviderConfig(name="med", base_url=NOWHERE, model="m", tags=frozenset({"medical"})),
        ProviderConfig(name="both", base_url=NOWHERE, model="b", tags=frozenset({"medical", "legal"})),
        ProviderConfig(name="law", base_url=NOWHERE, model="l", tags=frozenset({"legal"})),
    ]
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, DispatchService, Path]]:
    root = tmp_path_factory.mktemp("invariants")
    store = open_store(f"sqlite:///{root / 'db.sqlite3'}")
    service = DispatchService(store, router=ROUTER, workspace_for=lambda key: root / "lines" / key_to_dir_name(key))
    try:
        yield store, service, root
    finally:
        store.close()


index = st.integers(min_value=0, max_value=30)
operation = st.one_of(
    st.tuples(st.just("conversation"), st.sampled_from(CATEGORIES)),
    st.tuples(
        st.just("say"),
        index,
        st.sampled_from(["human", "framework_event", "component_input", "quarantined"]),
    ),
    st.tuples(st.just("dispatch"), index, st.sampled_from([NOT_PASSED, *CATEGORIES])),
    st.tuples(st.just("followup"), index),
    st.tuples(st.just("relabel"), index, st.sampled_from(CATEGORIES)),
    st.tuples(st.just("compact"), index),
    st.tuples(st.just("fork"), index),
)

EXPECTED_REFUSALS = (TaskCategoryError, CategoryConflictError, DispatchError)


def _apply(store: Store, service: DispatchService, root: Path, keys: list[str], op: tuple[Any, ...]) -> None:
    name = op[0]
    if name == "conversation":
        keys.append(make_line(store, root, category=op[1]).thread_id)
        return
    key = keys[op[1] % len(keys)]
    if name == "say":
        if op[2] == "quarantined":
            store.messages.append(
                key, role=MessageRole.USER, source=MessageSource.HUMAN, content="q", quarantine=QuarantineMark()
            )
        else:
            say(store, key, f"words on {key}", MessageSource(op[2]))
    elif name == "dispatch":
        keys.append(service.start_task(key, "goal", category=op[2]).key)
    elif name == "followup":
        service.send_followup(key, "more")
    elif name == "relabel":
        service.set_category(key, op[2])
    elif name == "compact":
        service.compact(key)
    elif name == "fork":
        keys.append(service.fork(key).thread_id)


def _assert_readable(reader: str, category_of: dict[str, str | None], messages: list[Message]) -> None:
    own = category_of[reader]
    for message in messages:
        assert category_of[message.thread_id] in (None, own), (reader, own, message.thread_id)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=st.sampled_from(CATEGORIES), ops=st.lists(operation, min_size=1, max_size=14))
def test_no_viewer_reads_a_category_it_does_not_hold_and_calls_only_reach_tagged_models(
    world: tuple[Store, DispatchService, Path], first: str | None, ops: list[tuple[Any, ...]]
) -> None:
    """CAT-4, CAT-8, PROV-3: every read as a thread; CAT-7 in the rows; CAT-2 in the router's candidates."""
    store, service, root = world
    keys = [make_line(store, root, category=first).thread_id]
    for op in ops:
        with contextlib.suppress(*EXPECTED_REFUSALS):  # refused operations change nothing
            _apply(store, service, root, keys, op)

    labels = {key: store.threads.labels(key) for key in keys}
    category_of = {key: lab.category for key, lab in labels.items() if lab is not None}
    all_ids = [i for key in keys for i in store.messages.page_ids(key, limit=10_000, viewer=DESKTOP)]
    for reader in keys:
        viewer = service.viewer_for(reader)
        _assert_readable(reader, category_of, list(store.messages.get_many(all_ids, viewer=viewer).values()))
        for key in keys:
            _assert_readable(reader, category_of, store.messages.list_for_thread(key, viewer=viewer))
            _assert_readable(reader, category_of, store.messages.model_view(key, viewer=viewer))
            _assert_readable(reader, category_of, service.task_sources(key, viewer))
        own_sources = service.task_sources(reader)
        evidence = service.evidence_for(reader)
        _assert_readable(reader, category_of, own_sources + evidence)
        assert all(m.source is MessageSource.HUMAN for m in own_sources + evidence)
        assert not any(store.messages.provenance([m.id], viewer=DESKTOP)[m.id].quarantined for m in evidence)

    for key, lab in labels.items():
        assert lab is not None
        if lab.parent_key is not None and category_of.get(lab.parent_key) is not None:
            # CAT-7: under a category parent, the parent's category, or a task's own "normal".
            assert lab.category == category_of[lab.parent_key] or (
                lab.category is None and lab.category_own and lab.kind is ThreadKind.TASK
            )
        thread = store.threads.get(key)
        assert thread is not None
        # Even a binding pinned before a relabel cannot reach an untagged model.
        candidates = ROUTER.candidates(lab.category, pinned=thread.execution_binding.provider)
        assert all(lab.category is None or lab.category in p.tags for p in candidates), (lab, candidates)
