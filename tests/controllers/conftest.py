"""Controllers whose default provider is the scripted OpenAI-compatible test server."""

from __future__ import annotations

import pytest

from xworkmate.controllers import SessionController
from xworkmate.domain.providers import ProviderRecord
from xworkmate.llm import ModelRouter, ProviderConfig, RetryPolicy, Timeouts
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer

# No retries: a scripted reply is used once, so a retry would take the next test step's reply.
NO_RETRY = RetryPolicy(max_retries=0, base_delay=0.01, max_delay=0.02, max_retry_after=0.1)


def no_retry_router(providers: list[ProviderConfig]) -> ModelRouter:
    return ModelRouter(providers, retry=NO_RETRY, timeouts=Timeouts(connect=2.0, read=10.0, write=2.0, pool=2.0))


def scripted_controller(store: Store, settings: Settings, server: OpenAIServer) -> SessionController:
    controller = SessionController(store, settings, router_factory=no_retry_router)
    controller.providers.add_provider(
        ProviderRecord(name="local", base_url=server.base_url, model="test-model", is_default=True)
    )
    return controller


@pytest.fixture
def agent(store: Store, settings: Settings, openai_server: OpenAIServer) -> SessionController:
    """On SQLite and on PostgreSQL (the ``store`` fixture), default provider: the scripted server."""
    return scripted_controller(store, settings, openai_server)
