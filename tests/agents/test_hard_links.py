"""A file with more than one hard link is refused for reading and writing alike (SPEC SBX-2, WR-1).

A hard link is another name for the same file; the other name may live outside
the working directory, where no path check can see it. Real files, real links.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from xworkmate.agents.confinement import LinkedFileError, open_confined_file, resolve_file_inside
from xworkmate.agents.tools import (
    ToolContext,
    dispatch_tool_call,
    read_file,
    search_files,
    write_file,
)
from xworkmate.agents.write_gate import EvidenceMessage, RefusalReason, WriteRefused
from xworkmate.domain.messages import MessageSource

ASK = "Please tidy up the project files and fix the greeting in app.py."
QUOTE = "tidy up the project files"
SECRET = "TOP SECRET outside the folder\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "app.py").write_text('print("helo")\n')
    return path.resolve()


@pytest.fixture
def outside_file(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text(SECRET)
    return path.resolve()


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    evidence = [EvidenceMessage(message_id=1, text=ASK, source=MessageSource.HUMAN)]
    return ToolContext.for_working_directory(workspace, lambda: evidence)


@pytest.fixture
def linked(workspace: Path, outside_file: Path) -> Path:
    """``ws/notes.txt``: a hard link to a file outside the folder."""
    name = workspace / "notes.txt"
    os.link(outside_file, name)
    return name


def test_a_read_through_a_hard_link_is_refused(ctx: ToolContext, linked: Path) -> None:
    """SBX-2: the file resolves inside by path, but another name for it is outside; it is not read."""
    with pytest.raises(LinkedFileError, match="2 hard links") as caught:
        read_file(ctx, "notes.txt")
    assert "TOP SECRET" not in str(caught.value)


def test_a_read_through_a_hard_link_is_a_tool_error_the_model_reads(ctx: ToolContext, linked: Path) -> None:
    """SBX-2: the refusal is an ordinary tool result naming the rule, not an internal failure."""
    result = dispatch_tool_call("read_file", json.dumps({"path": "notes.txt"}), ctx)
    assert not result.ok
    assert result.error_kind == "hard_link"
    assert "notes.txt has 2 hard links" in result.content
    assert "outside the working directory" in result.content
    assert "TOP SECRET" not in result.content


def test_a_hard_link_between_two_names_inside_the_folder_is_refused_too(ctx: ToolContext, workspace: Path) -> None:
    """SBX-2 counts links, not where they are: the tool cannot know every other name."""
    os.link(workspace / "app.py", workspace / "app-copy.py")
    with pytest.raises(LinkedFileError):
        read_file(ctx, "app.py")


def test_search_skips_hard_linked_files_and_says_how_many(ctx: ToolContext, linked: Path) -> None:
    """SBX-2: search does not fail as a whole; it leaves the linked file out and counts it."""
    (linked.parent / "plain.txt").write_text("TOP SECRET is a phrase in a plain file\n")
    result = search_files(ctx, "TOP SECRET")
    lines = result.splitlines()
    assert lines[0] == "plain.txt:1: TOP SECRET is a phrase in a plain file"
    assert "outside the folder" not in result
    assert lines[-1].startswith("[1 file(s) with more than one hard link were not searched")


def test_search_naming_a_hard_linked_file_is_refused(ctx: ToolContext, linked: Path) -> None:
    """SBX-2: naming the file directly is the same as reading it."""
    with pytest.raises(LinkedFileError):
        search_files(ctx, "SECRET", path="notes.txt")


def test_a_write_through_a_hard_link_is_refused_by_the_gate(ctx: ToolContext, linked: Path, outside_file: Path) -> None:
    """SBX-2 / WR-1: the gate refuses before anything is read or written; the outside file is unchanged."""
    with pytest.raises(WriteRefused) as caught:
        write_file(ctx, "notes.txt", "overwritten\n", quote=QUOTE)
    assert caught.value.reason is RefusalReason.PATH_LINKED
    assert "2 hard links" in str(caught.value)
    assert outside_file.read_text() == SECRET


def test_an_edit_through_a_hard_link_is_refused_by_the_gate(ctx: ToolContext, linked: Path, outside_file: Path) -> None:
    """SBX-2 / WR-1: the same for edit_file."""
    result = dispatch_tool_call(
        "edit_file", json.dumps({"path": "notes.txt", "old": "TOP", "new": "NOT", "quote": QUOTE}), ctx
    )
    assert not result.ok and result.error_kind == "write_refused"
    assert "hard links" in result.content
    assert outside_file.read_text() == SECRET


def test_a_hard_link_made_after_the_check_is_caught_when_the_file_is_opened(
    workspace: Path, outside_file: Path
) -> None:
    """SBX-2: the open itself re-checks the file it got, and a refused write truncates nothing."""
    target = resolve_file_inside(workspace, "late.txt")  # does not exist yet: passes
    os.link(outside_file, target)
    with pytest.raises(LinkedFileError):
        open_confined_file(target, "late.txt", within=workspace, write=True)
    with pytest.raises(LinkedFileError):
        open_confined_file(target, "late.txt", within=workspace)
    assert outside_file.read_text() == SECRET
