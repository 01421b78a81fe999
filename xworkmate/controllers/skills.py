"""Skills of a line (SPEC §11 SKL-1, SKL-2): which the line may use, and which it has selected.

``SkillsController`` is that section of ``SessionController``. Discovery reads folders (the window calls it
off the GUI thread); a selection is one stored write and one ``LineUpdated``. A skill found in a line's
own folder is offered on that line only: the catalog is always read for one line.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xworkmate.controllers.changes import LineUpdated
from xworkmate.controllers.context import ControllerContext
from xworkmate.domain.threads import TaskThread

if TYPE_CHECKING:  # issue 34 item 4: the skills' code loads at the first catalogue read, not with the window
    from xworkmate.domain.skills import Skill, SkillCatalog

__all__ = ["SkillsController", "UnknownSkillError", "catalog_for", "catalog_in", "selected_skills_of"]


class UnknownSkillError(LookupError):
    """A skill name the line cannot use (ERR-1: said in one line)."""


def catalog_for(home: str | os.PathLike[str], thread: TaskThread | None) -> SkillCatalog:
    """SKL-1: the person's skills and, for a line, the skills in its own folder."""
    return catalog_in(home, thread.workspace_binding.path if thread is not None else None)


def catalog_in(home: str | os.PathLike[str], line_folder: str | None) -> SkillCatalog:
    """The person's skills and those of one line's folder; reads folders only, never the store."""
    from xworkmate.agents.skills import discover_skills, person_skill_folders

    return discover_skills(person_skill_folders(home), line_folder)


def selected_skills_of(home: str | os.PathLike[str], thread: TaskThread) -> tuple[Skill, ...]:
    """The line's selected skills that are still there, read for one turn (SKL-2)."""
    if not thread.context_state.selected_skills:
        return ()
    return catalog_for(home, thread).selected(thread.context_state.selected_skills)


class SkillsController:
    def __init__(self, ctx: ControllerContext) -> None:
        self._ctx = ctx

    def skill_catalog(self, key: str | None) -> SkillCatalog:
        """The skills a line may use (``None``: the person's only)."""
        thread = self._ctx.get_thread(key) if key is not None else None
        return catalog_for(self._ctx.settings.home, thread)

    def skill_catalog_in(self, line_folder: str | None) -> SkillCatalog:
        """The skills of a line whose folder the caller read already (the window's view): no store read, so
        the window reads it beside its store worker instead of queueing there behind a switch."""
        return catalog_in(self._ctx.settings.home, line_folder)

    def set_skills(
        self, key: str, *, add: Sequence[str] = (), remove: Sequence[str] = (), only: Sequence[str] | None = None
    ) -> TaskThread:
        """Select (``add``), unselect (``remove``) or set exactly (``only``) a line's skills. A name the line
        cannot use is refused in one line and nothing changes; unselecting a skill that is gone is allowed."""
        thread = self._ctx.get_thread(key)
        wanted = [*add, *(only or ())]
        if wanted:
            catalog = catalog_for(self._ctx.settings.home, thread)
            unknown = [name for name in wanted if catalog.named(name) is None]
            if unknown:
                known = ", ".join(catalog.names) or "none"
                raise UnknownSkillError(f"no skill named {unknown[0]!r} for line {thread.thread_id} (skills: {known})")
        names = list(only) if only is not None else list(thread.context_state.selected_skills)
        names = [n for n in names if n not in set(remove)]
        names += [n for n in add if n not in names]
        names = list(dict.fromkeys(names))
        if tuple(names) == thread.context_state.selected_skills:
            return thread
        updated = self._ctx.store.threads.set_selected_skills(thread.thread_id, names)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated
