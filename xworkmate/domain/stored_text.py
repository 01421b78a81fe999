"""Text as both databases keep it (ERR-3).

PostgreSQL refuses a NUL byte in a text value; SQLite keeps it. So that both
keep the same text, every value on its way to storage has each NUL replaced
with U+FFFD (``storable_text``), strings inside JSON too (``storable_json``,
``storable_json_text``). A message whose text was changed carries
``NUL_REPLACED_KEY`` in its payload, and the window and the CLI show
``NUL_REPLACED_NOTE`` beside it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

NUL = "\x00"
NUL_REPLACEMENT = "\ufffd"
# json.dumps writes a NUL inside a string as this escape (PostgreSQL text accepts it; jsonb would not).
_JSON_NUL_ESCAPE = "\\u0000"

NUL_REPLACED_KEY = "nul_replaced"
"""The message payload flag: some of this message's text had NUL bytes replaced."""

NUL_REPLACED_NOTE = f"NUL bytes in this output were replaced with {NUL_REPLACEMENT}"
"""What the tool card, the message and ``xworkmate messages`` say when the flag is set."""


def storable_text(text: str) -> tuple[str, bool]:
    """``text`` with every NUL byte replaced by U+FFFD, and whether there was any."""
    if NUL not in text:
        return text, False
    return text.replace(NUL, NUL_REPLACEMENT), True


def storable_json(value: Any) -> tuple[Any, bool]:
    """A JSON-shaped value with ``storable_text`` applied to every string in it, keys included."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, Mapping):
        replaced = False
        items: dict[Any, Any] = {}
        for key, item in value.items():
            new_key, key_changed = storable_json(key)
            new_item, item_changed = storable_json(item)
            items[new_key] = new_item
            replaced = replaced or key_changed or item_changed
        return (items, True) if replaced else (value, False)
    if isinstance(value, list | tuple):
        pairs = [storable_json(item) for item in value]
        if not any(changed for _, changed in pairs):
            return value, False
        return type(value)(item for item, _ in pairs), True
    return value, False


def storable_json_text(text: str) -> str:
    """JSON text (as ``json.dumps`` writes it) whose strings hold no NUL; unchanged when none did."""
    text, _ = storable_text(text)  # valid JSON has no raw NUL, but nothing here assumes it is valid
    if _JSON_NUL_ESCAPE not in text:
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    value, replaced = storable_json(value)
    return json.dumps(value) if replaced else text


def storable_message(
    content: str, model_visible_text: str | None, payload: dict[str, Any] | None
) -> tuple[str, str | None, dict[str, Any] | None]:
    """A message's text, frozen model text and payload as stored; the payload flags any replacement."""
    content, replaced = storable_text(content)
    if model_visible_text is not None:
        model_visible_text, visible_replaced = storable_text(model_visible_text)
        replaced = replaced or visible_replaced
    if payload is not None:
        payload, payload_replaced = storable_json(payload)
        replaced = replaced or payload_replaced
    if replaced:
        payload = {**(payload or {}), NUL_REPLACED_KEY: True}
    return content, model_visible_text, payload


def nul_replaced(payload: Mapping[str, Any] | None) -> bool:
    """Whether a message's payload says NUL bytes in its text were replaced."""
    return bool(payload and payload.get(NUL_REPLACED_KEY))
