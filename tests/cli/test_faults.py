"""ERR-1, ERR-2 with real faults: a read-only database, a full disk. Each failure is one line on stderr
with the exit code of its kind, the database stays consistent, no folder is left without its row, and
the traceback is in the log file under the data folder, never on the screen.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from xworkmate.cli import EXIT_DATABASE

LOG = Path("logs") / "xworkmate.log"


def line_folders(home: Path) -> set[str]:
    threads = home / "workspace" / ".xworkmate" / "threads"
    return {p.name for p in threads.iterdir()} if threads.is_dir() else set()


def stored_folders(home: Path, env: dict[str, str] | None = None) -> set[str]:
    return {Path(line["workspace_path"]).name for line in ok_json(home, "thread", "list", "--all", env=env)}


def assert_consistent(home: Path, env: dict[str, str] | None = None) -> None:
    """Every stored line has its folder and every folder its line (ERR-2); SQLite's own check passes."""
    if env is None or "XWORKMATE_DATABASE_URL" not in env:
        with sqlite3.connect(home / "xworkmate.sqlite3") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert line_folders(home) == stored_folders(home, env)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def read_only(request: pytest.FixtureRequest, home: Path) -> Iterator[tuple[dict[str, str], dict[str, str]]]:
    """(env to write with, env that sees the same database read-only), on each database."""
    if request.param == "sqlite":
        writable: dict[str, str] = {}
        ok_json(home, "thread", "new", "--title", "before")
        url = f"sqlite:///file:{home / 'xworkmate.sqlite3'}?mode=ro&uri=true"
        yield writable, {"XWORKMATE_DATABASE_URL": url}
        return
    url = request.getfixturevalue("pg_database_url")
    writable = {"XWORKMATE_DATABASE_URL": url}
    ok_json(home, "thread", "new", "--title", "before", env=writable)
    import psycopg

    name = url.rpartition("/")[2]
    admin = url.rpartition("/")[0].replace("+psycopg", "") + "/test"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    yield writable, writable


def test_a_read_only_database_is_one_line_and_leaves_no_folder(
    home: Path, read_only: tuple[dict[str, str], dict[str, str]]
) -> None:
    """ERR-1/ERR-2: `thread new` on a read-only database: exit 3, one line naming it, no orphan folder."""
    writable, env = read_only
    folders = line_folders(home)
    proc = run_cli(home, "thread", "new", "--title", "after", env=env)
    assert proc.returncode == EXIT_DATABASE
    assert_one_line_error(proc, "read-only")
    assert "Traceback" not in proc.stderr
    assert line_folders(home) == folders
    assert_consistent(home, writable or None)
    assert "Traceback" in (home / LOG).read_text()  # the details are kept, for whoever needs them


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 8 MB file system (tmpfs) to fill up; needs root to mount."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount_point)], check=False)
    if done.returncode != 0:
        pytest.skip("this machine refuses to mount a tmpfs")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(disk: Path) -> None:
    """Fill the file system to its last byte (unbuffered: a failed write leaves nothing for close to flush)."""
    with open(disk / f"filler-{uuid.uuid4().hex}", "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * 65536)
        except OSError:
            pass
    try:
        with open(disk / f"filler-{uuid.uuid4().hex}", "wb", buffering=0) as filler:
            while True:
                filler.write(b"\0")
    except OSError:
        pass


def test_a_full_disk_during_a_command_is_one_line_and_leaves_no_folder(small_disk: Path) -> None:
    """ERR-1/ERR-2: the disk fills during `thread new`: exit 3 or 4 with one line, nothing half-made."""
    home = small_disk / "home"
    home.mkdir()
    for n in range(3):
        ok_json(home, "thread", "new", "--title", f"line {n}")
    # Another process holds the database open, as the window would: its WAL index stays, so the
    # command can open the database and the disk fills when it writes, not when it opens.
    holder = sqlite3.connect(home / "xworkmate.sqlite3")
    holder.execute("SELECT count(*) FROM threads").fetchone()
    try:
        fill(small_disk)
        failed = 0
        for _ in range(20):  # SQLite may still fit a row in a free page; sooner or later it cannot
            proc = run_cli(home, "thread", "new", "--title", "x" * 400)
            if proc.returncode != 0:
                failed += 1
                assert proc.returncode == EXIT_DATABASE, proc.stderr
                assert_one_line_error(proc, "is full")
                break
        assert failed == 1
    finally:
        holder.close()
        for filler in small_disk.glob("filler-*"):
            filler.unlink()
    assert_consistent(home)
