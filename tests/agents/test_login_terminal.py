"""SBX-1 (issue 32 item 4): stopping a login program ends it; it never reads an end of input first.

Closing the pty before the program has ended hands it an end of input it may act on as on a typed empty line;
in the sandbox the stop reaches the program only as bubblewrap ends, so that race was real (a CI run saw the
scripted login program report a failed login after Stop)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from xworkmate.agents.acp.login_terminal import LoginTerminal

# A login program that outlives the stop signal for a moment (as one in the sandbox does until bubblewrap ends)
# and notes what it read.
_PROGRAM = """
import pathlib, signal, sys
signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.stdout.write("token: "); sys.stdout.flush()
line = sys.stdin.readline()
pathlib.Path(sys.argv[1]).write_text("read " + repr(line))
"""


def _stop_while_prompting(tmp_path: Path, grace: float) -> tuple[LoginTerminal, Path]:
    seen = tmp_path / "seen"

    async def scenario() -> LoginTerminal:
        terminal = LoginTerminal([sys.executable, "-c", "login"], "Log in")
        terminal.end_grace = grace
        await terminal.start([sys.executable, "-c", _PROGRAM, str(seen)], tmp_path, dict(os.environ), None)
        while "token:" not in terminal.text:
            await asyncio.sleep(0.01)
        terminal.close()  # a cancelled turn: Stop
        assert terminal.status == -15
        for _ in range(500):  # its pty is released once it has ended
            if terminal._master is None:
                break
            await asyncio.sleep(0.02)
        return terminal

    return asyncio.run(scenario()), seen


def test_a_stopped_login_program_never_reads_an_end_of_input_and_is_killed_if_it_outlives_the_stop(
    tmp_path: Path,
) -> None:
    terminal, seen = _stop_while_prompting(tmp_path, grace=0.5)
    assert terminal._master is None, "the pty is released once the program has ended"
    assert not seen.exists(), seen.read_text()  # it was killed while waiting for a line, never handed ''
    assert terminal._process is not None and terminal._process.returncode == -9


def test_closing_a_login_program_that_has_ended_releases_its_pty_at_once(tmp_path: Path) -> None:
    async def scenario() -> LoginTerminal:
        terminal = LoginTerminal([sys.executable], "Log in")
        await terminal.start([sys.executable, "-c", "print('bye')"], tmp_path, dict(os.environ), None)
        assert await terminal.wait() == 0
        terminal.close()
        return terminal

    terminal = asyncio.run(scenario())
    assert terminal._master is None and terminal.status == 0 and "bye" in terminal.text
