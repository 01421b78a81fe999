"""A provider as the store keeps it: no secrets, only where to find them (SPEC §7).

The record validates itself (issue 19 item 3): the CLI, the Settings dialog and
discovery all build it through ``ProviderRecord.checked``, so they refuse the
same input with the same one line. Records read back from the database are not
re-validated (an old row must still list); what cannot be used fails when it is
used, as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from xworkmate.domain.categories import normalize_tags
from xworkmate.domain.network import parse_host_ports

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME = re.compile(r"^[^\s\x00-\x1f\x7f]{1,100}$")
_REF_SCHEMES = ("env", "keyring")
ENV_REF_FORM = "NAME=env:VAR or NAME=keyring:ENTRY (a reference, never the secret itself)"


class ProviderKind(StrEnum):
    OPENAI = "openai"
    ACP = "acp"


class InvalidProviderError(ValueError):
    """A provider that cannot be stored, in one line: ``provider 'x': field: what is wrong``."""

    def __init__(self, name: str, field: str, message: str) -> None:
        super().__init__(f"provider {name!r}: {field}: {message}")
        self.field = field


def parse_env_ref(item: str) -> tuple[str, str]:
    """One ``NAME=env:VAR`` / ``NAME=keyring:ENTRY`` item; the value is never echoed (it may be a secret)."""
    name, sep, ref = item.strip().partition("=")
    pair = (name, ref)
    problem = env_ref_problem(pair) if sep else f"{name or 'an entry'} must look like {ENV_REF_FORM}"
    if problem is not None:
        if not _ENV_NAME.match(name):  # neither the name nor the value is echoed: it may be the secret itself
            problem = f"an entry must look like {ENV_REF_FORM}"
        raise ValueError(problem)
    return pair


def env_ref_problem(pair: tuple[str, str]) -> str | None:
    name, ref = pair
    scheme, _, target = ref.partition(":")
    if not _ENV_NAME.match(name):
        return "the variable's name must be letters, digits and '_', not starting with a digit"
    if scheme not in _REF_SCHEMES or not target.strip() or target != target.strip():
        return f"{name} must look like {ENV_REF_FORM}"
    if scheme == "env" and not _ENV_NAME.match(target):
        return f"{name}: what follows env: does not name an environment variable (letters, digits and '_')"
    return None


class ProviderRecord(BaseModel):
    """A configured provider. API keys live in the OS keyring or an environment variable, never here."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    kind: ProviderKind = ProviderKind.OPENAI
    base_url: str | None = None
    model: str | None = None
    tags: tuple[str, ...] = ()
    api_key_env: str | None = None
    api_key_keyring: bool = False
    is_default: bool = False
    acp_command: tuple[str, ...] = ()
    acp_env_refs: tuple[tuple[str, str], ...] = ()
    # Folders the agent may write inside its sandbox (its own state); None: the defaults for a known agent.
    acp_state_dirs: tuple[str, ...] | None = None
    # Issue 15: the id of the agent's authMethods entry to sign in with; None: the only one, or ask.
    acp_auth_method: str | None = None
    # SBX-4: ``host:port`` entries the agent's sandbox reaches besides its known model hosts (loopback only here).
    acp_allow_hosts: tuple[str, ...] = ()
    # ATT-1 (migration 0018): the model takes images (OpenAI ``image_url`` content parts).
    vision: bool = False

    @classmethod
    def checked(cls, **fields: Any) -> Self:
        """Build and validate; a bad field is one ``InvalidProviderError`` line naming it."""
        try:
            return cls(**fields)
        except ValidationError as exc:
            error = exc.errors()[0]
            message = str(error["msg"]).removeprefix("Value error, ")
            if error["loc"]:
                field = str(error["loc"][0])
            else:  # a rule across fields says which field it is about first
                field, _, message = message.partition(": ")
            raise InvalidProviderError(str(fields.get("name", "")), field, message) from None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value:
            raise ValueError("the name must not be empty")
        if not _NAME.match(value):
            raise ValueError("the name must not contain spaces or control characters, and has at most 100 characters")
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(normalize_tags(value)))  # CAT-1: the same labels as categories

    @field_validator("api_key_env")
    @classmethod
    def _api_key_env(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise ValueError(f"{value!r} is not an environment variable's name")
        return value

    @field_validator("acp_env_refs")
    @classmethod
    def _env_refs(cls, value: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        for pair in value:
            problem = env_ref_problem(pair)
            if problem is not None:
                raise ValueError(problem)
        return value

    @field_validator("acp_allow_hosts")
    @classmethod
    def _allow_hosts(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return parse_host_ports(value)

    @field_validator("acp_auth_method")
    @classmethod
    def _auth_method(cls, value: str | None) -> str | None:
        # Issue 15: an id from the agent's authMethods; which ids it offers is known only once it runs.
        if value is not None and (not value.strip() or value != value.strip() or len(value) > 200):
            raise ValueError(f"{value!r} is not a sign-in method id")
        return value

    @model_validator(mode="after")
    def _kind_fields(self) -> Self:
        if self.kind is ProviderKind.ACP:
            if not self.acp_command or any(not part for part in self.acp_command):
                raise ValueError("acp_command: an ACP agent needs the command that starts it")
        elif self.acp_auth_method is not None:
            raise ValueError("acp_auth_method: it is not an ACP agent: it has no sign-in method to choose")
        elif self.acp_allow_hosts:
            raise ValueError("acp_allow_hosts: it is not an ACP agent: its requests do not go through a sandbox")
        elif self.acp_command or self.acp_env_refs:
            raise ValueError("acp_command: an OpenAI-compatible provider takes no ACP command or environment")
        return self


def offers_agent_provider(records: Iterable[ProviderRecord]) -> bool:
    """Whether the built-in agent has a model to talk to: an OpenAI-compatible provider among ``records``
    (an ACP agent brings its own)."""
    return any(record.kind is ProviderKind.OPENAI for record in records)
