"""A git call that outlives its timeout is stopped and said in one line (SBX-3's ``run_git``, ERR-1).

A real process: a ``git`` first on the ``PATH`` that hangs in ``status`` and leaves its pid behind; the real
git for everything else (the version check, the config listing).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from xworkmate.agents.git_safe import GitUnsafe, run_git


def test_a_git_call_past_its_timeout_is_killed_and_said_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = shutil.which("git")
    assert real is not None
    folder = tmp_path / "repo"
    folder.mkdir()
    subprocess.run([real, "init", "-q", str(folder)], check=True)
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    pid_file = tmp_path / "hung.pid"
    fake = bin_folder / "git"
    fake.write_text(
        "#!/bin/sh\n"
        'for arg in "$@"; do\n'
        f'  if [ "$arg" = status ]; then echo $$ > "{pid_file}"; exec sleep 60; fi\n'
        "done\n"
        f'exec "{real}" "$@"\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ['PATH']}")

    with pytest.raises(GitUnsafe) as raised:
        run_git(["status", "--porcelain"], cwd=folder, timeout=1.0)

    assert str(raised.value) == f"git status took longer than 1 s in {folder}; it was stopped"
    hung = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(hung, 0)  # killed and reaped, not left running
