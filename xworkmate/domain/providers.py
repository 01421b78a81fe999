"""A provider as the store keeps it: no secrets, only where to find them (SPEC §7)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class ProviderKind(StrEnum):
    OPENAI = "openai"
    ACP = "acp"


class ProviderRecord(BaseModel):
    """A configured provider. API keys live in the OS keyring or an environment variable, never here."""

    model_config = ConfigDict(frozen=True)

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
