"""Fixtures for dispatch: a real store (SQLite and PostgreSQL), a real router on the test OpenAI server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dispatch.support import real_router
from xworkmate.dispatch import DispatchService
from xworkmate.domain.keys import key_to_dir_name
from xworkmate.llm import ModelRouter
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer


@pytest.fixture
def router(openai_server: OpenAIServer) -> ModelRouter:
    return real_router(openai_server.base_url)


@pytest.fixture
def lines_root(tmp_path: Path) -> Path:
    root = tmp_path / "lines"
    root.mkdir()
    return root


@pytest.fixture
def service(store: Store, settings: Settings, router: ModelRouter) -> DispatchService:
    return DispatchService(store, router=router, workspace_for=lambda key: settings.threads_root / key_to_dir_name(key))
