"""Agent CLIs found on PATH are offered with their versions; nothing is hard-coded (SPEC §5)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from xworkmate.agents.acp_discovery import DiscoveredAgent, discover_agents, parse_version


def _fake(bin_dir: Path, name: str, body: str, *, executable: bool = True) -> Path:
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755 if executable else 0o644)
    return path


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    path = tmp_path / "bin"
    path.mkdir()
    return path


def test_known_agents_on_path_are_found_with_their_versions(bin_dir: Path, tmp_path: Path) -> None:
    started = tmp_path / "started-acp"
    qwen = _fake(bin_dir, "qwen", f'[ "$1" = "--version" ] && echo "0.0.14" || touch {started}')
    gemini = _fake(bin_dir, "gemini", 'echo "gemini-cli v0.1.9 (build 2025-07-01)"')
    codex = _fake(bin_dir, "codex-acp", 'echo "codex-acp 0.3.0-beta.2"')
    goose = _fake(bin_dir, "goose", "sleep 30")  # never answers --version
    opencode = _fake(bin_dir, "opencode", "echo oops >&2; exit 1")
    _fake(bin_dir, "claude-code-acp", "echo 1.0.0", executable=False)  # not executable: not an agent

    begin = time.monotonic()
    found = discover_agents(str(bin_dir), timeout=1.0)
    elapsed = time.monotonic() - begin

    assert found == [
        DiscoveredAgent("qwen", (str(qwen), "--acp"), "0.0.14"),
        DiscoveredAgent("gemini", (str(gemini), "--experimental-acp"), "0.1.9"),
        DiscoveredAgent("codex", (str(codex),), "0.3.0-beta.2"),
        DiscoveredAgent("opencode", (str(opencode), "acp"), None),
        DiscoveredAgent("goose", (str(goose), "acp"), None),
    ]
    assert elapsed < 30, "a hanging --version must not hold discovery up (goose sleeps 30 s)"
    assert not started.exists(), "discovery only asks for versions; it never starts an agent"


def test_nothing_installed_means_nothing_offered(bin_dir: Path) -> None:
    assert discover_agents(str(bin_dir)) == []
    assert discover_agents("") == []


def test_a_version_command_that_leaves_a_process_behind_does_not_hang(bin_dir: Path) -> None:
    # The background sleep keeps stdout open: reading a pipe to its end would wait 30 s.
    left = bin_dir / "left.pid"
    _fake(bin_dir, "codex-acp", f"sleep 30 &\necho $! > {left}\necho 'codex-acp 1.2.3'")
    begin = time.monotonic()
    assert discover_agents(str(bin_dir), timeout=2.0) == [
        DiscoveredAgent("codex", (str(bin_dir / "codex-acp"),), "1.2.3")
    ]
    assert time.monotonic() - begin < 2.0
    # ...and what it left behind was stopped with it.
    pid = int(left.read_text())
    deadline = time.monotonic() + 2
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    try:
        state = stat.read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_default_path_is_ours(bin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(bin_dir, "goose", "echo 'goose 1.0.20'")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin:/bin")
    assert [(a.name, a.version) for a in discover_agents()] == [("goose", "1.0.20")]


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("0.0.14\n", "0.0.14"),
        ("qwen-code version 1.2\n", "1.2"),
        ("\n\nv2.0.1-rc.1 (abc)\n", "2.0.1-rc.1"),
        ("nightly build\n", "nightly build"),
        ("", None),
    ],
)
def test_parse_version(text: str, version: str | None) -> None:
    assert parse_version(text) == version
