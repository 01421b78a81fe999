"""A crafted database cannot make the window grow without bound or ignore SIGTERM (issue 29, item 5).

The real ``xworkmate gui`` runs as a process (offscreen) over a SQLite file whose shown line has a
title of ``TITLE_CHARS`` characters: every read of a title takes its prefix (``TITLE_MAX_CHARS``),
so the window's memory grows by far less than the title, not by gigabytes; and SIGTERM ends it. The
assertions are orders of growth against the same window over the same database with a short title.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from pathlib import Path

from tests.cli.test_cli import ok_json
from tests.support.crafted_database import make_threads_an_endless_view
from xworkmate.controllers.lines import CURRENT_KEY_STATE
from xworkmate.home import SQLITE_FILE
from xworkmate.logfile import log_file_path
from xworkmate.store.first_list import READ_BUDGET_S

from .test_closing import STARTUP_TIMEOUT_S, _finish, _ready, _start_gui, _wait_for

TITLE_CHARS = 128 * 1024 * 1024
SETTLE_S = 3.0
"""How long the window runs, once ready, before its memory is read (the list, the shown line, the watcher)."""
IDLE_WINDOW_S = 0.5
IDLE_SHARE = 0.1
"""Then the memory is read once the window idles: under a core's ``IDLE_SHARE`` over ``IDLE_WINDOW_S``. Its
first reads run on a worker after it is ready; on a loaded machine one may still hold a title when the
settle ends, and what is measured is what stays, not a read in flight."""


def _set_title(home: Path, key: str, title: str) -> None:
    with sqlite3.connect(home / SQLITE_FILE) as db:
        db.execute("UPDATE threads SET title = ? WHERE thread_id = ?", (title, key))
        db.execute(
            "INSERT INTO app_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            (CURRENT_KEY_STATE, key),
        )


def _rss(pid: int) -> int:
    """A process's resident memory in bytes (Linux: ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


def _cpu_s(pid: int) -> float:
    """A process's CPU time so far (user + system), in seconds (Linux: ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _settled_rss(home: Path, limit: int) -> tuple[int, subprocess.Popen[str]]:
    """The window's resident memory once it is ready, has run ``SETTLE_S`` and idles; fails as soon as it passes
    ``limit`` bytes (never waiting for a runaway window to take the machine)."""
    (home / "logs" / "xworkmate.log").unlink(missing_ok=True)
    proc = _start_gui(home)
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    settled_at: float | None = None
    while True:
        rss = _rss(proc.pid)
        if rss > limit:
            proc.kill()
            proc.communicate()
            raise AssertionError(f"the window grew to {rss >> 20} MB, past {limit >> 20} MB")
        if settled_at is None and _ready(home):
            settled_at = time.monotonic() + SETTLE_S
        if settled_at is not None and time.monotonic() > settled_at:
            before, started = _cpu_s(proc.pid), time.monotonic()
            time.sleep(IDLE_WINDOW_S)
            if (_cpu_s(proc.pid) - before) / (time.monotonic() - started) < IDLE_SHARE:
                return _rss(proc.pid), proc
            continue  # still busy: checked against the limit and the deadline again
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the window did not become ready: {proc.communicate()[1]}")
        time.sleep(0.1)


def test_a_huge_title_keeps_the_windows_memory_bounded_and_sigterm_ends_it(home: Path) -> None:
    key = ok_json(home, "thread", "new", "--title", "short")["session_key"]
    _set_title(home, key, "short")
    baseline, proc = _settled_rss(home, limit=2 << 30)
    proc.terminate()
    assert _finish(proc, timeout=STARTUP_TIMEOUT_S)[0] == 143

    _set_title(home, key, "t" * TITLE_CHARS)
    # While the lines are read SQLite holds the whole value a moment (``substr`` reads it); what stays is bounded.
    grown, proc = _settled_rss(home, limit=baseline + 8 * TITLE_CHARS)
    try:
        assert grown - baseline < TITLE_CHARS // 4, (baseline >> 20, grown >> 20)
    finally:
        proc.terminate()  # SIGTERM: the window closes and the process ends
        returncode, err = _finish(proc, timeout=STARTUP_TIMEOUT_S)
    assert returncode == 143, err
    assert "interrupted by SIGTERM" in err


def test_a_threads_table_made_an_endless_view_keeps_no_core_busy_and_sigterm_ends_the_window(home: Path) -> None:
    """The store refuses the file in one line (its ``threads`` is not a table), the first list's read gives up
    within its budget, so the window then idles (its CPU time grows far slower than the clock); SIGTERM ends it."""
    ok_json(home, "thread", "new", "--title", "one")
    make_threads_an_endless_view(home / SQLITE_FILE)
    log = log_file_path(home)
    log.unlink(missing_ok=True)
    proc = _start_gui(home)
    try:
        refused = "is not an XWorkmate database: its 'threads' is not a table"
        _wait_for(lambda: log.exists() and refused in log.read_text(encoding="utf-8"), "the store to refuse the file")
        time.sleep(READ_BUDGET_S + 1)  # the first list's read has given up by now
        before, started = _cpu_s(proc.pid), time.monotonic()
        time.sleep(3)
        busy = (_cpu_s(proc.pid) - before) / (time.monotonic() - started)
        assert busy < 0.5, f"the window kept {busy:.0%} of a core busy"
    finally:
        proc.terminate()
        returncode, err = _finish(proc, timeout=STARTUP_TIMEOUT_S)
    assert returncode == 143, err
    assert refused in err
