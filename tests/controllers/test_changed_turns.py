"""The Changes tab's turn picker and the conversation's chips read a line's turns after every turn (issue 34: scale).

They name each turn that changed files and how many; ``CheckpointController.turns`` builds every file of every
turn to say so: a line of 50 turns of 3,000 files each took ~1 s of the worker each time (150,000 files made).
``changed_turns`` counts the stored lists instead. These pin that it gives the same turns and counts, on both
databases, and makes no file.
"""

from __future__ import annotations

import pytest

from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import ChangedTurn, FileChange, FileChangeKind
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store.checkpoints import CheckpointRepository


def _files(count: int, turn: int) -> tuple[FileChange, ...]:
    return tuple(
        FileChange(path=f"dist/{turn}/file-{n}.js", kind=FileChangeKind.MODIFIED, additions=n % 7, deletions=1)
        for n in range(count)
    )


def test_the_changed_turns_are_the_turns_with_files_and_their_counts_and_no_file_is_made(
    controller: SessionController, monkeypatch: pytest.MonkeyPatch
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

    made = 0
    validate = FileChange.model_validate

    def counted(*args: object, **kwargs: object) -> FileChange:
        nonlocal made
        made += 1
        return validate(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(FileChange, "model_validate", counted)
    assert controller.checkpoints.changed_turns(line) == expected
    assert made == 0
    controller.checkpoints.turns(line)
    assert made == 2_301  # the counter counts: the full read makes every file
