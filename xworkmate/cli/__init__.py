"""The command line (SPEC §8): the same controllers the window uses.

Every command prints human-readable text or, with ``--json``, JSON; a failure
is one line on stderr and a non-zero exit. Whatever came from a person, a model
or an agent is printed through ``terminal_text`` (issue 12 part 8): control and
bidi characters are shown as escapes, so rows never split or reorder.

One module per command family (``threads``, ``providers``, ``tasks``, ``agent``, ``checkpoints``,
``search``); ``common`` holds what they share, ``run`` the parser and ``main()`` (issue 19), ``gui`` the
window's start, which paints before the stack loads (issue 19, item 7). So importing this package is
light: the names below load from their modules when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xworkmate.lazy import lazy_attributes

if TYPE_CHECKING:
    from xworkmate.cli.common import CliError, Command
    from xworkmate.cli.exits import (
        EXIT_DATABASE,
        EXIT_ERROR,
        EXIT_INTERNAL,
        EXIT_INTERRUPTED,
        EXIT_SYSTEM,
        EXIT_TERMINATED,
    )
    from xworkmate.cli.gui import missing_gui_modules
    from xworkmate.cli.run import build_parser, main
    from xworkmate.cli.threads import thread_json

_HOMES = {
    "EXIT_DATABASE": "exits",
    "EXIT_ERROR": "exits",
    "EXIT_INTERNAL": "exits",
    "EXIT_INTERRUPTED": "exits",
    "EXIT_SYSTEM": "exits",
    "EXIT_TERMINATED": "exits",
    "CliError": "common",
    "Command": "common",
    "build_parser": "run",
    "main": "run",
    "missing_gui_modules": "gui",
    "thread_json": "threads",
}

__all__ = [
    "EXIT_DATABASE",
    "EXIT_ERROR",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_SYSTEM",
    "EXIT_TERMINATED",
    "CliError",
    "Command",
    "build_parser",
    "main",
    "missing_gui_modules",
    "thread_json",
]

__getattr__ = lazy_attributes(__name__, _HOMES)
