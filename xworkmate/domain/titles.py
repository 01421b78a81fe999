"""A line's title from its first message (issue 17, item 6): no model call, the person can rename it.

A new line is called ``Task line N`` until its first message; that message's
first non-empty line, trimmed and cut to ``TITLE_FROM_MESSAGE_LEN`` characters
with "…", becomes its title — only while the title is still the default one. The title is
derived text: it is made from the redacted message (SEC-1), so a key pasted into the first
message never becomes the line's name in the list, ``thread list`` or a notification.
"""

from __future__ import annotations

import re

from xworkmate.domain.secrets import redact

TITLE_FROM_MESSAGE_LEN = 60
_DEFAULT_TITLE = re.compile(r"Task line \d+")


def default_title(number: int) -> str:
    """What a line created without a title is called until its first message."""
    return f"Task line {number}"


def is_default_title(title: str) -> bool:
    return _DEFAULT_TITLE.fullmatch(title) is not None


def title_from_message(text: str, *, limit: int = TITLE_FROM_MESSAGE_LEN) -> str | None:
    """The first non-empty line of redacted ``text`` (SEC-1), whitespace collapsed, cut at a word with "…";
    None if blank."""
    for raw in redact(text).splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        if len(line) <= limit:
            return line
        cut = line[: limit - 1]
        space = cut.rfind(" ")
        if space >= limit // 2:  # cut at a word when one ends reasonably late
            cut = cut[:space]
        return cut.rstrip(" ,.;:—-") + "…"
    return None


TITLE_MAX_CHARS = 500
"""A title's most characters: the column's length (``store/tables``; PostgreSQL enforces it) and what every
read of a title takes (the first list, the store's list and line reads): SQLite does not enforce the length,
so a crafted file's 200 MB title is read as its prefix and the window's memory stays bounded (issue 29)."""
