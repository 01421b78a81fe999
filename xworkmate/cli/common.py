"""What every command shares: exit codes (ERR-1), the one-line error, settings, and the subcommand shape."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from xworkmate.controllers import SessionController
from xworkmate.settings import Settings
from xworkmate.terminal_text import escape_for_terminal

# Exit codes (ERR-1): each kind of failure its own, so scripts can tell them apart.
log = logging.getLogger(__name__)
# Tracebacks go to the log file only (ERR-1): without a file, nowhere — never Python's last-resort stderr.
logging.getLogger("xworkmate").addHandler(logging.NullHandler())

EXIT_ERROR = 1  # refused: bad input, unknown key, not runnable, a rule of the product
EXIT_DATABASE = 3  # the database failed (locked, read-only, full, unreachable)
EXIT_SYSTEM = 4  # the operating system failed (disk full, permission denied, no such file)
EXIT_INTERRUPTED = 130  # SIGINT (Ctrl+C): 128 + 2
EXIT_TERMINATED = 143  # SIGTERM: 128 + 15
EXIT_INTERNAL = 70  # a bug of ours (EX_SOFTWARE); the traceback is in the log file

Command = Callable[[argparse.Namespace, SessionController], int]


class CliError(Exception):
    """A failure to report as one line."""


def _settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "settings"
        raise CliError(f"invalid setting XWORKMATE_{field.upper()}: {first['msg']}") from exc


def _body(text: str) -> str:
    """A multi-line body under its header: line breaks kept, later lines indented so none looks like a header."""
    return escape_for_terminal(text, keep_newlines=True).replace("\n", "\n    ")


def add_command(parent: Any, name: str, func: Command, help_text: str) -> argparse.ArgumentParser:
    """One subcommand: its parser, the ``--json`` flag every command has, and the function it runs."""
    parser: argparse.ArgumentParser = parent.add_parser(name, help=help_text)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=func)
    return parser
