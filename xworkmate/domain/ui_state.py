"""What the window remembers of itself (``ui_state``): one table of typed keys, one codec each (issue 33
item 3; napari's settings as the model).

Each ``UiStateKey`` names its key, its type, its default and the codec that turns the stored text into a
value and back. A codec reads every form an older XWorkmate wrote and writes one: the booleans were
stored as ``1``/``0`` (desktop notifications) and as ``true``/``false`` (Enter sends); both read back,
and ``true``/``false`` is what is written now. A value a codec cannot read is the key's default, never
an error: the layout is a convenience (a person's database may hold anything an old build wrote).

The store keeps the text (``SessionController.lines.ui_state`` / ``set_ui_state``); the window reads and
writes through a key (``key.decode(controller.lines.ui_state(key.name))``, ``key.encode(value)``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = [
    "ENTER_SENDS",
    "GEOMETRY",
    "NOTIFICATIONS",
    "PANES",
    "SPLITTER_SIZES",
    "THEME",
    "UI_STATE_KEYS",
    "Codec",
    "UiStateKey",
    "bool_codec",
    "json_codec",
    "text_codec",
]

T = TypeVar("T")

TRUE_FORMS = frozenset({"true", "1", "yes", "on"})
FALSE_FORMS = frozenset({"false", "0", "no", "off"})


@dataclass(frozen=True)
class Codec(Generic[T]):
    """``read(text)`` gives the value or raises ``ValueError``; ``write(value)`` gives the text stored."""

    read: Callable[[str], T]
    write: Callable[[T], str]


def _read_bool(text: str) -> bool:
    word = text.strip().lower()
    if word in TRUE_FORMS:
        return True
    if word in FALSE_FORMS:
        return False
    raise ValueError(f"not a boolean: {text!r}")


bool_codec: Codec[bool] = Codec(_read_bool, lambda value: "true" if value else "false")
text_codec: Codec[str] = Codec(lambda text: text, lambda value: value)


def json_codec(kind: type) -> Codec[Any]:
    """JSON text holding a ``kind`` (``list``, ``dict``); anything else is unreadable."""

    def read(text: str) -> Any:
        value = json.loads(text)
        if not isinstance(value, kind):
            raise ValueError(f"not a {kind.__name__}: {text!r}")
        return value

    return Codec(read, lambda value: json.dumps(value))


@dataclass(frozen=True)
class UiStateKey(Generic[T]):
    name: str
    default: T
    codec: Codec[T]
    doc: str

    def decode(self, stored: str | None) -> T:
        """The stored text as a value: the default when there is none or it cannot be read."""
        if stored is None or stored == "":
            return self.default
        try:
            return self.codec.read(stored)
        except ValueError:
            return self.default

    def encode(self, value: T) -> str:
        return self.codec.write(value)


THEME: UiStateKey[str] = UiStateKey(
    "theme.mode", "", text_codec, "the person's theme: system, light or dark; empty: the opening's word"
)
GEOMETRY: UiStateKey[str] = UiStateKey(
    "main_window.geometry", "", text_codec, "the window's size and place (Qt's saveGeometry, base64)"
)
SPLITTER_SIZES: UiStateKey[list[Any]] = UiStateKey(
    "main_window.splitter_sizes", [], json_codec(list), "the three panes' widths, left to right"
)
PANES: UiStateKey[dict[str, Any]] = UiStateKey(
    "main_window.panes", {}, json_codec(dict), "each side pane's width and whether the person hid it"
)
NOTIFICATIONS: UiStateKey[bool] = UiStateKey(
    "notifications.enabled", True, bool_codec, "desktop notifications on (LOOP-2); was stored as 1/0"
)
ENTER_SENDS: UiStateKey[bool] = UiStateKey(
    "composer.enter_sends", True, bool_codec, "Enter sends (else Ctrl+Enter); was stored as true/false"
)


def hidden_panes(state: dict[str, Any]) -> tuple[bool, bool]:
    """Which side panes (left, right) the person hid, as ``PANES`` stores it; neither when it says nothing usable."""
    hidden = state.get("hidden")
    if isinstance(hidden, list) and len(hidden) == 2:
        return hidden[0] is True, hidden[1] is True
    return False, False


UI_STATE_KEYS: dict[str, UiStateKey[Any]] = {
    key.name: key for key in (THEME, GEOMETRY, SPLITTER_SIZES, PANES, NOTIFICATIONS, ENTER_SENDS)
}
"""Every ``ui_state`` key, by name: the one home of the names the window keeps."""
