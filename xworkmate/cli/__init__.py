"""The command line (SPEC §8): the same controllers the window uses.

Every command prints human-readable text or, with ``--json``, JSON; a failure
is one line on stderr and a non-zero exit. Whatever came from a person, a model
or an agent is printed through ``terminal_text`` (issue 12 part 8): control and
bidi characters are shown as escapes, so rows never split or reorder.

One module per command family (``threads``, ``providers``, ``tasks``, ``agent``, ``checkpoints``,
``search``); ``common`` holds what they share, ``run`` the parser and ``main()`` (issue 19).
"""

from __future__ import annotations

from xworkmate.cli.common import (
    EXIT_DATABASE,
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_SYSTEM,
    EXIT_TERMINATED,
    CliError,
    Command,
)
from xworkmate.cli.run import build_parser, main, missing_gui_modules
from xworkmate.cli.threads import thread_json

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
