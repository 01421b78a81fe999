"""The conversation list's roles and what a row paints: ``RowView`` (the header and the kind of message are
``presentation.messages``', Qt-free)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt

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
SEARCH_HIT_ROLE = MESSAGE_ID_ROLE + 14
"""Issue 30 item 5: the query (``str``) of the search hit just opened in this message
(``mark_search_hit``) while it is marked; ``None`` for every other row."""


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
    line: str | None = None
    """The row's line: a live row's rendering is kept per line (a switch back renders only what streamed since),
    and a stored answer takes over what its line streamed (``MessageDelegate._streamed``)."""
    whole: str | None = None
    """A stored answer's whole text when ``text`` is it cut (``presentation.messages.whole_answer``): what a body
    taken over from its stream shows."""
