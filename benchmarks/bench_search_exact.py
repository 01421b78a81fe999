"""LOOP-3 at size: exact search answers over 100,000 messages on SQLite and PostgreSQL.

Moved here from the unit suite (issue 33 item 5), where it took minutes of every run; the suite keeps
the same check over 3,000 messages (``tests/store/test_search.py::test_search_at_a_shape_size``). The
figure is the check's wall time at 100,000, beside the same check at 3,000 measured in this run; it is
met only when every answer is exact.
"""

from __future__ import annotations

import json
import sys
import time

from benchmarks.bench_evidence import pg_database
from benchmarks.common import Figure, open_controller, temp_home
from tests.support.search_scale import SCALE_SIZE, SHAPE_SIZE, check_exact_search
from xworkmate.settings import Settings


def _timed_check(count: int, pg: bool) -> tuple[float, str]:
    """Seconds for the check over ``count`` messages in a fresh store, and "" or what was not exact."""
    with temp_home() as settings:
        if pg:
            with pg_database() as url:
                return _check(settings, url, count)
        return _check(settings, None, count)


def _check(settings: Settings, url: str | None, count: int) -> tuple[float, str]:
    store, controller = open_controller(settings, url)
    start = time.perf_counter()
    try:
        check_exact_search(controller, store, count)
        problem = ""
    except AssertionError as exc:
        problem = f"not exact: {exc}"[:300]
    finally:
        elapsed = time.perf_counter() - start
        store.close()
    return elapsed, problem


def run() -> list[Figure]:
    figures: list[Figure] = []
    for label, pg in (("SQLite", False), ("PostgreSQL", True)):
        small, small_problem = _timed_check(SHAPE_SIZE, pg)
        large, problem = _timed_check(SCALE_SIZE, pg)
        figures.append(
            Figure(
                name=f"exact search over {SCALE_SIZE:,} messages ({label})",
                value=large,
                unit="s",
                target="every answer exact",
                met=not problem and not small_problem,
                reference=small,
                reference_label=f"s the same check over {SHAPE_SIZE:,}",
                notes={"problem": problem or small_problem, "ratio": large / small if small else None},
            )
        )
    return figures


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
