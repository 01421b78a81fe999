"""``line_marks`` (migration 0013, LOOP-2) on SQLite and PostgreSQL: one column written at a time."""

from __future__ import annotations

from datetime import UTC, datetime

from xworkmate.controllers import SessionController
from xworkmate.domain.attention import LineMark
from xworkmate.store import Store


def test_each_mark_is_written_alone_and_read_back(controller: SessionController, store: Store) -> None:
    key = controller.lines.create_line("Marked").thread_id
    marks = store.line_marks
    assert marks.get(key) == LineMark(key=key) and key not in marks.all()  # no row until a mark is written

    at = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    marks.set_outcome(key, "failed", at, 41)
    marks.set_seen(key, 40)
    marks.set_draft(key, "半句话 — a draft\nwith two lines")
    marks.set_muted(key, True)
    marks.set_seen(key, 41)  # again: replaced, the other columns kept
    expected = LineMark(
        key=key,
        last_seen_message_id=41,
        last_outcome="failed",
        last_outcome_at=at,
        outcome_message_id=41,
        notifications_muted=True,
        draft="半句话 — a draft\nwith two lines",
    )
    assert marks.get(key) == expected
    assert marks.all() == {key: expected}
    marks.set_draft(key, "nul\x00byte")  # ERR-3: stored the same way on both databases
    assert marks.get(key).draft == "nul\ufffdbyte"
