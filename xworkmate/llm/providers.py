"""Provider configuration and API-key lookup.

A ``ProviderConfig`` holds no secret (SPEC §7): it names an environment
variable and/or says the key lives in the OS keyring under service
``xworkmate`` and the provider's name. ``resolve_api_key`` reads it at call
time, so keys never enter the database, the logs or a ``repr``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Literal
from urllib.parse import urlsplit

import keyring
from pydantic import BaseModel, ConfigDict, field_validator

from xworkmate.domain.categories import normalize_tags, tags_allow
from xworkmate.domain.secrets import register_secret
from xworkmate.llm.errors import ApiKeyError

KEYRING_SERVICE = "xworkmate"

log = logging.getLogger(__name__)

ProviderKind = Literal["openai"]


class ProviderConfig(BaseModel):
    """One OpenAI-compatible endpoint and the model to use there (CAT-1: with its tags).

    ``base_url`` includes the API prefix, e.g. ``https://api.openai.com/v1`` or
    ``http://127.0.0.1:11434/v1`` for Ollama; requests go to
    ``{base_url}/chat/completions``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    name: str
    kind: ProviderKind = "openai"
    base_url: str
    model: str
    tags: frozenset[str] = frozenset()
    api_key_env: str | None = None
    api_key_keyring: bool = False
    is_default: bool = False
    # ATT-1: the model takes images as ``image_url`` content parts.
    vision: bool = False

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if not value:
            raise ValueError("name must not be empty")
        if any(ch.isspace() for ch in value) or "/" in value:
            raise ValueError(f"name {value!r} must not contain whitespace or '/'")
        return value

    @field_validator("model")
    @classmethod
    def _check_model(cls, value: str) -> str:
        if not value:
            raise ValueError("model must not be empty")
        return value

    @field_validator("base_url")
    @classmethod
    def _check_base_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https"):
            raise ValueError(f"base_url {value!r} must start with http:// or https://")
        if not parts.hostname:
            raise ValueError(f"base_url {value!r} has no host")
        if parts.query or parts.fragment:
            raise ValueError(f"base_url {value!r} must not carry a query or fragment")
        return value.rstrip("/")

    @field_validator("tags", mode="before")
    @classmethod
    def _normalise_tags(cls, value: object) -> frozenset[str]:
        # CAT-1: tags are compared with normalised categories, so normalise once here.
        if isinstance(value, str):
            value = value.split(",")
        if not isinstance(value, Iterable):
            raise ValueError("tags must be a list of category labels")
        labels = list(value)
        if not all(isinstance(label, str) for label in labels):
            raise ValueError("tags must be a list of category labels")
        return normalize_tags(frozenset(labels))

    @field_validator("api_key_env")
    @classmethod
    def _check_env_name(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if "=" in value or any(ch.isspace() for ch in value):
            raise ValueError(f"api_key_env {value!r} is not an environment variable name")
        return value

    def allows(self, content_category: str | None) -> bool:
        """CAT-2: normal content may use any provider; category content only a tagged one."""
        return tags_allow(self.tags, content_category)

    @property
    def chat_completions_url(self) -> str:
        return f"{self.base_url}/chat/completions"


def resolve_api_key(cfg: ProviderConfig) -> str | None:
    """Return the provider's API key, or ``None`` when it is configured without one.

    The environment variable named by ``api_key_env`` wins when it is set and
    non-empty; otherwise the OS keyring is read when ``api_key_keyring`` is on.
    A key that is configured but absent, or a keyring that cannot be used,
    raises ``ApiKeyError`` naming the provider.
    """
    if cfg.api_key_env:
        from_env = os.environ.get(cfg.api_key_env)
        if from_env:
            register_secret(from_env)  # SEC-1: the log file redacts it from now on
            return from_env
    if cfg.api_key_keyring:
        try:
            stored = keyring.get_password(KEYRING_SERVICE, cfg.name)
        except Exception as exc:  # KeyringError, or a backend's own type (D-Bus, Security framework…)
            raise ApiKeyError(_keyring_failure(cfg.name, exc), provider=cfg.name) from exc
        if stored:
            register_secret(stored)
            return stored
        where = f"environment variable {cfg.api_key_env} is not set and " if cfg.api_key_env else ""
        raise ApiKeyError(
            f"no API key for provider {cfg.name!r}: {where}the OS keyring has no entry "
            f"(service {KEYRING_SERVICE!r}, user {cfg.name!r})",
            provider=cfg.name,
        )
    if cfg.api_key_env:
        raise ApiKeyError(
            f"no API key for provider {cfg.name!r}: environment variable {cfg.api_key_env} is not set",
            provider=cfg.name,
        )
    return None


def store_api_key(provider_name: str, api_key: str) -> None:
    """Save a key in the OS keyring for ``provider_name`` (service ``xworkmate``)."""
    if not api_key:
        raise ApiKeyError(f"refusing to store an empty API key for provider {provider_name!r}")
    register_secret(api_key)  # SEC-1: redacted from every derived text from now on
    try:
        keyring.set_password(KEYRING_SERVICE, provider_name, api_key)
    except Exception as exc:  # see resolve_api_key: any backend failure becomes one clear error
        raise ApiKeyError(_keyring_failure(provider_name, exc), provider=provider_name) from exc


@contextmanager
def api_key_stored(provider_name: str, api_key: str) -> Iterator[None]:
    """Store the key for the block; when the block fails, give the keyring back what it held (ERR-2).

    Callers check everything they can before entering (SEC-1: a refused ``provider add`` must not
    overwrite or orphan a key); this covers what only the write itself can refuse, e.g. a name
    another process took in the meantime.
    """
    try:
        previous = keyring.get_password(KEYRING_SERVICE, provider_name)
    except Exception as exc:  # see resolve_api_key
        raise ApiKeyError(_keyring_failure(provider_name, exc), provider=provider_name) from exc
    store_api_key(provider_name, api_key)
    try:
        yield
    except BaseException:
        try:
            if previous is None:
                keyring.delete_password(KEYRING_SERVICE, provider_name)
            else:
                keyring.set_password(KEYRING_SERVICE, provider_name, previous)
        except Exception as exc:  # the original failure is the one to report; never log a key
            log.warning("could not restore the keyring entry of provider %s: %s", provider_name, type(exc).__name__)
        raise


def _keyring_failure(provider_name: str, exc: BaseException) -> str:
    return (
        f"cannot use the OS keyring for provider {provider_name!r}: {exc or type(exc).__name__}; "
        "install a keyring backend or use an environment variable (api_key_env) instead"
    )
