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
    "sqlalchemy": "MainThread",  # the stack, with the window's code
    "ui.main_window": "MainThread",
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
