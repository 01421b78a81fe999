"""What approval and tool cards say will happen or did happen (issue 30 item 3), built without Qt."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from xworkmate.controllers.changes import ApprovalRequested
from xworkmate.domain.change_preview import PREVIEW_LINES, PreviewNote, change_preview, diff_preview, read_current
from xworkmate.presentation import text
from xworkmate.presentation.approvals import approval_view
from xworkmate.presentation.cards import ERROR_WORDS, error_words, tool_card
from xworkmate.presentation.files import FOLD_MARK, LONG_LINE_CHARS
from xworkmate.presentation.wording import home_relative

from .conftest import installed


def _request(tool: str, arguments: dict[str, object], folder: Path, **extra: object) -> ApprovalRequested:
    raw = json.dumps(arguments)
    path = str(arguments.get("path", ""))
    change = change_preview(tool, raw, read_current(folder, path)) if path else None
    return ApprovalRequested(
        key="main", approval_id=1, tool=tool, summary="s", arguments=raw, change=change, folder=str(folder), **extra
    )  # type: ignore[arg-type]


def test_a_write_on_an_existing_file_reads_as_a_unified_diff_with_context(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    content = "".join(f"line {n}\n" if n != 5 else "line five\n" for n in range(1, 11))
    view = approval_view(_request("write_file", {"path": "notes.md", "content": content}, tmp_path), "heading")
    assert view.body_kind == "diff"
    assert view.target == "notes.md — +1 −1"
    assert view.body.splitlines() == [
        "@@ -2,7 +2,7 @@",
        " line 2",
        " line 3",
        " line 4",
        "-line 5",
        "+line five",
        " line 6",
        " line 7",
        " line 8",
    ]
    assert "\\n" not in view.body and "{" not in view.body
    assert '"content"' in view.details  # the raw call, for the Details toggle only


def test_an_edit_reads_as_the_diff_it_would_make_or_says_it_would_fail(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    edit = approval_view(_request("edit_file", {"path": "a.py", "old": "y = 2", "new": "y = 3"}, tmp_path), "h")
    assert [line for line in edit.body.splitlines() if line[:1] in "+-"] == ["-y = 2", "+y = 3"]
    missing = approval_view(_request("edit_file", {"path": "a.py", "old": "zzz", "new": "q"}, tmp_path), "h")
    assert missing.body_kind == "none" and "would fail" in missing.note


def test_a_new_file_shows_its_content_and_a_huge_one_only_its_first_lines(tmp_path: Path) -> None:
    view = approval_view(_request("write_file", {"path": "new.py", "content": "def f():\n    pass\n"}, tmp_path), "h")
    assert (view.body_kind, view.body, view.language) == ("content", "def f():\n    pass", "python")
    assert view.target == "new.py — new file" and view.note == ""
    huge = "\n".join(str(n) for n in range(PREVIEW_LINES + 250))
    big = approval_view(_request("write_file", {"path": "big.txt", "content": huge}, tmp_path), "h")
    assert len(big.body.splitlines()) == PREVIEW_LINES
    assert big.note == "… 250 more lines not shown"


def test_a_write_outside_the_folder_reads_nothing(tmp_path: Path) -> None:
    (tmp_path.parent / "secret.txt").write_text("secret")
    view = approval_view(_request("write_file", {"path": "../secret.txt", "content": "x"}, tmp_path / ""), "h")
    assert view.body_kind == "none" and "outside" in view.note
    assert read_current(tmp_path, "../secret.txt").note is PreviewNote.OUTSIDE


def test_a_command_shows_the_command_its_folder_and_the_network_setting(tmp_path: Path) -> None:
    view = approval_view(
        _request("run_command", {"command": "ls -la"}, tmp_path, network="allow-list", allowed_hosts=("pypi.org:443",)),
        "h",
    )
    assert (view.body_kind, view.body, view.heading) == ("command", "ls -la", "The agent asks to run this command")
    assert view.target == f"in {tmp_path}"
    assert view.facts == ("Network: allow-list only (pypi.org:443)",)
    off = approval_view(_request("run_command", {"command": "ls"}, tmp_path, network="off"), "h")
    assert off.facts == ("Network: off",)
    acp = {"title": "Run tests", "kind": "execute", "locations": [], "input": {"command": ["pytest", "-q"]}}
    assert approval_view(_request("execute", acp, tmp_path, network="on"), "h").body == "pytest -q"


def test_folders_under_home_are_shown_home_relative(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 30: "in ~/projects/demo", not the machine's layout; a folder elsewhere is shown whole."""
    monkeypatch.setenv("HOME", str(tmp_path))
    demo = tmp_path / "projects" / "demo"
    demo.mkdir(parents=True)
    view = approval_view(_request("run_command", {"command": "ls"}, demo), "h")
    assert view.target == "in ~/projects/demo"
    assert home_relative(str(tmp_path)) == "~"
    assert home_relative(str(tmp_path) + "-other/x") == str(tmp_path) + "-other/x"  # a sibling, not under home
    assert home_relative("/srv/data") == "/srv/data" and home_relative("") == ""


