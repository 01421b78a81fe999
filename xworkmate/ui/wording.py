"""Plain words in the window: no spec ids, no internal names (issue 18, item 4).

Spec ids such as ``CAT-3`` or ``ISO-7`` are for developers (docstrings,
tests, the CLI's refusals cite them); the window shows the sentence without
them. ``SPEC_ID`` is the one pattern for them: the window's texts pass
through ``plain_words`` before they show, and ``tests/ui/test_wording.py``
scans the ui package's strings and the rendered window with it.
"""

from __future__ import annotations

import re

SPEC_PREFIXES = ("CAT", "ERR", "ISO", "LOOP", "PROV", "Q", "SBX", "SEC", "WR")
"""The prefixes of SPEC.md's rule ids."""

SPEC_ID = re.compile(r"\b(?:" + "|".join(SPEC_PREFIXES) + r")-\d+\b")
_ID = r"(?:" + "|".join(SPEC_PREFIXES) + r")-\d+"
_CITATION = re.compile(r"\s*\(\s*" + _ID + r"(?:\s*(?:,|and|/)\s*" + _ID + r")*\s*\)")
_BARE = re.compile(r"\s*\b" + _ID + r"\b:?")


def plain_words(text: str) -> str:
    """``text`` without spec ids: a cited ``(CAT-3)`` goes with its brackets, a bare ``ISO-7`` alone."""
    if SPEC_ID.search(text) is None:
        return text
    text = _CITATION.sub("", text)
    return _BARE.sub("", text).strip()
