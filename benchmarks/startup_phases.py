"""Where a start-up's time goes between the painted list and the usable window (issue 34, item 4).

``install()`` (``app_startup.py`` calls it before it imports the app) puts one finder first on
``sys.meta_path`` that, when one of the few modules named in ``_HOOKS`` has loaded, notes the time
(``loaded:<module>``, for the stretches of the window's code import) and wraps a handful of its functions
so that they note the wall-clock time they start and end at (``startup_marks.note``): the event loop's
start (``ui/start.run_event_loop``), the window's code loading (``cli/window._shown_window`` until
``ui/app.ShownWindow``), the store's opening and the first read on the worker
(``controllers.app.open_controller``, ``controllers.views.read_first``), the panes' construction
(``MainWindow.attach`` and, inside it, each pane and each ``_build_*`` step: their summed durations), and
the work the start leaves for right after the list's paint, on the GUI thread (``AfterPaint.run``,
``MainWindow._on_usable``: the window is usable once they are done). Every other import asks the finder
one set lookup, and the app's code is unchanged; the bare references pay for the same ``startup_marks``
filter, not for this.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import sys
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from startup_marks import add_duration, note

# Steps of ``MainWindow._build`` timed one by one (the rest of ``attach`` is "build:rest").
_WINDOW_STEPS = ("_build_parts", "_build_chrome", "_connect_signals")
# Panes and parts built inside ``_build``, by the module that defines each, timed at their ``__init__``.
_PANES = {
    "xworkmate.ui.lines.task_lines": ("TaskLinePane", "TaskLineModel"),
    "xworkmate.ui.conversation": ("MessagePane", "MessageListModel"),
    "xworkmate.ui.changes.workspace": ("WorkspacePane", "WorkspaceFiles"),
    "xworkmate.ui.lines.needs_you": ("NeedsYou",),
}


def _spanned(
    function: Callable[..., Any], start: str | None, end: str | None, *, cpu: bool = False
) -> Callable[..., Any]:
    """``function``, noting when it starts and ends; with ``cpu``, the process's CPU time at its end too
    (``cpu_at:<end>``: every thread's, as ``startup_marks`` notes it at the paint)."""

    @functools.wraps(function)
    def spanned(*args: Any, **kwargs: Any) -> Any:
        if start is not None:
            note(start)
        try:
            return function(*args, **kwargs)
        finally:
            if end is not None:
                note(end)
                if cpu:
                    note(f"cpu_at:{end}", time.process_time())

    return spanned


def _timed(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            add_duration(name, time.perf_counter() - began)

    return timed


def _loaded(name: str) -> Callable[[ModuleType], None]:
    def loaded(module: ModuleType) -> None:
        note(f"loaded:{name}")

    return loaded


# Modules whose load (with what each imports) ends a stretch of the window's code import, in its order.
_LOADED = (
    "asyncio",
    "qasync",
    "sqlalchemy",
    "sqlalchemy.orm",
    "pydantic",
    "xworkmate.store.tables",
    "xworkmate.controllers.session",
    "xworkmate.cli.run",
    "xworkmate.ui.conversation",
    "xworkmate.ui.opening",
)


def _ui_start(module: ModuleType) -> None:
    module.run_event_loop = _spanned(module.run_event_loop, "event_loop_start", None)  # type: ignore[attr-defined]


def _cli_window(module: ModuleType) -> None:
    # The window's code loads on a worker (``_load_window_code``), then ``_shown_window`` runs on the GUI thread.
    if hasattr(module, "_load_window_code"):  # a baseline from before issue 34 item 4 loads it on the GUI thread
        module._load_window_code = _spanned(module._load_window_code, "code_import_start", "code_loaded")
    module._shown_window = _spanned(module._shown_window, "code_import_start", None)  # type: ignore[attr-defined]


def _ui_app(module: ModuleType) -> None:
    shown = module.ShownWindow
    shown.__init__ = _spanned(shown.__init__, "code_imported", "shell_taken_over")
    shown._attached = _spanned(shown._attached, "attached", None)
    module.read_first = _spanned(module.read_first, "first_read_start", "first_read_end")  # as StoreOpening calls it


def _controllers_app(module: ModuleType) -> None:
    note("loaded:xworkmate.controllers.app")
    module.open_controller = _spanned(module.open_controller, "store_open_start", "store_open_end")


def _main_window(module: ModuleType) -> None:
    note("loaded:xworkmate.ui.window.main_window")
    window = module.MainWindow
    window._on_usable = _spanned(_timed(window._on_usable, "after_usable:_on_usable"), None, "on_usable_done", cpu=True)
    window.attach = _spanned(_timed(window.attach, "attach"), "attach_start", "attach_end")
    for step in _WINDOW_STEPS:
        setattr(window, step, _timed(getattr(window, step), f"build:{step}"))


def _panes(names: Sequence[str]) -> Callable[[ModuleType], None]:
    def wrap(module: ModuleType) -> None:
        for name in names:
            kind = getattr(module, name)
            kind.__init__ = _timed(kind.__init__, f"build:{name}")

    return wrap


def _changes_view(module: ModuleType) -> None:
    view = module.ChangesView  # built after the usable paint, once its code has loaded on a worker
    view.__init__ = _timed(view.__init__, "after_usable:ChangesView (after its worker)")


def _shown(module: ModuleType) -> None:
    after = module.AfterPaint
    after.run = _spanned(_timed(after.run, "after_usable:AfterPaint.run"), None, "after_paint_done", cpu=True)


_HOOKS: dict[str, Callable[[ModuleType], None]] = {
    "xworkmate.ui.window.shown": _shown,
    "xworkmate.ui.changes.changes_view": _changes_view,
    **{name: _loaded(name) for name in _LOADED},
    "xworkmate.ui.start": _ui_start,
    "xworkmate.cli.window": _cli_window,
    "xworkmate.ui.app": _ui_app,
    "xworkmate.controllers.app": _controllers_app,
    "xworkmate.ui.window.main_window": _main_window,
    **{name: _panes(kinds) for name, kinds in _PANES.items()},
}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for a hooked module, the spec the other finders give, its loader wrapped."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        hook = _HOOKS.get(fullname)
        if hook is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                loader = spec.loader
                execute = loader.exec_module

                def exec_module(module: ModuleType, execute: Callable[[ModuleType], None] = execute) -> None:
                    execute(module)
                    hook(module)

                loader.exec_module = exec_module  # type: ignore[method-assign]
                return spec
        return None


def install() -> None:
    sys.meta_path.insert(0, _AfterImport())
