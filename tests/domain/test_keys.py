"""Session keys and their folders (SPEC ISO-2, ISO-3, ISO-7)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xworkmate.domain.keys import (
    MAIN_KEY,
    InvalidSessionKeyError,
    allocate_draft_key,
    key_to_dir_name,
    normalize_session_key,
)

SAFE_NAME = re.compile(r"^[0-9a-z_-]+$")
WINDOWS_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}

ulids = st.tuples(
    st.sampled_from("01234567"),
    st.text(alphabet="0123456789ABCDEFGHJKMNPQRSTVWXYZ", min_size=25, max_size=25),
).map("".join)
valid_keys = st.one_of(
    st.just(MAIN_KEY),
    ulids.map(lambda u: f"draft:{u}"),
    st.tuples(st.from_regex(r"[a-z0-9][a-z0-9_.-]{0,10}", fullmatch=True), ulids).map(
        lambda t: f"agent:{t[0]}:draft:{t[1]}"
    ),
)
any_keys = st.one_of(valid_keys, st.text(min_size=1, max_size=60))


def test_allocated_draft_keys_are_unique_and_valid() -> None:
    """ISO-2: a new line allocates a fresh draft:<ULID> key first."""
    keys = {allocate_draft_key() for _ in range(1000)}
    assert len(keys) == 1000
    for key in keys:
        assert key.startswith("draft:")
        assert normalize_session_key(key) == key


def test_empty_key_becomes_main_only_while_initialising_main() -> None:
    """ISO-2, ISO-7: '' is main only for the main thread's initialisation, an error elsewhere."""
    assert normalize_session_key("", initialising_main=True) == MAIN_KEY
    with pytest.raises(InvalidSessionKeyError, match="empty session key"):
        normalize_session_key("")
    with pytest.raises(InvalidSessionKeyError):
        normalize_session_key("   ")


def test_draft_ulid_is_case_insensitive_and_canonically_upper() -> None:
    key = allocate_draft_key()
    assert normalize_session_key(key.lower().replace("draft:", "draft:")) == key


@pytest.mark.parametrize(
    "bad",
    ["draft:", "draft:not-a-ulid", "agent:Upper:main", "agent:x", "../main", "thread-1", "main:x"],
)
def test_invalid_keys_are_refused_with_the_key_named(bad: str) -> None:
    with pytest.raises(InvalidSessionKeyError) as info:
        normalize_session_key(bad)
    assert repr(bad) in str(info.value) or "empty" in str(info.value)


def test_draft_key_maps_to_readable_folder_without_colon() -> None:
    """ISO-3: e.g. draft:01J… → draft-01j…, no ':' anywhere."""
    key = allocate_draft_key()
    name = key_to_dir_name(key)
    assert name == "draft-" + key.split(":", 1)[1].lower()
    assert ":" not in name
    assert key_to_dir_name(MAIN_KEY) == "main"


@pytest.mark.parametrize(
    "key",
    [
        "agent:x/y:main",
        "a\\b",
        "..",
        ".",
        "con",
        "NUL",
        "com1",
        "a:b:c",
        "ключ",
        "x\x00y",
        "trailing. ",
        "A",
        "a",
    ],
)
def test_unsafe_keys_still_map_to_safe_folder_names(key: str) -> None:
    """ISO-3: characters unsafe in paths never reach the folder name."""
    name = key_to_dir_name(key)
    assert SAFE_NAME.fullmatch(name), name
    assert name not in WINDOWS_RESERVED
    assert name not in {".", ".."}


def _canonical(key: str) -> str:
    try:
        return normalize_session_key(key)
    except InvalidSessionKeyError:
        return key


def _assert_apart_unless_same_key(a: str, b: str) -> None:
    try:
        na, nb = key_to_dir_name(a), key_to_dir_name(b)
    except InvalidSessionKeyError:
        return
    if _canonical(a) != _canonical(b):
        assert na.casefold() != nb.casefold(), (a, b, na)
    else:
        assert na == nb


@settings(max_examples=400)
@given(any_keys, any_keys)
def test_key_to_dir_name_is_injective_even_under_case_folding(a: str, b: str) -> None:
    """ISO-3: two different keys never share a folder, also on case-insensitive file systems."""
    _assert_apart_unless_same_key(a, b)


_NEAR_MISSES = [
    str.lower,
    str.upper,
    str.swapcase,
    lambda k: k.replace(":", "-"),
    lambda k: k.replace("-", ":"),
    lambda k: k.replace("_", "-"),
    lambda k: k + ".",
    lambda k: k.replace("draft:", "draft-"),
]


@settings(max_examples=400)
@given(any_keys, st.sampled_from(_NEAR_MISSES))
def test_near_miss_keys_never_share_a_folder(key: str, twist: Callable[[str], str]) -> None:
    """ISO-3: keys that differ only by case, ':' vs '-', '_' vs '-' or a trailing dot stay apart."""
    _assert_apart_unless_same_key(key, twist(key))


@settings(max_examples=300)
@given(any_keys)
def test_every_folder_name_is_os_safe(key: str) -> None:
    try:
        name = key_to_dir_name(key)
    except InvalidSessionKeyError:
        return
    assert SAFE_NAME.fullmatch(name)
    assert name not in WINDOWS_RESERVED
    assert len(name) <= 240


def test_case_variants_of_an_invalid_key_get_different_folders() -> None:
    assert key_to_dir_name("agent:Coder:main") != key_to_dir_name("agent:coder:main")
    assert key_to_dir_name("Main").casefold() != key_to_dir_name("main").casefold()