@pytest.fixture
def chinese() -> Iterator[None]:
    def marking(context: str, source: str, _disambiguation: str | None = None, n: int = -1) -> str:
        return "«" + text.english(context, source, None, n)

    with installed(marking):
        yield


def test_error_kinds_are_worded_once_from_one_table() -> None:
    assert error_words("not_approved") == "you rejected this"
    assert error_words("timeout", "[timed out after 5 s: the command and every process it started were killed]") == (
        "timed out after 5 s"
    )
    assert error_words("timeout", "", {"timeout_s": 30}) == "timed out after 30 s"
    assert error_words("no_such_kind") == "failed"
    assert all("_" not in words for words in ERROR_WORDS.values())  # words, never a code like not_approved
    rejected = tool_card(
        {
            "name": "write_file",
            "arguments": '{"path": "a.txt"}',
            "summary": "write a.txt",
            "ok": False,
            "error_kind": "not_approved",
        },
        "write_file was not approved: the person rejected it",
    )
    assert rejected.plain_text() == "write a.txt — you rejected this"  # one thing, once; no `not_approved`
    timed_out = tool_card(
        {
            "name": "run_command",
            "arguments": '{"command": "sleep 9", "timeout_s": 5}',
            "ok": False,
            "error_kind": "timeout",
        },
        "[timed out after 5 s: the command and every process it started were killed]\n(no output)",
    )
    assert timed_out.plain_text() == "$ sleep 9 — timed out after 5 s\n(no output)"


def test_error_words_pass_through_the_translator(chinese: None) -> None:
    assert error_words("not_approved") == "«you rejected this"


def test_an_agents_sent_diff_reads_as_a_diff_or_as_a_new_files_content() -> None:
    changed = diff_preview("--- a/n.md\n+++ b/n.md\n@@ -1 +1 @@\n-a\n+b\n")
    assert changed is not None and (changed.path, changed.created) == ("n.md", False)
    assert changed.diff.splitlines()[-2:] == ["-a", "+b"]
    created = diff_preview("--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n")
    assert created is not None and (created.path, created.created, created.content) == ("new.py", True, "x = 1\ny = 2")
    assert diff_preview("not a diff") is None


def _unfolded(text: str) -> str:
    return text.replace("\n" + FOLD_MARK, "")


def test_a_command_of_a_megabyte_is_shown_whole_folded_and_its_card_says_so(tmp_path: Path) -> None:
    """Issue 34 (LOOP-1): a heredoc command of 500,000 characters on one line took the card 11.7 s to lay
    out, the window frozen. What the person approves is shown whole: folded into lines of at most
    ``LONG_LINE_CHARS``, each rest starting with ``FOLD_MARK``; the note says so. The call under Details
    is folded the same way, whole."""
    command = "cat > out.b64 <<'EOF'\n" + "QUJD" * 125_000 + "\nEOF"
    view = approval_view(_request("run_command", {"command": command}, tmp_path), "h")
    assert view.body_kind == "command" and _unfolded(view.body) == command
    assert max(map(len, view.body.splitlines())) <= LONG_LINE_CHARS + len(FOLD_MARK)
    assert view.note == f"Lines longer than 1,000 characters are folded: {FOLD_MARK}starts the rest of one"
    assert json.loads(_unfolded(view.details)) == {"command": command}
    assert max(map(len, view.details.splitlines())) <= LONG_LINE_CHARS + len(FOLD_MARK)

    short = approval_view(_request("run_command", {"command": "ls -la"}, tmp_path), "h")
    assert (short.body, short.note) == ("ls -la", "")


def test_a_minified_new_file_or_edit_is_cut_in_the_card_and_whole_under_details(tmp_path: Path) -> None:
    """A new file of one 1 MB line: its content cut on the card (1.1 s to lay out, 23 s for Details before),
    the note saying where the whole call is; Details folded, whole."""
    bundle = "var a=" + "x" * 1_000_000
    view = approval_view(_request("write_file", {"path": "app.min.js", "content": bundle}, tmp_path), "h")
    assert view.body_kind == "content"
    assert view.body == bundle[:LONG_LINE_CHARS] + " … 999006 more characters on this line, not shown"
    assert view.note == "Lines longer than 1,000 characters are cut here; Details shows the whole call"
    assert json.loads(_unfolded(view.details))["content"] == bundle

    (tmp_path / "app.min.js").write_text(bundle)
    edit = approval_view(_request("edit_file", {"path": "app.min.js", "old": "var a=", "new": "let a="}, tmp_path), "h")
    assert edit.body_kind == "diff" and "cut here" in edit.note  # the diff view cuts the lines it shows
