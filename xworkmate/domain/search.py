"""Search across lines (SPEC LOOP-3): one tokenising rule, one query rule, typed hits.

Both databases index the *same* tokens, made here, so a query finds the same rows on SQLite
(FTS5) and on PostgreSQL (``tsvector`` + GIN):

* Text is normalised (NFKC, case-folded). A run of letters/digits that is not CJK is one
  token (a *word*). A run of CJK characters (Han, kana, Hangul) becomes its overlapping
  character pairs (*bigrams*): ``蓝色天空`` → ``蓝色 色天 天空``; a one-character run is a token
  by itself. Every CJK character is also kept on its own in a second list (``chars``), so a
  one-character search finds it anywhere. Trigram indexes (FTS5 ``trigram``, ``pg_trgm``)
  cannot find two-character words, which most Chinese words are.
* A query is cut the same way into *segments*, all of which must match: a word matches the
  same word, and with a ``*`` after it any word it begins (``conf*`` finds ``config``); a CJK
  run of two or more characters matches as the phrase of its bigrams (an exact substring); a
  single CJK character matches through ``chars``. Whole words by default: a prefix of a common
  word would merge the postings of every word it begins (measured: 20-40 ms at 200,000
  messages on SQLite for a four-letter prefix, 0.1 ms for the whole word); two- and
  three-character prefixes have their own index on SQLite.
* A message's first ``MAX_TERMS`` tokens are indexed (PostgreSQL keeps positions up to
  16,383); a token is cut to ``MAX_TOKEN_CHARS``.

Hits carry a snippet with highlight ranges, computed from the stored text with the same rule.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MAX_TERMS = 10_000
MAX_TOKEN_CHARS = 40
SNIPPET_CHARS = 120
SNIPPET_LEAD = 40
DEFAULT_SEARCH_LIMIT = 50

_CJK_CLASS = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf"  # Han extension A
    "\u4e00-\u9fff"  # Han
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # Han compatibility
    "\U00020000-\U0003134f"  # Han extensions B-G
)
_WORDS = re.compile(r"[^\W_]+")
"""Without a CJK character, every token is a word: one ``findall``."""


class _CjkPatterns:
    """The patterns with the CJK class, compiled at their first use rather than at import: ~2 ms each, and the
    window's start, which imports this module with the store, searches and indexes nothing (issue 34 item 4)."""

    def __init__(self) -> None:
        # A word is a run of letters and digits that are not CJK (a negated class: no look-ahead per character).
        self.token = re.compile(rf"(?P<cjk>[{_CJK_CLASS}]+)|(?P<word>[^\W_{_CJK_CLASS}]+)")
        self.any_cjk = re.compile(rf"[{_CJK_CLASS}]")
        self.word_char = re.compile(rf"[^\W_{_CJK_CLASS}]")


@lru_cache(maxsize=1)
def _cjk() -> _CjkPatterns:
    return _CjkPatterns()


def normalise(text: str) -> str:
    """The form both the index and the query are made from."""
    return unicodedata.normalize("NFKC", text).casefold()


FOLDED_TITLE_MAX_BYTES = 2_000
"""The longest folded title (UTF-8) a line stores for the search's title test; a longer one is stored as
NULL, "may match", and matched in full by the caller. PostgreSQL refuses an index entry past 2,704 bytes,
and ``ix_threads_title_folded`` holds this column (0025): a 500-character title can fold to ~9,000 characters
(NFKC expands U+FDFA to 18), so an unbounded value could make a line impossible to create, rename or upgrade."""


def folded_title(title: str) -> str | None:
    """What a line stores as ``threads.title_folded``: ``normalise(title)``, or ``None`` past
    ``FOLDED_TITLE_MAX_BYTES`` (read as "may match")."""
    folded = normalise(title)
    return folded if len(folded.encode("utf-8")) <= FOLDED_TITLE_MAX_BYTES else None


def searchable_text(content: str, payload: Mapping[str, Any] | str | None = None) -> str:
    """What of a message is searched: its text, and the names and arguments of its tool calls."""
    if isinstance(payload, str):
        try:
            payload = json.loads(payload)
        except ValueError:
            payload = None
    parts = [content]
    calls = payload.get("tool_calls") if isinstance(payload, Mapping) else None
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            parts.extend([str(function.get("name") or ""), _readable_arguments(function.get("arguments"))])
    return "\n".join(part for part in parts if part)


def _readable_arguments(arguments: Any) -> str:
    """A call's arguments as JSON with its characters as they are: a model may send ``"\\u4f60\\u597d"`` for
    "你好", which no Chinese query would find and a snippet would show as escapes (issue 30)."""
    text = str(arguments or "")
    if "\\u" not in text:
        return text
    try:
        return json.dumps(json.loads(text), ensure_ascii=False)
    except ValueError:
        return text


