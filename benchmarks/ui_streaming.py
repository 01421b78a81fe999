"""Streaming into the message pane: tokens/s rendered and the worst event-loop stall (SPEC §5, §6).

A measurement, not a test. A local scripted OpenAI-compatible server streams
``TOKENS`` tokens as fast as it can (``TextReply`` with no delay) into the real
window (offscreen, painting), through the real controller and agent loop:

1. one line, shown: tokens/s from the first delta to the stored message, with
   the same turn run headless (no window) beside it as the reference;
2. two lines streaming at once (one shown, one in the background): the worst
   gap between ticks of a 10 ms ``QTimer`` — how long the window could not react.

    QT_QPA_PLATFORM=offscreen .venv/bin/python -m benchmarks.ui_streaming
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # also runnable as a plain script

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from benchmarks.common import Figure, markdown_tokens, percentile, temp_home
from xworkmate.controllers import RunDelta, SessionController
from xworkmate.domain.providers import ProviderRecord
from xworkmate.llm import ModelRouter, ProviderConfig, RetryPolicy, Timeouts
from xworkmate.store import open_store
from xworkmate.testing.openai_server import OpenAIServer, TextReply
from xworkmate.ui import build_main_window
from xworkmate.ui.conversation import CONTENT_ROLE

TOKENS = 4000
TICK_MS = 10
# The test server sleeps this long before each chunk: about 1,500–2,000 tokens/s per line.
PACED_DELAY = 0.0005


def _router(providers: list[ProviderConfig]) -> ModelRouter:
    return ModelRouter(
        providers,
        retry=RetryPolicy(max_retries=0, base_delay=0.01, max_delay=0.02, max_retry_after=0.1),
        timeouts=Timeouts(connect=5.0, read=30.0, write=5.0, pool=5.0),
    )


def _tokens(prefix: str, count: int = TOKENS) -> list[str]:
    return markdown_tokens(prefix, count)


class _Ticker:
    """A 10 ms timer; the largest gap between its ticks is how long the event loop was stalled."""

    def __init__(self) -> None:
        self.ticks: list[float] = []
        self._timer = QTimer()
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))

    def start(self) -> None:
        self.ticks.clear()
        self._timer.start()

    def stop(self) -> list[float]:
        self._timer.stop()
        return [b - a for a, b in itertools.pairwise(self.ticks)]


def _first_deltas(controller: SessionController) -> tuple[dict[str, float], Callable[[], None]]:
    first: dict[str, float] = {}

    def on_change(change: object) -> None:
        if isinstance(change, RunDelta):
            first.setdefault(change.key, time.perf_counter())

    return first, controller.subscribe(on_change)


def measure() -> dict[str, float]:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from xworkmate.ui.event_loop import AppEventLoop  # the app's loop (ui/start.py), after PySide6

    loop = AppEventLoop(app)
    asyncio.set_event_loop(loop)
    results: dict[str, float] = {}
    with temp_home() as settings, OpenAIServer() as server_a, OpenAIServer() as server_b:
        store = open_store(settings.effective_database_url)
        controller = SessionController(store, settings, router_factory=_router)
        controller.providers.add_provider(
            ProviderRecord(name="a", base_url=server_a.base_url, model="m", is_default=True)
        )
        controller.providers.add_provider(ProviderRecord(name="b", base_url=server_b.base_url, model="m"))
        ticker = _Ticker()

        # 0. reference: the same turn with no window listening.
        headless = controller.lines.create_line("headless")
        server_a.script(TextReply(_tokens("h")))
        first, unsubscribe = _first_deltas(controller)
        loop.run_until_complete(controller.turns.run_turn(headless.thread_id, "stream please"))
        results["headless_tokens_per_s"] = TOKENS / (time.perf_counter() - first[headless.thread_id])
        unsubscribe()

        # 1. one line, shown in the window.
        window = build_main_window(controller)
        window.persist_ui_state = False
        window.resize(1200, 800)
        window.show()
        app.processEvents()
        gc.freeze()  # as run_gui does before it enters the event loop
        line = controller.lines.create_line("one")
        controller.lines.switch_session(line.thread_id)
        renders: list[str] = []
        window.live.text_grew.connect(renders.append)
        server_a.script(TextReply(_tokens("x")))
        first, unsubscribe = _first_deltas(controller)

        async def one() -> float:
            ticker.start()
            await controller.turns.start_turn(line.thread_id, "stream please", provider="a")
            return time.perf_counter()

        done = loop.run_until_complete(one())
        gaps_one = ticker.stop()
        unsubscribe()
        results["one_line_tokens_per_s"] = TOKENS / (done - first[line.thread_id])
        results["one_line_repaints"] = float(len(renders))
        results["one_line_max_stall_ms"] = max(gaps_one) * 1000

        # 2. two lines at once, A shown and B in the background: at full speed, then paced.
        for label, delay in (("two_lines", 0.0), ("paced", PACED_DELAY)):
            line_a, line_b = controller.lines.create_line(f"A {label}"), controller.lines.create_line(f"B {label}")
            controller.lines.switch_session(line_a.thread_id)
            server_a.script(TextReply(_tokens("a"), delay=delay))
            server_b.script(TextReply(_tokens("b"), delay=delay))
            first, unsubscribe = _first_deltas(controller)

            async def two(key_a: str = line_a.thread_id, key_b: str = line_b.thread_id) -> float:
                ticker.start()
                await asyncio.gather(
                    controller.turns.start_turn(key_a, "stream please", provider="a"),
                    controller.turns.start_turn(key_b, "stream please", provider="b"),
                )
                return time.perf_counter()

            done = loop.run_until_complete(two())
            gaps = ticker.stop()
            unsubscribe()
            results[f"{label}_tokens_per_s"] = 2 * TOKENS / (done - min(first.values()))
            results[f"{label}_max_stall_ms"] = max(gaps) * 1000
            results[f"{label}_p99_gap_ms"] = percentile(gaps, 99) * 1000
            results[f"{label}_ticks"] = float(len(gaps) + 1)
            shown = window.message_model.index(window.message_model.rowCount() - 1, 0).data(CONTENT_ROLE)
            if shown != "".join(_tokens("a")):
                raise RuntimeError("the pane does not show the streamed answer of line A")
        window.close()
        window.deleteLater()
        app.processEvents()
        store.close()
    loop.close()
    asyncio.set_event_loop(None)
    return results


def run() -> list[Figure]:
    r = measure()
    return [
        Figure(
            name="UI streaming: tokens/s rendered (one line)",
            value=r["one_line_tokens_per_s"],
            unit="/s",
            target=">= 2000/s",
            met=r["one_line_tokens_per_s"] >= 2000,
            reference=r["headless_tokens_per_s"],
            reference_label="tokens/s headless",
            notes={"repaints": r["one_line_repaints"], "max_stall_ms": r["one_line_max_stall_ms"]},
        ),
        Figure(
            name="UI streaming: worst stall, two lines at once",
            value=r["two_lines_max_stall_ms"],
            unit="ms",
            target="< 100 ms",
            met=r["two_lines_max_stall_ms"] < 100,
            notes={k: v for k, v in r.items() if k.startswith("two_lines")},
        ),
        Figure(
            name="UI streaming: worst stall, two lines ~2k tok/s",
            value=r["paced_max_stall_ms"],
            unit="ms",
            target="< 50 ms",
            met=r["paced_max_stall_ms"] < 50,
            notes={k: v for k, v in r.items() if k.startswith("paced")},
        ),
    ]


def main() -> int:
    r = measure()
    print(f"tokens streamed per line: {TOKENS} (local TextReply, no delay)")
    print(f"{'headless reference (no window):':<38} {r['headless_tokens_per_s']:8.0f} tokens/s")
    print(
        f"{'one line, shown:':<38} {r['one_line_tokens_per_s']:8.0f} tokens/s rendered"
        f"  ({r['one_line_repaints']:.0f} repaints, worst stall {r['one_line_max_stall_ms']:.1f} ms)"
    )
    for label, title in (("two_lines", "two lines at once, max speed"), ("paced", "two lines at once, paced")):
        print(
            f"{title + ':':<38} {r[f'{label}_tokens_per_s']:8.0f} tokens/s in total;"
            f" worst event-loop stall {r[f'{label}_max_stall_ms']:.1f} ms"
            f" (p99 gap {r[f'{label}_p99_gap_ms']:.1f} ms over {r[f'{label}_ticks']:.0f} ticks of {TICK_MS} ms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
