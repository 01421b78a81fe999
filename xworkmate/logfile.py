"""The rotating log under the data folder, where tracebacks go (ERR-1) and no key ever does (SEC-1).

The person sees one line for a failure; the whole story goes to
``<data folder>/logs/xworkmate.log`` (1 MB, three old files kept). Every line is
redacted as it is written: values of environment variables whose names look
like secrets, keys registered at run time (``domain.secrets.register_secret``,
called where a key is read from the keyring or the environment) and key-shaped tokens
(``sk-…``, ``Bearer …``) are replaced, tracebacks included. Nothing here
imports Qt.
"""

from __future__ import annotations

import logging
import os
import re
from logging.handlers import RotatingFileHandler
from pathlib import Path

from xworkmate.domain.secrets import is_secret_name, known_secrets, register_secret

__all__ = ["LOG_FILE_NAME", "install_log_file", "log_file_path", "redact_secrets", "register_secret"]

LOG_FILE_NAME = "xworkmate.log"
MAX_BYTES = 1_000_000
BACKUPS = 3
REDACTED = "[redacted]"
_MIN_SECRET = 8

_KEY_SHAPES = re.compile(
    r"(sk-[A-Za-z0-9_\-]{8,}|(?i:bearer)\s+[A-Za-z0-9._~+/\-]{8,}=*|ghp_[A-Za-z0-9]{8,}|xox[abp]-[A-Za-z0-9\-]{8,})"
)


def redact_secrets(text: str) -> str:
    known = known_secrets()
    known += [v for k, v in os.environ.items() if is_secret_name(k) and len(v) >= _MIN_SECRET]
    for value in known:
        text = text.replace(value, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)


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
