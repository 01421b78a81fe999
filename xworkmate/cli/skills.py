"""``skills list``: the skills a line may use, each with where it was found (SPEC §11 SKL-1)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from xworkmate.cli.common import add_command
from xworkmate.domain.skills import Skill, SkillCatalog
from xworkmate.terminal_text import escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController


def skill_json(skill: Skill, selected: bool) -> dict[str, Any]:
    return {
        "name": skill.name,
        "description": skill.description,
        "origin": skill.origin.value,
        "origin_path": skill.origin_path,
        "path": skill.skill_file,
        "selected": selected,
    }


def catalog_json(catalog: SkillCatalog, selected: tuple[str, ...]) -> dict[str, Any]:
    return {
        "skills": [skill_json(s, s.name in selected) for s in catalog.skills],
        "skipped": [{"path": s.folder, "reason": s.reason} for s in catalog.skipped],
    }


def cmd_skills_list(args: argparse.Namespace, controller: SessionController) -> int:
    selected = controller.get_thread(args.line).context_state.selected_skills if args.line else ()
    catalog = controller.skills.skill_catalog(args.line)
    if args.json:
        print(json_text(catalog_json(catalog, selected)))
        return 0
    if not catalog.skills:
        print("no skills found")
    for skill in catalog.skills:
        marker = "*" if skill.name in selected else " "
        where = "person" if skill.origin.value == "person" else "line folder"
        print(f"{marker} {escape_for_terminal(skill.name)}  ({where}: {escape_for_terminal(skill.origin_path)})")
        print(f"    {escape_for_terminal(skill.description)}")
    for skipped in catalog.skipped:
        print(f"! skipped {escape_for_terminal(skipped.folder)}: {escape_for_terminal(skipped.reason)}")
    return 0


def add_skills_parser(sub: Any) -> None:
    """``skills ACTION``: the Agent Skills folders (SKILL.md) a line may use."""
    skills = sub.add_parser("skills", help="skills (folders with a SKILL.md) a line may use")
    ssub = skills.add_subparsers(dest="skills_command", metavar="ACTION", required=True)
    lst = add_command(ssub, "list", cmd_skills_list, "list the person's skills and, with --line, the line folder's")
    lst.add_argument("--line", metavar="KEY", help="also the skills in this line's folder; marks its selection")
