"""The task list's read of every line (issue 34 item 2: start-up with 20,000 lines keeps its ratios; ISO-9, CAT-4).

``ThreadRepository.summaries`` / ``summaries_for`` read the rows with SQLAlchemy Core and build each
``ThreadSummary`` without validating it (the store wrote the row). These pin that the read gives exactly what
the validated read over an ORM session gave, field by field and type by type, for every kind of line on both
databases, and its order of growth: no ORM result processing and no pydantic validation per line (counted
with a profile hook, not timed).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from types import FrameType

import pytest
from pydantic import ValidationError
from sqlalchemy import insert, select

from tests.dispatch.support import make_line
from tests.support.every_kind import lines_of_every_kind
from xworkmate.controllers import SessionController
from xworkmate.domain.keys import allocate_draft_key
from xworkmate.domain.threads import BoundBy, TaskThread, ThreadKind, ThreadSummary, WorkspaceBinding, WorkspaceKind
from xworkmate.domain.viewers import NeutralThreadStatus, Viewer, ViewerRole
from xworkmate.store import Store
from xworkmate.store.repositories.operations import _summary_from
from xworkmate.store.repositories.records import _SUMMARY_COLUMNS, _aware, utcnow
from xworkmate.store.tables import ThreadRow


def _validated_read(store: Store, *, include_archived: bool) -> list[ThreadSummary]:
    """The read as it was before issue 34 item 2: an ORM session, a validated ``ThreadSummary`` per row."""
    stmt = select(*_SUMMARY_COLUMNS).order_by(ThreadRow.created_at, ThreadRow.thread_id)
    if not include_archived:
        stmt = stmt.where(ThreadRow.archived.is_(False))
    with store.read() as session:
        return [_summary_from(r) for r in session.execute(stmt)]


def _lines_of_every_kind(controller: SessionController, store: Store, root: Path) -> dict[str, str]:
    lines = lines_of_every_kind(controller, root)
    lines["legal"] = make_line(store, root, category="legal", title="Contract").thread_id
    lines["archived"] = controller.lines.create_line("Old").thread_id
    controller.lines.archive_line(lines["archived"])
    lines["quoted"] = controller.lines.create_line('it\'s "quoted" — 中文 ; DROP TABLE threads').thread_id
    for kind in (ThreadKind.BRANCH, ThreadKind.CLONE, ThreadKind.SIDE_CHAT):
        key = allocate_draft_key()
        folder = root / key.replace(":", "-")
        folder.mkdir(parents=True)
        now = utcnow()
        store.threads.insert(
            TaskThread(
                thread_id=key,
                title=f"a {kind.value}",
                kind=kind,
                parent_key=lines["plain"] if kind is not ThreadKind.CLONE else None,
                workspace_binding=WorkspaceBinding(
                    path=str(folder),
                    kind=WorkspaceKind.WORKTREE,
                    bound_by=BoundBy.EXECUTION_RESULT,
                    repo=str(root),
                    branch=f"xw/{kind.value}",
                ),
                created_at=now,
                updated_at=now,
            )
        )
        lines[kind.value] = key
    with store.begin() as connection:  # a Core bulk insert, as the benchmarks seed: no folder, no pin, no title_folded
        bare = allocate_draft_key()
        connection.execute(
            insert(ThreadRow), [{"thread_id": bare, "title": "bulk", "created_at": utcnow(), "updated_at": utcnow()}]
        )
        lines["bulk"] = bare
    return lines


def _fields(line: ThreadSummary | NeutralThreadStatus) -> list[tuple[str, object, type]]:
    return [(name, value, type(value)) for name, value in line.__dict__.items()]


@pytest.mark.parametrize("include_archived", [True, False])
def test_the_list_read_gives_what_the_validated_read_gave_for_every_kind_of_line(
    controller: SessionController, store: Store, tmp_path: Path, include_archived: bool
) -> None:
    lines = _lines_of_every_kind(controller, store, tmp_path)
    read = store.threads.summaries(include_archived=include_archived)
    before = _validated_read(store, include_archived=include_archived)
    assert [_fields(line) for line in read] == [_fields(line) for line in before]
    assert read == before
    assert [line.model_fields_set for line in read] == [line.model_fields_set for line in before]
    assert [hash(line) for line in read] == [hash(line) for line in before]
    assert [line.model_dump() for line in read] == [line.model_dump() for line in before]
    by_key = {line.thread_id: line for line in read}
    assert (lines["archived"] in by_key) is include_archived
    assert by_key[lines["task of task"]].parent_key == lines["task"]
    assert by_key[lines["medical"]].category == "medical"
    assert by_key[lines["side_chat"]].kind is ThreadKind.SIDE_CHAT
    assert all(line.updated_at.utcoffset() == timedelta(0) for line in read)  # timezone-aware, UTC
    with pytest.raises(ValidationError, match="frozen"):  # still frozen
        by_key[lines["plain"]].title = "changed"  # type: ignore[misc]
    copied = by_key[lines["plain"]].model_copy(update={"title": "copied"})
    assert copied.title == "copied" and copied.model_fields_set == set(ThreadSummary.model_fields)
    assert by_key[lines["plain"]].title == "Plain"
    assert [line.model_fields_set for line in read] == [line.model_fields_set for line in before]  # none changed
    assert store.threads.summaries(include_archived=include_archived) == read


def test_a_viewer_reads_the_lines_of_other_categories_as_a_neutral_status(
    controller: SessionController, store: Store, tmp_path: Path
) -> None:
    """CAT-4: the same list as before, a line the viewer may not read as a neutral status built as validated."""
    lines = _lines_of_every_kind(controller, store, tmp_path)
    viewer = store.threads.viewer(lines["medical"])
    read = store.threads.summaries_for(viewer, include_archived=True)
    before = _validated_read(store, include_archived=True)
    expected: list[ThreadSummary | NeutralThreadStatus] = [
        line
        if viewer.can_read(line.category)
        else NeutralThreadStatus(
            thread_id=line.thread_id,
            kind=line.kind,
            parent_key=line.parent_key,
            archived=line.archived,
            updated_at=_aware(line.updated_at),
        )
        for line in before
    ]
    assert [_fields(line) for line in read] == [_fields(line) for line in expected]
    assert [type(line) for line in read] == [type(line) for line in expected]
    assert [line.model_fields_set for line in read] == [line.model_fields_set for line in expected]
    by_key = {line.thread_id: line for line in read}
    assert isinstance(by_key[lines["legal"]], NeutralThreadStatus)
    assert isinstance(by_key[lines["medical"]], ThreadSummary)
    assert isinstance(by_key[lines["plain"]], ThreadSummary)
    everyone = store.threads.summaries_for(Viewer(role=ViewerRole.DESKTOP), include_archived=True)
    assert everyone == before


@contextmanager
def _calls_counted(counted: Callable[[FrameType, str, object], bool]) -> Iterator[list[int]]:
    count = [0]

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if counted(frame, event, arg):
            count[0] += 1

    sys.setprofile(hook)
    try:
        yield count
    finally:
        sys.setprofile(None)


def _validations(frame: FrameType, event: str, arg: object) -> bool:
    """A call into pydantic's validator (``validate_python``), or of a model's ``__init__``/``model_construct``."""
    if event == "c_call":
        return getattr(arg, "__name__", "") == "validate_python"
    return (
        event == "call"
        and frame.f_code.co_name in {"__init__", "model_construct"}
        and "pydantic" in (frame.f_code.co_filename)
    )


def _orm_calls(frame: FrameType, event: str, arg: object) -> bool:
    return event == "call" and f"sqlalchemy{'/'}orm{'/'}" in frame.f_code.co_filename.replace("\\", "/")


@pytest.mark.parametrize("read", ["summaries", "summaries_for"])
def test_reading_the_list_validates_no_line_and_builds_no_orm_row_per_line(store: Store, read: str) -> None:
    """Issue 34 item 2: the read's Python work per line is building the summary, nothing more: counted over
    200 and 2,000 lines, the validations and ORM calls do not grow with the lines (they were one a line)."""
    viewer = Viewer.of_thread("bulk-00001", None)

    def listed() -> list[ThreadSummary] | list[ThreadSummary | NeutralThreadStatus]:
        if read == "summaries":
            return store.threads.summaries(include_archived=True)
        return store.threads.summaries_for(viewer, include_archived=True)

    counts: dict[int, tuple[int, int]] = {}
    seeded = 0
    for lines in (200, 2_000):
        _seed_more(store, seeded, lines)
        seeded = lines
        listed()  # the statement compiled and cached, as after the first read of a session
        with _calls_counted(_validations) as validations:
            got = listed()
        with _calls_counted(_orm_calls) as orm:
            listed()
        assert len(got) >= lines
        counts[lines] = (validations[0], orm[0])
    assert counts[2_000][0] < 10, counts  # not one a line
    assert counts[2_000][0] == counts[200][0], counts
    assert counts[2_000][1] == counts[200][1] == 0, counts  # Core: no ORM session at all


def _seed_more(store: Store, seeded: int, lines: int) -> None:
    start = utcnow()
    with store.begin() as connection:
        connection.execute(
            insert(ThreadRow),
            [
                {
                    "thread_id": f"bulk-{n:05d}",
                    "title": f"Line {n}",
                    "kind": "task" if n % 3 else "conversation",
                    "parent_key": f"bulk-{n - 1:05d}" if n % 3 else None,
                    "category": "medical" if n % 5 == 0 else None,
                    "archived": n % 7 == 0,
                    "created_at": start + timedelta(microseconds=n),
                    "updated_at": start + timedelta(microseconds=n),
                }
                for n in range(seeded, lines)
            ],
        )
