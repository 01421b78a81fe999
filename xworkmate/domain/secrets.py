"""Which names hold secrets (SEC-1): one rule for the sandbox's environment and the log file."""

from __future__ import annotations

import re
import threading

__all__ = ["is_secret_name", "known_secrets", "register_secret"]

_MIN_SECRET = 8
_registered: set[str] = set()
_lock = threading.Lock()

_SECRET_NAME = re.compile(
    r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|AUTH|COOKIE|SESSION)", re.IGNORECASE
)


def is_secret_name(name: str) -> bool:
    """An environment variable (or setting) whose name says it holds a secret."""
    return bool(_SECRET_NAME.search(name))


def register_secret(value: str | None) -> None:
    """Remember a key this process read (keyring, environment), so no log line can carry it."""
    if value and len(value) >= _MIN_SECRET:
        with _lock:
            _registered.add(value)


def known_secrets() -> list[str]:
    """The keys registered so far, longest first (a key that contains another is replaced whole)."""
    with _lock:
        return sorted(_registered, key=len, reverse=True)
