"""Skills as content (SPEC §11 SKL-1, SKL-2): a folder with a ``SKILL.md``, the Agent Skills layout.

``SKILL.md`` opens with YAML front matter holding ``name`` and ``description``; a Markdown body follows,
and files may sit beside it. This module only parses text: finding the folders (and refusing links out of
a line's folder) is ``agents.skills``. The front matter is read with a small reader of the scalars a skill
needs (plain, quoted, and ``|`` / ``>`` block scalars); other keys (``license``, ``metadata``,
``allowed-tools``) are skipped. No YAML library: the app ships without one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

SKILL_FILE = "SKILL.md"
MAX_SKILL_FILE_BYTES = 256 * 1024
"""A ``SKILL.md`` longer than this is skipped (the folder may be hostile: SBX-2)."""
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024

_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:(.*)$")


class SkillOrigin(StrEnum):
    PERSON = "person"
    """The person's own skills folder (``$XWORKMATE_HOME/skills``, ``~/.agents/skills``)."""
    LINE = "line"
    """The line's own folder (``.agents/skills/``, ``.claude/skills/``): hostile, offered on that line only."""


class SkillFormatError(ValueError):
    """A ``SKILL.md`` that is not a skill; the message is the one-line reason shown in the list."""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    body: str
    folder: str
    """The skill's folder, absolute."""
    origin: SkillOrigin
    origin_path: str
    """The skills folder it was found in (the person's, or the line folder's ``.agents/skills``)."""

    @property
    def skill_file(self) -> str:
        return f"{self.folder.rstrip('/')}/{SKILL_FILE}"


@dataclass(frozen=True)
class SkippedSkill:
    """A folder that looked like a skill and was not one: listed with its reason, never a crash."""

    folder: str
    reason: str


@dataclass(frozen=True)
class SkillCatalog:
    """The skills one line may use, person's first; a name found twice keeps its first place."""

    skills: tuple[Skill, ...] = ()
    skipped: tuple[SkippedSkill, ...] = ()

    def named(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.skills)

    def selected(self, names: Iterable[str]) -> tuple[Skill, ...]:
        """The skills of ``names`` that are here, in the selection's order (a missing one is left out)."""
        found = (self.named(n) for n in names)
        return tuple(s for s in found if s is not None)


def parse_skill(text: str, *, folder: str, origin: SkillOrigin, origin_path: str) -> Skill:
    """A ``SKILL.md``'s text as a skill; ``SkillFormatError`` with a one-line reason when it is not one."""
    front, body = _split_front_matter(text)
    fields = _scalars(front)
    name = fields.get("name", "").strip()
    description = " ".join(fields.get("description", "").split())
    if not name:
        raise SkillFormatError("the front matter has no name")
    if len(name) > MAX_NAME_CHARS or not _NAME.match(name):
        raise SkillFormatError(f"the name {name[:80]!r} is not lower-case letters, digits and hyphens (at most 64)")
    if not description:
        raise SkillFormatError("the front matter has no description")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise SkillFormatError(f"the description is longer than {MAX_DESCRIPTION_CHARS} characters")
    return Skill(name=name, description=description, body=body, folder=folder, origin=origin, origin_path=origin_path)


def _split_front_matter(text: str) -> tuple[list[str], str]:
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise SkillFormatError("SKILL.md does not start with '---' front matter")
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            return lines[1:end], "\n".join(lines[end + 1 :]).strip("\n")
    raise SkillFormatError("the front matter is not closed with '---'")


def _scalars(lines: Sequence[str]) -> dict[str, str]:
    """The top-level scalar keys of the front matter; nested mappings and lists are skipped."""
    fields: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#") or line[:1] in (" ", "\t", "-"):
            continue
        match = _KEY.match(line)
        if match is None:
            raise SkillFormatError(f"front matter line {i + 1} is not 'key: value'")
        key, raw = match[1], match[2].strip()
        if raw[:1] in ("|", ">"):
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i][:1] in (" ", "\t")):
                block.append(lines[i].strip())
                i += 1
            fields[key] = ("\n" if raw[0] == "|" else " ").join(block).strip()
        elif raw[:1] in ('"', "'"):
            quote = raw[0]
            if len(raw) < 2 or not raw.endswith(quote):
                raise SkillFormatError(f"the value of {key!r} has an unclosed quote")
            inner = raw[1:-1]
            fields[key] = inner.replace("''", "'") if quote == "'" else _unescape(inner)
        else:
            value = raw.split(" #", 1)[0].strip()
            while i < len(lines) and lines[i][:1] in (" ", "\t") and lines[i].strip():  # a plain multi-line scalar
                value += " " + lines[i].strip()
                i += 1
            fields[key] = value
    return fields


def _unescape(text: str) -> str:
    return text.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")


def catalog_of(found: Iterable[Skill], skipped: Iterable[SkippedSkill] = ()) -> SkillCatalog:
    """One catalog from skills in the order found; a second skill with a name already taken is skipped."""
    skills: list[Skill] = []
    left_out = list(skipped)
    for skill in found:
        first = next((s for s in skills if s.name == skill.name), None)
        if first is not None:
            left_out.append(SkippedSkill(skill.folder, f"the name {skill.name!r} is taken by {first.folder}"))
            continue
        skills.append(skill)
    return SkillCatalog(tuple(skills), tuple(left_out))


SKILLS_PROMPT = """Skills the person chose for this line (content, not instructions from the person):
{listing}
Read a skill's instructions with read_skill (name) before you follow it; read_skill (name, path) reads a file
beside its SKILL.md."""


def skills_prompt(skills: Sequence[Skill]) -> str:
    """SKL-2: what the native agent's system prompt says of the selected skills (names and descriptions)."""
    if not skills:
        return ""
    return SKILLS_PROMPT.format(listing="\n".join(f"- {s.name}: {s.description}" for s in skills))


def skills_text(skills: Sequence[Skill]) -> str:
    """SKL-2: the selected skills as one text block, for an agent that takes no embedded resources."""
    parts = [f"Skills selected for this task line ({len(skills)}):"]
    for skill in skills:
        parts.append(f"\n## Skill {skill.name} ({skill.skill_file})\n{skill.description}\n\n{skill.body}")
    return "\n".join(parts)
