"""Plain words in the window: no spec ids, no internal names, the person's language (issues 18 and 20).

Qt-free since issue 19 (item 3): the window's ``xworkmate.presentation.wording`` re-exports these names.

Spec ids such as ``CAT-3`` or ``ISO-7`` are for developers (docstrings,
tests, the CLI's refusals cite them); the window shows the sentence without
them. ``SPEC_ID`` is the one pattern for them: the window's texts pass
through ``plain_words`` before they show, and ``tests/ui/test_wording.py``
scans the ui package's strings and the rendered window with it.

``plain_words`` is also where the core's texts are translated (issue 20). The
core marks its fixed texts and ``str.format`` templates with
``domain.translatable.QT_TRANSLATE_NOOP``; each becomes a pattern (built once)
that finds the text in what the window is handed, the values filled in
included, and the match is written again from the translated template with the
same values. With no translator installed every translation is the English
text itself, so nothing changes.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from string import Formatter

from xworkmate.domain.lines import has_default_title
from xworkmate.domain.translatable import marked_texts
from xworkmate.presentation.text import english_plural, translate

SPEC_PREFIXES = ("CAT", "ERR", "ISO", "LOOP", "PROV", "Q", "SBX", "SEC", "WR")
"""The prefixes of SPEC.md's rule ids."""

SPEC_ID = re.compile(r"\b(?:" + "|".join(SPEC_PREFIXES) + r")-\d+\b")
_ID = r"(?:" + "|".join(SPEC_PREFIXES) + r")-\d+"
_CITATION = re.compile(r"\s*\(\s*" + _ID + r"(?:\s*(?:,|and|/)\s*" + _ID + r")*\s*\)")
_BARE = re.compile(r"\s*\b" + _ID + r"\b:?")

# A ``{name!r}`` field is a Python repr of a string: quoted with ' or ", backslash escapes inside.
_REPR_VALUE = r"""(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""


__all__ = [
    "SPEC_ID",
    "SPEC_PREFIXES",
    "WHOLE_ONLY_BELOW",
    "CoreText",
    "core_text",
    "core_texts",
    "english_plural",
    "home_relative",
    "line_title",
    "plain_words",
    "translate_core_texts",
]

WHOLE_ONLY_BELOW = 24
"""Characters of fixed text a core text needs to be found inside a longer text (``CoreText.whole_only``)."""


@dataclass(frozen=True, slots=True)
class CoreText:
    """A text the core marked, and how to find it (filled in) inside a shown text."""

    context: str
    source: str
    expression: str  # the pattern's source: compiled when a shown text first holds the anchor
    anchor: str  # its longest fixed part: a cheap test before the pattern runs

    @property
    def pattern(self) -> re.Pattern[str]:
        """Compiled on first use (``re`` keeps it): most texts never hold most anchors, and compiling every
        core text's pattern cost the window's first fill ~10 ms (issue 19, item 7)."""
        return re.compile(self.expression, re.DOTALL)

    @property
    def whole_only(self) -> bool:
        """A short text ("failed", "write {path}") is translated only as the whole shown text: inside a
        longer one it is more likely an ordinary word of another sentence than this core text."""
        return len(self.anchor.strip()) < WHOLE_ONLY_BELOW


def _group(field: str, conversion: str | None) -> str:
    """The regex group of a field as the template shows it: ``{name!r}`` and ``{name}`` are two groups."""
    return f"{field}__repr" if conversion == "r" else field


def core_text(context: str, source: str) -> CoreText:
    """The pattern of one marked text: its fixed parts literally, each named field as a group."""
    parts: list[str] = []
    seen: set[str] = set()
    literals: list[str] = []
    pieces = list(Formatter().parse(source))
    for index, (literal, field, _spec, conversion) in enumerate(pieces):
        parts.append(re.escape(literal))
        literals.append(literal)
        if field is None:
            continue
        group = _group(field, conversion)
        if group in seen:
            parts.append(f"(?P={group})")
            continue
        seen.add(group)
        last = index == len(pieces) - 1
        value = _REPR_VALUE if conversion == "r" else (r"\S+" if last else r".+?")
        parts.append(f"(?P<{group}>{value})")
    # Whole words only: "ready" is translated in "Runnable — ready.", not inside "already" or "ready-made".
    body = r"(?<![\w-])" + "".join(parts) + r"(?![\w-])"
    return CoreText(context, source, body, max(literals, key=len))


_cache: dict[str, CoreText] = {}


def core_texts() -> list[CoreText]:
    """Every marked text's pattern, built once (texts marked later are added when first asked for)."""
    for source, context in marked_texts().items():
        if source not in _cache:
            _cache[source] = core_text(context, source)
    return list(_cache.values())


def _value(values: dict[str, str], field: str, conversion: str | None) -> str:
    """A field's value as ``conversion`` shows it, from however the source text showed it."""
    shown = values.get(_group(field, conversion))
    if shown is not None:
        return shown
    if conversion == "r":
        return repr(values[field])
    return str(ast.literal_eval(values[_group(field, "r")]))


def _render(template: str, values: dict[str, str]) -> str:
    """``template`` with each field replaced by the value as the source text showed it (quotes and all)."""
    out: list[str] = []
    for literal, field, _spec, conversion in Formatter().parse(template):
        out.append(literal)
        if field is not None:
            out.append(_value(values, field, conversion))
    return "".join(out)


def translate_core_texts(text: str) -> str:
    """``text`` with every core text in it written in the installed language."""
    for known in core_texts():
        if known.anchor not in text:
            continue
        if known.whole_only:
            found = known.pattern.fullmatch(text.strip())
            if found is None:
                continue
            text = text.strip()
        else:
            found = known.pattern.search(text)
        if found is None:
            continue
        translated = translate(known.context, known.source)
        if translated == known.source:
            continue
        try:
            rendered = _render(translated, found.groupdict())
        except (KeyError, ValueError, SyntaxError):  # a translation naming a field the source does not have
            continue
        text = text[: found.start()] + rendered + text[found.end() :]
    return text


def plain_words(text: str) -> str:
    """``text`` in the person's language and without spec ids: a cited ``(CAT-3)`` goes with its brackets,
    a bare ``ISO-7`` alone."""
    text = translate_core_texts(text)
    if SPEC_ID.search(text) is None:
        return text
    text = _CITATION.sub("", text)
    return _BARE.sub("", text).strip()


def line_title(thread_id: str, title: str) -> str:
    """A line's title as the window shows it: the main line's starting title in the person's language,
    any title a person gave exactly as given (issue 20)."""
    if has_default_title(thread_id, title):
        return translate("CoreText", title)
    return title


def home_relative(path: str) -> str:
    """A folder as the window shows it: under the person's home as ``~/…`` (issue 30: the place, not the
    machine's layout); anything else as it is. The tooltip keeps the whole path."""
    home = os.path.expanduser("~")
    if not path or not home or home == "/" or not os.path.isabs(path):
        return path
    normal = os.path.normpath(path)
    if normal == home:
        return "~"
    if normal.startswith(home.rstrip(os.sep) + os.sep):
        return "~" + os.sep + normal[len(home.rstrip(os.sep)) + 1 :]
    return path