@dataclass(frozen=True, slots=True)
class IndexTerms:
    """The tokens of one text: ``terms`` in order (words and CJK bigrams), ``chars`` (each CJK character once).

    A plain dataclass: one is made for every message written (and 500,000 when a benchmark seeds)."""

    terms: tuple[str, ...]
    chars: tuple[str, ...]

    def tsvector_literal(self) -> str:
        """PostgreSQL: the terms with their positions (phrases need them), the characters without."""
        positions: dict[str, list[int]] = {}
        for n, term in enumerate(self.terms, start=1):
            positions.setdefault(term, []).append(n)
        lexemes = [f"'{term}':{','.join(map(str, at))}" for term, at in positions.items()]
        lexemes += [f"'{char}'" for char in self.chars if char not in positions]
        return " ".join(lexemes)


def _tokens(normalised: str) -> Iterator[tuple[str, str]]:
    for match in _cjk().token.finditer(normalised):
        yield match.lastgroup or "word", match.group()


def index_terms(text: str) -> IndexTerms:
    """The tokens the index keeps for ``text`` (the module docstring has the rule).

    Every message stored is indexed on the turn's store thread (a long answer, a tool's output), so a text
    without CJK, the most common, is cut in one ``findall`` (issue 34 item 1: a 31 KB answer 3.6-4.7 ms -> 1.2)."""
    normalised = normalise(text)
    if _cjk().any_cjk.search(normalised) is None:
        return IndexTerms(
            terms=tuple([word[:MAX_TOKEN_CHARS] for word in _WORDS.findall(normalised)[:MAX_TERMS]]), chars=()
        )
    terms: list[str] = []
    chars: dict[str, None] = {}
    for kind, token in _tokens(normalised):
        if kind == "word":
            terms.append(token[:MAX_TOKEN_CHARS])
        else:
            chars.update(dict.fromkeys(token))
            terms.extend([token] if len(token) == 1 else [token[i : i + 2] for i in range(len(token) - 1)])
        if len(terms) >= MAX_TERMS:
            del terms[MAX_TERMS:]
            break
    return IndexTerms(terms=tuple(terms), chars=tuple(chars))


class SegmentKind(StrEnum):
    WORD = "word"
    """Matches the same token; with ``prefix``, any token it begins."""
    PHRASE = "phrase"
    """Two or more CJK characters: the phrase of their bigrams, an exact substring."""
    CHAR = "char"
    """One CJK character, found anywhere through ``chars``."""


