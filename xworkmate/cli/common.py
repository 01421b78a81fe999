"""What every command shares: exit codes (ERR-1), the one-line error, settings, and the subcommand shape."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from xworkmate.cli.exits import (
    EXIT_DATABASE,
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_SYSTEM,
    EXIT_TERMINATED,
)
from xworkmate.domain.secrets import redact
from xworkmate.settings import Settings
from xworkmate.terminal_text import escape_for_terminal

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController

__all__ = [
    "EXIT_DATABASE",
    "EXIT_ERROR",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_SYSTEM",
    "EXIT_TERMINATED",
    "CliError",
    "Command",
    "add_command",
    "log",
]

log = logging.getLogger(__name__)

# The controllers load when a command runs, not when the parser is built (issue 33: `--version` stays light).
Command = Callable[[argparse.Namespace, "SessionController"], int]


class CliError(Exception):
    """A failure to report as one line, with the exit code of its kind (ERR-1: a refusal's 1 unless told)."""

    def __init__(self, message: str, code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.code = code


def _settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "settings"
        raise CliError(f"invalid setting XWORKMATE_{field.upper()}: {first['msg']}") from exc


def _body(text: str) -> str:
    """A message's body under its header, redacted (SEC-1): line breaks kept, later lines indented so none
    looks like a header."""
    return escape_for_terminal(redact(text), keep_newlines=True).replace("\n", "\n    ")


def add_command(parent: Any, name: str, func: Command, help_text: str) -> argparse.ArgumentParser:
    """One subcommand: its parser, the ``--json`` flag every command has, and the function it runs."""
    parser: argparse.ArgumentParser = parent.add_parser(name, help=help_text)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=func)
    return parser
