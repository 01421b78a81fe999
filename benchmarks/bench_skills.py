"""Skills (SPEC §11 SKL-1): 200 skills across the person's folder and a line's own folder.

Figures:
* Discovery: ``SessionController.skills.skill_catalog(key)`` (the person's folder, the line's ``.agents/skills``: every
  ``SKILL.md`` read confined and capped, parsed) — median of repeats; beside it, in the same run, the reference
  of listing the same folders with ``os.scandir`` and reading each ``SKILL.md`` with ``open`` (no confinement,
  no parsing). Discovery runs off the GUI thread (the window: a background thread; a turn: its store thread);
  no fixed target, the ratio is the figure to watch.
* Opening the picker: from the click to the popup filled with the 200 skills (a catalog read already), on the
  GUI thread — target ≤ 16 ms (one frame); beside it, filling a plain ``QListWidget`` with the same 200 texts.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from benchmarks.common import Figure, median, percentile, temp_home
from xworkmate.controllers import SessionController
from xworkmate.store import open_store

SKILLS = 200
REPEATS = 15
OPEN_TARGET_MS = 16.0


def _write(folder: Path, n: int) -> None:
    skill = folder / f"skill-{n:03d}"
    skill.mkdir(parents=True, exist_ok=True)
    description = f"Skill number {n}: does one well-described thing for the benchmark."
    body = "\n".join(f"Step {i}: do part {i} of skill {n}." for i in range(40))
    (skill / "SKILL.md").write_text(f"---\nname: skill-{n:03d}\ndescription: {description}\n---\n# Skill {n}\n{body}\n")
    (skill / "reference.md").write_text("reference\n")


def _scandir_reference(folders: list[Path]) -> None:
    for folder in folders:
        with os.scandir(folder) as it:
            for entry in it:
                with open(os.path.join(entry.path, "SKILL.md"), "rb") as handle:
                    handle.read()


def run() -> list[Figure]:
    figures: list[Figure] = []
    with temp_home() as settings:
        store = open_store(settings.effective_database_url)
        controller = SessionController(store, settings)
        key = controller.lines.create_line("Skills").thread_id
        line_folder = Path(controller.get_thread(key).workspace_binding.path or "")
        person, line = settings.home / "skills", line_folder / ".agents" / "skills"
        for n in range(SKILLS):
            _write(person if n % 2 == 0 else line, n)

        found = controller.skills.skill_catalog(key)
        assert len(found.skills) == SKILLS, (len(found.skills), found.skipped[:3])
        discovery, reference = [], []
        for _ in range(REPEATS):
            began = time.perf_counter()
            controller.skills.skill_catalog(key)
            discovery.append((time.perf_counter() - began) * 1000)
            began = time.perf_counter()
            _scandir_reference([person, line])
            reference.append((time.perf_counter() - began) * 1000)
        figures.append(
            Figure(
                name=f"skill discovery, {SKILLS} skills in 2 folders (off the GUI thread)",
                value=round(median(discovery), 2),
                unit="ms",
                target="off the GUI thread; reported beside os.scandir + open",
                met=True,
                reference=round(median(reference), 2),
                reference_label="os.scandir + open of each SKILL.md",
                notes={"p95_ms": round(percentile(discovery, 95), 2)},
            )
        )
        figures.append(_picker_open(controller, key, found))
        controller.close()
        store.close()
    return figures


def _picker_open(controller: SessionController, key: str, catalog: object) -> Figure:
    from PySide6.QtWidgets import QListWidget

    from benchmarks.gui_common import application, settle
    from xworkmate.domain.skills import SkillCatalog
    from xworkmate.ui.agent.skills import SkillPicker

    assert isinstance(catalog, SkillCatalog)
    application()
    picker = SkillPicker()
    picker.show()
    picker.show_selection(key, ("skill-000", "skill-001"))
    picker.set_catalog(key, catalog)
    settle()
    opened, plain = [], []
    texts = [f"{s.name} — {s.description}" for s in catalog.skills]
    widget = QListWidget()
    for _ in range(REPEATS):
        began = time.perf_counter()
        picker.click()
        opened.append((time.perf_counter() - began) * 1000)
        assert picker.popup.list.count() == len(catalog.skills)
        picker.popup.hide()
        settle()
        began = time.perf_counter()
        widget.clear()
        widget.addItems(texts)
        plain.append((time.perf_counter() - began) * 1000)
    value = median(opened)
    return Figure(
        name=f"skill picker opened with {len(catalog.skills)} skills (GUI thread)",
        value=round(value, 2),
        unit="ms",
        target=f"≤ {OPEN_TARGET_MS:g} ms",
        met=percentile(opened, 95) <= OPEN_TARGET_MS,
        reference=round(median(plain), 2),
        reference_label="QListWidget.addItems of the same texts",
        notes={"p95_ms": round(percentile(opened, 95), 2)},
    )


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