class QuerySegment(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    kind: SegmentKind
    text: str
    """The normalised text the segment stands for (a word, a CJK run, a character)."""
    prefix: bool = False
    """A word written with ``*`` after it: it matches the words it begins."""

    @property
    def tokens(self) -> tuple[str, ...]:
        if self.kind is SegmentKind.PHRASE:
            return tuple(self.text[i : i + 2] for i in range(len(self.text) - 1))
        return (self.text[:MAX_TOKEN_CHARS],)


class SearchQuery(BaseModel):
    """A parsed query: every segment must match (``parse_query``)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    raw: str
    segments: tuple[QuerySegment, ...]

    @property
    def empty(self) -> bool:
        return not self.segments

    def fts5_match(self) -> str:
        """SQLite FTS5: a MATCH expression over the ``terms`` and ``chars`` columns."""
        parts = []
        for segment in self.segments:
            if segment.kind is SegmentKind.CHAR:
                parts.append(f'chars : "{segment.text}"')
            elif segment.kind is SegmentKind.PHRASE:
                parts.append(f'terms : "{" ".join(segment.tokens)}"')
            else:
                parts.append(f'terms : "{segment.tokens[0]}"' + ("*" if segment.prefix else ""))
        return " AND ".join(parts)

    def tsquery_literal(self) -> str:
        """PostgreSQL: the same query as a ``tsquery`` (cast, not parsed: the tokens are already made)."""
        parts = []
        for segment in self.segments:
            if segment.kind is SegmentKind.PHRASE:
                parts.append("(" + " <-> ".join(f"'{token}'" for token in segment.tokens) + ")")
            elif segment.kind is SegmentKind.WORD:
                parts.append(f"'{segment.tokens[0]}'" + (":*" if segment.prefix else ""))
            else:
                parts.append(f"'{segment.text}'")
        return " & ".join(parts)


def parse_query(raw: str) -> SearchQuery:
    """``raw`` as segments (duplicates dropped); punctuation and spaces only separate them, and a
    ``*`` right after a word makes it a prefix."""
    segments: dict[QuerySegment, None] = {}
    normalised = normalise(raw)
    for match in _cjk().token.finditer(normalised):
        token = match.group()
        if match.lastgroup == "word":
            starred = normalised.startswith("*", match.end())
            segment = QuerySegment(kind=SegmentKind.WORD, text=token, prefix=starred)
        elif len(token) == 1:
            segment = QuerySegment(kind=SegmentKind.CHAR, text=token)
        else:
            segment = QuerySegment(kind=SegmentKind.PHRASE, text=token)
        segments[segment] = None
    return SearchQuery(raw=raw, segments=tuple(segments))


# -- matching and snippets, on text in memory ------------------------------------------------


@lru_cache(maxsize=8192)
def _fold_char(ch: str) -> str:
    return normalise(ch)


def _folded_with_map(text: str) -> tuple[str, list[int]]:
    """``normalise`` character by character, with each folded character's index in ``text``."""
    if text.isascii():
        return text.lower(), list(range(len(text)))
    if unicodedata.is_normalized("NFKC", text):
        # Each character is its own NFKC form then, so folding it alone is casefolding it; where none folds
        # to more than one (casefold never folds to none), the map is the identity: no loop (issue 34 item 2).
        folded_whole = text.casefold()
        if len(folded_whole) == len(text):
            return folded_whole, list(range(len(text)))
    folded: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        piece = ch.lower() if ch.isascii() else _fold_char(ch)
        folded.append(piece)
        if len(piece) == 1:
            where.append(i)
        else:
            where.extend([i] * len(piece))
    return "".join(folded), where


def _is_word_char(ch: str) -> bool:
    return _cjk().word_char.fullmatch(ch) is not None


def _segment_spans(folded: str, segment: QuerySegment) -> Iterator[tuple[int, int]]:
    needle = segment.text
    start = folded.find(needle)
    while start != -1:
        end = start + len(needle)
        # A word matches where a token begins, and (unless a prefix) where it ends, as the index does.
        if segment.kind is not SegmentKind.WORD or (
            (start == 0 or not _is_word_char(folded[start - 1]))
            and (
                segment.prefix or len(needle) >= MAX_TOKEN_CHARS or end == len(folded) or not _is_word_char(folded[end])
            )
        ):
            yield start, end
        start = folded.find(needle, start + 1)


def match_spans(text: str, query: SearchQuery) -> list[tuple[int, int]] | None:
    """Where ``query`` matches ``text`` (sorted, merged, in ``text``'s indices); ``None`` if a segment does not."""
    if query.empty:
        return None
    quick = normalise(text)
    if any(segment.text not in quick for segment in query.segments):
        return None  # the common case (most titles), without building the character map
    folded, where = _folded_with_map(text)
    spans: list[tuple[int, int]] = []
    for segment in query.segments:
        found = [(where[s], where[e - 1] + 1) for s, e in _segment_spans(folded, segment)]
        if not found:
            return None
        spans.extend(found)
    return _merged(spans)


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


class HighlightedText(BaseModel):
    """A piece of text and the ``[start, end)`` ranges in it that matched."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    text: str
    ranges: tuple[tuple[int, int], ...] = ()

    def marked(self, before: str = "[", after: str = "]") -> str:
        """The text with each range wrapped (for the command line)."""
        out, at = [], 0
        for start, end in self.ranges:
            out += [self.text[at:start], before, self.text[start:end], after]
            at = end
        out.append(self.text[at:])
        return "".join(out)


_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s+|$)(.*?)(?:\s+#+\s*)?$")
_SETEXT = re.compile(r"^\s{0,3}(?:=+|-+)\s*$")
_RULE = re.compile(r"^\s{0,3}(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})$")
_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(?:\[[ xX]\]\s+)?")
_NUMBERED = re.compile(r"^(\s*)(\d{1,9})[.)]\s+")
_TABLE_RULE = re.compile(r"^(?=.*\|)(?=.*-)[\s|:-]+$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>")
_EMPHASIS = (
    re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"),
    re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"),
    re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])"),
    re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])"),
)
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~>])")


def _plain_inline(text: str) -> str:
    """One line's inline Markdown as its words: code spans keep their text verbatim."""
    out: list[str] = []
    at = 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_plain_words_inline(text[at : match.start()]))
        out.append(match.group(2).strip() if match.group(2).strip() else match.group(2))
        at = match.end()
    out.append(_plain_words_inline(text[at:]))
    return "".join(out)


