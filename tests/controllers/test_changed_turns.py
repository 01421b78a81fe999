"""The Changes tab's turn picker and the conversation's chips read a line's turns after every turn (issue 34: scale).

They name each turn that changed files and how many; ``CheckpointController.turns`` builds every file of every
turn to say so: a line of 50 turns of 3,000 files each took ~1 s of the worker each time (150,000 files made).
``changed_turns`` counts the stored lists instead. These pin that it gives the same turns and counts, on both
databases, and makes no file; and that the whole line's changes read the two turns they compare, not every turn.
"""

from __future__ import annotations

import pytest

from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import ChangedTurn, ChangeScope, FileChange, FileChangeKind
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store.checkpoints import CheckpointRepository


def _files(count: int, turn: int) -> tuple[FileChange, ...]:
    return tuple(
        FileChange(path=f"dist/{turn}/file-{n}.js", kind=FileChangeKind.MODIFIED, additions=n % 7, deletions=1)
        for n in range(count)
    )


@pytest.fixture
def files_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many ``FileChange`` values have been made from stored lists since it was reset (``[0] = 0``)."""
    made = [0]
    validate = FileChange.model_validate

    def counted(*args: object, **kwargs: object) -> FileChange:
        made[0] += 1
        return validate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(FileChange, "model_validate", counted)
    return made


def test_the_changed_turns_are_the_turns_with_files_and_their_counts_and_no_file_is_made(
    controller: SessionController, files_made: list[int]
) -> None:
    line = controller.lines.create_line("build").thread_id
    rows = CheckpointRepository(controller._store)
    # Turns as the checkpoints store them: with files, with none, one whose after-snapshot failed (no list).
    for turn, files in enumerate([_files(300, 1), (), _files(1, 3), None, _files(2_000, 5)], start=1):
        controller._store.messages.append(
            line, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"turn {turn}"
        )
        rows.begin(line, "a" * 40)
        rows.finish(line, turn, None if files is None else "b" * 40, files, "finished")
    expected = [ChangedTurn(t.turn, t.message_id, len(t.files)) for t in controller.checkpoints.turns(line)]
    assert [(t.turn, t.files) for t in expected] == [(1, 300), (3, 1), (5, 2_000)]
    assert all(t.message_id is not None for t in expected)

    files_made[0] = 0
    assert controller.checkpoints.changed_turns(line) == expected
    assert files_made[0] == 0
    controller.checkpoints.turns(line)
    assert files_made[0] == 2_301  # the counter counts: the full read makes every file


def test_the_whole_lines_changes_read_the_first_and_last_ended_turns_not_every_turns_files(
    controller: SessionController, files_made: list[int]
) -> None:
    """The whole line's scope compares the first ended turn's before-snapshot with the last one's after-snapshot
    (its diff, its patches): it read every turn's files to find them (each click on a file in that scope)."""
    line = controller.lines.create_line("long").thread_id
    rows = CheckpointRepository(controller._store)
    same = "c" * 40  # the folder as it was before turn 2 and after turn 5: the whole line changed nothing
    for turn, (before, after) in enumerate([("a" * 40, None), (same, "d" * 40), ("d" * 40, "e" * 40)], start=1):
        rows.begin(line, before)
        rows.finish(line, turn, after, None if after is None else _files(300, turn), "finished")
    rows.begin(line, "e" * 40)
    rows.finish(line, 4, same, _files(300, 4), "finished")
    rows.begin(line, same)  # a turn still running: no after-snapshot yet
    first, last = rows.line_ends(line) or (None, None)
    assert first is not None and last is not None and (first.turn, last.turn) == (2, 4)

    files_made[0] = 0
    changes = controller.checkpoints.changes(line, ChangeScope.LINE)
    assert (changes.turn, changes.files) == (4, ())
    assert files_made[0] == 600  # the two ends' files; not turn 3's
    assert CheckpointRepository(controller._store).line_ends(controller.lines.create_line("new").thread_id) is None
