"""What the usable window waits for (issue 34, item 4): the window's code loads without the code of the
things it opens on demand (dialogs, the turn code, the agents, the command line's families), the Changes
tab is built once the window can be used (its code loaded on a worker meanwhile), and the start's background
work (the turn code's warm-up) waits for that moment too. Structure, not timing: which modules a fresh
interpreter has loaded, and on which thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.ui.window.main_window import MainWindow

LAZY = (
    # what a turn needs: loaded by the warm-up once the window can be used (issue 7), not before
    "xworkmate.controllers.runs",
    "xworkmate.agents.tools",
    "xworkmate.agents.acp",
    "xworkmate.llm.openai_client",
    "xworkmate.dispatch",
    "httpx",
    "openai",
    "mcp",
    "keyring",
    "markdown",
    "pygments",
    # opened on demand: loaded when first opened
    "xworkmate.ui.settings.providers",
    "xworkmate.ui.settings.acp_agents",
    "xworkmate.ui.lines.search_palette",
    "xworkmate.ui.agent.sign_in_terminal",
    "xworkmate.controllers.export",
    # the Changes tab: built once the window can be used (an approval card's diff is ``ui/changes/diff_view``)
    "xworkmate.ui.changes.changes_view",
    "xworkmate.domain.checkpoints",
    # the command line's families: the window only takes ``window_opening`` from ``cli/run``
    "xworkmate.cli.search",
    "xworkmate.cli.tasks",
    "xworkmate.cli.threads",
    "xworkmate.cli.checkpoints",
    "xworkmate.cli.providers",
    "xworkmate.cli.skills",
    "xworkmate.cli.queue",
    "xworkmate.cli.agent",
)

_LOADED = """
import json, sys
import xworkmate.cli.window, xworkmate.cli.run, xworkmate.ui.app
lazy = json.loads(sys.argv[1])
print(json.dumps(sorted(name for name in sys.modules if any(name == m or name.startswith(m + ".") for m in lazy))))
"""


def test_loading_the_window_code_loads_none_of_what_it_opens_on_demand() -> None:
    """Issue 34 item 4: ``xworkmate gui`` imports ``cli/window``, ``cli/run`` and ``ui/app`` before its window
    can be used; none of the modules in ``LAZY`` (turn code, agents, HTTP and MCP clients, keyring, Markdown,
    the settings dialogs, search, export, the CLI's command families) comes with them."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    proc = subprocess.run(
        [sys.executable, "-c", _LOADED, json.dumps(LAZY)],
        env={**env, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_the_lazy_modules_exist_so_the_check_above_can_fail() -> None:
    """Each of our own names in ``LAZY`` is a module that the window does load later (a renamed module
    would make the check above pass for nothing)."""
    import importlib.util

    ours = [name for name in LAZY if name.startswith("xworkmate.")]
    assert [name for name in ours if importlib.util.find_spec(name) is None] == []


# The ``xworkmate gui --smoke-test`` process with a finder that notes which thread loads each module of
# ``watched`` (the smoke test is checked once the window can be used: its Changes tab is built by then).
_LOADING_THREADS = """
import importlib.abc, json, sys, threading
watched = set(json.loads(sys.argv[1]))
threads = {}

class _Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in watched:
            threads.setdefault(name, threading.current_thread() is threading.main_thread())
        return None

sys.meta_path.insert(0, _Watch())
from xworkmate.entry import main
code = main(["gui", "--smoke-test"])
print(json.dumps({"code": code, "on_gui_thread": threads}), file=sys.stderr)
"""
AFTER_USABLE_CODE = ("xworkmate.ui.changes.changes_view", "xworkmate.controllers.checkpoints")


def test_the_changes_tab_code_loads_on_a_worker_once_the_window_is_usable(tmp_path: Path) -> None:
    """Issue 34 item 4: the Changes tab's code and its checkpoints section's (~30 ms of imports) load on a
    worker after the usable paint, not on the GUI thread, which takes keys meanwhile; the tab is then built
    on the GUI thread, before the smoke test, which checks the window as a person first gets it, ends."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XWORKMATE_")}
    proc = subprocess.run(
        [sys.executable, "-c", _LOADING_THREADS, json.dumps(AFTER_USABLE_CODE)],
        env={**env, "QT_QPA_PLATFORM": "offscreen", "XWORKMATE_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    seen = json.loads(proc.stderr.strip().splitlines()[-1])
    assert seen == {"code": 0, "on_gui_thread": {name: False for name in AFTER_USABLE_CODE}}


def test_the_changes_tab_is_built_once_the_window_is_usable_and_shows_the_current_line(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Issue 34 item 4 (issue 16's tab): not part of the usable window, built right after its first paint;
    then it is the workspace pane's second tab and follows the shown line (ISO-5)."""
    called: list[str] = []
    qtbot.waitUntil(lambda: window.workspace._changes_view is not None, timeout=5000)
    window.when_usable(lambda: called.append("now"))  # usable already: at once
    assert called == ["now"]
    assert window.workspace_pane.tabs.count() == 2
    assert window.workspace_pane.tabs.widget(1) is window.workspace.changes_view
    assert window.workspace.changes_view._key == window.shown_key


def test_a_window_not_yet_usable_builds_the_changes_tab_when_asked_and_runs_waiting_jobs_once_usable(
    qtbot: QtBot, sqlite_controller: SessionController
) -> None:
    """Before its first paint the window has no Changes tab and holds the jobs given to ``when_usable``; asking
    for ``changes_view`` builds it at once, and the held jobs run once, after the window's list is painted."""
    built = MainWindow(sqlite_controller)
    qtbot.addWidget(built)
    built.persist_ui_state = False
    ran: list[str] = []
    built.when_usable(lambda: ran.append("warm-up"))
    assert built.workspace._changes_view is None and built.workspace_pane.tabs.count() == 1
    assert ran == []
    built.show()
    qtbot.waitUntil(lambda: ran == ["warm-up"], timeout=5000)
    assert built.workspace_pane.tabs.count() == 2
    qtbot.wait(50)
    assert ran == ["warm-up"]
    built.close()