def _plain_words_inline(text: str) -> str:
    # Each pattern needs its character: a text without any (most lines of a conversation) is left as it is
    # at C speed, instead of through eleven substitutions (a search's snippets, issue 34 item 2).
    if "[" in text:
        text = _IMAGE_OR_LINK.sub(r"\1", text)
    if "<" in text:
        text = _AUTOLINK.sub(r"\1", text)
    if "*" in text or "_" in text or "~" in text:
        for _ in range(2):  # nested emphasis: ***both***, **a _b_ c**
            text = _EMPHASIS[0].sub(r"\2", text)
            text = _EMPHASIS[1].sub(r"\1", text)
            text = _EMPHASIS[2].sub(r"\1", text)
            text = _EMPHASIS[3].sub(r"\1", text)
    return _ESCAPED.sub(r"\1", text) if "\\" in text else text


def _table_row(line: str) -> str | None:
    stripped = line.strip()
    if not (stripped.startswith("|") or stripped.endswith("|")) or stripped.count("|") < 2:
        return None
    cells = [cell.strip() for cell in stripped.strip("|").split("|")]
    return " · ".join(cell for cell in cells if cell)


def markdown_plain(text: str) -> str:
    """Markdown as the words a reader sees, on one line: no ``**``, backticks, ``#``, ``>`` or link
    syntax (a link reads as its text, an image as its alt text), list items behind ``•`` (numbered
    ones keep their number), table cells joined by `` · `` (the rule row dropped), code kept as its
    text (fences dropped, nothing inside a code span or block touched); every run of whitespace is
    one space. The search snippets' text (issue 30, item 5); ``snippet`` then cuts and marks it."""
    lines: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        opening = _FENCE.match(line)
        if fence is not None:
            if opening is not None and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            else:
                lines.append(line)  # code: as written
            continue
        if opening is not None:
            fence = opening.group(1)
            continue
        if _RULE.match(line) or _TABLE_RULE.match(line) or (lines and _SETEXT.match(line)):
            continue
        line = _QUOTE.sub("", line)
        heading = _HEADING.match(line)
        if heading is not None:
            line = heading.group(1)
        elif (row := _table_row(line)) is not None:
            line = row
        else:
            line = _BULLET.sub(r"\1• ", line, count=1)
            line = _NUMBERED.sub(r"\1\2. ", line, count=1)
        lines.append(_plain_inline(line))
    return " ".join(" ".join(lines).split())


def snippet(text: str, query: SearchQuery, *, width: int = SNIPPET_CHARS, lead: int = SNIPPET_LEAD) -> HighlightedText:
    """A one-line excerpt of ``text`` around its first match, with every match in it highlighted."""
    spans = match_spans(text, query) or []
    anchor = spans[0][0] if spans else 0
    start = max(0, anchor - lead)
    end = min(len(text), start + width)
    start = max(0, min(start, end - width))
    body = re.sub(r"\s", " ", text[start:end])  # one character for one: the ranges stay valid
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    shift = len(prefix) - start
    ranges = tuple((max(s, start) + shift, min(e, end) + shift) for s, e in spans if s < end and e > start)
    return HighlightedText(text=prefix + body + suffix, ranges=ranges)


# -- the hits a search returns ---------------------------------------------------------------


class ToolHit(BaseModel):
    """What a tool message's card is worded from (its stored payload, redacted, without the diff, and its
    output's first line), so that the window says a tool hit as the card does, in the person's language
    (issue 30, item 5). Not part of the JSON the command line prints."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    payload: dict[str, Any] = Field(default_factory=dict)
    first_line: str = ""


TOOL_HIT_KEYS = frozenset({"name", "summary", "ok", "error_kind", "mode", "changed_path", "arguments"})
"""The payload keys a tool card is titled and statused from (``presentation.cards``)."""


class MessageHit(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    message_id: int
    role: str
    created_at: datetime
    snippet: HighlightedText
    source: str | None = None
    """Who wrote it (``MessageSource``): a ``user`` message an agent wrote is no "You" (PROV-3)."""
    tool: ToolHit | None = Field(default=None, exclude=True)
    """A tool message's card facts (``role == "tool"``)."""


class LineHits(BaseModel):
    """One line's hits, newest first; ``title`` is highlighted when the title itself matched."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    line_key: str
    title: HighlightedText
    category: str | None = None
    archived: bool = False
    title_matched: bool = False
    hits: tuple[MessageHit, ...] = ()


class SearchResults(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    query: str
    lines: tuple[LineHits, ...] = ()
    truncated: bool = Field(default=False, description="more messages matched than the limit")

    @property
    def message_count(self) -> int:
        return sum(len(line.hits) for line in self.lines)
