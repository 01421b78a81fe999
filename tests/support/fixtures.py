"""Pytest fixtures for the test OpenAI server and the in-process CLI; import them into a ``conftest.py``.

from tests.support.fixtures import openai_server, openai_server_factory, xw  # noqa: F401
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from xworkmate.testing.openai_server import OpenAIServer


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


Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def xw(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    """``xworkmate ARGS`` in this process on the test's home; returns (exit code, stdout, stderr). The
    same ``main`` a real process runs: a parity check needs no process of its own (issue 33 item 5)."""
    import io

    from xworkmate import cli

    for name in [n for n in os.environ if n.startswith("XWORKMATE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("XWORKMATE_HOME", str(home))

    def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
        capsys.readouterr()
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = cli.main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run
