"""What a switch between lines that stream costs on the GUI thread (issue 34 item 1; SPEC §5, §6).

Twenty lines stream at once and the person switches between two of them: a switch back to a line whose answer
is streaming must not render that answer again from its first word (it grows with the answer), only what
streamed since it was last shown. Counts, never wall-clock times.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.domain.providers import ProviderRecord
from xworkmate.testing.openai_server import HangReply, OpenAIServer
from xworkmate.ui import MainWindow

from .conftest import open_window
from .support import click_line
from .support_runs import live_text, run, wait_until


def _answer(label: str, paragraphs: int) -> list[str]:
    """A Markdown answer in chunks, a paragraph each (every one settles a part of the streaming body)."""
    return [f"Paragraph {i} of line {label}, with **bold** words and `code`.\n\n" for i in range(paragraphs)]


def _providers(
    controller: SessionController, factory: Callable[[], OpenAIServer], labels: tuple[str, ...]
) -> dict[str, OpenAIServer]:
    """A local server and a provider named after it for each label (the first the default): a line each."""
    servers = {label: factory() for label in labels}
    for label, server in servers.items():
        controller.providers.add_provider(
            ProviderRecord(name=label, base_url=server.base_url, model="m", is_default=label == labels[0])
        )
    return servers


def _window(qtbot: QtBot, controller: SessionController) -> MainWindow:
    window = open_window(qtbot, controller)
    window.resize(1200, 800)
    return window


def _painted(window: MainWindow) -> None:
    window.message_list.viewport().repaint()
    QApplication.processEvents()


def test_a_switch_back_to_a_streaming_line_renders_only_what_streamed_since_not_its_whole_answer(
    qtbot: QtBot,
    openai_server_factory: Callable[[], OpenAIServer],
    bare_controller: SessionController,
    loop: asyncio.AbstractEventLoop,
) -> None:
    controller = bare_controller
    servers = _providers(controller, openai_server_factory, ("a", "b"))
    window = _window(qtbot, controller)
    keys = {label: controller.lines.create_line(f"Line {label}").thread_id for label in servers}
    answers = {label: _answer(label, 120) for label in servers}
    click_line(qtbot, window, keys["a"])
    tasks = []
    for label, server in servers.items():
        server.script(HangReply(chunks=answers[label]))  # the whole answer streams, then the turn stays running
        tasks.append(controller.turns.start_turn(keys[label], "stream please", provider=label))
    for label in servers:
        run(
            loop,
            wait_until(
                lambda label=label: window.live.streamed_text(keys[label]) == "".join(answers[label]),
                what=f"line {label}'s answer buffered",
            ),
        )
    delegate = window.message_list.message_delegate
    for label in ("b", "a"):  # each answer, streamed in full, shown once
        click_line(qtbot, window, keys[label])
        _painted(window)
        assert live_text(window) == "".join(answers[label])
    rendered = delegate.streamed_chars_rendered + delegate.chars_rendered_ahead  # shown, or shown lately
    assert rendered >= sum(len("".join(answer)) for answer in answers.values())

    for _ in range(3):  # back and forth, nothing streamed meanwhile
        for label in ("a", "b"):
            click_line(qtbot, window, keys[label])
            _painted(window)
            assert live_text(window) == "".join(answers[label])

    # Before, both lines' streaming answers shared one body: each switch rendered the whole answer again.
    assert delegate.streamed_chars_rendered + delegate.chars_rendered_ahead == rendered
    for label, key in keys.items():
        assert controller.turns.stop(key), label
    run(loop, wait_until(lambda: all(task.done() for task in tasks), what="the stopped turns"))


def test_a_line_shown_lately_has_what_streamed_while_away_rendered_before_the_switch_back(
    qtbot: QtBot,
    openai_server_factory: Callable[[], OpenAIServer],
    bare_controller: SessionController,
    loop: asyncio.AbstractEventLoop,
) -> None:
    """The line a person just left keeps streaming; by the switch back its settled paragraphs are rendered
    (``StreamsAhead``), so the switch renders only the last, unsettled one. A line never shown is not rendered."""
    controller = bare_controller
    servers = _providers(controller, openai_server_factory, ("away", "never"))
    window = _window(qtbot, controller)
    keys = {label: controller.lines.create_line(f"Line {label}").thread_id for label in ("here", *servers)}
    answer = _answer("away", 60)
    whole = "".join(answer)
    delegate = window.message_list.message_delegate
    click_line(qtbot, window, keys["away"])
    servers["away"].script(HangReply(chunks=answer, delay=0.02))  # about a second of stream, then it runs on
    servers["never"].script(HangReply(chunks=_answer("never", 60)))
    tasks = [controller.turns.start_turn(keys[label], "stream please", provider=label) for label in ("away", "never")]
    run(loop, wait_until(lambda: (live_text(window) or "").count("\n\n") >= 3, what="a few paragraphs shown"))
    _painted(window)
    assert delegate.streaming_text(keys["away"]) is not None  # its streaming answer's body is kept

    click_line(qtbot, window, keys["here"])  # away from it while it streams on
    _painted(window)
    left_at = len(delegate.streaming_text(keys["away"]) or "")
    run(loop, wait_until(lambda: window.live.streamed_text(keys["away"]) == whole, what="the whole answer"))
    last_paragraph = answer[-1]
    run(
        loop,
        wait_until(
            lambda: delegate.streaming_text(keys["away"]) == whole, what="what streamed meanwhile rendered ahead"
        ),
    )
    assert delegate.chars_rendered_ahead >= len(whole) - left_at - len(last_paragraph)
    assert delegate.streaming_text(keys["never"]) is None  # never shown: never rendered

    rendered = delegate.streamed_chars_rendered
    click_line(qtbot, window, keys["away"])
    _painted(window)
    assert live_text(window) == whole
    # Before: every paragraph that streamed while away (57 or so) was rendered here, before the first paint.
    assert delegate.streamed_chars_rendered - rendered == 0
    for key in keys.values():
        controller.turns.stop(key)
    run(loop, wait_until(lambda: all(task.done() for task in tasks), what="the stopped turns"))
