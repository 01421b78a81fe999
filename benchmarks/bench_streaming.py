"""4. Five lines streaming at once from a local OpenAI-compatible server at 2,000 tokens/s each.

Event-loop lag is read from a 5 ms QTimer: each tick's lateness beyond its
interval. The reference is the same timer on the same window with nothing
streaming. No token may be lost: every stored reply must be complete.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from benchmarks.common import Figure, open_controller, percentile, temp_home
from benchmarks.gui_common import application, shown_window
from xworkmate.controllers import RunDelta
from xworkmate.domain.messages import MessageRole
from xworkmate.domain.providers import ProviderRecord
from xworkmate.testing.openai_server import OpenAIServer, TextReply
from xworkmate.ui.app import start_warm_up

LINES = 5
TOKENS = 2_000
TOKENS_PER_SECOND = 2_000
TICK_MS = 5


class LagProbe:
    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.stamps: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(lambda: self.stamps.append(time.perf_counter()))

    def lags_ms(self) -> list[float]:
        gaps = [(b - a) * 1000 for a, b in zip(self.stamps, self.stamps[1:], strict=False)]
        return [max(0.0, g - TICK_MS) for g in gaps]


def streaming() -> list[Figure]:
    from xworkmate.ui.event_loop import AppEventLoop  # the app's loop (ui/start.py), after PySide6

    app = application()
    loop = AppEventLoop(app)
    asyncio.set_event_loop(loop)
    with temp_home() as settings, OpenAIServer() as server:
        store, controller = open_controller(settings)
        controller.providers.add_provider(ProviderRecord(name="local", base_url=server.base_url, model="test-model"))
        window = shown_window(controller)
        # As run_gui does once the window shows; the person reads it for a moment before the first Send.
        start_warm_up(controller).join()
        keys = [controller.lines.create_line(f"stream {n}").thread_id for n in range(LINES)]
        deltas: dict[str, int] = dict.fromkeys(keys, 0)
        controller.subscribe(
            lambda c: deltas.__setitem__(c.key, deltas[c.key] + 1) if isinstance(c, RunDelta) else None
        )

        async def idle(seconds: float) -> None:
            await asyncio.sleep(seconds)

        reference = LagProbe()
        reference.timer.start()
        loop.run_until_complete(idle(1.0))
        reference.timer.stop()

        words = [f"t{n} " for n in range(TOKENS)]
        server.script(*[TextReply(words, delay=1 / TOKENS_PER_SECOND) for _ in keys])
        probe = LagProbe()
        probe.timer.start()
        start = time.perf_counter()
        tasks = [controller.turns.start_turn(key, "stream please") for key in keys]
        loop.run_until_complete(asyncio.gather(*tasks))
        elapsed = time.perf_counter() - start
        probe.timer.stop()
        expected = "".join(words)
        complete = sum(
            1
            for key in keys
            if [m.content for m in controller.lines.messages(key) if m.role is MessageRole.ASSISTANT] == [expected]
        )
        window.close()
        store.close()
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()
    lags = probe.lags_ms()
    p99 = percentile(lags, 99)
    return [
        Figure(
            name="streaming 5 x 2,000 tok/s: event-loop lag p99",
            value=p99,
            unit="ms",
            target="<= 20 ms",
            met=p99 <= 20,
            reference=percentile(reference.lags_ms(), 99),
            reference_label="ms idle p99",
            notes={"max_lag_ms": max(lags, default=0.0), "ticks": len(probe.stamps), "elapsed_s": elapsed},
        ),
        Figure(
            name="streaming: replies stored complete",
            value=complete,
            unit="",
            target=f"{LINES} of {LINES}",
            met=complete == LINES,
            reference=sum(deltas.values()) / LINES,
            reference_label="deltas seen per line",
            notes={"tokens_per_line": TOKENS},
        ),
    ]


def run() -> list[Figure]:
    return streaming()


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
