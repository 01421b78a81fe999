"""The command line, run as a real process (SPEC §8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from xworkmate import __version__


def run_cli(home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_") or k == "XWORKMATE_ACP_TRACE"}
    full_env.update({"XWORKMATE_HOME": str(home), "QT_QPA_PLATFORM": "offscreen"})
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "xworkmate", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=60,
        check=False,
    )


def ok_json(home: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    proc = run_cli(home, *args, "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("xworkmate: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def test_version_prints_the_package_version(home: Path) -> None:
    proc = run_cli(home, "--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"xworkmate {__version__}"


_ENTRY_PROBE = """
import gc
import sys

import xworkmate.cli as cli

real_main = cli.main
seen = {}


def probe(argv=None):
    seen["collecting"] = gc.isenabled()
    return real_main(argv)


cli.main = probe
from xworkmate.entry import main

code = main(["thread", "list"])
print("collecting during the command:", seen["collecting"], file=sys.stderr)
print("frozen for the exit:", gc.get_freeze_count() > 0, file=sys.stderr)
sys.exit(code)
"""


def test_the_entry_point_collects_garbage_during_the_command_and_skips_it_at_exit(home: Path) -> None:
    """Issue 7: the collector is off only while the libraries load; at exit the store is closed first."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    proc = subprocess.run(
        [sys.executable, "-c", _ENTRY_PROBE],
        capture_output=True,
        text=True,
        env={**env, "XWORKMATE_HOME": str(home)},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "main" in proc.stdout  # the command ran: the main line is listed
    assert "collecting during the command: True" in proc.stderr
    assert "frozen for the exit: True" in proc.stderr
    # The store was closed before the exit: SQLite checkpointed its write-ahead log and removed it.
    assert list(home.glob("*.sqlite3")) and not list(home.glob("*-wal"))


def test_thread_lifecycle_from_the_command_line(home: Path, tmp_path: Path) -> None:
    """new → list → show → bind → archive, all with --json (ISO-1..ISO-4)."""
    created = ok_json(home, "thread", "new", "--title", "Quarterly report")
    assert created["session_key"] == created["thread_id"]
    assert created["session_key"].startswith("draft:")
    assert created["status"] == "runnable"
    assert Path(created["workspace_path"]).is_dir()
    assert {"title", "status", "workspace_path", "parent_key", "category"} <= created.keys()
    assert created["parent_key"] is None and created["category"] is None

    listed = ok_json(home, "thread", "list")
    assert [row["session_key"] for row in listed] == ["main", created["session_key"]]

    shown = ok_json(home, "thread", "show", created["session_key"])
    assert shown["title"] == "Quarterly report"

    target = tmp_path / "project"
    target.mkdir()
    bound = ok_json(home, "thread", "bind", created["session_key"], "--workspace", str(target))
    assert bound["workspace_path"] == str(target.resolve())
    assert bound["workspace_bound_by"] == "explicit"

    archived = ok_json(home, "thread", "archive", created["session_key"])
    assert archived["status"] == "archived"
    assert [row["session_key"] for row in ok_json(home, "thread", "list")] == ["main"]
    assert len(ok_json(home, "thread", "list", "--all")) == 2


def test_new_thread_with_an_existing_workspace(home: Path, tmp_path: Path) -> None:
    # Not tmp_path itself: it holds XWORKMATE_HOME, and SBX-2 refuses a folder containing the data folder.
    project = tmp_path / "project"
    project.mkdir()
    created = ok_json(home, "thread", "new", "--workspace", str(project))
    assert created["workspace_path"] == str(project.resolve())


def test_unknown_key_is_one_line_naming_the_key(home: Path) -> None:
    assert_one_line_error(run_cli(home, "thread", "show", "draft:nope"), "draft:nope")


def test_binding_to_a_file_is_refused_with_the_reason(home: Path, tmp_path: Path) -> None:
    created = ok_json(home, "thread", "new")
    afile = tmp_path / "notes.txt"
    afile.write_text("x")
    assert_one_line_error(
        run_cli(home, "thread", "bind", created["session_key"], "--workspace", str(afile)), "is a file"
    )
    assert_one_line_error(
        run_cli(home, "thread", "bind", created["session_key"], "--workspace", str(tmp_path / "gone")),
        "does not exist",
    )
    assert ok_json(home, "thread", "show", created["session_key"])["workspace_path"] == created["workspace_path"]


def test_binding_to_slash_from_the_command_line_is_one_line(home: Path, tmp_path: Path) -> None:
    """SBX-2 through the real CLI: ``thread bind`` and ``thread new --workspace`` refuse `/` with one line."""
    created = ok_json(home, "thread", "new")
    assert_one_line_error(
        run_cli(home, "thread", "bind", created["session_key"], "--workspace", "/"), "cannot bind /", "root"
    )
    assert_one_line_error(run_cli(home, "thread", "new", "--workspace", "/"), "cannot bind /")
    assert_one_line_error(
        run_cli(home, "thread", "bind", created["session_key"], "--workspace", str(tmp_path)),
        "contains XWorkmate's data folder",
    )
    assert ok_json(home, "thread", "show", created["session_key"])["workspace_path"] == created["workspace_path"]
    assert len(ok_json(home, "thread", "list")) == 2


def test_corrupt_database_is_one_line_and_never_overwritten(home: Path) -> None:
    db = home / "xworkmate.sqlite3"
    db.write_bytes(b"definitely not sqlite" * 50)
    before = db.read_bytes()
    assert_one_line_error(run_cli(home, "thread", "list"), str(db))
    assert db.read_bytes() == before


def test_unreachable_database_url_is_one_line(home: Path) -> None:
    proc = run_cli(home, "thread", "list", env={"XWORKMATE_DATABASE_URL": "postgresql://u:pw@127.0.0.1:1/x"})
    assert_one_line_error(proc, "127.0.0.1:1")
    assert "pw" not in proc.stderr


@pytest.mark.postgres
def test_command_line_works_on_postgresql(home: Path, pg_database_url: str) -> None:
    env = {"XWORKMATE_DATABASE_URL": pg_database_url}
    created = ok_json(home, "thread", "new", "--title", "shared", env=env)
    assert [r["title"] for r in ok_json(home, "thread", "list", env=env)] == ["Main", "shared"]
    assert ok_json(home, "thread", "show", created["session_key"], env=env)["status"] == "runnable"
    assert not (home / "xworkmate.sqlite3").exists()
