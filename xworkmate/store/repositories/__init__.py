"""Repositories: the only code that reads and writes rows. They return domain models.

Every message read takes a ``viewer`` (CAT-4), a required argument, and adds
the one visibility predicate, ``store.visibility.visible_thread_clause``; the
person at the desktop is ``DESKTOP``, named by the caller, never assumed. What
the model reads goes through ``model_view`` / ``model_view_of`` (Q-1). The dispatch repository
keeps what must happen in one transaction together: a task's identity and its
frozen dispatch sources (PROV-1), a follow-up and the snapshot it replaces
(PROV-4), a fork and the messages, marks and sources it copies (Q-1).
"""

from __future__ import annotations

from xworkmate.store.repositories.app_state import AppStateRepository
from xworkmate.store.repositories.dispatch import CreatedFork, CreatedTask, DispatchRepository, RecordedFollowup
from xworkmate.store.repositories.messages import MessageRepository
from xworkmate.store.repositories.providers import ProviderExistsError, ProviderRepository
from xworkmate.store.repositories.records import (
    DEFAULT_CAPTURE_LIMIT,
    CategoryConflictError,
    MessageProvenance,
    NotATaskError,
    SessionGeneration,
    ThreadLabels,
    utcnow,
)
from xworkmate.store.repositories.threads import ThreadRepository

__all__ = [
    "DEFAULT_CAPTURE_LIMIT",
    "AppStateRepository",
    "CategoryConflictError",
    "CreatedFork",
    "CreatedTask",
    "DispatchRepository",
    "MessageProvenance",
    "MessageRepository",
    "NotATaskError",
    "ProviderExistsError",
    "ProviderRepository",
    "RecordedFollowup",
    "SessionGeneration",
    "ThreadLabels",
    "ThreadRepository",
    "utcnow",
]
