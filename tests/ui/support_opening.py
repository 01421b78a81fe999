"""A window shown before its store opens, with an open the test holds back (issue 19, item 7)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store
from xworkmate.ui.app import StoreOpening
from xworkmate.ui.opening import Opening
from xworkmate.ui.window.main_window import MainWindow


class HeldOpen:
    """An ``Opening.open`` that opens the real store only once ``release`` is set (within ``wait_s``); notes
    when it was asked, on which thread, and the store it opened."""

    def __init__(self, settings: Settings, *, wait_s: float) -> None:
        self._settings = settings
        self._wait_s = wait_s
        self.asked = threading.Event()
        self.release = threading.Event()
        self.thread = ""
        self.store: Store | None = None

    def __call__(self) -> SessionController:
        self.thread = threading.current_thread().name
        self.asked.set()
        assert self.release.wait(self._wait_s), "the test never released the open"
        self.store = open_store(self._settings.effective_database_url)
        return SessionController(self.store, self._settings)


def opening_for(settings: Settings, open_: Callable[[], SessionController], failures: list[BaseException]) -> Opening:
    """An ``Opening`` over ``open_`` whose failures are noted in ``failures`` (said as exit 3)."""

    def failed(error: BaseException) -> tuple[str, int]:
        failures.append(error)
        return str(error), 3

    return Opening(open=open_, home=settings.home, database_url=settings.effective_database_url, failed=failed)


def shown_opening(
    qtbot: QtBot,
    opening: Opening,
    *,
    attached: Callable[[SessionController], None],
    failed: Callable[[int], None],
) -> tuple[MainWindow, StoreOpening]:
    """A window without a controller, shown, whose store opens right after its first paint."""
    window = MainWindow()
    qtbot.addWidget(window)
    store_opening = StoreOpening(window, opening, attached=attached, failed=failed)
    store_opening.start_after_first_paint()
    window.show()
    return window, store_opening
