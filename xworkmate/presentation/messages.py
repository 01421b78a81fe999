"""A stored message as its row says it: its header, its text, and whether it is an answer, a thought or a
plan (issue 19, item 3). Texts keep their catalogue context, ``MessageListModel``."""

from __future__ import annotations

from xworkmate.domain.attachments import Attachment, attachments_in, describe_size
from xworkmate.domain.messages import Message, MessageRole, MessageSource, MessageState
from xworkmate.domain.stored_text import NUL_REPLACED_NOTE, nul_replaced
from xworkmate.presentation.cards import ToolCard, plan_text, thought_summary, tool_calls_line
from xworkmate.presentation.text import QT_TRANSLATE_NOOP, TranslationContext, translate
from xworkmate.presentation.wording import plain_words

__all__ = [
    "DISPLAY_LIMIT",
    "HIDDEN_FROM_MODEL",
    "display_text",
    "is_answer",
    "is_plan",
    "is_thought",
    "message_header",
    "message_text",
    "role_label",
    "whole_answer",
]


class MessageListModel(TranslationContext):
    """The catalogue context of the conversation list's texts (the Qt model of that name shows them)."""


def is_thought(message: Message) -> bool:
    return message.role is MessageRole.ASSISTANT and bool(message.payload and message.payload.get("thought"))


def is_plan(message: Message) -> bool:
    return message.role is MessageRole.ASSISTANT and bool(message.payload and "plan" in message.payload)


def is_answer(message: Message) -> bool:
    """An assistant message that is the agent's answer (not its reasoning, not its plan)."""
    return message.role is MessageRole.ASSISTANT and not is_thought(message) and not is_plan(message)


# Longer messages are cut in the list (the full text stays available via CONTENT_ROLE).
DISPLAY_LIMIT = 20_000


def display_text(content: str) -> str:
    if len(content) <= DISPLAY_LIMIT:
        return content
    hidden = len(content) - DISPLAY_LIMIT
    more = MessageListModel.tr("… (%n more character(s) not shown in the list)", "", hidden)
    return f"{content[:DISPLAY_LIMIT]}\n{more}"


def whole_answer(message: Message, shown: str) -> str | None:
    """A stored answer's whole text when its row shows it cut at ``DISPLAY_LIMIT`` (``shown``): a body that
    rendered it as it streamed goes on showing it whole, as the person read it, rather than drop its end at the
    turn's end (and render the cut text again). None when the row shows the message as it is."""
    if is_answer(message) and len(message.content) > DISPLAY_LIMIT and shown == display_text(message.content):
        return message.content
    return None


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


def role_label(role: MessageRole | str, source: MessageSource | str | None) -> str:
    """Who a message is from, in the person's language: "You", "Agent", "Tool", "Notice"; a ``user``
    message not written by the person is a "Request" (PROV-3). The conversation's headers and the
    search results say it the same way (issue 30, item 5)."""
    try:
        role = MessageRole(role)
    except ValueError:
        return str(role)
    if role is MessageRole.USER and source != MessageSource.HUMAN:
        return translate("MessageListModel", "Request")  # an agent's words, never the person's
    return translate("MessageListModel", _ROLE_LABELS[role])


def message_header(message: Message) -> str:
    """``You · 14:02``, ``Agent · gpt-4o · 14:03``; ``role=user`` alone is not shown as "You" (PROV-3)."""
    label = role_label(message.role, message.source)
    if is_thought(message):
        label = translate("MessageListModel", "Agent (thinking)")  # kept apart from its answer
    elif is_plan(message):
        label = translate("MessageListModel", "Agent's plan")
    parts = [label]
    if _NATURAL_SOURCE.get(message.role) is not message.source:
        words = _SOURCE_WORDS.get(message.source)
        parts.append(translate("MessageListModel", words) if words else message.source.value.replace("_", " "))
    model = (message.payload or {}).get("model") if message.role is MessageRole.ASSISTANT else None
    if isinstance(model, str) and model:
        parts.append(model)
    parts.append(message.created_at.astimezone().strftime("%H:%M"))
    if message.state is MessageState.ERROR:
        parts[0] = f"⚠ {parts[0]}"
    elif message.state is MessageState.INTERRUPTED:
        parts.append(translate("MessageListModel", "interrupted"))
    if message.quarantined:  # the person sees it; the model sees a placeholder
        parts.append(translate("MessageListModel", HIDDEN_FROM_MODEL))
    return " · ".join(parts)


def message_text(message: Message, *, card: ToolCard | None = None, expanded: bool = False) -> str:
    """What a stored message's row says: a tool's card, a thought folded to one line (whole when
    ``expanded``), a plan's checklist, an assistant's tool calls, or its text cut at ``DISPLAY_LIMIT``."""
    if message.role is MessageRole.TOOL:
        return card.plain_text(expanded) if card is not None else ""
    if is_thought(message):
        return display_text(message.content) if expanded else thought_summary(message.content)
    if is_plan(message):
        return plan_text((message.payload or {}).get("plan"))
    if message.role is MessageRole.ASSISTANT and not message.content and message.payload:
        return tool_calls_line(message.payload.get("tool_calls"))
    text = display_text(message.content)
    if message.role is MessageRole.SYSTEM:
        text = plain_words(text)  # the window's own notices quote refusals that cite spec ids
    # ERR-3: the message says when its stored text had NUL bytes replaced (a tool card says it itself).
    if nul_replaced(message.payload):
        text = f"{text}\n\n({plain_words(NUL_REPLACED_NOTE)})"
    # ATT-1: what the person attached, one chip a line: its name, its kind and its size.
    chips = [attachment_chip(a) for a in attachments_in(message.payload)]
    return "\n".join([text, "", *chips]) if chips else text


_IMAGE = QT_TRANSLATE_NOOP("MessageListModel", "image")
_TEXT_FILE = QT_TRANSLATE_NOOP("MessageListModel", "text file")


def attachment_chip(attachment: Attachment) -> str:
    """``📎 shot.png · image · 1.2 MB``: an attachment as its chip and the conversation say it."""
    kind = translate("MessageListModel", _IMAGE if attachment.is_image else _TEXT_FILE)
    return f"📎 {attachment.name} · {kind} · {describe_size(attachment.size)}"
