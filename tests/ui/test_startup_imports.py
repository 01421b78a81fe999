"""How the window's start imports (issue 34, item 4): from the shell's start to the usable window, with the
interpreter's own ``__import__``, not PySide6's ``__feature__`` hook (which calls back into Python for every
import statement and reads the source of every module that imports) nor importlib's Python version of it;
and the cyclic collector off (as the command's own imports have it, ``xworkmate.entry``); both are back once
the window is usable. Structure, not timing: which ``__import__`` loaded a module, and whether the collector
ran then, in a fresh ``xworkmate gui --smoke-test`` process started as the command starts it."""

from __future__ import annotations

import json

from tests.support.fresh_python import fresh_python
from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.store import open_store

# The smoke test with a finder that notes, for each watched module (by its name, or for a window module by its
# last part: the window's modules move between folders), the thread that loads it and the ``__import__`` in
# force then; and the one in force once the run is over.
_IMPORTS = """
import builtins, gc, importlib.abc, json, sys, threading
watched = set(json.loads(sys.argv[1]))
seen = {}

def kind():
    hook = builtins.__import__
    return f"{type(hook).__name__}:{hook.__name__}" + (" collecting" if gc.isenabled() else "")

def watched_as(name):
    if name in watched:
        return name
    if name.startswith("xworkmate.ui.") and "ui." + name.rsplit(".", 1)[1] in watched:
        return "ui." + name.rsplit(".", 1)[1]
    return None

class _Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        label = watched_as(name)
        if label is not None:
            seen.setdefault(label, [threading.current_thread().name, kind()])
        return None

sys.meta_path.insert(0, _Watch())
from xworkmate.entry import main
code = main(["gui", "--smoke-test"])
print(json.dumps({"code": code, "loaded": seen, "after": kind()}), file=sys.stderr)
"""
PLAIN = "builtin_function_or_method:__import__"  # and the cyclic collector off
HOOK = "builtin_function_or_method:__feature_import__ collecting"
BEFORE_USABLE = {
    "ui.first_list": "MainThread",  # the first list's rows, painted before the stack loads
    "ui.event_loop": "MainThread",  # the shared loop (qasync)
    "sqlalchemy": "xworkmate-window-code",  # the stack, with the window's code, off the GUI thread (ui/start)
    "ui.main_window": "xworkmate-window-code",
    "sqlalchemy.dialects.sqlite.pysqlite": "xworkmate-store-opening",  # the store's opening, on its worker
}


def _seeded_home(settings: Settings) -> None:
    """A database at the current schema with a line, so that the first list is read and painted."""
    store = open_store(settings.effective_database_url)
    try:
        SessionController(store, settings).lines.create_line("Seeded")
    finally:
        store.close()


def test_the_start_imports_with_the_interpreters_own_import_until_the_window_is_usable(settings: Settings) -> None:
    """Issue 34 item 4: the first list's code, the loop (qasync), the stack, the window's code and what the store's
    opening loads on its worker are all imported with the interpreter's ``__import__`` (~25 ms of CPU a start
    less than through PySide6's hook); once the window is usable the hook is back, for what loads later."""
    _seeded_home(settings)
    proc = fresh_python(_IMPORTS, json.dumps(sorted(BEFORE_USABLE)), env={"XWORKMATE_HOME": str(settings.home)})
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    seen = json.loads(proc.stderr.strip().splitlines()[-1])
    assert seen == {
        "code": 0,
        "loaded": {name: [thread, PLAIN] for name, thread in BEFORE_USABLE.items()},
        "after": HOOK,
    }


# The smoke test, counting the sources that reach the builtins' compiler while one of our modules loads, from
# the modules that write code for it (a dataclass's functions, a namedtuple's ``__new__``, an annotation's
# ``ForwardRef``), by the module that asks; kept code (``xworkmate.code_cache``, whose own import comes first)
# reaches it compiled, not as a string.
_COMPILES = """
import builtins, collections, json, sys
asked = collections.Counter()

def counted(builtin):
    def call(source, *args, **kwargs):
        if isinstance(source, str) and loading_ours(sys._getframe(1)):
            asked[sys._getframe(1).f_globals.get("__name__", "?")] += 1
        return builtin(source, *args, **kwargs)
    return call

def loading_ours(frame):
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if frame.f_code.co_name == "<module>" and name.startswith("xworkmate.") and name != "xworkmate.code_cache":
            return name
        frame = frame.f_back
    return None

builtins.compile, builtins.eval, builtins.exec = map(counted, (builtins.compile, builtins.eval, builtins.exec))
from xworkmate.entry import main
asked.clear()  # what the entry itself loads (the command line's, before the window's start) is not counted
code = main(["gui", "--smoke-test"])
counts = {name: asked[name] for name in ("dataclasses", "typing", "collections")}
print(json.dumps({"code": code, **counts}), file=sys.stderr)
"""


