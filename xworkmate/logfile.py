"""The rotating log under the data folder, where tracebacks go (ERR-1) and no key ever does (SEC-1).

The person sees one line for a failure; the whole story goes to
``<data folder>/logs/xworkmate.log`` (1 MB, three old files kept). Every line is
redacted as it is written by the one redactor (``domain.secrets.redact``: keys
registered at run time, called where a key is read from the keyring or the
environment, and the common key formats), and here also the values of environment
variables whose names look like secrets; tracebacks included. Nothing here
imports Qt.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from logging.handlers import RotatingFileHandler
from pathlib import Path

from xworkmate.domain.secrets import REDACTED, is_secret_name, redact, register_secret

__all__ = [
    "LOG_FILE_NAME",
    "REDACTED",
    "environment_redactor",
    "install_log_file",
    "log_file_path",
    "redact_secrets",
    "register_secret",
]

LOG_FILE_NAME = "xworkmate.log"
MAX_BYTES = 1_000_000
BACKUPS = 3


def _secret_environment() -> list[str]:
    """The values of the environment variables whose names say they hold a secret."""
    return [value for name, value in os.environ.items() if is_secret_name(name)]


def redact_secrets(text: str) -> str:
    """SEC-1: a log line as ``redact`` makes it, secret-named environment variables' values included."""
    return redact(text, also=_secret_environment())


def environment_redactor() -> Callable[[str], str]:
    """``redact_secrets`` with the environment read once, for one piece of work over many texts (an
    export's every field: reading the environment per text cost more than the redaction, issue 33)."""
    values = _secret_environment()
    return lambda text: redact(text, also=values)


class _RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact_secrets(super().format(record))


class _QuietRotatingFileHandler(RotatingFileHandler):
    """A log that cannot be written (the disk is full, the folder read-only) stays quiet: the
    person already gets the one line; logging's own traceback on stderr would bury it (ERR-1)."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def log_file_path(home: str | os.PathLike[str]) -> Path:
    return Path(home) / "logs" / LOG_FILE_NAME


_current: list[tuple[Path, RotatingFileHandler]] = []  # one log file per process


def install_log_file(home: str | os.PathLike[str], *, level: int = logging.INFO) -> Path | None:
    """Send ``xworkmate.*`` logs (with tracebacks) to the rotating file; None when it cannot be written.

    A data folder that cannot hold a log (read-only, full) must not stop the app: the one-line
    errors still reach the person, only the details are lost. Installing another folder's log
    (a test, a second command in one process) replaces the previous one.
    """
    path = log_file_path(home)
    if _current and _current[0][0] == path:
        return path
    logger = logging.getLogger("xworkmate")
    while _current:
        _old_path, old = _current.pop()
        logger.removeHandler(old)
        old.close()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = _QuietRotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True)
    except OSError:
        return None
    handler.setFormatter(_RedactingFormatter("%(asctime)s %(levelname)s %(name)s [%(process)d]: %(message)s"))
    handler.setLevel(level)
    logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > level:
        logger.setLevel(level)
    _current.append((path, handler))
    return path
