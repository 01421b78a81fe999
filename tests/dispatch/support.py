"""Helpers for the dispatch tests: real lines in a real store, real providers on the test server."""

from __future__ import annotations

from pathlib import Path

from xworkmate.domain.keys import allocate_draft_key
from xworkmate.domain.messages import Message, MessageRole, MessageSource
from xworkmate.domain.threads import BoundBy, TaskThread, ThreadKind, WorkspaceBinding
from xworkmate.llm import ModelRouter, ProviderConfig, RetryPolicy, Timeouts
from xworkmate.store import Store
from xworkmate.store.repositories import utcnow

FAST = RetryPolicy(max_retries=1, base_delay=0.01, max_delay=0.02, max_retry_after=0.1)
SHORT = Timeouts(connect=2.0, read=5.0, write=2.0, pool=2.0)

PLAIN = "plain"
PLAIN_MODEL = "plain-model"
MED = "med"
MED_MODEL = "med-model"
MEDICAL = "medical"


def real_router(base_url: str) -> ModelRouter:
    """One untagged provider (the default) and one tagged ``medical``, both on the test server."""
    return ModelRouter(
        [
            ProviderConfig(name=PLAIN, base_url=base_url, model=PLAIN_MODEL, is_default=True),
            ProviderConfig(name=MED, base_url=base_url, model=MED_MODEL, tags=frozenset({MEDICAL})),
        ],
        retry=FAST,
        timeouts=SHORT,
    )


def make_line(
    store: Store,
    root: Path,
    *,
    category: str | None = None,
    title: str = "conversation",
    kind: ThreadKind = ThreadKind.CONVERSATION,
    parent_key: str | None = None,
    category_own: bool = False,
) -> TaskThread:
    key = allocate_draft_key()
    folder = root / key.replace(":", "-")
    folder.mkdir(parents=True, exist_ok=True)
    now = utcnow()
    return store.threads.insert(
        TaskThread(
            thread_id=key,
            title=title,
            kind=kind,
            parent_key=parent_key,
            category=category,
            workspace_binding=WorkspaceBinding(path=str(folder), bound_by=BoundBy.EXPLICIT),
            created_at=now,
            updated_at=now,
        ),
        category_own=category_own,
    )


def say(store: Store, key: str, text: str, source: MessageSource = MessageSource.HUMAN) -> Message:
    """A message with ``role=user``; only ``source=human`` makes it the person's words."""
    return store.messages.append(key, role=MessageRole.USER, source=source, content=text)
