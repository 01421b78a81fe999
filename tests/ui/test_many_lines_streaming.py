"""Many lines streaming at once: what the window does per delta (issue 34 item 1; SPEC §5, §6).

Twenty lines at 2,000 tokens/s each report thousands of deltas a second. The window must
spend next to nothing per delta: the text is buffered per line, a line not shown changes
nothing in the view until it is shown, and the deltas of one frame become one update.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from pytestqt.qtbot import QtBot

from xworkmate.controllers import RunDelta, RunStarted, SessionController
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import ExecutionMode
from xworkmate.testing.acp_scripts import scripted_agent
from xworkmate.testing.openai_server import HangReply, OpenAIServer
from xworkmate.ui.agent.live_runs import LiveRuns

from .conftest import open_window
from .support import click_line, finished, message_texts, offered_mode, send, settled
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
    announced: list[str] = []
    window.live.text_grew.connect(announced.append)
    server.script(HangReply(chunks=CHUNKS))  # streams them all, then the turn stays running

    task = controller.turns.start_turn(background.thread_id, "stream", provider="a")
    run(loop, wait_until(lambda: window.live.has_text(background.thread_id), what="the first delta"))
    qtbot.wait(3 * window.live.interval_ms)  # a flush would be due by now for a line whose growth is announced
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
    assert announced == []  # nor was its growth announced (issue 34 item 1: only buffered, no flush due)
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


ROUNDS = 24


def _rounds(count: int, label: str) -> list[dict[str, object]]:
    """``count`` rounds of what a busy agent's turn streams: text, a tool card, a usage report."""
    steps: list[dict[str, object]] = []
    for i in range(count):
        steps += [
            {"burst": [f"{label}{i}.{j} " for j in range(20)]},
            {"tool": {"id": f"{label}-t{i}", "title": f"Read {i}", "kind": "read", "status": "completed", "text": "x"}},
            {"usage": {"used": 100 * (i + 1), "size": 10_000}},
        ]
    return [*steps, {"say": "done"}]


def test_the_shown_lines_panes_are_shown_again_per_turn_not_per_tool_card_usage_report_or_delta(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, bare_controller: SessionController, tmp_path: Path
) -> None:
    # Issue 34 item 1: while the shown line streams, its tool cards, usage reports and text reach the rows and
    # the meter they change; the panes (title, status, pickers, folder, queue) are shown again only for the
    # line's own updates (the turn's start and end), and the message model is never reset.
    controller = bare_controller
    window = open_window(qtbot, controller)
    scripted_agent(controller, tmp_path, turn=_rounds(1, "a"))
    window.line_settings.refresh_providers()
    settled(qtbot, window)
    line = controller.lines.create_line("Agent line")
    click_line(qtbot, window, line.thread_id)
    picker = window.mode_picker
    index = offered_mode(qtbot, window, "scripted (ACP)")
    picker.setCurrentIndex(index)
    settled(qtbot, window)
    assert controller.get_thread(line.thread_id).execution_binding.mode is ExecutionMode.ACP
    resets: list[object] = []
    window.message_model.modelReset.connect(lambda: resets.append(None))

    def one_turn(rounds: int, label: str) -> int:
        scripted_agent(controller, tmp_path, turn=_rounds(rounds, label))  # the agent reads its script as it starts
        settled(qtbot, window)
        before, deltas = window.shown.panes_shown, window.live.deltas_received
        send(qtbot, window, f"turn {label}")
        run(loop, wait_until(finished(controller, line.thread_id), what=f"turn {label}"))
        settled(qtbot, window)
        assert message_texts(window)[-1].endswith("done")
        assert window.live.deltas_received > deltas
        return window.shown.panes_shown - before

    small = one_turn(1, "a")
    large = one_turn(ROUNDS, "b")  # 24 times the tool cards, usage reports and text

    said = "".join(f"b{i}.{j} " for i in range(ROUNDS) for j in range(20)) + "done"
    assert message_texts(window)[-1] == said  # every chunk stored, in order
    # Re-shown per tool card, usage report or delta, the large turn would add one or more a round. What it may
    # add is a few echoes of the line's own row writes, which the store's watcher reports back (external.py).
    assert large - small <= ROUNDS // 4, (
        f"panes shown {large} times in a turn of {ROUNDS} rounds, {small} in a turn of one"
    )
    assert resets == []
