"""`thread category|compact|fork`, `task start|send|sources|run`, `messages --as`, as real processes (SPEC §8)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli


def human(home: Path, key: str, text: str) -> None:
    """A human message on a line, written straight into the SQLite file as the window's Send stores it."""
    with sqlite3.connect(home / "xworkmate.sqlite3") as db:
        session_id = db.execute("SELECT current_session_id FROM threads WHERE thread_id = ?", (key,)).fetchone()[0]
        db.execute(
            "INSERT INTO messages (thread_id, role, source, content, state, created_at, session_id, quarantined)"
            " VALUES (?, 'user', 'human', ?, 'complete', CURRENT_TIMESTAMP, ?, 0)",
            (key, text, session_id),
        )


def test_category_task_lifecycle_from_the_command_line(home: Path) -> None:
    line = ok_json(home, "thread", "new", "--title", "clinic")
    key = line["session_key"]
    labelled = ok_json(home, "thread", "category", key, "--set", "Medical")
    assert labelled["category"] == "medical" and labelled["relabelled"] == [key]
    human(home, key, "my blood pressure is 150/95")

    normal = ok_json(home, "task", "start", "--from", key, "--goal", "pick a colour scheme")
    assert normal["category"] is None and normal["parent_key"] == key and normal["kind"] == "task"
    assert normal["reminder"] and "normal task" in normal["reminder"]
    assert ok_json(home, "task", "sources", normal["session_key"]) == []  # CAT-8

    no_group = run_cli(home, "task", "start", "--from", key, "--goal", "summarise", "--category", "medical")
    assert_one_line_error(no_group, "medical")  # CAT-6: a category task needs a provider of its group
    ok_json(home, "provider", "add", "med", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--tag", "medical")
    cat = ok_json(home, "task", "start", "--from", key, "--goal", "summarise readings", "--category", "medical")
    assert cat["category"] == "medical" and cat["reminder"] is None and cat["provider"] == "med"
    assert [m["content"] for m in ok_json(home, "task", "sources", cat["session_key"])] == [
        "my blood pressure is 150/95"
    ]
    assert ok_json(home, "messages", key, "--as", normal["session_key"]) == []
    assert len(ok_json(home, "messages", key, "--as", cat["session_key"])) == 1

    listed = {row["session_key"]: row for row in ok_json(home, "thread", "list")}
    assert listed[normal["session_key"]]["parent_key"] == key


def test_declaring_a_category_the_dispatcher_lacks_is_refused(home: Path) -> None:
    """CAT-5: a normal conversation cannot start a category task; omitting the category is the way."""
    line = ok_json(home, "thread", "new")
    proc = run_cli(home, "task", "start", "--from", line["session_key"], "--goal", "x", "--category", "legal")
    assert_one_line_error(proc, "omit")


def test_follow_up_compact_and_fork(home: Path) -> None:
    line = ok_json(home, "thread", "new")
    key = line["session_key"]
    human(home, key, "only read the config")
    task = ok_json(home, "task", "start", "--from", key, "--goal", "analyse the config")
    ok_json(home, "thread", "compact", key)
    # PROV-2: the parent's compaction keeps the task's evidence.
    assert [m["content"] for m in ok_json(home, "task", "sources", task["session_key"])] == ["only read the config"]
    sent = ok_json(home, "task", "send", task["session_key"], "also fix typos")
    assert sent["task"] == task["session_key"]
    fork = ok_json(home, "thread", "fork", key)
    assert fork["session_key"] != key and fork["kind"] == "fork"
    assert [m["content"] for m in ok_json(home, "messages", fork["session_key"])] == ["only read the config"]


def test_sending_a_follow_up_to_a_conversation_is_refused(home: Path) -> None:
    line = ok_json(home, "thread", "new")
    assert_one_line_error(run_cli(home, "task", "send", line["session_key"], "hi"), "not a task")


def test_an_empty_category_is_refused_with_one_line_and_clear_is_the_way(home: Path) -> None:
    """CAT-1, CAT-10: ``--set ''`` (or whitespace) must not silently clear a subtree; ``--clear`` does."""
    key = ok_json(home, "thread", "new", "--title", "clinic")["session_key"]
    ok_json(home, "thread", "category", key, "--set", "medical")
    task = ok_json(home, "task", "start", "--from", key, "--goal", "pick a colour scheme")
    for blank in ("", "   "):
        proc = run_cli(home, "thread", "category", key, "--set", blank)
        assert_one_line_error(proc, "empty content category", "--clear")
        assert proc.stdout == ""
    listed = {row["session_key"]: row for row in ok_json(home, "thread", "list")}
    assert listed[key]["category"] == "medical"
    assert listed[task["session_key"]]["category"] is None  # the normal task was not moved either
    cleared = ok_json(home, "thread", "category", key, "--clear")
    assert cleared["category"] is None and sorted(cleared["relabelled"]) == sorted([key, task["session_key"]])
