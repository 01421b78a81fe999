"""Finding skills on disk and reading them (SPEC §11 SKL-1, SKL-2; SBX-2, SBX-3).

Two places: the person's skills folders (``$XWORKMATE_HOME/skills``, and ``~/.agents/skills`` when it is
there) and the line's own folder (``.agents/skills/``, ``.claude/skills/``). The line's folder is written by
an adversary: nothing there is read through a symbolic link that leads out of it (``confinement``'s path
rule, and the open re-checks each component, ``open_confined_file``), a skill folder that is a link is
skipped, and every file read is capped. Each skill, and a file beside it, is read confined to its own
folder. A ``SKILL.md`` that is not a skill is listed as skipped with its one-line reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from xworkmate.agents.confinement import (
    ToolError,
    open_confined_file,
    resolve_inside,
)
from xworkmate.domain.skills import (
    MAX_SKILL_FILE_BYTES,
    SKILL_FILE,
    Skill,
    SkillCatalog,
    SkillFormatError,
    SkillOrigin,
    SkippedSkill,
    catalog_of,
    parse_skill,
)
from xworkmate.domain.tool_errors import ToolErrorKind

__all__ = [
    "LINE_SKILL_FOLDERS",
    "MAX_SKILLS_PER_FOLDER",
    "SkillReadError",
    "discover_skills",
    "person_skill_folders",
    "read_skill",
]

LINE_SKILL_FOLDERS = (".agents/skills", ".claude/skills")
MAX_SKILLS_PER_FOLDER = 500
MAX_SKILL_READ_BYTES = 128 * 1024
"""What ``read_skill`` returns of one file at most."""


class SkillReadError(ToolError):
    """A skill file that may not be read (outside its folder, a link out, too large, missing)."""

    kind = ToolErrorKind.SKILL_REFUSED


def person_skill_folders(home: str | os.PathLike[str]) -> tuple[Path, ...]:
    """The person's skills folders: the data folder's ``skills`` and, when present, ``~/.agents/skills``."""
    folders = [Path(home) / "skills"]
    shared = Path.home() / ".agents" / "skills"
    if shared.is_dir() and shared not in folders:
        folders.append(shared)
    return tuple(folders)


def discover_skills(person_folders: Sequence[Path], line_folder: str | os.PathLike[str] | None) -> SkillCatalog:
    """SKL-1: every skill a line may use, the person's first; a malformed one is listed as skipped."""
    found: list[Skill] = []
    skipped: list[SkippedSkill] = []
    for folder in person_folders:
        _collect(_person_skills(Path(folder)), found, skipped)
    if line_folder is not None and os.path.isdir(line_folder):
        for relative in LINE_SKILL_FOLDERS:
            _collect(_line_skills(Path(line_folder), relative), found, skipped)
    return catalog_of(found, skipped)


def _collect(items: Iterator[Skill | SkippedSkill], found: list[Skill], skipped: list[SkippedSkill]) -> None:
    for item in items:
        (found if isinstance(item, Skill) else skipped).append(item)  # type: ignore[arg-type]


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            entries = sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)
    except OSError:
        return []
    return entries[:MAX_SKILLS_PER_FOLDER]


def _person_skills(root: Path) -> Iterator[Skill | SkippedSkill]:
    """The person's own folder: a skill folder may be a link (people link skills in); files are capped."""
    for entry in _entries(root):
        if not entry.is_dir():
            continue
        folder = Path(entry.path)
        try:
            with open(folder / SKILL_FILE, "rb") as handle:
                data = handle.read(MAX_SKILL_FILE_BYTES + 1)
        except FileNotFoundError:
            continue
        except OSError as exc:
            yield SkippedSkill(str(folder), f"{SKILL_FILE} could not be read: {exc.strerror or exc}")
            continue
        yield _parsed(data, folder, SkillOrigin.PERSON, root)


def _line_skills(line_folder: Path, relative: str) -> Iterator[Skill | SkippedSkill]:
    """The line's folder (hostile, SBX-3): nothing is followed out of it and each open re-checks its path."""
    shown_root = line_folder / relative
    if not os.path.lexists(shown_root) and not os.path.lexists(shown_root.parent):
        return
    try:
        root = resolve_inside(line_folder, relative)
    except ToolError as exc:
        yield SkippedSkill(str(shown_root), f"refused: {exc}")
        return
    for entry in _entries(root):
        if entry.is_symlink():
            yield SkippedSkill(entry.path, "refused: a skill folder in the line's folder may not be a symbolic link")
            continue
        if not entry.is_dir(follow_symlinks=False):
            continue
        folder = Path(entry.path)
        if not os.path.lexists(folder / SKILL_FILE):
            continue
        try:
            data = _read_confined(line_folder, folder / SKILL_FILE, MAX_SKILL_FILE_BYTES)
        except (ToolError, OSError) as exc:
            yield SkippedSkill(str(folder), f"refused: {_reason(exc)}")
            continue
        yield _parsed(data, folder, SkillOrigin.LINE, shown_root)


def _parsed(data: bytes, folder: Path, origin: SkillOrigin, root: Path) -> Skill | SkippedSkill:
    if len(data) > MAX_SKILL_FILE_BYTES:
        return SkippedSkill(str(folder), f"{SKILL_FILE} is larger than {MAX_SKILL_FILE_BYTES // 1024} KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return SkippedSkill(str(folder), f"{SKILL_FILE} is not UTF-8 text")
    try:
        return parse_skill(text, folder=str(folder), origin=origin, origin_path=str(root))
    except SkillFormatError as exc:
        return SkippedSkill(str(folder), str(exc))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _read_confined(within: Path, path: Path | str, cap: int) -> bytes:
    """At most ``cap + 1`` bytes of a file inside ``within``, never through a link out of it (SBX-2/3). The
    hard-link rule is the open's (``open_confined_file`` applies it to the file it opened)."""
    target = resolve_inside(within, path)
    fd = open_confined_file(target, os.fspath(path), within=within)
    with os.fdopen(fd, "rb") as handle:
        return handle.read(cap + 1)


def read_skill(skill: Skill, path: str | None = None, *, cap: int = MAX_SKILL_READ_BYTES) -> str:
    """SKL-2: a selected skill's instructions (its ``SKILL.md``), or a file beside it, read confined to the
    skill's folder (no link out, no ``..``) and capped; ``SkillReadError`` says why not in one line."""
    wanted = SKILL_FILE if path is None or not path.strip() else path.strip()
    try:
        data = _read_confined(Path(skill.folder), wanted, cap)
    except FileNotFoundError:
        raise SkillReadError(f"skill {skill.name!r} has no file {wanted!r}") from None
    except (ToolError, OSError) as exc:
        raise SkillReadError(f"skill {skill.name!r}: {wanted!r} was refused: {_reason(exc)}") from None
    text = data[:cap].decode("utf-8", errors="replace")
    if len(data) > cap:
        text += f"\n[truncated: {wanted} is longer than {cap // 1024} KiB]"
    return text
