"""``xworkmate search`` and ``xworkmate export``, run as real processes (SPEC LOOP-3, §8, ERR-1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from xworkmate.controllers import SessionController
from xworkmate.domain.export import LineExport
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.settings import Settings
from xworkmate.store import open_store


@pytest.fixture
def seeded(home: Path) -> dict[str, str]:
    settings = Settings(home=home, database_url=None, workspace_root=None)
    controller = SessionController(open_store(settings.effective_database_url), settings)
    try:
        notes = controller.create_line("Notes 蓝色").thread_id
        ward = controller.create_line("Ward").thread_id
        controller.set_category(ward, "medical")
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
    proc = run_cli(home, "export", seeded["ward"], "--format", "md")
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
