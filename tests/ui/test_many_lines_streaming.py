"""Many lines streaming at once: what the window does per delta (issue 34 item 1; SPEC §5, §6).

Twenty lines at 2,000 tokens/s each report thousands of deltas a second. The window must
spend next to nothing per delta: the text is buffered per line, a line not shown changes
nothing in the view until it is shown, and the deltas of one frame become one update.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from pytestqt.qtbot import QtBot

from xworkmate.controllers import RunDelta, RunStarted, SessionController
from xworkmate.domain.providers import ProviderRecord
from xworkmate.testing.openai_server import HangReply, OpenAIServer
from xworkmate.ui.live_runs import LiveRuns

from .conftest import open_window
from .support import click_line
from .support_runs import live_text, run, wait_until

CHUNKS = [f"w{i} " for i in range(600)]


def test_a_background_line_streams_without_touching_the_view_and_shows_all_its_text_once_shown(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    bare_controller: SessionController,
    openai_server_factory: Callable[[], OpenAIServer],
) -> None:
    controller = bare_controller
    server = openai_server_factory()
    controller.providers.add_provider(
        ProviderRecord(name="a", base_url=server.base_url, model="test-model", is_default=True)
    )
    window = open_window(qtbot, controller)
    background, shown = controller.lines.create_line("Background"), controller.lines.create_line("Shown")
    click_line(qtbot, window, shown.thread_id)
    model = window.message_model
    touched: list[str] = []
    for name in ("dataChanged", "rowsInserted", "rowsRemoved", "modelReset", "layoutChanged"):
        getattr(model, name).connect(lambda *_args, name=name: touched.append(name))
    signalled: list[object] = []
    window.bridge.changed.connect(lambda change: signalled.append(change) if isinstance(change, RunDelta) else None)
    server.script(HangReply(chunks=CHUNKS))  # streams them all, then the turn stays running

    task = controller.turns.start_turn(background.thread_id, "stream", provider="a")
    run(
        loop,
        wait_until(
            lambda: window.live.streamed_text(background.thread_id) == "".join(CHUNKS),
            what="the whole reply buffered for the background line",
        ),
    )

    assert window.live.deltas_received >= 1
    assert signalled == []  # the deltas reached the buffer by a plain call, not one Qt signal each
    assert touched == []  # the shown line's view did not change for the other line's text
    assert model.key == shown.thread_id and live_text(window) is None

    click_line(qtbot, window, background.thread_id)
    assert live_text(window) == "".join(CHUNKS)  # built from the buffer when it is shown
    assert controller.turns.stop(background.thread_id)
    run(loop, wait_until(task.done, what="the stopped turn"))


def test_deltas_arriving_within_one_frame_become_one_update_holding_all_their_text(qtbot: QtBot) -> None:
    live = LiveRuns(interval_ms=16)
    grew: list[str] = []
    live.text_grew.connect(grew.append)
    live.apply(RunStarted(key="k1"))
    live.apply(RunStarted(key="k2"))

    for chunk in CHUNKS:  # one frame: no event processed in between
        live.add_delta("k1", chunk)
        live.add_delta("k2", chunk.upper())
    assert grew == []  # nothing announced (nothing rendered) while the frame is being handled
    qtbot.waitUntil(lambda: len(grew) == 2, timeout=2000)
    for _ in range(3):
        QCoreApplication.processEvents()

    assert sorted(grew) == ["k1", "k2"]  # one update a line for 1,200 deltas
    assert live.streamed_text("k1") == "".join(CHUNKS)
    assert live.streamed_text("k2") == "".join(CHUNKS).upper()
    [row] = live.rows("k1")
    assert row.text == "".join(CHUNKS)

    live.add_delta("k1", "more")  # the next frame's deltas: one more update
    qtbot.waitUntil(lambda: len(grew) == 3, timeout=2000)
    assert grew[-1] == "k1" and live.streamed_text("k1").endswith("w599 more")
