"""Issue 29 tried as an attacker (SBX-2, SBX-3): an ACP agent runs beside XWorkmate while its
``fs/read_text_file`` and ``fs/write_text_file`` requests are served on the host, so it can swap a
folder in its path for a link between the check and the open. The open must not follow it."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.acp import AgentHarness

_ATTEMPTS = 40

# Flips ``sub`` between a real folder and a link to the victim folder as fast as it can (the agent's own
# background process, started with its shell tool and detached from it, so it outlives the agent): it
# stops when the test writes its stop file, and after a minute whatever happens.
_SWAPPER = """
import os, shutil, sys, time
stop, deadline = sys.argv[3], time.monotonic() + 60
os.chdir(sys.argv[1])
while not os.path.exists(stop) and time.monotonic() < deadline:
    try:
        if os.path.islink("sub"):
            os.unlink("sub")
        else:
            shutil.rmtree("sub", ignore_errors=True)
        os.mkdir("sub")  # a real folder: the check passes
        shutil.rmtree("sub", ignore_errors=True)
        os.symlink(sys.argv[2], "sub")  # now a link out of the folder
    except OSError:
        pass
"""


def test_an_agent_swapping_a_folder_for_a_link_during_its_own_fs_requests_reaches_nothing_outside(
    tmp_path: Path,
) -> None:
    """SBX-3: with ``sub`` turned into a link to ``victim`` (standing in for ``$HOME``) between the
    path's check and its open, a write landed in ``victim`` and a read returned its file."""
    harness = AgentHarness(tmp_path)
    ws = harness.workspace
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "key.txt").write_text("VICTIM-SECRET\n")
    swapper = tmp_path / "swap.py"
    swapper.write_text(_SWAPPER)
    stop = tmp_path / "stop-swapping"
    steps: list[dict[str, object]] = [{"shell": f"({sys.executable} {swapper} {ws} {victim} {stop} >/dev/null 2>&1 &)"}]
    for _ in range(_ATTEMPTS):
        steps.append({"write": {"path": "sub/pwned.txt", "content": "planted"}})
        steps.append({"read": {"path": "sub/key.txt"}})
    try:
        out = harness.run(harness.script(turn=steps))
    finally:
        stop.touch()  # the swapper would otherwise keep a core busy for the rest of the suite

    assert out.error is None, out.error
    assert not (victim / "pwned.txt").exists(), "a write followed the swapped-in link out of the folder"
    assert all("VICTIM-SECRET" not in str(row) for row in harness.report("read"))
