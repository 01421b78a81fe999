"""Issue 17, item 6: a line's title from its first message — the first non-empty line, trimmed, cut with "…"."""

from __future__ import annotations

from xworkmate.domain.titles import TITLE_FROM_MESSAGE_LEN, default_title, is_default_title, title_from_message


def test_the_first_non_empty_line_trimmed_becomes_the_title() -> None:
    assert title_from_message("\n\n   Fix the   login bug  \nsteps: …") == "Fix the login bug"
    assert title_from_message("整理一下蓝色的报告\n第二行") == "整理一下蓝色的报告"
    assert title_from_message("   \n\t\n") is None


def test_a_long_line_is_cut_at_a_word_with_an_ellipsis() -> None:
    text = "Refactor the billing module so that invoices are generated per customer and per month"
    title = title_from_message(text)
    assert title is not None and title.endswith("…") and len(title) <= TITLE_FROM_MESSAGE_LEN
    assert text.startswith(title[:-1]) and not title[:-1].endswith(" ")
    unbroken = "x" * 200
    assert title_from_message(unbroken) == "x" * (TITLE_FROM_MESSAGE_LEN - 1) + "…"


def test_only_the_default_title_is_replaced() -> None:
    assert is_default_title(default_title(7)) and default_title(7) == "Task line 7"
    assert not is_default_title("Task line 7 notes") and not is_default_title("Main") and not is_default_title("")
