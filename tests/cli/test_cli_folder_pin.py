"""Issue 29, table row 5 from the command line (SBX-3, ISO-4): a swapped folder, said and refused in one line.

The line's folder is replaced by a link to another line's folder between two commands. ``thread list`` and
``thread show`` say ``needs_workspace`` with the reason; ``run`` refuses it in one line before anything is
stored; ``thread bind`` to its folder again makes it runnable.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli


def test_a_folder_swapped_for_a_link_is_said_in_list_and_show_and_refused_by_run_until_bound_again(
    home: Path,
) -> None:
    line, other = ok_json(home, "thread", "new"), ok_json(home, "thread", "new")
    key, folder = line["session_key"], Path(line["workspace_path"])
    assert line["status"] == "runnable" and line["status_reason"] == "ready"
    shutil.rmtree(folder)
    folder.symlink_to(other["workspace_path"], target_is_directory=True)
    reason = (
        f"the line's folder {folder} was replaced by a symbolic link to {other['workspace_path']} since it was"
        " bound; pick its folder again (Change folder…)"
    )

    shown = ok_json(home, "thread", "show", key)
    assert (shown["status"], shown["status_reason"]) == ("needs_workspace", reason)
    [listed] = [row for row in ok_json(home, "thread", "list") if row["session_key"] == key]
    assert (listed["status"], listed["status_reason"]) == ("needs_workspace", reason)

    assert_one_line_error(run_cli(home, "run", key, "write pwned.txt"), "not runnable (needs_workspace)", reason)
    assert not (Path(other["workspace_path"]) / "pwned.txt").exists()
    assert ok_json(home, "messages", key) == []

    folder.unlink()
    folder.mkdir()
    rebound = ok_json(home, "thread", "bind", key, "--workspace", str(folder))
    assert (rebound["status"], rebound["status_reason"]) == ("runnable", "ready")
