"""Who may see what (SPEC CAT-4, CAT-8, Q-1), as pure rules.

A *viewer* is whoever reads rows: a thread (an agent reading its own
conversation, its dispatch sources, its evidence) or a global role (the person
at the desktop, an auditor). One rule decides reads and flows alike: a thread
may read a row if the row's thread is normal or has the viewer's category.

The model is a viewer too, of a different kind: it sees the frozen
*model-visible text* of a message, which for a quarantined tool result is a
placeholder naming the original message (Q-1). The rules for that text are at
the end of this module.

The store turns ``Viewer`` into one SQL predicate (``store.visibility``); the
functions here are the same rule for values already in memory.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from xworkmate.domain.threads import ThreadKind


class ViewerRole(StrEnum):
    DESKTOP = "desktop"
    """The person at the window: sees every line (a global role)."""
    AUDITOR = "auditor"
    """Reviews everything; a global role like the desktop."""
    THREAD = "thread"
    """A thread reading as itself: normal rows and rows of its own category."""


class Viewer(BaseModel):
    """A reader. Build thread viewers fresh (``of_thread``); a relabel changes what they may read."""

    model_config = ConfigDict(frozen=True)

    role: ViewerRole
    thread_id: str | None = None
    category: str | None = None

    @classmethod
    def of_thread(cls, thread_id: str, category: str | None) -> Viewer:
        return cls(role=ViewerRole.THREAD, thread_id=thread_id, category=category)

    @property
    def sees_everything(self) -> bool:
        return self.role is not ViewerRole.THREAD

    def can_read(self, category: str | None) -> bool:
        """CAT-4: global roles read everything; a thread reads normal rows and its own category's."""
        return self.sees_everything or category is None or category == self.category

    def describe(self) -> str:
        if self.sees_everything:
            return self.role.value
        return f"thread {self.thread_id} ({self.category or 'normal'})"


DESKTOP = Viewer(role=ViewerRole.DESKTOP)
AUDITOR = Viewer(role=ViewerRole.AUDITOR)


class CategorisedThread(Protocol):
    """Anything with a key and a category: ``TaskThread``, ``ThreadSummary``…"""

    @property
    def thread_id(self) -> str: ...

    @property
    def category(self) -> str | None: ...


class DeliveryFlowError(PermissionError):
    """CAT-4: content may flow from A into B only if B may read A."""

    def __init__(self, source: CategorisedThread, target: CategorisedThread) -> None:
        super().__init__(
            f"content of {source.thread_id} (category {source.category!r}) may not flow into"
            f" {target.thread_id} ({_label(target.category)}): that thread may not read"
            f" {source.category!r} content (CAT-4)"
        )
        self.source_key = source.thread_id
        self.target_key = target.thread_id


def _label(category: str | None) -> str:
    return f"category {category!r}" if category is not None else "a normal thread"


def assert_delivery_flow(source: CategorisedThread, target: CategorisedThread) -> None:
    """CAT-4: raise ``DeliveryFlowError`` unless ``target`` may read ``source``.

    A normal task's result may flow back into its category parent; category
    content never flows into a normal thread or a thread of another category.
    """
    if not Viewer.of_thread(target.thread_id, target.category).can_read(source.category):
        raise DeliveryFlowError(source, target)


# -- the neutral status of a line a viewer may not read (CAT-4) -----------------------------

HIDDEN_TITLE = "(hidden)"
NEUTRAL_STATUS_TEXT = "category task running"


class NeutralThreadStatus(BaseModel):
    """What a viewer that may not read a thread learns of it: that it exists, nothing of its content."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    thread_id: str
    kind: ThreadKind
    parent_key: str | None
    archived: bool
    updated_at: datetime
    title: str = HIDDEN_TITLE
    status_text: str = NEUTRAL_STATUS_TEXT


# -- the model as a viewer: quarantine placeholders (Q-1) ----------------------------------

PLACEHOLDER_PREFIX = "[quarantined tool result:"
_CANDIDATE_ID = re.compile(r"\bmessage\s+#?(\d+)\b")


def quarantine_placeholder(message_id: int) -> str:
    """The standard text the model sees instead of a quarantined message (Q-1). Never reworded:

    frozen copies are compared with it character for character.
    """
    return (
        f"{PLACEHOLDER_PREFIX} message {message_id} is stored but withheld from the model because it came"
        " from an untrusted source]"
    )


def withheld_text(message_id: int) -> str:
    """What the model sees of a row whose frozen text fails the quarantine check."""
    return f"[withheld: message {message_id} carries a quarantine placeholder that does not match its source]"


class QuarantineMark(BaseModel):
    """A quarantine mark. ``message_id`` names the original row; ``None`` means the row itself.

    Checks always use ``mark.message_id or row.id`` (``QuarantineMark.source_id``).
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    message_id: int | None = None

    def source_id(self, row_id: int) -> int:
        return self.message_id if self.message_id is not None else row_id


class QuarantineVerdict(StrEnum):
    NOT_QUARANTINED = "not_quarantined"
    """An ordinary row: the model sees its text."""
    MARKED = "marked"
    """A marked row whose frozen text is the standard placeholder of its source."""
    LEGACY_COPY = "legacy_copy"
    """An unmarked copy whose text is exactly the placeholder of an existing quarantined row."""
    REJECTED = "rejected"
    """A mark that does not match its text, or an unmarked placeholder nothing backs."""

    @property
    def passes(self) -> bool:
        return self is not QuarantineVerdict.REJECTED


def placeholder_candidate_id(text: str) -> int | None:
    """The id an unmarked placeholder-looking text names, as a *candidate* only.

    The legacy check never trusts it: the text must equal the standard
    placeholder for that id exactly, and that id must be a quarantined row.
    """
    if not text.startswith(PLACEHOLDER_PREFIX):
        return None
    found = _CANDIDATE_ID.search(text)
    return int(found.group(1)) if found else None


def judge_model_visible_text(
    row_id: int,
    model_text: str,
    mark: QuarantineMark | None,
    *,
    candidate_is_quarantined: bool,
) -> QuarantineVerdict:
    """Q-1: may the model be shown this row's frozen text?

    ``model_text`` is the row's model-visible text (its content when nothing
    was frozen). ``candidate_is_quarantined`` answers, for an unmarked row,
    whether the row named by ``placeholder_candidate_id(model_text)`` exists and
    is quarantined (the caller looks it up; ``False`` when there is no candidate).
    """
    if mark is not None:
        expected = quarantine_placeholder(mark.source_id(row_id))
        return QuarantineVerdict.MARKED if model_text == expected else QuarantineVerdict.REJECTED
    if not model_text.startswith(PLACEHOLDER_PREFIX):
        return QuarantineVerdict.NOT_QUARANTINED
    candidate = placeholder_candidate_id(model_text)
    if candidate is not None and candidate_is_quarantined and model_text == quarantine_placeholder(candidate):
        return QuarantineVerdict.LEGACY_COPY
    return QuarantineVerdict.REJECTED
