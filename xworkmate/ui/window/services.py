"""What the window's parts need of the window (issue 33 item 1): a narrow protocol, not ``MainWindow``.

Each part of the window (``ui/window/task_list``, ``conversation``, ``line_settings``, ``agent``,
``workspace``, ``search_export``) is a plain ``QObject`` over the widgets it drives, given at construction,
and over ``WindowServices`` for what all of them share: the controller, the store worker, the shown line,
the one way a line is opened, and how a failure is said. None of them imports the window, so none can
reach into another part or the window's internals; ``MainWindow`` is the one place that knows them all.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from PySide6.QtWidgets import QWidget

from xworkmate.controllers import LineView, SessionController
from xworkmate.controllers.views import LinePanes
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.operations import StoreOperations, failure_line

log = logging.getLogger(__name__)

Failure = Callable[[BaseException], None]
"""How an operation's failure is said (``WindowServices.failure``)."""


class Shown(Protocol):
    """The shown line (``ui/window/shown.ShownLine``): ``view`` is its view (every pane shows its key,
    ISO-5); ``open_line`` and ``switch_to`` are the one switch path (issue 33 item 1); ``refresh_shown``
    reads every pane of the shown line again (its real state after a refusal, ISO-4), ``read_shown_again``
    only its view; ``after_paint(work)`` runs a part's work once the switched-to conversation is painted
    (issue 34 item 1), and ``switching`` says the parts are showing another line than before (what they ask
    for then can wait for that paint); ``remembers`` and ``remember_ahead`` let a line's read be made ahead of
    its first switch (``ui/window/lines_ahead``)."""

    @property
    def view(self) -> LineView | None: ...

    @property
    def switching(self) -> bool: ...

    @property
    def shown_key(self) -> str | None: ...

    def open_line(
        self, key: str, *, then: Callable[[], None] | None = None, otherwise: Callable[[], None] | None = None
    ) -> None: ...

    def switch_to(self, key: str, *, then: Callable[[], None] | None = None) -> None: ...

    def refresh_shown(self) -> None: ...

    def read_shown_again(self) -> None: ...

    def after_paint(self, work: Callable[[], None]) -> None: ...

    def remembers(self, key: str) -> bool: ...

    def remember_ahead(self, panes: LinePanes) -> None: ...


class WindowServices(Protocol):
    """The window as its parts see it.

    ``shown`` is the shown line. ``failure`` makes an operation's ``failed`` callback (``say_failure``).
    ``closed``: the window is closing, its parts take no more records. ``window()`` is the top-level
    widget, the parent of dialogs and menus.
    """

    @property
    def controller(self) -> SessionController: ...

    @property
    def operations(self) -> StoreOperations: ...

    @property
    def shown(self) -> Shown: ...

    @property
    def closed(self) -> bool: ...

    def show_error(self, text: str) -> None: ...

    def failure(
        self,
        template: str,
        *expected: type[BaseException],
        then: Callable[[], None] | None = None,
        **fields: str,
    ) -> Failure: ...

    def window(self) -> QWidget: ...


def say_failure(
    show_error: Callable[[str], None],
    database_url: str,
    template: str,
    expected: tuple[type[BaseException], ...],
    then: Callable[[], None] | None,
    fields: dict[str, str],
) -> Failure:
    """How an operation's failure is said: ``template`` (translated, with an ``{error}`` field and
    ``fields``) filled with the reason when the error is one of ``expected``, else the ERR-1 line (its
    traceback to the log); ``then()`` after either (a picker put back to what is stored)."""

    def failed(error: BaseException) -> None:
        if expected and isinstance(error, expected):
            show_error(template.format(error=plain_words(str(error)), **fields))
        else:
            log.error("window operation failed", exc_info=error)
            show_error(failure_line(error, database_url))
        if then is not None:
            then()

    return failed


class LinePart(Protocol):
    """A part that shows something of the shown line: ``show_line`` is called, in the window's order, each
    time the shown view changes (a switch, or the line's update), with the view shown before and, on a
    switch or a fresh read, what was read for every pane (``panes``)."""

    def show_line(self, view: LineView, previous: LineView | None, panes: LinePanes | None) -> None: ...
