"""SBX-3, tried as an attacker (issue 29 rows 1 and 3): an ACP agent runs during its turn and its
sandbox keeps ``.git/config`` read-only, but not ``.git``: it can write ``.git/commondir``, which moves
the repository's config to a folder it writes. Flipped in a loop, a ``commondir`` that was absent when
``git_safe`` listed the config's drivers and present when git ran let the agent's filter run as the
person in ``changes --uncommitted``. git is told the common dir as read once, for both."""

from __future__ import annotations

import contextlib
import shlex
import shutil
import threading
from pathlib import Path

from tests.support.git_repos import git, make_repo
from xworkmate.agents.checkpoints import FolderRepo, GitFailed

_CALLS = 60


def test_a_commondir_flipped_during_changes_never_runs_the_agents_filter(tmp_path: Path) -> None:
    folder = make_repo(tmp_path / "line", {"tracked.txt": "one\n"})
    marks = tmp_path / "marks"
    marks.mkdir()
    evil = folder / "evil"
    shutil.copytree(folder / ".git", evil)
    clean = f"sh -c 'id >> {shlex.quote(str(marks / 'filter'))}; cat' --"
    git(folder, "config", "--file", str(evil / "config"), "filter.x.clean", clean)
    (folder / ".gitattributes").write_text("* filter=x\n")
    (folder / "tracked.txt").write_text("two\n")
    commondir = folder / ".git" / "commondir"
    stop = threading.Event()

    def flip() -> None:  # the agent's own loop, beside XWorkmate's git
        while not stop.is_set():
            commondir.write_text("../evil\n")
            commondir.unlink()

    flipper = threading.Thread(target=flip)
    flipper.start()
    try:
        for _ in range(_CALLS):
            with contextlib.suppress(GitFailed):  # git refusing a half-written commondir is fine, running is not
                FolderRepo(folder).changes()
    finally:
        stop.set()
        flipper.join()
    assert not (marks / "filter").exists(), (marks / "filter").read_text()
