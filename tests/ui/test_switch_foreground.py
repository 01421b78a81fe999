"""Issue 34 item 1: a switch between lines, up to its paint, comes before the background's next job
(``xworkmate.foreground``): the turns' store thread, busy with twenty lines' streamed writes, takes no job
meanwhile, so the GUI thread does not wait for the interpreter lock at each Qt call of the switch. Orders, never
wall-clock times: the bound a job waits is raised, so a slow machine cannot let one through by timing out."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from xworkmate import foreground
from xworkmate.controllers import LineView, SessionController
from xworkmate.controllers.views import LinePanes
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.store import Store

from .conftest import open_window
from .support import click_line


class _PaintsOf(QObject):
    """Notes "painted" in ``events`` at the conversation's first paint while the key label shows ``key``."""

    def __init__(self, label: QLabel, key: str, events: list[str]) -> None:
        super().__init__()
        self._label, self._key, self._events = label, key, events

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self._key in self._label.text() and "painted" not in self._events:
            self._events.append("painted")
        return False


def test_store_work_queued_as_the_person_switches_lines_waits_until_the_switch_is_painted(
    qtbot: QtBot,
    sqlite_store: Store,
    sqlite_controller: SessionController,
    loop: asyncio.AbstractEventLoop,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(foreground, "STEP_ASIDE_MAX_S", 60.0)
    controller = sqlite_controller
    keys = [controller.lines.create_line(title).thread_id for title in ("First", "Second")]
    for key in keys:
        sqlite_store.messages.append(key, role=MessageRole.USER, source=MessageSource.HUMAN, content=f"Hello {key}")
    window = open_window(qtbot, controller)
    window.resize(1200, 800)
    click_line(qtbot, window, keys[0])
    label = window.findChild(QLabel, "sessionKeyLabel")
    assert label is not None
    events: list[str] = []
    paints = _PaintsOf(label, keys[1], events)
    window.message_list.viewport().installEventFilter(paints)
    store_thread = controller._ctx.store_thread
    part = window.shown.parts[0]
    show = part.show_line

    def queued_then_shown(view: LineView, previous: LineView | None, panes: LinePanes | None) -> None:
        if view.key == keys[1] and "queued" not in events:  # a streamed write queued as the switch begins
            events.append("queued")
            store_thread.submit(lambda: events.append("stored"), what="a test write")
        show(view, previous, panes)

    monkeypatch.setattr(part, "show_line", queued_then_shown)
    click_line(qtbot, window, keys[1])
    store_thread.wait()
    assert events == ["queued", "painted", "stored"]  # without the gate: stored before painted
    assert not foreground.is_held()
