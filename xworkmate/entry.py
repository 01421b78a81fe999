"""The ``xworkmate`` command's entry point: the console script, ``python -m xworkmate`` and the bundle.

It runs ``xworkmate.cli.main`` and keeps the cyclic garbage collector out of
the way at the two ends of the process (issue 7, start-up):

- While the libraries load. Importing SQLAlchemy, pydantic and PySide6 makes a
  few hundred thousand objects that live as long as the process; the collector
  would walk them again and again as they pile up (about 60 ms of a start).
  It is off while they load, and what they made is then frozen out of its reach.
- When the command is done. The store is closed by then; what is left goes to
  the operating system with the process, so the interpreter's last full
  collection would only delay the exit (120–250 ms after the window closed).

In between, collection runs as usual. Code that calls ``xworkmate.cli.main``
itself (the tests) keeps its collector as it is.

A command line that only starts the window (``xworkmate``, ``xworkmate gui``) goes
to ``cli/window`` instead, which paints the window before the libraries load and
loads them after its first paint the same way, collector off (issue 19, item 7).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence

from xworkmate.cli.exits import quiet_end, stdout_reader_gone
from xworkmate.cli.gui import gui_arguments
from xworkmate.cli.window import run_window_first


def main(argv: Sequence[str] | None = None) -> int:
    window = gui_arguments(sys.argv[1:] if argv is None else argv)
    if window is not None:
        try:
            return run_window_first(window)
        finally:
            gc.freeze()
    gc.disable()
    try:
        from xworkmate.cli import main as cli_main
    finally:
        gc.freeze()
        gc.enable()
    try:
        code = cli_main(argv)
    finally:
        gc.freeze()
    return quiet_end() if stdout_reader_gone() else code  # the reader left before our last flush
