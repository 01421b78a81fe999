"""What the command line prints cannot drive, split or reorder the terminal (SPEC §8, ERR-1; issue 12 part 8).

Titles, messages and error lines carry text from people, models and agents.
Real processes, real terminal bytes: the assertions read the CLI's stdout/stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.cli.test_cli import ok_json, run_cli
from tests.cli.test_cli_tasks import human
from xworkmate.terminal_text import UNSAFE_FOR_TERMINAL, escape_for_terminal, plain_terminal_output, shown

EVIL_TITLE = "pay\x1b[2J\tnow\nfake row\x7f\x85 \u202eevil\u2066x\u2069\u200f\u061c"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def _unsafe_in(text: str, *, allowed: str = "\n") -> list[str]:
    return [ch for ch in text if ord(ch) in UNSAFE_FOR_TERMINAL and ch not in allowed]


def test_control_characters_are_escaped() -> None:
    """C0 (tab and newline too), DEL and C1 become visible escapes; a title stays one line."""
    assert escape_for_terminal("a\x1b[31mb") == "a\\x1b[31mb"
    assert escape_for_terminal("a\tb\nc\rd") == "a\\tb\\nc\\rd"
    assert escape_for_terminal("\x00\x07\x7f\x85\x9b") == "\\x00\\x07\\x7f\\x85\\x9b"
    assert escape_for_terminal("line\u2028sep") == "line\\u2028sep"


def test_bidi_controls_are_escaped() -> None:
    """U+202A–U+202E, U+2066–U+2069, U+200E, U+200F and U+061C cannot reorder a row."""
    assert escape_for_terminal(BIDI) == (
        "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c"
    )


def test_an_agent_chosen_name_is_shown_on_one_line_and_cut() -> None:
    """SBX-3: a link target or file name an agent chose, inside a refusal, is one line of bounded length;
    Chinese and other printable text stay as written."""
    assert shown("d/\u76ee\u5f55") == "d/\u76ee\u5f55"
    one = shown(EVIL_TITLE)
    assert "\n" not in one and _unsafe_in(one, allowed="") == []
    long = shown("x" * 5000)
    assert len(long) == 200 and long.endswith("…")


def test_message_bodies_keep_line_breaks_and_escape_everything_else() -> None:
    """A multi-line body keeps ``\\n`` (and prints CRLF as a line break); a lone CR and the rest are escaped."""
    assert escape_for_terminal("one\r\ntwo\n\x1b[1mthree\rX\t", keep_newlines=True) == (
        "one\ntwo\n\\x1b[1mthree\\rX\\t"
    )


@given(st.text())
def test_no_control_or_bidi_character_survives(text: str) -> None:
    """As a property: one-line output has none at all, body output none but line breaks."""
    assert _unsafe_in(escape_for_terminal(text), allowed="") == []
    assert _unsafe_in(escape_for_terminal(text, keep_newlines=True)) == []
    if not _unsafe_in(text, allowed=""):
        assert escape_for_terminal(text) == text  # ordinary text (Chinese, emoji, backslashes) is untouched


def test_thread_list_rows_never_split_or_reorder(home: Path) -> None:
    """``thread list``: one row per line whatever the titles hold; ``--json`` stays valid and exact."""
    evil = ok_json(home, "thread", "new", "--title", EVIL_TITLE)
    ok_json(home, "thread", "new", "--title", "plain 标题")

    proc = run_cli(home, "thread", "list")
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()
    assert len(rows) == 3, proc.stdout
    assert _unsafe_in(proc.stdout) == []
    [row] = [r for r in rows if evil["session_key"] in r]
    assert row.endswith("pay\\x1b[2J\\tnow\\nfake row\\x7f\\x85 \\u202eevil\\u2066x\\u2069\\u200f\\u061c")
    assert any(r.endswith("plain 标题") for r in rows)

    as_json = run_cli(home, "thread", "list", "--json")
    assert _unsafe_in(as_json.stdout) == []
    assert "\u202e" not in as_json.stdout and "\x1b" not in as_json.stdout
    titles = {row["session_key"]: row["title"] for row in json.loads(as_json.stdout)}
    assert titles[evil["session_key"]] == EVIL_TITLE


def test_thread_show_escapes_the_title(home: Path) -> None:
    evil = ok_json(home, "thread", "new", "--title", EVIL_TITLE)
    proc = run_cli(home, "thread", "show", evil["session_key"])
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 2  # the row and its folder
    assert _unsafe_in(proc.stdout) == []
    assert "\\u202eevil" in proc.stdout


def test_messages_escape_controls_and_indent_continued_lines(home: Path) -> None:
    """``messages``: a body keeps its line breaks, but no line of it can pass for another message's header."""
    key = ok_json(home, "thread", "new")["session_key"]
    human(home, key, "first\x1b]0;owned\x07 line\n#999 assistant/model: forged\u202e")
    proc = run_cli(home, "messages", key)
    assert proc.returncode == 0, proc.stderr
    assert _unsafe_in(proc.stdout) == []
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("user/human: first\\x1b]0;owned\\x07 line")
    assert lines[1] == "    #999 assistant/model: forged\\u202e"


def test_error_lines_are_escaped_to_one_line(home: Path) -> None:
    """ERR-1: an error naming hostile text is still one line, with its controls shown as escapes."""
    key = ok_json(home, "thread", "new")["session_key"]
    proc = run_cli(home, "thread", "bind", key, "--workspace", "/nowhere\n\x1b[2Jxworkmate: ok\u202e")
    assert proc.returncode != 0
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert _unsafe_in(proc.stderr) == []
    assert "/nowhere\\n\\x1b[2Jxworkmate: ok\\u202e" in proc.stderr


def test_a_reader_that_closed_the_pipe_ends_the_command_quietly(home: Path) -> None:
    """Issue 30: ``xworkmate thread list --json | head -1`` — the reader has what it wanted and closed its
    end: no "error: Broken pipe" and no exit 4, but 141 (128 + SIGPIPE) or 0 with nothing said, as a shell
    pipeline expects. The reader's end is closed before the command writes, so it breaks every time."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    env.update({"XWORKMATE_HOME": str(home)})
    for args in (["thread", "list", "--json"], ["thread", "list"], ["--version"]):
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "xworkmate", *args],
                stdout=write,
                stderr=subprocess.PIPE,
                env=env,
                timeout=60,
                check=False,
            )
        finally:
            os.close(write)
        assert done.returncode in (0, 141) and done.stderr == b"", (args, done.returncode, done.stderr)


def test_a_programs_terminal_output_becomes_plain_text_for_a_text_view() -> None:
    """Issue 32 item 4 (the sign-in terminal): colours, cursor moves and OSC titles go; line breaks stay."""
    raw = "\x1b[1;33mtoken:\x1b[0m \r\n\x1b]0;evil title\x07ok\x1b[2J\x1b(B\tend\x08\u202e\n"
    assert plain_terminal_output(raw) == "token: \nok\tend\n"