def test_a_second_start_compiles_none_of_what_the_modules_before_the_first_paint_write(settings: Settings) -> None:
    """Issue 34 item 4: the code cache is in place before the window's first modules load (the first list's,
    ``ui/start``'s and theirs), so a second start compiles none of their dataclasses' functions, namedtuples and
    annotations (before: 30, 15 and 18 sources at every start, compiled before the cache was installed)."""
    _seeded_home(settings)
    env = {"XWORKMATE_HOME": str(settings.home)}
    first = fresh_python(_COMPILES, env=env)
    assert first.returncode == 0 and first.stdout.strip() == "ok", first.stderr
    again = fresh_python(_COMPILES, env=env)
    assert again.returncode == 0 and again.stdout.strip() == "ok", again.stderr
    counts = json.loads(again.stderr.strip().splitlines()[-1])
    assert counts == {"code": 0, "dataclasses": 0, "typing": 0, "collections": 0}


# The smoke test, then which models of ours pydantic has built (validator and serializer) by its end.
_BUILT = """
import json, sys
import pydantic
from xworkmate.entry import main
code = main(["gui", "--smoke-test"])
models = [
    value
    for name, module in list(sys.modules.items())
    if name.startswith("xworkmate.")
    for value in vars(module).values()
    if isinstance(value, type) and issubclass(value, pydantic.BaseModel) and value.__module__ == name
]
built = sorted(model.__qualname__ for model in models if model.__pydantic_complete__)
print(json.dumps({"code": code, "models": len(models), "built": built}), file=sys.stderr)
"""
USED_AT_START = [
    "ContextState",
    "ExecutionBinding",
    "LineUsage",
    "LineView",
    "Settings",
    "TaskThread",
    "Viewer",
    "WorkspaceBinding",
]


def test_a_start_builds_only_the_models_it_uses(settings: Settings) -> None:
    """Issue 34 item 4: of the ~50 models the window's code defines, a start builds the 8 its first read and the
    settings use; the others (an export's, a search's, an MCP server's, a run's, a turn's outcome, a provider's,
    a message's, an agent's session, a checkpoint's…) are built at their first use (``defer_build``), not as
    their modules load with the window's code (before: all built at every start, ~0.5 ms each)."""
    _seeded_home(settings)
    proc = fresh_python(_BUILT, env={"XWORKMATE_HOME": str(settings.home)})
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    seen = json.loads(proc.stderr.strip().splitlines()[-1])
    assert seen["models"] > 30 and seen["code"] == 0  # 37 loaded: the export's load at first use too
    assert seen["built"] == USED_AT_START


# The smoke test, noting which of our modules are loaded before the window is usable: those in ``sys.modules``
# at each import statement (the interpreter's audit event, whichever finder then loads it) until PySide6's
# import hook is back after the window's start's plain ``__import__`` (``window_usable``: the first test).
_BEFORE_USABLE = """
import builtins, json, sys
before, hooks = set(), [builtins.__import__.__name__]  # in turn: the entry's, PySide6's, the start's plain one…

def noted(event, args):
    if event != "import":
        return
    hook = builtins.__import__.__name__
    if hook != hooks[-1]:
        hooks.append(hook)
    # PySide6's hook back after the start's plain one: the window is usable. Its ``__feature__`` hook or, as
    # shiboken swaps it later on its own, its ``__lazy_import__``: either is PySide6's.
    if not ("__import__" in hooks[1:] and hook != "__import__"):
        before.update(name for name in (*sys.modules, args[0]) if name.startswith("xworkmate."))

sys.addaudithook(noted)
from xworkmate.entry import main
code = main(["gui", "--smoke-test"])
print(json.dumps({"code": code, "before": sorted(before)}), file=sys.stderr)
"""
LOADED_AT_FIRST_USE = [
    "xworkmate.agents.git_safe",  # with the worktrees' git
    "xworkmate.agents.worktrees",  # a worktree line made, archived, recreated
    "xworkmate.domain.diffs",  # with the diff view
    "xworkmate.domain.export",  # File → Export…
    "xworkmate.ui.agent.elicitation",  # an agent's question with a form
    "xworkmate.ui.agent.sign_in",  # an agent asking to sign in
    "xworkmate.ui.changes.diff_view",  # a diff to approve
    "xworkmate.ui.lines.export_dialog",  # File → Export…
]


OURS_BEFORE_USABLE = 183
"""Of our modules (``xworkmate.*``), at most this many are loaded before the window is usable (before: 188; 180
until ``ui/window/lines_ahead``, which the window builds with its list, issue 34 item 1; 181 until ``proc_stat``,
the one home of a process's start time, which the store's turn owners and the agents' priority read; 182 until
``foreground``, the gate a switch holds for its paint, which the window's worker and the store thread read)."""


def test_a_start_imports_none_of_the_later_actions_modules_before_the_window_is_usable(settings: Settings) -> None:
    """Issue 34 item 4: the export's code, the sign-in and elicitation cards, the diff view and the worktrees' git
    load at their first use, not with the window's code (before: all 8 loaded before the window was usable)."""
    _seeded_home(settings)
    proc = fresh_python(_BEFORE_USABLE, env={"XWORKMATE_HOME": str(settings.home)})
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    seen = json.loads(proc.stderr.strip().splitlines()[-1])
    assert seen["code"] == 0 and "xworkmate.ui.window.main_window" in seen["before"]
    assert sorted(set(seen["before"]) & set(LOADED_AT_FIRST_USE)) == []
    assert len(seen["before"]) <= OURS_BEFORE_USABLE
