"""The one tokenising and query rule behind search on both databases (SPEC LOOP-3)."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from tests.support.fresh_python import fresh_python
from xworkmate.domain.search import (
    _CJK_CLASS,
    MAX_TERMS,
    MAX_TOKEN_CHARS,
    IndexTerms,
    SegmentKind,
    _fold_char,
    _folded_with_map,
    index_terms,
    match_spans,
    normalise,
    parse_query,
    searchable_text,
    snippet,
)


def test_cjk_runs_become_bigrams_and_characters_words_stay_whole() -> None:
    terms = index_terms("Hello, 蓝色天空! ＡＢＣ straße 猫")
    assert terms.terms == ("hello", "蓝色", "色天", "天空", "abc", "strasse", "猫")
    assert terms.chars == ("蓝", "色", "天", "空", "猫")


def test_japanese_and_korean_are_cut_like_chinese() -> None:
    assert index_terms("カタカナ 한국어").terms == ("カタ", "タカ", "カナ", "한국", "국어")


def test_queries_are_segments_that_must_all_match() -> None:
    query = parse_query("蓝色 蓝 gpt-4o 蓝色 conf*")
    assert [(s.kind, s.text) for s in query.segments] == [
        (SegmentKind.PHRASE, "蓝色"),
        (SegmentKind.CHAR, "蓝"),
        (SegmentKind.WORD, "gpt"),
        (SegmentKind.WORD, "4o"),
        (SegmentKind.WORD, "conf"),
    ]
    assert [s.prefix for s in query.segments] == [False, False, False, False, True]
    assert query.fts5_match() == (
        'terms : "蓝色" AND chars : "蓝" AND terms : "gpt" AND terms : "4o" AND terms : "conf"*'
    )
    assert query.tsquery_literal() == "('蓝色') & '蓝' & 'gpt' & '4o' & 'conf':*"
    assert parse_query("天空之城").tsquery_literal() == "('天空' <-> '空之' <-> '之城')"
    assert parse_query(" ,;!? ").empty


def test_long_texts_and_tokens_are_bounded() -> None:
    assert len(index_terms("word " * (MAX_TERMS + 50)).terms) == MAX_TERMS
    assert index_terms("x" * 500).terms == ("x" * MAX_TOKEN_CHARS,)
    literal = index_terms("a b a").tsvector_literal()
    assert literal == "'a':1,3 'b':2"


def test_tool_call_names_and_arguments_are_searchable_text() -> None:
    payload = {"tool_calls": [{"id": "1", "function": {"name": "run_command", "arguments": '{"cmd": "make"}'}}]}
    assert searchable_text("ok", payload) == 'ok\nrun_command\n{"cmd": "make"}'
    assert searchable_text("ok", "not json") == "ok"


def test_escaped_characters_in_tool_call_arguments_are_searched_and_shown_as_written() -> None:
    """Issue 30: a model that sends "\\u4f60\\u597d" for 你好 — the search finds 你好, the snippet shows it."""
    arguments = json.dumps({"path": "hello.txt", "content": "你好\n"})  # ASCII-escaped, as json.dumps writes
    payload = {"tool_calls": [{"function": {"name": "write_file", "arguments": arguments}}]}
    assert searchable_text("", payload) == 'write_file\n{"path": "hello.txt", "content": "你好\\n"}'
    broken = {"tool_calls": [{"function": {"name": "write_file", "arguments": '{"content": "\\u4f60'}}]}
    assert searchable_text("", broken) == 'write_file\n{"content": "\\u4f60'  # not JSON: kept as sent


def test_snippets_highlight_every_match_in_the_original_text() -> None:
    text = "Ünïcode ÉCOLE: the École and école again " + "filler " * 40
    shown = snippet(text, parse_query("école"))
    assert [shown.text[s:e] for s, e in shown.ranges] == ["ÉCOLE", "École", "école"]
    assert shown.marked().startswith("Ünïcode [ÉCOLE]")
    far = snippet("x " * 200 + "蓝色", parse_query("蓝色"))
    assert far.text.startswith("…") and far.text[far.ranges[0][0] : far.ranges[0][1]] == "蓝色"
    assert match_spans("load_config", parse_query("onfig*")) is None  # words match where a word begins
    assert match_spans("load_config", parse_query("conf")) is None  # and, without *, where it ends
    assert match_spans("load_config", parse_query("conf*")) == [(5, 9)]


_TEXT = st.text(alphabet="蓝色天空的海abc xyz*", min_size=0, max_size=30)


@given(_TEXT, _TEXT)
def test_what_matches_in_memory_the_index_holds(text: str, raw_query: str) -> None:
    """Every segment found in the text is in the text's index: the databases miss nothing the snippet shows."""
    query = parse_query(raw_query)
    if query.empty or match_spans(text, query) is None:
        return
    indexed = index_terms(text)
    for segment in query.segments:
        if segment.kind is SegmentKind.CHAR:
            assert segment.text in indexed.chars
        elif segment.kind is SegmentKind.PHRASE:
            joined = " " + " ".join(indexed.terms) + " "
            assert " " + " ".join(segment.tokens) + " " in joined
        elif segment.prefix:
            assert any(term.startswith(segment.text) for term in indexed.terms)
        else:
            assert segment.text in indexed.terms


