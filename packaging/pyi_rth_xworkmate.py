"""The frozen app's first code: a custom PyInstaller run-time hook, run before PyInstaller's own.

It gives the programs XWorkmate starts the person's library path (``restore_library_path``), then
serves ``xworkmate --net-bridge ...``: the bridge an allow-list sandbox starts before each command
(SPEC SBX-4; the bundle has no Python to run ``net_bridge.py`` with), and ``xworkmate --scope-exec ...``:
the launcher a network-``on`` sandbox starts before each command (``scope_exec``, SBX-4). Here both exec
the command before PyInstaller's hooks run; PySide6's loads QtCore, about 100 ms of CPU on every such start.
"""

import sys

from xworkmate_entry import restore_library_path

restore_library_path()

from xworkmate.agents.net_bridge import run_if_asked  # noqa: E402 - the library path first
from xworkmate.agents.scope_exec import run_if_asked as scope_if_asked  # noqa: E402

run_if_asked(sys.argv)
scope_if_asked(sys.argv)
