"""ERR-3: the one rule for text on its way to storage — NUL becomes U+FFFD, and a message says so."""

from __future__ import annotations

import json

from xworkmate.domain.stored_text import (
    NUL_REPLACED_KEY,
    nul_replaced,
    storable_json,
    storable_json_text,
    storable_message,
    storable_text,
)

R = "\ufffd"


def test_nul_bytes_become_the_replacement_character_and_say_so_err_3() -> None:
    assert storable_text("a\x00b\x00") == (f"a{R}b{R}", True)
    assert storable_text("plain") == ("plain", False)
    assert storable_text("") == ("", False)


def test_strings_inside_json_are_replaced_keys_included_and_unchanged_values_are_kept_err_3() -> None:
    value = {"k\x00": ["x\x00", ("y", 1)], "n": None, "ok": True}
    assert storable_json(value) == ({f"k{R}": [f"x{R}", ("y", 1)], "n": None, "ok": True}, True)
    untouched = {"a": ["b", {"c": 2}]}
    same, replaced = storable_json(untouched)
    assert same is untouched and not replaced


def test_json_text_loses_its_nul_escapes_but_not_a_literal_backslash_u0000_err_3() -> None:
    assert storable_json_text(json.dumps(["ENV\x00"])) == json.dumps([f"ENV{R}"])
    literal = json.dumps({"note": "\\u0000"})  # a backslash followed by u0000: text, not a NUL
    assert storable_json_text(literal) == literal
    assert storable_json_text("not json \\u0000") == "not json \\u0000"


def test_a_message_whose_text_was_replaced_carries_the_flag_err_3() -> None:
    content, visible, payload = storable_message("out\x00", "seen", {"tool_call_id": "c1"})
    assert (content, visible) == (f"out{R}", "seen")
    assert payload == {"tool_call_id": "c1", NUL_REPLACED_KEY: True} and nul_replaced(payload)
    assert storable_message("hi", None, None) == ("hi", None, None)
    assert storable_message("hi", "x\x00", None) == ("hi", f"x{R}", {NUL_REPLACED_KEY: True})
    assert not nul_replaced(None) and not nul_replaced({"tool_call_id": "c1"})
