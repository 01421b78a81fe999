"""Pytest fixtures for the test OpenAI server; import them into a ``conftest.py``.

from tests.support.fixtures import openai_server, openai_server_factory  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.support.openai_server import OpenAIServer


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A running ``OpenAIServer``, stopped after the test."""
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def openai_server_factory() -> Iterator[Callable[[], OpenAIServer]]:
    """Start as many extra servers as a test needs (e.g. one per provider); all are stopped after it."""
    servers: list[OpenAIServer] = []

    def start() -> OpenAIServer:
        server = OpenAIServer().start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
