"""The person's configured provider keys, made known to the one redactor (SEC-1).

``domain.secrets.redact`` replaces the common key formats anywhere, and a key of any shape
once this process has read it (``register_secret``). Before a text is derived from messages
(an export, search results, ``messages`` output, the title and index entry of a new message)
every configured provider's key is read once, from the environment or the keyring, so a key of
an unusual shape that the person pasted is redacted too. A provider is read once per process.
"""

from __future__ import annotations

import contextlib
import os
import threading

from xworkmate.domain.secrets import register_secret
from xworkmate.store import Store

__all__ = ["register_provider_keys"]

_read: set[tuple[str, str | None, bool]] = set()  # (provider, its env variable's value, keyring?) already read
_lock = threading.Lock()


def register_provider_keys(store: Store) -> None:
    """SEC-1: make every configured provider's key known to the redactor (environment, keyring)."""
    from xworkmate.llm.providers import KEYRING_SERVICE

    for name, env, in_keyring in store.providers.key_sources():
        from_env = os.environ.get(env) if env else None
        signature = (name, from_env, in_keyring)
        with _lock:
            if signature in _read:
                continue
            _read.add(signature)
        register_secret(from_env)
        if in_keyring:
            with contextlib.suppress(Exception):  # no keyring here: nothing of it can be in the text either
                import keyring

                register_secret(keyring.get_password(KEYRING_SERVICE, name))
