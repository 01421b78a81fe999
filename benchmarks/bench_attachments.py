"""Issue 31 (ATT-1): a 10 MB image pasted into the composer; the loop stays responsive while it is encoded.

Measured: the p99 lag of a 5 ms timer on the window's qasync loop while ``AttachmentStrip.add_image``
encodes a pasted noise image (PNG of about 9.7 MB: noise does not compress) and makes its thumbnail,
until its chip is shown (target <= 16 ms). Reference, in the same run: the same timer's p99 lag on the
idle loop for the same time.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable

from benchmarks.common import Figure, median, percentile
from benchmarks.gui_common import app_loop, application

SIDE = 1800  # 1800 x 1800 RGB noise: a PNG of about 9.7 MB, under the 10 MB cap
SAMPLES = 5


def _lags_until(start: Callable[[], object], done: Callable[[], bool], *, at_least_s: float = 0.0) -> list[float]:
    """The 5 ms timer's lags (ms) from ``start()`` until ``done()`` (and at least ``at_least_s``)."""
    from PySide6.QtCore import QEventLoop, QTimer

    lags: list[float] = []
    last = [time.perf_counter()]
    began = [0.0]

    def tick() -> None:
        now = time.perf_counter()
        lags.append(max(0.0, (now - last[0]) * 1000 - 5.0))
        last[0] = now
        if done() and now - began[0] >= at_least_s:
            loop.quit()

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    loop = QEventLoop()

    def go() -> None:
        began[0] = time.perf_counter()
        last[0] = began[0]
        start()
        timer.start()

    QTimer.singleShot(20, go)
    loop.exec()
    timer.stop()
    return lags


def attachments() -> list[Figure]:
    from PySide6.QtGui import QImage

    from xworkmate.ui.conversation.composer import AttachmentStrip

    app = application()
    loop = app_loop()
    try:
        noise = os.urandom(SIDE * SIDE * 3)
        image = QImage(noise, SIDE, SIDE, SIDE * 3, QImage.Format.Format_RGB888).copy()
        strip = AttachmentStrip()
        strip.show()
        app.processEvents()
        pasted: list[float] = []
        durations: list[float] = []
        sizes: list[int] = []
        for _ in range(SAMPLES):
            strip.clear()
            app.processEvents()
            started = time.perf_counter()
            pasted += _lags_until(lambda: strip.add_image(image), lambda: len(strip.attachments()) == 1)
            durations.append(time.perf_counter() - started)
            sizes.append(strip.attachments()[0].size)
        idle = _lags_until(lambda: None, lambda: True, at_least_s=median(durations))
        idle += _lags_until(lambda: None, lambda: True, at_least_s=median(durations))
    finally:
        loop.close()
    p99 = percentile(pasted, 99)
    return [
        Figure(
            name="a 10 MB image pasted: loop lag p99 while it is encoded",
            value=p99,
            unit="ms",
            target="<= 16 ms",
            met=p99 <= 16,
            reference=percentile(idle, 99),
            reference_label="ms p99, the same 5 ms timer on the idle loop, as long",
            notes={
                "max_lag_ms": max(pasted),
                "encode_to_chip_median_ms": median(durations) * 1000,
                "png_bytes": max(sizes),
                "samples": SAMPLES,
            },
        )
    ]


def run() -> list[Figure]:
    return attachments()


if __name__ == "__main__":
    json.dump([f.__dict__ for f in run()], sys.stdout)
