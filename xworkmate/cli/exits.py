"""The exit codes (ERR-1): each kind of failure its own, so scripts can tell them apart; and where
tracebacks go. Imports nothing of ours: ``xworkmate gui`` uses it before the stack loads (``cli/window``)."""

from __future__ import annotations

import logging
import os
import select
import sys

# Tracebacks go to the log file only (ERR-1): without a file, nowhere — never Python's last-resort stderr.
logging.getLogger("xworkmate").addHandler(logging.NullHandler())

EXIT_ERROR = 1  # refused: bad input, unknown key, not runnable, a rule of the product
EXIT_DATABASE = 3  # the database failed (locked, read-only, full, unreachable)
EXIT_SYSTEM = 4  # the operating system failed (disk full, permission denied, no such file)
EXIT_INTERRUPTED = 130  # SIGINT (Ctrl+C): 128 + 2
EXIT_TERMINATED = 143  # SIGTERM: 128 + 15
EXIT_INTERNAL = 70  # a bug of ours (EX_SOFTWARE); the traceback is in the log file
EXIT_READER_GONE = 141  # stdout's reader went away (``| head``): 128 + SIGPIPE, as the shell expects, quietly

_SIGNALS = {EXIT_INTERRUPTED: "SIGINT", EXIT_TERMINATED: "SIGTERM"}


def said_if_signalled(code: int) -> int:
    """``code``, the window's run's; when Ctrl+C or SIGTERM closed the window (``ui/start.CloseOnSignals``),
    said first in one line on stderr, as any command's interrupted end is (ERR-1)."""
    if code in _SIGNALS:
        print(f"xworkmate: error: interrupted by {_SIGNALS[code]}; the window was closed", file=sys.stderr)
    return code


def stdout_reader_gone(exc: BaseException | None = None) -> bool:
    """``exc`` (or, without one, a flush of stdout) shows that whoever read our stdout closed it (``| head``
    has what it wanted): not a failure to report. Another pipe breaking (an agent's) is one."""
    if exc is None:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            pass
        except (OSError, ValueError):
            return False
        else:
            return False
    elif not isinstance(exc, BrokenPipeError):
        return False
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def quiet_end() -> int:
    """After ``stdout_reader_gone``: nothing more is written (Python's own last flush would fail loudly),
    and the exit code says the pipe closed."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_READER_GONE
