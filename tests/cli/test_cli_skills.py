"""Skills on the command line (SPEC §11 SKL-1), as real processes: `skills list [--line KEY] [--json]`,
`thread set KEY --skill NAME / --no-skill NAME`, and `thread show --json`'s ``selected_skills``."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli


def write_skill(folder: Path, name: str, description: str) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n")


def test_skills_list_shows_both_places_with_their_origins(home: Path, tmp_path: Path) -> None:
    """SKL-1: the data folder's skills, ``~/.agents/skills``, and with --line the line folder's."""
    person_home = tmp_path / "person"
    write_skill(home / "skills", "pdf-forms", "Fill in PDF forms.")
    write_skill(person_home / ".agents" / "skills", "shared-one", "Shared with other agents.")
    (home / "skills" / "bad").mkdir()
    (home / "skills" / "bad" / "SKILL.md").write_text("no front matter\n")
    env = {"HOME": str(person_home)}
    line = ok_json(home, "thread", "new", env=env)
    write_skill(Path(line["workspace_path"]) / ".agents" / "skills", "line-only", "Only on this line.")

    listed = ok_json(home, "skills", "list", env=env)
    assert [(s["name"], s["origin"], s["origin_path"]) for s in listed["skills"]] == [
        ("pdf-forms", "person", str(home / "skills")),
        ("shared-one", "person", str(person_home / ".agents" / "skills")),
    ]
    assert listed["skipped"] == [
        {"path": str(home / "skills" / "bad"), "reason": "SKILL.md does not start with '---' front matter"}
    ]
    on_line = ok_json(home, "skills", "list", "--line", line["session_key"], env=env)
    [mine] = [s for s in on_line["skills"] if s["name"] == "line-only"]
    assert mine["origin"] == "line"
    assert mine["origin_path"] == str(Path(line["workspace_path"]) / ".agents" / "skills")
    assert mine["description"] == "Only on this line." and mine["selected"] is False

    text = run_cli(home, "skills", "list", "--line", line["session_key"], env=env)
    assert text.returncode == 0
    assert f"line-only  (line folder: {Path(line['workspace_path']) / '.agents' / 'skills'})" in text.stdout
    assert "! skipped" in text.stdout and "does not start with '---'" in text.stdout


def test_thread_set_selects_and_unselects_skills(home: Path) -> None:
    """SKL-1: --skill (repeatable) and --no-skill; thread show --json lists selected_skills; an unknown name is
    one line and a non-zero exit, and nothing changes."""
    write_skill(home / "skills", "pdf-forms", "Fill in PDF forms.")
    write_skill(home / "skills", "release-notes", "Write release notes.")
    key = ok_json(home, "thread", "new")["session_key"]
    assert ok_json(home, "thread", "show", key)["selected_skills"] == []
    chosen = ok_json(home, "thread", "set", key, "--skill", "pdf-forms", "--skill", "release-notes")
    assert chosen["selected_skills"] == ["pdf-forms", "release-notes"]
    assert ok_json(home, "thread", "show", key)["selected_skills"] == ["pdf-forms", "release-notes"]
    listed = ok_json(home, "skills", "list", "--line", key)
    assert {s["name"]: s["selected"] for s in listed["skills"]} == {"pdf-forms": True, "release-notes": True}

    assert_one_line_error(run_cli(home, "thread", "set", key, "--skill", "nope"), "no skill named 'nope'")
    assert ok_json(home, "thread", "set", key, "--no-skill", "pdf-forms")["selected_skills"] == ["release-notes"]
    assert ok_json(home, "thread", "show", key)["selected_skills"] == ["release-notes"]
    assert "    skills: release-notes\n" in run_cli(home, "thread", "show", key).stdout