# The tokenising rule as first written (a look-ahead per character), kept as the oracle for the faster one.
_RULE = re.compile(rf"(?P<cjk>[{_CJK_CLASS}]+)|(?P<word>(?:(?![{_CJK_CLASS}])[^\W_])+)")


def _terms_by_the_rule(text: str) -> IndexTerms:
    terms: list[str] = []
    chars: dict[str, None] = {}
    for match in _RULE.finditer(normalise(text)):
        token = match.group()
        if match.group("word"):
            terms.append(token[:MAX_TOKEN_CHARS])
        else:
            chars.update(dict.fromkeys(token))
            terms.extend([token] if len(token) == 1 else [token[i : i + 2] for i in range(len(token) - 1)])
    return IndexTerms(terms=tuple(terms[:MAX_TERMS]), chars=tuple(chars))


_MIXED = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=32, max_codepoint=0x2FFF),  # Latin, Greek, Cyrillic, Arabic, digits, marks
        st.characters(min_codepoint=0x3000, max_codepoint=0xFFFF),  # kana, Han, Hangul, full-width forms
        st.characters(min_codepoint=0x20000, max_codepoint=0x3134F),  # Han extensions B-G
        st.sampled_from(" _*-.,\n"),
    ),
    max_size=200,
)


@given(_MIXED)
def test_the_index_terms_of_any_text_are_those_of_the_tokenising_rule(text: str) -> None:
    """Issue 34 item 1: index_terms cuts a text without CJK in one findall and words with a negated class, not a
    look-ahead per character; what it keeps is what the rule keeps, CJK or not."""
    assert index_terms(text) == _terms_by_the_rule(text)


def _folded_char_by_char(text: str) -> tuple[str, list[int]]:
    """The character map as first written (every character folded alone), the oracle for the quicker paths."""
    folded, where = [], []
    for i, ch in enumerate(text):
        piece = _fold_char(ch)
        folded.append(piece)
        where.extend([i] * len(piece))
    return "".join(folded), where


@given(_MIXED)
def test_the_folded_text_and_its_map_are_those_of_folding_each_character_alone(text: str) -> None:
    """Issue 34 item 2: a text already in NFKC form whose characters each fold to one is folded whole (a search's
    snippets spent a fifth of its time folding character by character); the answer is the same for any text."""
    assert _folded_with_map(text) == _folded_char_by_char(text)


def test_characters_that_fold_to_more_or_compose_keep_their_map() -> None:
    for text in ("Straße ﬁne 蓝", "e\u0301 café", "ＡＢＣ ① İ", "ΣΑΣ 数据"):
        assert _folded_with_map(text) == _folded_char_by_char(text), text


def test_a_long_text_keeps_its_first_max_terms_words_with_or_without_cjk() -> None:
    words = " ".join(f"w{n}" for n in range(MAX_TERMS + 50))
    assert index_terms(words) == _terms_by_the_rule(words)
    assert len(index_terms(words).terms) == MAX_TERMS
    assert index_terms(words + " 数据").terms == index_terms(words).terms  # the cut comes before the CJK


_COMPILED_AT_LOAD = """
import json, re
compiled = []
real = re.compile
re.compile = lambda pattern, flags=0: compiled.append(pattern) or real(pattern, flags)
import xworkmate.controllers.session  # what the window's start loads with the store (Qt-free)
from xworkmate.domain.search import index_terms
def cjk():
    return len([p for p in compiled if isinstance(p, str) and "\\u3040" in p])
at_load = cjk()
index_terms("检索 text")
print(json.dumps({"at_load": at_load, "after_use": cjk()}))
"""


def test_the_patterns_with_the_cjk_class_compile_at_their_first_use_not_when_the_store_loads() -> None:
    """Issue 34 item 4: each costs ~2 ms to compile, and the window's start imports this module (with the store
    and the conversation's view) but indexes and searches nothing until a turn or a search."""
    proc = fresh_python(_COMPILED_AT_LOAD)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"at_load": 0, "after_use": 3}
