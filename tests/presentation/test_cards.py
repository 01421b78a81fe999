"""Tool cards, plans and thoughts, built without Qt (issue 19, item 3): this file runs in the core's install."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from xworkmate.presentation import text
from xworkmate.presentation.cards import (
    COLLAPSED_LINES,
    EXPANDED_CHARS,
    EXPANDED_LINES,
    plan_text,
    running_card,
    thought_summary,
    tool_card,
)
from xworkmate.presentation.files import LONG_LINE_CHARS

from .conftest import installed


@pytest.fixture
def translator() -> Iterator[list[tuple[str, str, int]]]:
    """A translator that marks every text it gives with « and records what it was asked (context, source, n)."""
    asked: list[tuple[str, str, int]] = []

    def marking(context: str, source: str, _disambiguation: str | None = None, n: int = -1) -> str:
        asked.append((context, source, n))
        return "«" + text.english(context, source, None, n)

    with installed(marking):
        yield asked


def test_tool_cards_are_built_from_the_stored_payload() -> None:
    read = tool_card(
        {"name": "read_file", "arguments": '{"path": "notes.txt"}', "summary": "read file notes.txt", "ok": True},
        "a\nb\nc",
    )
    assert read.plain_text() == "Read notes.txt — 3 lines\na\nb\nc"
    wrote = tool_card(
        {
            "name": "edit_file",
            "arguments": '{"path": "a.py", "old": "x", "new": "y", "quote": "q"}',
            "summary": "edit a.py",
            "ok": True,
            "changed_path": "/w/a.py",
            "diff": "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y",
        },
        "updated a.py (1 bytes written)",
    )
    # Said once: the title names the file, the status what was written (issue 30 item 3).
    assert wrote.plain_text() == "Edited a.py — 1 byte written\ndiff +1 −1 — click to show"
    assert wrote.plain_text(expanded=True).splitlines()[1:4] == ["--- a/a.py", "+++ b/a.py", "@@ -1 +1 @@"]
    failed = tool_card(
        {"name": "run_command", "arguments": '{"command": "false"}', "ok": False, "error_kind": None},
        "[exit code 1 after 0.0 s]\n(no output)",
        failed=True,
    )
    assert not failed.ok and failed.plain_text() == "$ false — exit 1 · 0.0 s\n(no output)"
    long_output = "\n".join(str(n) for n in range(100))
    command = tool_card({"name": "run_command", "arguments": {"command": "seq"}, "ok": True}, long_output)
    assert command.expandable and len(command.shown_lines(False)[0]) == COLLAPSED_LINES
    legacy = tool_card(None, "some result")
    assert legacy.plain_text() == "tool — ok\nsome result"


def test_the_english_texts_count_without_a_catalogue() -> None:
    assert thought_summary("one") == "Thinking… (1 word — click to show)"
    assert thought_summary("two words") == "Thinking… (2 words — click to show)"
    assert plan_text([["draft", "completed"], ["check", "in_progress"], "ship"]) == "☑ draft\n◐ check\n☐ ship"
    assert plan_text([]) == "(an empty plan)"


def test_card_texts_are_asked_of_the_installed_translator_in_their_catalogue_context(
    translator: list[tuple[str, str, int]],
) -> None:
    card = tool_card({"name": "read_file", "arguments": {"path": "a.txt"}, "ok": True}, "x\ny")
    assert card.plain_text() == "«Read a.txt — «2 lines\nx\ny"
    assert ("RenderingText", "Read {where}", -1) in translator
    assert ("RenderingText", "%n line(s)", 2) in translator  # a plural, with its count
    # The summary is the core's text ("run `{command}`", CoreText): translated through the same hook.
    assert running_card("run `ls`").title == "«running «run `ls` …"
    assert ("CoreText", "run `{command}`", -1) in translator


def test_a_commands_card_says_which_host_was_refused_and_offers_to_allow_it(
    translator: list[tuple[str, str, int]],
) -> None:
    """SBX-4: the connections a stored command made are on its card: a refused host plainly, with the
    button's label; a reached one quietly; none on a card whose payload has none."""
    card = tool_card(
        {
            "name": "run_command",
            "arguments": '{"command": "curl https://example.com"}',
            "ok": True,
            "connections": [
                {"host": "api.x.com", "port": 443, "allowed": True},
                {"host": "example.com", "port": 443, "allowed": False},
                {"host": "::1", "port": 8080, "allowed": False},
                {"host": "bad"},  # a broken entry is left out
            ],
        },
        "[exit code 0 after 0.1 s]\nout",
    )
    assert [(c.destination, c.allowed) for c in card.connections] == [
        ("api.x.com:443", True),
        ("example.com:443", False),
        ("[::1]:8080", False),
    ]
    assert card.connections[0].text == "«Reached api.x.com:443" and card.connections[0].action == ""
    refused = card.refused[0]
    assert refused.text == "«Network refused: example.com:443 — not on this line's allow-list"
    assert refused.action == "«Allow this host for this line"
    assert ("RenderingText", "Allow this host for this line", -1) in translator
    assert "«Network refused: example.com:443 — not on this line's allow-list" in card.plain_text()
    assert tool_card({"name": "run_command", "arguments": "{}", "ok": True}, "").connections == ()


