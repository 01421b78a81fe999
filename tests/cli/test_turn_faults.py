"""A turn whose database fails under it (ERR-1, issue 29 item 5): PostgreSQL lost mid-turn, a disk that fills
mid-stream. ``xworkmate run`` exits 3 as any command's database failure does, in one line that names the
database (or its disk) as the cause, never the provider's stream. Real processes, the real test model server
streaming slowly, the real PostgreSQL and a real file-size limit or a real full tmpfs.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_one_line_error, ok_json
from tests.cli.test_faults import fill, small_disk  # noqa: F401  # the tmpfs fixture
from xworkmate.cli import EXIT_DATABASE
from xworkmate.home import SQLITE_FILE
from xworkmate.testing.openai_server import OpenAIServer, TextReply

SLOW_REPLY = TextReply(["tick "] * 60, delay=0.2)
"""A reply that streams for about 12 s: long enough to break the database under it."""


def _env(home: Path, database_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")} | {"XWORKMATE_HOME": str(home)}
    return env | ({"XWORKMATE_DATABASE_URL": database_url} if database_url else {})


def _line(home: Path, server: OpenAIServer, env: dict[str, str]) -> str:
    ok_json(home, "provider", "add", "local", "--base-url", server.base_url, "--model", "test-model", env=env)
    return str(ok_json(home, "thread", "new", env=env)["session_key"])


def _run_while(
    home: Path,
    key: str,
    server: OpenAIServer,
    env: dict[str, str],
    during: Callable[[], None],
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``xworkmate run`` as a process; ``during()`` once the model has started streaming to it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "xworkmate", "run", key, "hello", "--provider", "local"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=preexec_fn,
    )
    try:
        deadline = time.monotonic() + 60
        while not server.chat_requests:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        time.sleep(0.5)  # a few chunks in
        during()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _blames_no_stream(proc: subprocess.CompletedProcess[str]) -> None:
    assert "stream" not in proc.stderr and "provider" not in proc.stderr, proc.stderr


@pytest.mark.postgres
def test_postgresql_lost_mid_turn_exits_3_naming_the_database(home: Path, pg_database_url: str) -> None:
    """The turn's backend connections are terminated while the model streams, and the database refuses new ones
    (lost, not restarted: a pool would otherwise reconnect and the turn rightly finish)."""
    import psycopg

    env = _env(home, pg_database_url)
    name = pg_database_url.rpartition("/")[2]
    with OpenAIServer() as server:
        key = _line(home, server, env)
        server.script(SLOW_REPLY)

        def lose_postgresql() -> None:
            own_url = pg_database_url.replace("+psycopg", "")
            with psycopg.connect(own_url, autocommit=True) as own:
                # PostgreSQL refuses this on the database itself; the server's admin database says it.
                with psycopg.connect(own_url.rpartition("/")[0] + "/test", autocommit=True) as admin:
                    admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
                own.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )

        proc = _run_while(home, key, server, env, lose_postgresql)
    assert proc.returncode == EXIT_DATABASE, proc.stderr
    assert_one_line_error(proc, "the database failed", name)
    _blames_no_stream(proc)


def test_a_sqlite_file_that_cannot_grow_mid_stream_exits_3_blaming_its_disk(home: Path) -> None:
    """RLIMIT_FSIZE on the run: the database's next write past the limit fails (EFBIG), as on a full disk."""
    env = _env(home)
    with OpenAIServer() as server:
        key = _line(home, server, env)
        server.script(TextReply(["x" * 4096] * 200, delay=0.01))  # 800 kB: more than the file may grow
        files = [p for p in home.iterdir() if p.name.startswith(SQLITE_FILE)]
        limit = max(p.stat().st_size for p in files) + 64 * 1024

        def cap() -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        proc = _run_while(home, key, server, env, lambda: None, preexec_fn=cap)
    assert proc.returncode == EXIT_DATABASE, proc.stderr
    assert_one_line_error(proc, str(home / SQLITE_FILE), "disk")
    _blames_no_stream(proc)


def test_a_disk_that_fills_mid_stream_exits_3_saying_it_is_full(small_disk: Path) -> None:  # noqa: F811
    """A real 8 MB tmpfs holds the data folder and fills while the model streams (ENOSPC)."""
    home = small_disk / "home"
    home.mkdir()
    env = _env(home)
    with OpenAIServer() as server:
        key = _line(home, server, env)
        server.script(SLOW_REPLY)
        try:
            proc = _run_while(home, key, server, env, lambda: fill(small_disk))
        finally:
            for filler in small_disk.glob("filler-*"):
                filler.unlink()
    assert proc.returncode == EXIT_DATABASE, proc.stderr
    assert_one_line_error(proc, "is full")
    _blames_no_stream(proc)
