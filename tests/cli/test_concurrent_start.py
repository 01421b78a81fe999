"""ERR-3 with real processes: 50 ``xworkmate thread new`` started at once on a fresh database.

Every one of them must succeed, quietly: no lost line, no second ``main``, no second first
generation, every line with its folder, and (on SQLite) a file that passes its own check.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select

from xworkmate.store import open_store
from xworkmate.store.tables import ThreadRow, ThreadSessionRow

PROCESSES = 50


def start_at_once(home: Path, count: int, env: dict[str, str] | None = None) -> list[subprocess.CompletedProcess[str]]:
    """Start ``count`` ``thread new --json`` processes without waiting for any, then wait for all."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    full_env.update({"XWORKMATE_HOME": str(home), "QT_QPA_PLATFORM": "offscreen"}, **(env or {}))
    argv = [sys.executable, "-m", "xworkmate", "thread", "new", "--json"]
    children = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env)
        for _ in range(count)
    ]
    finished = []
    for child in children:
        stdout, stderr = child.communicate(timeout=240)
        finished.append(subprocess.CompletedProcess(argv, child.returncode, stdout, stderr))
    return finished


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def fresh_database(request: pytest.FixtureRequest, home: Path) -> tuple[str, dict[str, str]]:
    """(URL, environment for the children): a SQLite file not yet made, or an empty PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{home / 'xworkmate.sqlite3'}", {}
    url = str(request.getfixturevalue("pg_database_url"))
    return url, {"XWORKMATE_DATABASE_URL": url}


@pytest.mark.timeout(300)
def test_fifty_processes_start_on_a_fresh_database_at_once(
    home: Path, fresh_database: tuple[str, dict[str, str]]
) -> None:
    """ERR-3: all 50 exit 0 with nothing on stderr; 50 lines and one main, each once, each with its folder."""
    url, env = fresh_database
    results = start_at_once(home, PROCESSES, env)

    failures = [(r.returncode, r.stderr.strip()) for r in results if r.returncode != 0 or r.stderr]
    assert not failures, f"{len(failures)} of {PROCESSES} failed: {failures[:3]}"
    created = {json.loads(r.stdout)["session_key"] for r in results}
    assert len(created) == PROCESSES

    if not env:
        with sqlite3.connect(home / "xworkmate.sqlite3") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    store = open_store(url)
    try:
        with store.read() as session:
            rows = session.execute(select(ThreadRow.thread_id, ThreadRow.workspace_path)).all()
            generations = dict(
                session.execute(
                    select(ThreadSessionRow.thread_id, func.count()).group_by(ThreadSessionRow.thread_id)
                ).all()
            )
    finally:
        store.close()
    keys = [key for key, _ in rows]
    assert sorted(keys) == sorted(created | {"main"})  # the 50 drafts and exactly one main
    assert generations == dict.fromkeys(keys, 1)  # main's first generation was not started twice
    assert all(path and Path(path).is_dir() for _, path in rows)
