"""``xworkmate search`` and ``xworkmate export``, run as real processes (SPEC LOOP-3, §8, ERR-1)."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from xworkmate.controllers import SessionController
from xworkmate.domain.export import LineExport
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.settings import Settings
from xworkmate.store import open_store
from xworkmate.testing.openai_server import OpenAIServer, TextReply


@pytest.fixture
def seeded(home: Path) -> dict[str, str]:
    settings = Settings(home=home, database_url=None, workspace_root=None)
    controller = SessionController(open_store(settings.effective_database_url), settings)
    try:
        notes = controller.lines.create_line("Notes 蓝色").thread_id
        ward = controller.lines.create_line("Ward").thread_id
        controller.tasks.set_category(ward, "medical")
        for key, text in [(notes, "我喜欢蓝色的天空"), (notes, "plain words"), (ward, "蓝色 chart")]:
            controller._store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=text)
    finally:
        controller.close()
    return {"notes": notes, "ward": ward}


def test_search_prints_hits_grouped_by_line_with_matches_marked(home: Path, seeded: dict[str, str]) -> None:
    proc = run_cli(home, "search", "蓝色")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert f"[蓝色] ({seeded['notes']})" in proc.stdout  # the title matched
    assert any(line.startswith("  #1 user") and "我喜欢[蓝色]的天空" in line for line in lines)
    assert f"Ward ({seeded['ward']}) [category medical]" in proc.stdout  # the person sees every line


def test_search_json_and_one_line(home: Path, seeded: dict[str, str]) -> None:
    data = ok_json(home, "search", "蓝", "--line", seeded["notes"], "--limit", "5")
    [group] = data["lines"]
    assert group["line_key"] == seeded["notes"] and group["title_matched"]
    [hit] = group["hits"]
    assert hit["message_id"] == 1 and hit["snippet"]["ranges"] == [[3, 4]]
    assert run_cli(home, "search", "nothing-like-this").stdout.strip() == "no matches for nothing-like-this"


def test_search_refusals_are_one_line(home: Path, seeded: dict[str, str]) -> None:
    assert_one_line_error(run_cli(home, "search", "x", "--line", "draft:01ZZZZZZZZZZZZZZZZZZZZZZZZ"), "draft:")
    proc = run_cli(home, "search", "x", "--limit", "0")
    assert proc.returncode == 2 and "must be 1 or more" in proc.stderr


def test_export_writes_markdown_to_stdout_and_json_to_a_file(
    home: Path, tmp_path: Path, seeded: dict[str, str]
) -> None:
    proc = run_cli(home, "export", seeded["ward"], "--format", "md", "--yes")  # CAT-4: knowingly
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# Ward\n") and "Category: **medical**" in proc.stdout
    target = tmp_path / "notes.json"
    proc = run_cli(home, "export", seeded["notes"], "--format", "json", "-o", str(target))
    assert proc.returncode == 0, proc.stderr
    exported = LineExport.model_validate_json(target.read_text(encoding="utf-8"))
    assert [m.content for m in exported.root.messages] == ["我喜欢蓝色的天空", "plain words"]
    assert json.loads(target.read_text(encoding="utf-8"))["kind"] == "xworkmate.line-export"


def test_export_to_an_unwritable_path_is_one_line(home: Path, tmp_path: Path, seeded: dict[str, str]) -> None:
    assert_one_line_error(
        run_cli(home, "export", seeded["notes"], "-o", str(tmp_path / "missing" / "x.md")), "cannot write", "x.md"
    )
    assert_one_line_error(run_cli(home, "export", "draft:01ZZZZZZZZZZZZZZZZZZZZZZZZ"), "draft:")


def _export(home: Path, *args: str, answer: str | None = None) -> subprocess.CompletedProcess[str]:
    """``xworkmate export`` as a real process; with ``answer``, its stdin is a terminal that types it, else
    nothing at all (as in a script)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")} | {"XWORKMATE_HOME": str(home)}
    with contextlib.ExitStack() as closing:
        stdin: int = subprocess.DEVNULL
        if answer is not None:
            leader, stdin = pty.openpty()
            closing.callback(os.close, leader)
            closing.callback(os.close, stdin)
            os.write(leader, answer.encode() + b"\n")
        return subprocess.run(
            [sys.executable, "-m", "xworkmate", "export", *args],
            stdin=stdin,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )


def test_exporting_category_content_is_refused_without_yes_when_nobody_can_answer(
    home: Path, tmp_path: Path, seeded: dict[str, str]
) -> None:
    """CAT-4: a script gets one line naming the category and ``--yes``; nothing is written."""
    target = tmp_path / "ward.md"
    proc = _export(home, seeded["ward"], "-o", str(target))
    assert_one_line_error(proc, "not exported", "medical", "--yes")
    assert proc.returncode == 1 and not target.exists() and proc.stdout == ""
    assert _export(home, seeded["notes"]).returncode == 0  # nothing of a category: nothing to ask


def test_exporting_category_content_asks_on_a_terminal(home: Path, tmp_path: Path, seeded: dict[str, str]) -> None:
    target = tmp_path / "ward.md"
    declined = _export(home, seeded["ward"], "-o", str(target), answer="n")
    assert "medical" in declined.stderr and "Export anyway? [y/N]" in declined.stderr
    assert declined.returncode == 1 and "declined" in declined.stderr and not target.exists()
    agreed = _export(home, seeded["ward"], "-o", str(target), answer="y")
    assert agreed.returncode == 0, agreed.stderr
    assert "Category: **medical**" in target.read_text(encoding="utf-8")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """The environment a command runs with: the home's SQLite file, or a PostgreSQL database of the test's."""
    if request.param == "sqlite":
        return {}
    return {"XWORKMATE_DATABASE_URL": str(request.getfixturevalue("pg_database_url"))}


def test_a_normal_tasks_export_reads_its_sources_as_the_task(
    home: Path, openai_server: OpenAIServer, database_env: dict[str, str]
) -> None:
    """CAT-8, CAT-4: `task sources` is [] for a normal task of a medical line, and so is its export's: the
    medical words stay out of the file, which declares no category and so needs no ``--yes``."""
    env = database_env
    ok_json(home, "provider", "add", "med", "--base-url", openai_server.base_url, "--model", "test-model",
            "--tag", "medical", env=env)  # fmt: skip
    ward = ok_json(home, "thread", "new", "--title", "Ward", env=env)["session_key"]
    ok_json(home, "thread", "category", ward, "--set", "medical", env=env)
    openai_server.script(TextReply(["noted"]))
    said = run_cli(home, "run", ward, "the patient's results are attached", "--provider", "med", env=env)
    assert said.returncode == 0, said.stderr
    task = ok_json(home, "task", "start", "--from", ward, "--goal", "write a date picker", env=env)
    assert task["category"] is None
    assert ok_json(home, "task", "sources", task["session_key"], env=env) == []

    proc = run_cli(home, "export", task["session_key"], "--format", "json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "patient" not in proc.stdout
    exported = LineExport.model_validate_json(proc.stdout)
    assert exported.categories == () and exported.root.dispatch_sources == ()
    whole = LineExport.model_validate_json(
        run_cli(home, "export", ward, "--format", "json", "--yes", env=env).stdout
    )  # the medical line itself: its words, declared
    assert whole.categories == ("medical",) and "patient" in whole.root.messages[0].content
