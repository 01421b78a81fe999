"""The native agent's workspace tools, called the way the agent loop calls them (SPEC §5, WR-1)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from xworkmate.agents.confinement import PathEscapeError, ToolError
from xworkmate.agents.tools import (
    TOOL_NAMES,
    ToolContext,
    ToolLimits,
    ToolResult,
    dispatch_tool_call,
    dispatch_tool_call_async,
    edit_file,
    list_dir,
    read_file,
    run_command,
    run_command_async,
    search_files,
    tool_schemas,
    write_file,
)
from xworkmate.agents.tools import dispatch as tool_dispatch
from xworkmate.agents.write_gate import EvidenceMessage
from xworkmate.domain.messages import MessageSource

ASK = "Please tidy up the project files and fix the greeting in app.py."
QUOTE = "tidy up the project files"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / "src").mkdir(parents=True)
    (path / "app.py").write_text('print("helo")\nprint("bye")\n')
    (path / "src" / "util.py").write_text("def helper():\n    return 42  # TODO tidy\n")
    (path / "README.md").write_text("# Demo\nTODO: write docs\n")
    return path.resolve()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("TODO steal me\n")
    return path.resolve()


def _context(workspace: Path, limits: ToolLimits | None = None) -> ToolContext:
    evidence = [EvidenceMessage(message_id=1, text=ASK, source=MessageSource.HUMAN)]
    return ToolContext.for_working_directory(workspace, lambda: evidence, limits)


@pytest.fixture
def ctx(workspace: Path) -> ToolContext:
    return _context(workspace)


def _call(ctx: ToolContext, name: str, **arguments: object) -> ToolResult:
    return dispatch_tool_call(name, json.dumps(arguments), ctx)


def _wait_for(condition: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def _process_is_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # killed, but its new parent has not reaped it yet
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


# --------------------------------------------------------------------------- list / read / search


def test_list_dir_shows_directories_files_and_links(ctx: ToolContext, workspace: Path, outside: Path) -> None:
    (workspace / "out").symlink_to(outside, target_is_directory=True)
    listing = list_dir(ctx)
    assert "src/" in listing.splitlines()
    assert any(line.startswith("app.py") and "bytes" in line for line in listing.splitlines())
    assert f"out -> {outside} (symbolic link)" in listing
    assert "util.py" in list_dir(ctx, "src")


def test_list_dir_of_a_folder_outside_is_refused(ctx: ToolContext, outside: Path) -> None:
    result = _call(ctx, "list_dir", path=str(outside))
    assert not result.ok
    assert result.error_kind == "path_escape"
    assert "outside the working directory" in result.content


def test_read_file_returns_text(ctx: ToolContext) -> None:
    assert read_file(ctx, "app.py") == 'print("helo")\nprint("bye")\n'


def test_read_file_with_offset_and_limit_says_where_to_continue(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    text = read_file(ctx, "long.txt", offset=11, limit=5)
    assert text.startswith("line 11\nline 12\n")
    assert "line 16" not in text
    assert "call read_file with offset=16 to continue" in text


def test_read_file_stops_at_the_size_cap_with_a_note(workspace: Path) -> None:
    ctx = _context(workspace, ToolLimits(read_max_chars=1000))
    (workspace / "big.txt").write_text("x" * 99 + "\n" * 1 + ("y" * 99 + "\n") * 500)
    text = read_file(ctx, "big.txt")
    assert len(text) < 1300
    assert "truncated at the 1,000-character cap" in text
    assert "offset=11" in text


def test_read_file_cuts_a_huge_single_line(workspace: Path) -> None:
    ctx = _context(workspace, ToolLimits(read_max_line_chars=100))
    (workspace / "minified.js").write_text("a" * 1_000_000)
    text = read_file(ctx, "minified.js")
    assert len(text) < 400
    assert "[line cut]" in text


def test_read_file_refuses_binary_files(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ToolError, match="binary file"):
        read_file(ctx, "image.png")


def test_read_file_of_a_directory_or_missing_file_is_a_tool_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="is a directory"):
        read_file(ctx, "src")
    with pytest.raises(ToolError, match="does not exist"):
        read_file(ctx, "nope.txt")


def test_read_file_through_a_symlink_out_of_the_folder_is_refused(
    ctx: ToolContext, workspace: Path, outside: Path
) -> None:
    """WR-1: reads are confined too."""
    (workspace / "peek.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(PathEscapeError):
        read_file(ctx, "peek.txt")


def test_search_files_finds_regex_matches_with_path_and_line(ctx: ToolContext) -> None:
    result = search_files(ctx, r"TODO\W+(tidy|write)")
    assert result.splitlines() == [
        "README.md:2: TODO: write docs",
        "src/util.py:2:     return 42  # TODO tidy",
    ]


def test_search_files_literal_and_glob(ctx: ToolContext) -> None:
    assert search_files(ctx, 'print("', literal=True, glob="*.py").splitlines() == [
        'app.py:1: print("helo")',
        'app.py:2: print("bye")',
    ]
    assert "no matches" in search_files(ctx, "TODO", glob="*.txt")


def test_search_files_does_not_follow_links_out_of_the_folder(ctx: ToolContext, workspace: Path, outside: Path) -> None:
    (workspace / "out").symlink_to(outside, target_is_directory=True)
    (workspace / "secret-link.txt").symlink_to(outside / "secret.txt")
    assert "steal" not in search_files(ctx, "TODO")


def test_search_files_invalid_regex_suggests_literal(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="literal=true"):
        search_files(ctx, "print(")


def test_search_files_stops_at_the_match_cap(workspace: Path) -> None:
    ctx = _context(workspace, ToolLimits(search_max_matches=3))
    (workspace / "many.txt").write_text("hit\n" * 50)
    lines = search_files(ctx, "hit").splitlines()
    assert len(lines) == 4
    assert lines[-1].startswith("[stopped at 3 matches")


# --------------------------------------------------------------------------- write / edit


def test_write_file_creates_parents_and_reports_a_diff(ctx: ToolContext, workspace: Path) -> None:
    outcome = write_file(ctx, "docs/guide/intro.md", "# Intro\n", quote=QUOTE)
    assert (workspace / "docs" / "guide" / "intro.md").read_text() == "# Intro\n"
    assert outcome.created and outcome.display_path == "docs/guide/intro.md"
    assert outcome.evidence_message_id == 1
    assert outcome.diff is not None and "+# Intro" in outcome.diff


def test_write_file_replaces_an_existing_file(ctx: ToolContext, workspace: Path) -> None:
    outcome = write_file(ctx, "README.md", "# New\n", quote=QUOTE)
    assert not outcome.created
    assert (workspace / "README.md").read_text() == "# New\n"


def test_write_file_refuses_a_target_with_another_hard_link(ctx: ToolContext, workspace: Path) -> None:
    os.link(workspace / "README.md", workspace / "README.copy")
    with pytest.raises(ToolError, match="hard links"):
        write_file(ctx, "README.md", "changed", quote=QUOTE)
    assert (workspace / "README.copy").read_text() == "# Demo\nTODO: write docs\n"


def test_write_file_through_a_dangling_symlink_out_creates_nothing_outside(
    ctx: ToolContext, workspace: Path, outside: Path
) -> None:
    """WR-1: a dangling link out of the folder is refused before any write."""
    (workspace / "drop.txt").symlink_to(outside / "planted.txt")
    result = _call(ctx, "write_file", path="drop.txt", content="x", quote=QUOTE)
    assert not result.ok and result.error_kind == "write_refused"
    assert not (outside / "planted.txt").exists()


def test_edit_file_replaces_the_single_occurrence(ctx: ToolContext, workspace: Path) -> None:
    outcome = edit_file(ctx, "app.py", 'print("helo")', 'print("hello")', quote=QUOTE)
    assert (workspace / "app.py").read_text() == 'print("hello")\nprint("bye")\n'
    assert outcome.diff is not None and '+print("hello")' in outcome.diff


def test_edit_file_with_no_match_says_zero_matches_and_changes_nothing(ctx: ToolContext, workspace: Path) -> None:
    result = _call(ctx, "edit_file", path="app.py", old='print("hi")', new="x", quote=QUOTE)
    assert not result.ok
    assert "0 matches" in result.content
    assert (workspace / "app.py").read_text() == 'print("helo")\nprint("bye")\n'


def test_edit_file_with_two_matches_says_how_many_and_where(ctx: ToolContext, workspace: Path) -> None:
    result = _call(ctx, "edit_file", path="app.py", old="print(", new="log(", quote=QUOTE)
    assert not result.ok
    assert "occurs 2 times" in result.content and "lines 1, 2" in result.content
    assert (workspace / "app.py").read_text() == 'print("helo")\nprint("bye")\n'


def test_edit_file_counts_overlapping_occurrences(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "a.txt").write_text("aaa")
    with pytest.raises(ToolError, match="occurs 2 times"):
        edit_file(ctx, "a.txt", "aa", "b", quote=QUOTE)


def test_edit_file_hints_at_crlf_line_endings(ctx: ToolContext, workspace: Path) -> None:
    (workspace / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    with pytest.raises(ToolError, match="CRLF"):
        edit_file(ctx, "win.txt", "one\ntwo", "1\n2", quote=QUOTE)


def test_edit_file_of_a_missing_file_points_to_write_file(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="use write_file"):
        edit_file(ctx, "missing.py", "a", "b", quote=QUOTE)


# --------------------------------------------------------------------------- run_command


def test_run_command_runs_in_the_working_directory(ctx: ToolContext, workspace: Path) -> None:
    outcome = run_command(ctx, "pwd; echo oops >&2; exit 3", timeout_s=10)
    assert outcome.exit_code == 3 and not outcome.timed_out
    assert outcome.output.splitlines() == [str(workspace), "oops"]
    assert outcome.to_tool_text().startswith("[exit code 3 after")


def test_command_that_never_ends_is_killed_at_the_timeout_with_its_children(ctx: ToolContext, workspace: Path) -> None:
    started = time.monotonic()
    outcome = run_command(ctx, "echo started; sleep 60 & echo $! > child.pid; sleep 60", timeout_s=1)
    elapsed = time.monotonic() - started
    assert outcome.timed_out and outcome.exit_code is None
    assert 0.9 <= elapsed < 60, "ended by its 1 s timeout, not by its own minute's sleep"
    assert "timed out after 1 s" in outcome.to_tool_text()
    assert "started" in outcome.output
    child = int((workspace / "child.pid").read_text())
    assert _wait_for(lambda: _process_is_gone(child)), "the background child survived the timeout"


def test_fifty_megabytes_of_output_are_truncated_with_a_note(ctx: ToolContext) -> None:
    script = "import sys\nfor _ in range(50): sys.stdout.buffer.write(b'x' * 1048576)\nprint('THE-END')"
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    tracemalloc.start()
    try:
        outcome = run_command(ctx, command, timeout_s=30)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    total = 50 * 1048576 + len("THE-END\n")
    assert outcome.exit_code == 0 and not outcome.timed_out
    assert outcome.total_output_bytes == total
    assert outcome.dropped_output_bytes == total - 64 * 1024
    assert len(outcome.output) < 66 * 1024
    assert f"{total - 64 * 1024:,} bytes of output dropped" in outcome.output
    assert outcome.output.rstrip().endswith("THE-END")
    assert peak < 8 * 1048576, f"peak Python memory {peak:,} bytes"


def test_command_that_closes_its_output_is_still_awaited(ctx: ToolContext) -> None:
    outcome = run_command(ctx, "exec >&- 2>&-; sleep 0.3; exit 4", timeout_s=10)
    assert outcome.exit_code == 4 and not outcome.timed_out


def test_background_process_holding_the_output_does_not_hang_the_call(workspace: Path) -> None:
    ctx = _context(workspace, ToolLimits(command_drain_grace_s=0.2))
    started = time.monotonic()
    outcome = run_command(ctx, "sleep 60 & echo $! > bg.pid; echo done", timeout_s=30)
    assert time.monotonic() - started < 30, "the drain's grace, not the command's 30 s timeout, ended the wait"
    assert outcome.exit_code == 0 and outcome.output_pipe_held_open
    assert "background processes kept the output open" in outcome.to_tool_text()
    pid = int((workspace / "bg.pid").read_text())
    assert _wait_for(lambda: _process_is_gone(pid))


def test_cancelling_run_command_async_kills_the_process_group(ctx: ToolContext, workspace: Path) -> None:
    pid_file = workspace / "pids"

    async def scenario() -> None:
        task = asyncio.create_task(
            run_command_async(ctx, "sleep 60 & echo $$ $! > pids.tmp; mv pids.tmp pids; wait", timeout_s=30)
        )
        while not pid_file.exists():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    started = time.monotonic()
    asyncio.run(scenario())
    assert time.monotonic() - started < 30, "the cancel, not the command's 30 s timeout, ended it"
    shell_pid, child_pid = map(int, pid_file.read_text().split())
    assert _wait_for(lambda: _process_is_gone(shell_pid)), "the shell survived cancellation"
    assert _wait_for(lambda: _process_is_gone(child_pid)), "the background child survived cancellation"


def test_run_command_async_reports_a_timeout_through_dispatch(ctx: ToolContext) -> None:
    result = asyncio.run(dispatch_tool_call_async("run_command", '{"command": "sleep 30", "timeout_s": 0.5}', ctx))
    assert not result.ok and result.error_kind == "timeout"
    assert "were killed" in result.content


def test_run_command_rejects_an_empty_command_and_a_bad_timeout(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="empty"):
        run_command(ctx, "  ")
    with pytest.raises(ToolError, match="positive"):
        run_command(ctx, "true", timeout_s=0)


# --------------------------------------------------------------------------- dispatch


def test_non_json_arguments_become_a_tool_result(ctx: ToolContext) -> None:
    result = dispatch_tool_call("read_file", "{path: app.py", ctx)
    assert not result.ok
    assert result.error_kind == "invalid_arguments"
    assert "not valid JSON" in result.content


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ("[1, 2]", "must be a JSON object, not list"),
        ("{}", "missing required argument(s) 'path'"),
        ('{"path": 5}', "'path' must be a string, got 5"),
        ('{"path": "app.py", "offset": "ten"}', "'offset' must be an integer"),
        ('{"path": "app.py", "offset": true}', "'offset' must be an integer"),
        ('{"path": "app.py", "offset": 0}', "'offset' must be at least 1"),
        ('{"path": "app.py", "encoding": "latin-1"}', "unknown argument(s) 'encoding'"),
    ],
)
def test_ill_formed_arguments_say_what_is_wrong(ctx: ToolContext, arguments: str, expected: str) -> None:
    result = dispatch_tool_call("read_file", arguments, ctx)
    assert not result.ok and result.error_kind == "invalid_arguments"
    assert expected in result.content


def test_empty_arguments_mean_no_arguments_and_null_means_default(ctx: ToolContext) -> None:
    assert dispatch_tool_call("list_dir", "", ctx).ok
    assert dispatch_tool_call("read_file", '{"path": "app.py", "limit": null, "offset": 1.0}', ctx).ok


def test_unknown_tool_lists_the_available_ones(ctx: ToolContext) -> None:
    result = dispatch_tool_call("delete_everything", "{}", ctx)
    assert not result.ok and result.error_kind == "unknown_tool"
    assert all(name in result.content for name in TOOL_NAMES)


def test_write_without_a_quote_is_an_argument_error(ctx: ToolContext, workspace: Path) -> None:
    """WR-1: the tool signature carries the quote; omitting it writes nothing."""
    result = dispatch_tool_call("write_file", '{"path": "x.txt", "content": "x"}', ctx)
    assert result.error_kind == "invalid_arguments" and "'quote'" in result.content
    assert not (workspace / "x.txt").exists()


def test_internal_error_is_logged_and_never_escapes(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*_args: object, **_kwargs: object) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setitem(tool_dispatch._READERS, "list_dir", broken)
    result = dispatch_tool_call("list_dir", "{}", ctx)
    assert not result.ok and result.error_kind == "internal_error"
    assert "disk on fire" not in result.content
    assert "disk on fire" in caplog.text


def test_file_tools_run_through_async_dispatch(ctx: ToolContext) -> None:
    result = asyncio.run(dispatch_tool_call_async("read_file", '{"path": "app.py"}', ctx))
    assert result.ok and 'print("helo")' in result.content


def test_schemas_are_openai_function_tools_matching_the_dispatcher() -> None:
    schemas = tool_schemas(skills=True)  # read_skill only on a turn with selected skills (SKL-2)
    assert [s["function"]["name"] for s in schemas] == list(TOOL_NAMES)
    for schema in schemas:
        assert schema["type"] == "function"
        parameters = schema["function"]["parameters"]
        assert parameters["type"] == "object"
        assert set(parameters["required"]) <= set(parameters["properties"])
        assert schema["function"]["description"]
    by_name = {s["function"]["name"]: s["function"]["parameters"] for s in schemas}
    assert "quote" in by_name["write_file"]["required"]
    assert "quote" in by_name["edit_file"]["required"]
    schemas[0]["function"]["name"] = "mutated"
    assert tool_schemas()[0]["function"]["name"] == "list_dir"


def test_async_dispatch_reads_the_evidence_and_writes_off_the_loop_thread(workspace: Path) -> None:
    """WR-1 and issue 33 item 4 (LOOP-4): the gate's evidence reads and the write run on a worker thread, not on
    the event loop (the window's); the gate still reads the evidence once per check."""
    threads: list[int] = []

    def evidence() -> list[EvidenceMessage]:
        threads.append(threading.get_ident())
        return [EvidenceMessage(message_id=1, text=ASK, source=MessageSource.HUMAN)]

    ctx = ToolContext.for_working_directory(workspace, evidence)
    arguments = json.dumps({"path": "app.py", "old": "helo", "new": "hello", "quote": QUOTE})
    result = asyncio.run(dispatch_tool_call_async("edit_file", arguments, ctx))
    assert result.ok, result.content
    assert len(threads) == 1 and threads[0] != threading.get_ident()
    assert (workspace / "app.py").read_text().count("hello")


def test_a_write_cancelled_in_flight_ends_before_the_cancellation_goes_on(workspace: Path) -> None:
    """Issue 33 item 4: the write runs on a worker thread, yet a cancelled turn never leaves it finishing in the
    background: the cancellation reaches the turn only once the gate and the write have ended (WR-1)."""
    started, release = threading.Event(), threading.Event()

    def evidence() -> list[EvidenceMessage]:
        started.set()
        release.wait(10)  # the gate is reading when the turn is cancelled
        return [EvidenceMessage(message_id=1, text=ASK, source=MessageSource.HUMAN)]

    ctx = ToolContext.for_working_directory(workspace, evidence)
    arguments = json.dumps({"path": "app.py", "old": "helo", "new": "hello", "quote": QUOTE})

    async def turn() -> tuple[bool, bool]:
        call = asyncio.ensure_future(dispatch_tool_call_async("edit_file", arguments, ctx))
        await asyncio.to_thread(started.wait, 10)
        call.cancel()
        await asyncio.sleep(0)  # the cancellation is delivered to the call
        waiting = not call.done()  # it waits for the write, which waits for the gate
        release.set()
        try:
            await call
        except asyncio.CancelledError:
            return waiting, True
        return waiting, False

    waiting, cancelled = asyncio.run(turn())
    assert waiting and cancelled
    assert (workspace / "app.py").read_text() == 'print("hello")\nprint("bye")\n'  # ended, not half-done
