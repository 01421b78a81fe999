"""The test's qasync loop, running whenever Qt runs one of its callbacks, as the app's loop always is.

In the app, ``run_gui`` runs the loop for the window's whole life, so every callback Qt runs for it
(a task's next step, a timer) finds it as the running loop. A test instead runs the loop in pieces
(``run_until_complete``), and between them qtbot's clicks, key presses and waits process Qt events:
a callback run then used to find no running loop, and the step of a turn a click had started failed
with ``RuntimeError: no running event loop`` (``asyncio.get_running_loop`` in the store thread's call,
or in httpx). Imported only after PySide6, so qasync binds to it.
"""

from __future__ import annotations

import asyncio

from xworkmate.ui.event_loop import AppEventLoop


class TestEventLoop(AppEventLoop):
    """The app's loop (``AppEventLoop``, on qasync's), whose timed callbacks also run with it as the running
    loop outside ``run_*`` (its ready callbacks and descriptors do already)."""

    __test__ = False  # not a test class, whatever pytest's name patterns say

    def _add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        def run() -> None:
            if handle.cancelled():
                return
            if asyncio._get_running_loop() is not None:
                handle._run()
                return
            asyncio._set_running_loop(self)
            try:
                handle._run()
            finally:
                asyncio._set_running_loop(None)

        # The timer runs the wrapper; the caller keeps ``handle``, so cancelling it still cancels the call.
        super()._add_callback(asyncio.Handle(run, (), self), delay)
        return handle
