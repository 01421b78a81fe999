"""Issue 30, item 1: one design system. The stylesheet's sizes and colours all come from the tokens in
``xworkmate/ui/theme.py`` (a spacing scale, a type scale, radii, one accent), and the light and the dark
stylesheets are the same template filled from the same token set. No QApplication: only the tables and
``render_stylesheet``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("PySide6")  # ui.theme is the window's: the Qt-free core job runs without it

from xworkmate.ui.theme import (
    DARK,
    ELEVATION,
    LIGHT,
    METRICS,
    TOKENS,
    TYPE_SCALE,
    render_stylesheet,
    stylesheet_tokens,
)

STYLESHEET = Path(__file__).resolve().parents[1] / "resources" / "style.qss"
HEX = re.compile(r"#[0-9a-fA-F]{6}\b")


def _template() -> str:
    return STYLESHEET.read_text(encoding="utf-8")


def _rules(text: str) -> str:
    return re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)


def test_the_scales_are_the_designed_ones() -> None:
    assert [METRICS[f"space-{n}"] for n in range(1, 6)] == [4, 8, 12, 16, 24]
    assert METRICS["font-small"] < METRICS["font-body"] < METRICS["font-title"]
    assert METRICS["radius-small"] < METRICS["radius-medium"] < METRICS["radius-large"]
    assert all(1.0 <= TYPE_SCALE[h] <= 1.3 for h in ("heading-1", "heading-2"))  # a message is not a poster
    assert not set(METRICS) & set(TOKENS) and not set(ELEVATION) & (set(TOKENS) | set(METRICS))  # one meaning


def test_every_length_in_the_stylesheet_is_a_token() -> None:
    lengths = re.findall(r"(?<![@\w-])(\d+)px", _rules(_template()))
    assert set(lengths) <= {"0", "1"}, lengths  # only hairlines are written as numbers
    used = stylesheet_tokens(_rules(_template()))
    assert {"space-1", "space-2", "space-3", "space-4", "font-small", "font-title", "radius-small"} <= used
    assert "accent" in used and "focus-ring" in used


def test_both_themes_are_the_same_stylesheet_from_the_same_tokens() -> None:
    template = _template()
    assert stylesheet_tokens(template) <= set(TOKENS) | set(METRICS) | set(ELEVATION)  # nothing unknown
    assert set(ELEVATION.values()) <= set(TOKENS) and {"elevation-1", "elevation-2"} <= stylesheet_tokens(template)
    light, dark = render_stylesheet(template, LIGHT), render_stylesheet(template, DARK)
    assert "@" not in _rules(light) and "@" not in _rules(dark)
    assert HEX.split(light) == HEX.split(dark)  # they differ in colours only, in the same places
    assert light != dark
    for name in stylesheet_tokens(template) & set(METRICS):
        assert f"{METRICS[name]}px" in light and f"{METRICS[name]}px" in dark
    for name in stylesheet_tokens(template) & set(TOKENS):
        assert LIGHT.hex(name) in light and DARK.hex(name) in dark
    for name in stylesheet_tokens(template) & set(ELEVATION):
        assert LIGHT.hex(ELEVATION[name]) in light and DARK.hex(ELEVATION[name]) in dark
