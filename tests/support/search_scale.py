"""LOOP-3 at size, one check for every size: the shape test (tests/store/test_search.py, 3,000 messages)
and the scale benchmark (``python -m benchmarks search_exact``, 100,000) run the same assertions
(issue 33 item 5: scale tests live in benchmarks/, a small shape test stays in the suite)."""

from __future__ import annotations

from datetime import timedelta

from xworkmate.controllers import SessionController
from xworkmate.controllers.search import search_lines
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.search import parse_query
from xworkmate.domain.viewers import DESKTOP, Viewer
from xworkmate.store import Store
from xworkmate.store.repositories import utcnow
from xworkmate.store.search import SearchRepository, insert_messages

SHAPE_SIZE = 3_000
SCALE_SIZE = 100_000
PLANTED = 34  # about as many planted messages at any size (every 2,941st of 100,000)


def say(store: Store, key: str, text: str, **kw: object) -> int:
    kw.setdefault("role", MessageRole.USER)
    kw.setdefault("source", MessageSource.HUMAN)
    return store.messages.append(key, content=text, **kw).id  # type: ignore[arg-type]


def found_ids(store: Store, query: str, viewer: Viewer = DESKTOP, line: str | None = None) -> list[int]:
    found = SearchRepository(store).messages(parse_query(query), viewer=viewer, line=line, limit=1000)
    return [m.id for m in found]


def bulk_messages(store: Store, key: str, count: int, plant: dict[int, str]) -> list[int]:
    """``count`` messages on ``key`` (bulk Core insert with its index entries); message ``n`` of
    ``plant`` gets that text."""
    start = utcnow() - timedelta(days=1)
    words = ["alpha", "beta", "gamma", "delta", "部署", "数据库", "测试", "报告", "ünïcödé", "résumé"]
    ids: list[int] = []
    with store.begin() as connection:
        for base in range(0, count, 5000):
            rows = []
            for n in range(base, min(base + 5000, count)):
                body = plant.get(n) or f"message {n} {words[n % 10]} {words[(n * 7) % 10]} 第{n % 97}号"
                rows.append(
                    {
                        "thread_id": key,
                        "role": "user",
                        "source": "human",
                        "content": body,
                        "state": "complete",
                        "created_at": start + timedelta(milliseconds=n),
                        "payload": None,
                        "quarantined": False,
                    }
                )
            ids += insert_messages(connection, rows)
    return ids


def check_exact_search(controller: SessionController, store: Store, count: int) -> None:
    """``count`` messages on one line, a rare two-character word planted in some, a one-character search,
    a category line beside it: exact answers, newest first (AssertionError otherwise)."""
    busy = controller.lines.create_line("Busy").thread_id
    medical = controller.lines.create_line("Ward").thread_id
    controller.tasks.set_category(medical, "medical")
    plant = {n: f"第{n}条: 蓝色 sky over the Ünïcode café" for n in range(0, count, max(count // PLANTED, 1))}
    ids = bulk_messages(store, busy, count, plant)
    hidden = say(store, medical, "蓝色 in the ward")
    planted = [ids[n] for n in sorted(plant, reverse=True)]
    assert found_ids(store, "蓝色") == [hidden, *planted]
    assert found_ids(store, "蓝色", Viewer.of_thread(busy, None)) == planted
    assert found_ids(store, "café 蓝色", line=busy) == planted
    assert found_ids(store, "蓝") == [hidden, *planted]
    results = search_lines(store, "数据库", limit=20)
    assert results.truncated and results.message_count == 20
    with_word = [ids[n] for n in range(count) if n not in plant and 5 in (n % 10, (n * 7) % 10)]
    assert [h.message_id for h in results.lines[0].hits] == sorted(with_word, reverse=True)[:20]
    assert SearchRepository(store).index_size().indexed_messages == count + 1
