"""A turn's sandbox with many lines' folders to hide (SBX-1; issue 34: scale).

Every process a line starts runs in a sandbox that hides every other line's folder (SBX-1), so
``line_sandbox`` reads every folder a line is bound to at each turn's start (and for its tool
commands). It kept only the outermost of them by comparing each with every one kept before it:
with a thousand lines bound to folders of their own outside the data folder, that took 14 s at
every turn's start, on the thread that stores the turn. These pin what it hides and that its cost
grows with the number of folders, not with its square (an order of growth, never a time).
"""

from __future__ import annotations

import time
from pathlib import Path

from xworkmate.controllers import SessionController
from xworkmate.controllers.containment import line_sandbox
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.bulk import insert_lines


def _projects(root: Path, count: int) -> list[Path]:
    folders = [root / f"client-{n % 7}" / f"project-{n}" / "src" for n in range(count)]
    for folder in folders:
        folder.mkdir(parents=True)
    return folders


def test_a_lines_sandbox_hides_the_outermost_of_the_other_folders_and_never_its_own(
    sqlite_store: Store, settings: Settings, tmp_path: Path
) -> None:
    """SBX-1: the other lines' folders are hidden, one mount for a folder and what it holds; a line bound
    inside this line's folder is hidden again below it (its parent line's folder is shown); this line's own
    folder is never hidden, also when another line shares it or reaches it through a link."""
    controller = SessionController(sqlite_store, settings)
    mine = tmp_path / "work" / "mine"
    nested = mine / "vendor" / "lib"
    others = _projects(tmp_path / "elsewhere", 12)
    nested.mkdir(parents=True)
    (tmp_path / "link-to-mine").symlink_to(mine)
    insert_lines(sqlite_store, [*others, others[0].parent, nested, mine, tmp_path / "link-to-mine"])
    thread = controller.lines.create_line("mine", workspace=mine)

    hidden = set(line_sandbox(settings, sqlite_store, thread).policy.hidden)

    assert mine not in hidden and not any(h in mine.parents for h in hidden)
    assert nested in hidden  # inside this line's folder: hidden again below it
    assert others[0].parent in hidden and others[0] not in hidden  # its parent's mount hides it
    assert set(others[1:]) <= hidden
    assert settings.home in hidden


def test_a_turns_sandbox_costs_in_proportion_to_the_lines_folders_not_their_square(
    sqlite_store: Store, settings: Settings, tmp_path: Path
) -> None:
    """Eight times the folders bound outside the data folder costs about eight times as much, not
    sixty-four (it was quadratic: 100 folders 0.15 s, 1,000 folders 14 s at each turn's start)."""
    controller = SessionController(sqlite_store, settings)
    (tmp_path / "mine").mkdir()
    thread = controller.lines.create_line("mine", workspace=tmp_path / "mine")
    few, many = 100, 800
    folders = _projects(tmp_path / "elsewhere", many)

    def cost() -> float:
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            line_sandbox(settings, sqlite_store, thread)
            best = min(best, time.perf_counter() - started)
        return best

    insert_lines(sqlite_store, folders[:few])
    assert len(line_sandbox(settings, sqlite_store, thread).policy.hidden) >= few
    with_few = cost()
    insert_lines(sqlite_store, folders[few:])
    assert len(line_sandbox(settings, sqlite_store, thread).policy.hidden) >= many
    with_many = cost()

    assert with_many / with_few < 24, f"{few} folders {with_few * 1000:.1f} ms, {many} {with_many * 1000:.1f} ms"
