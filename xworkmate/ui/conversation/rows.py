"""The conversation list's roles and what a row paints: ``RowView``, the message header, the kind of message."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt

from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.presentation.messages import is_plan, is_thought  # Qt-free (issue 19)
from xworkmate.ui.rendering import BodyFormat, ToolCard

ModelIndex = QModelIndex | QPersistentModelIndex

MESSAGE_ID_ROLE = int(Qt.ItemDataRole.UserRole) + 1
HEADER_ROLE = MESSAGE_ID_ROLE + 1
STATE_ROLE = MESSAGE_ID_ROLE + 2
ROLE_ROLE = MESSAGE_ID_ROLE + 3
SOURCE_ROLE = MESSAGE_ID_ROLE + 4
CONTENT_ROLE = MESSAGE_ID_ROLE + 5
LIVE_ROLE = MESSAGE_ID_ROLE + 6
"""``"stream"`` or ``"tool"`` for a running turn's transient rows, ``None`` for stored messages."""
FORMAT_ROLE = MESSAGE_ID_ROLE + 7
"""How the body renders: ``"markdown"``, ``"plain"``, ``"tool"``, ``"thought"`` (folded, dimmed) or ``"plan"``."""
CARD_ROLE = MESSAGE_ID_ROLE + 8
"""The ``ToolCard`` of a tool row."""
EXPANDED_ROLE = MESSAGE_ID_ROLE + 9
CACHE_KEY_ROLE = MESSAGE_ID_ROLE + 10
"""A hashable key that changes whenever the row's rendering does."""
ROW_ROLE = MESSAGE_ID_ROLE + 11
"""Everything the delegate paints, as one ``RowView`` (one call into the model per row, not ten)."""
HIDDEN_ROLE = MESSAGE_ID_ROLE + 12
"""``True`` for a stored message hidden from the model (Q-1): the model sees only its placeholder."""

CHIP_ROLE = MESSAGE_ID_ROLE + 13
"""Issue 16: the "n files changed" chip on the message a turn ended on (``set_chips``), or ``None``."""

HIDDEN_FROM_MODEL = QT_TRANSLATE_NOOP("MessageListModel", "hidden from the model")


_ROLE_LABELS: dict[MessageRole, str] = {
    MessageRole.USER: QT_TRANSLATE_NOOP("MessageListModel", "You"),
    MessageRole.ASSISTANT: QT_TRANSLATE_NOOP("MessageListModel", "Agent"),
    MessageRole.TOOL: QT_TRANSLATE_NOOP("MessageListModel", "Tool"),
    MessageRole.SYSTEM: QT_TRANSLATE_NOOP("MessageListModel", "Notice"),
}


_NATURAL_SOURCE: dict[MessageRole, MessageSource] = {
    MessageRole.USER: MessageSource.HUMAN,
    MessageRole.ASSISTANT: MessageSource.AGENT,
    MessageRole.TOOL: MessageSource.TOOL,
    MessageRole.SYSTEM: MessageSource.FRAMEWORK_EVENT,
}

# Who wrote a message whose source is not the usual one for its role, in plain words (issue 18).
_SOURCE_WORDS: dict[MessageSource, str] = {
    MessageSource.HUMAN: QT_TRANSLATE_NOOP("MessageListModel", "from you"),
    MessageSource.AGENT: QT_TRANSLATE_NOOP("MessageListModel", "from the agent"),
    MessageSource.TOOL: QT_TRANSLATE_NOOP("MessageListModel", "from a tool"),
    MessageSource.FRAMEWORK_EVENT: QT_TRANSLATE_NOOP("MessageListModel", "from XWorkmate"),
    MessageSource.COMPONENT_INPUT: QT_TRANSLATE_NOOP("MessageListModel", "from the dispatching agent"),
    MessageSource.QUARANTINE: QT_TRANSLATE_NOOP("MessageListModel", "held back"),
}


def message_header(message: Message) -> str:
    """``You · 14:02``, ``Agent · gpt-4o · 14:03``; ``role=user`` alone is not shown as "You" (PROV-3)."""
    label = QCoreApplication.translate("MessageListModel", _ROLE_LABELS[message.role])
    if message.role is MessageRole.USER and message.source is not MessageSource.HUMAN:
        label = QCoreApplication.translate("MessageListModel", "Request")  # an agent's words, never the person's
    elif is_thought(message):
        label = QCoreApplication.translate("MessageListModel", "Agent (thinking)")  # kept apart from its answer
    elif is_plan(message):
        label = QCoreApplication.translate("MessageListModel", "Agent's plan")
    parts = [label]
    if _NATURAL_SOURCE.get(message.role) is not message.source:
        words = _SOURCE_WORDS.get(message.source)
        parts.append(
            QCoreApplication.translate("MessageListModel", words) if words else message.source.value.replace("_", " ")
        )
    model = (message.payload or {}).get("model") if message.role is MessageRole.ASSISTANT else None
    if isinstance(model, str) and model:
        parts.append(model)
    parts.append(message.created_at.astimezone().strftime("%H:%M"))
    if message.state is MessageState.ERROR:
        parts[0] = f"⚠ {parts[0]}"
    elif message.state is MessageState.INTERRUPTED:
        parts.append(QCoreApplication.translate("MessageListModel", "interrupted"))
    if message.quarantined:  # the person sees it; the model sees a placeholder
        parts.append(QCoreApplication.translate("MessageListModel", HIDDEN_FROM_MODEL))
    return " · ".join(parts)


@dataclass(frozen=True, slots=True)
class RowView:
    """What a row paints: the delegate reads it with one ``data(ROW_ROLE)`` call.

    Stored rows are built once per message and kept until the row's rendering
    changes (folded or unfolded, another line shown); live rows are built on
    every call, they change with each flush.
    """

    cache_key: Hashable
    text: str
    body_format: BodyFormat
    header: str
    state: str
    role: str
    live: str | None = None
    card: ToolCard | None = None
    expanded: bool = False
