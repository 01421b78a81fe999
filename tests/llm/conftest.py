"""Fixtures for the LLM layer tests (the lead may also import the server fixtures at the top level)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import keyring
import pytest
from keyring.backend import KeyringBackend

from tests.support.fixtures import openai_server, openai_server_factory
from tests.support.keyring_backend import MemoryKeyring
from xworkmate.llm import ModelRouter, OpenAIChatClient, ProviderConfig, RetryPolicy, Timeouts
from xworkmate.llm.openai_client import READ_GAP_S
from xworkmate.testing.openai_server import OpenAIServer

__all__ = ["openai_server", "openai_server_factory"]

FAST_RETRY = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.05, max_retry_after=2.0)
FAST_TIMEOUTS = Timeouts(connect=2.0, read=2.0, write=2.0, pool=2.0)

MakeProvider = Callable[..., ProviderConfig]
MakeClient = Callable[..., OpenAIChatClient]
MakeRouter = Callable[..., ModelRouter]


@pytest.fixture
def make_provider() -> MakeProvider:
    """Build a ``ProviderConfig`` pointing at a test server."""

    def make(
        server: OpenAIServer | str,
        name: str,
        tags: tuple[str, ...] = (),
        *,
        model: str = "test-model",
        is_default: bool = False,
        api_key_env: str | None = None,
    ) -> ProviderConfig:
        base_url = server if isinstance(server, str) else server.base_url
        return ProviderConfig(
            name=name,
            base_url=base_url,
            model=model,
            tags=frozenset(tags),
            is_default=is_default,
            api_key_env=api_key_env,
        )

    return make


@pytest.fixture
def make_client() -> MakeClient:
    """Build a client with fast retries and short timeouts; create it inside the coroutine."""

    def make(
        server: OpenAIServer | str,
        *,
        name: str = "local",
        model: str = "test-model",
        api_key: str | None = None,
        retry: RetryPolicy = FAST_RETRY,
        timeouts: Timeouts = FAST_TIMEOUTS,
        read_gap: float = READ_GAP_S,
    ) -> OpenAIChatClient:
        base_url = server if isinstance(server, str) else server.base_url
        return OpenAIChatClient(
            base_url=base_url,
            model=model,
            api_key=api_key,
            provider_name=name,
            retry=retry,
            timeouts=timeouts,
            read_gap=read_gap,
        )

    return make


@pytest.fixture
def make_router() -> MakeRouter:
    """Build a router with fast retries and short timeouts."""

    def make(providers: list[ProviderConfig], *, timeouts: Timeouts = FAST_TIMEOUTS) -> ModelRouter:
        return ModelRouter(providers, retry=FAST_RETRY, timeouts=timeouts)

    return make


class BrokenKeyring(MemoryKeyring):
    """A backend that fails the way a locked or absent D-Bus secret service does."""

    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError("secret service is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise RuntimeError("secret service is locked")


@pytest.fixture
def use_keyring() -> Iterator[Callable[[KeyringBackend], KeyringBackend]]:
    """Install a keyring backend for one test and restore the previous one afterwards."""
    previous = keyring.get_keyring()

    def install(backend: KeyringBackend) -> KeyringBackend:
        keyring.set_keyring(backend)
        return backend

    yield install
    keyring.set_keyring(previous)
