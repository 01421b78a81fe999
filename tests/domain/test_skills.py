"""Parsing a SKILL.md (SPEC §11 SKL-1): front matter ``name`` and ``description``, a Markdown body; what is not
a skill says why in one line."""

from __future__ import annotations

import pytest

from xworkmate.domain.skills import Skill, SkillFormatError, SkillOrigin, catalog_of, parse_skill, skills_prompt


def parse(text: str) -> Skill:
    return parse_skill(text, folder="/s/x", origin=SkillOrigin.PERSON, origin_path="/s")


def test_a_skill_reads_its_name_description_and_body() -> None:
    """SKL-1: plain, quoted and folded descriptions; other keys and nested mappings are skipped."""
    skill = parse(
        "---\nname: pdf-forms\ndescription: >\n  Fill in PDF forms\n  and flatten them.\nlicense: MIT\n"
        "metadata:\n  version: 2\n---\n# PDF forms\n\nSteps.\n"
    )
    assert (skill.name, skill.description) == ("pdf-forms", "Fill in PDF forms and flatten them.")
    assert skill.body == "# PDF forms\n\nSteps."
    assert parse("---\nname: \"x-y\"\ndescription: 'it''s quoted'\n---\n").description == "it's quoted"
    assert skill.skill_file == "/s/x/SKILL.md"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# no front matter", "does not start with '---'"),
        ("---\nname: a\ndescription: b\n", "not closed"),
        ("---\ndescription: b\n---\n", "no name"),
        ("---\nname: a\n---\n", "no description"),
        ("---\nname: Not Valid\ndescription: b\n---\n", "lower-case letters"),
        ('---\nname: a\ndescription: "open\n---\n', "unclosed quote"),
        ("---\nname: a\ndescription: " + "x" * 1100 + "\n---\n", "longer than 1024"),
    ],
)
def test_what_is_not_a_skill_says_why_in_one_line(text: str, reason: str) -> None:
    with pytest.raises(SkillFormatError, match=reason) as caught:
        parse(text)
    assert "\n" not in str(caught.value)


def test_a_name_found_twice_keeps_its_first_place_and_the_prompt_lists_names_and_descriptions() -> None:
    """SKL-1/SKL-2: the person's skill comes first; the system prompt names and describes each selected one."""
    first = parse("---\nname: a\ndescription: first\n---\n")
    second = parse_skill(
        "---\nname: a\ndescription: second\n---\n", folder="/l/a", origin=SkillOrigin.LINE, origin_path="/l"
    )
    catalog = catalog_of([first, second])
    assert catalog.skills == (first,) and catalog.skipped[0].folder == "/l/a"
    assert "- a: first" in skills_prompt(catalog.selected(["a", "gone"]))
    assert skills_prompt(()) == ""
