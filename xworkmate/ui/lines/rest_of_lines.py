"""The rest of the task lines, after the window can be used (issue 34 item 2: start-up with 20,000 lines keeps
its ratios).

The window's first read takes a bounded part of the list (``LineController.first_lines``: both ends of it, the
current line, the lines that need the person, and every line above those), so a start reads, builds and
paints as much at 20,000 lines as at 40. Once the window can be used (``read_rest_when_usable``, which the
task list's actions ask for), ``read_rest_of_lines`` reads every line on the store worker, in order with the
operations (so it is newer than every record the list applied before it, and older than every one after), and
the list takes the lines it lacked in between the rows it holds (``TaskLineModel.complete``), the line at its
top kept there (``TaskLineListView.keeping_top``).

Until then the list holds those lines only: the text filter and "Show archived" find among them, and a line
shown from elsewhere (the search palette, a notification) is selected once the rest has come (no filter is
cleared for it meanwhile: it is not hidden, only not read yet). The "Needs you"
filter, Ctrl+J and the count in the title are whole from the start (the lines that need the person are read
first; the count is the attention tracker's).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QTimer

from xworkmate.domain.threads import ThreadSummary
from xworkmate.ui.lines.task_lines import TaskLineListView, TaskLineModel
from xworkmate.ui.shell import FirstPaint
from xworkmate.ui.window.services import WindowServices


def read_rest_when_usable(
    window: WindowServices, model: TaskLineModel, view: TaskLineListView, *, done: Callable[[], None]
) -> None:
    """When ``model`` holds a part of the lines: read the rest once the list has first been painted (the window
    is usable then) and the GUI thread has had its turn after that paint (what the start left for it: a worker
    reading meanwhile would take the GIL from it); ``done()`` once they are in."""
    if not model.partial:
        return

    def read() -> None:
        read_rest_of_lines(window, model, view, done=done)

    FirstPaint(view.viewport(), lambda: QTimer.singleShot(0, view, read))


def read_rest_of_lines(
    window: WindowServices, model: TaskLineModel, view: TaskLineListView, *, done: Callable[[], None]
) -> None:
    """Read every line on the store worker and complete ``model`` with them (nothing to do when it has them);
    ``done()`` after, on the GUI thread (the window puts its selection back on the line it shows). A failed
    read is said as the window says any (ERR-1) and leaves the part shown, the list then taking the lines
    records bring as a whole list does (a line under one not held shows at the end)."""
    if not model.partial or window.closed:
        return
    controller = window.controller

    def arrived(lines: list[ThreadSummary]) -> None:
        if model.partial:  # not reloaded meanwhile (the external watch's "read everything again")
            view.keeping_top(lambda: model.complete(lines))
        done()

    # The words the task list already says when its read again fails (``TaskListActions``), in its context.
    say = window.failure(QCoreApplication.translate("TaskListActions", "Could not read the task lines — {error}"))

    def failed(error: BaseException) -> None:
        model.partial = False  # no rest to wait for: a line a record brings is shown where the list can put it
        say(error)

    window.operations.query(lambda: controller.lines.list_lines(include_archived=True), done=arrived, failed=failed)
