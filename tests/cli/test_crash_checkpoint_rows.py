"""A turn killed mid-run leaves no checkpoint row that looks mid-turn (issue 34 item 3; LOOP-1, ERR-2).

A real ``xworkmate run`` child process on a line with a folder, a real SIGKILL while the scripted
OpenAI-compatible server holds its stream open, then the store opened again as the next command or
window opens it: the killed turn's checkpoint row ends ("interrupted", no after-snapshot), so restore
no longer refuses the line as "running a turn", and restoring to before the killed turn works.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli_turn_endings import _add_server, _start_run, _wait_until
from tests.cli.test_crash_resume import _kill_9, _partial_stored, _reopened
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store.checkpoints import CheckpointRepository
from xworkmate.testing.openai_server import HangReply, OpenAIServer


def test_a_killed_turns_checkpoint_row_is_ended_on_the_next_open_and_restore_works(
    controller: SessionController,
    database_url: str,
    settings: Settings,
    home: Path,
    tmp_path: Path,
    openai_server: OpenAIServer,
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "notes.txt").write_text("before the turn\n")
    _add_server(controller, openai_server)
    key = controller.lines.create_line("crash", workspace=folder).thread_id
    rows = CheckpointRepository(controller._store)
    openai_server.script(HangReply(chunks=["Half an ", "answer"]))
    proc = _start_run(home, database_url, key, "edit the notes")
    try:
        _wait_until(lambda: _partial_stored(controller, key, "Half an answer"), "the streamed reply to be kept")
        # The turn is alive: its row is open (begun, not finished), and the next open leaves it alone.
        assert [(r.turn, r.finished_at) for r in rows.turns(key)] == [(1, None)]
        # On a busy machine the folder's first snapshot goes on beside the turn; it is in the row
        # as soon as it is taken, the turn still running (a kill before that leaves it "missing":
        # tests/checkpoints/test_first_snapshot.py).
        _wait_until(lambda: bool(rows.turns(key)[0].before_commit), "the first checkpoint to be in the row")
        alive_check = _reopened(settings, database_url)
        try:
            assert rows.turns(key)[0].finished_at is None
        finally:
            alive_check.close()
        (folder / "notes.txt").write_text("written during the killed turn\n")
        _kill_9(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert rows.turns(key)[0].finished_at is None  # what the kill left: a row that looks mid-turn

    reopened = _reopened(settings, database_url)
    try:
        assert key in reopened.recovered
        [row] = rows.turns(key)
        assert (row.status, row.after_commit) == ("interrupted", None) and row.finished_at is not None
        result = reopened.checkpoints.restore(key, 1, force=True)
        assert (folder / "notes.txt").read_text() == "before the turn\n", result
    finally:
        reopened.close()