def test_a_read_skill_card_names_the_skill_and_the_file_read() -> None:
    """SKL-2: read_skill is a read: its card says which skill (and which file beside its SKILL.md)."""
    body = tool_card({"name": "read_skill", "arguments": '{"name": "pdf-forms"}', "ok": True}, "# PDF\nsteps")
    assert body.plain_text() == "Read skill pdf-forms — 2 lines\n# PDF\nsteps"
    beside = tool_card({"name": "read_skill", "arguments": '{"name": "pdf-forms", "path": "ref.md"}', "ok": True}, "x")
    assert beside.plain_text().startswith("Read skill pdf-forms/ref.md — 1 line")


def test_a_cards_title_is_one_line_and_its_long_lines_are_cut_saying_how_much_is_not_shown() -> None:
    """Issue 34 (LOOP-1): a model's heredoc command of 50 KB made its card's title 10,000 px tall, a
    minified file's one 64 KB line of output a "collapsed" card 13,000 px tall (0.15 s to lay out at each
    switch; 1 MB from an ACP agent, 25 s). The title is its first line and a count of the rest; each body
    line is cut at ``LONG_LINE_CHARS`` and says how many more characters it has."""
    heredoc = "cat > data.py <<'EOF'\n" + "\n".join(f"VALUE_{i} = {i}" for i in range(1500)) + "\nEOF"
    minified = "var a=" + "x" * 65_530
    card = tool_card({"name": "run_command", "arguments": {"command": heredoc}, "ok": True}, minified)
    assert card.title == f"$ {heredoc}"  # the card keeps what was stored
    head, body = card.plain_text().split("\n")
    assert head == "$ cat > data.py <<'EOF' (+1501 more lines) — ok"
    assert body == minified[:LONG_LINE_CHARS] + " … 64536 more characters on this line, not shown"
    assert card.shown_lines(True)[0] == [body]

    titled = running_card("fetch " + "q" * 5_000)
    assert titled.title_line.endswith(" … 4016 more characters on this line, not shown")
    short = tool_card({"name": "run_command", "arguments": {"command": "ls"}, "ok": True}, "a.txt")
    assert short.plain_text() == "$ ls — ok\na.txt"


def test_a_plan_entry_is_one_line_and_an_agents_long_one_is_cut() -> None:
    """Issue 34: an ACP agent's plan entry is laid out whole in the conversation; one line each, cut at
    ``LONG_LINE_CHARS`` (a plan of a 300,000-character entry: seconds on the GUI thread)."""
    plan = plan_text([["check\nthe tests", "completed"], ["w" * 300_000, "in_progress"]])
    done, doing = plan.split("\n")
    assert done == "☑ check the tests"
    assert doing == "◐ " + "w" * LONG_LINE_CHARS + " … 299000 more characters on this line, not shown"


def test_an_expanded_card_shows_its_lines_up_to_a_number_of_characters_too() -> None:
    """Issue 34: 400 lines of 1,000 characters (an ACP agent's output has no cap) took 167 ms to lay out
    when expanded, 88,000 px tall; the lines that fit ``EXPANDED_CHARS`` are shown, the rest counted."""
    wide = tool_card(
        {"name": "run_command", "arguments": {"command": "cat"}, "ok": True}, "\n".join(["z" * 1_000] * 2_000)
    )
    lines, note = wide.shown_lines(True)
    assert len(lines) == EXPANDED_CHARS // 1_001 and note == f"… {2_000 - len(lines)} more lines not shown here"
    narrow = tool_card(
        {"name": "run_command", "arguments": {"command": "seq"}, "ok": True}, "\n".join(["n" * 80] * 500)
    )
    assert len(narrow.shown_lines(True)[0]) == EXPANDED_LINES  # ordinary output: as many lines as before
