"""``thread set --network off|allow-list|on --allow-host/--no-allow-host`` and ``provider --acp-allow-host``
(SBX-4), through the real CLI in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.test_cli import run_cli


def _ok(home: Path, *args: str) -> Any:
    done = run_cli(home, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_thread_set_chooses_allow_list_and_edits_the_list(tmp_path: Path) -> None:
    key = _ok(tmp_path, "thread", "new")["session_key"]
    assert (_ok(tmp_path, "thread", "show", key)["network"], _ok(tmp_path, "thread", "show", key)["allowed_hosts"]) == (
        "off",
        [],
    )
    shown = _ok(
        tmp_path, "thread", "set", key, "--network", "allow-list", "--allow-host", "API.example.com:443",
        "--allow-host", "127.0.0.1:8080",
    )  # fmt: skip
    assert (shown["network"], shown["allowed_hosts"]) == ("allow-list", ["api.example.com:443", "127.0.0.1:8080"])
    shown = _ok(tmp_path, "thread", "set", key, "--no-allow-host", "127.0.0.1:8080")
    assert shown["allowed_hosts"] == ["api.example.com:443"]
    shown = _ok(tmp_path, "thread", "set", key, "--no-allow-host", "--network", "on")
    assert (shown["network"], shown["allowed_hosts"]) == ("on", [])
    assert _ok(tmp_path, "thread", "show", key)["network"] == "on"


def test_a_malformed_allow_host_is_one_line_and_changes_nothing(tmp_path: Path) -> None:
    key = _ok(tmp_path, "thread", "new")["session_key"]
    _ok(tmp_path, "thread", "set", key, "--allow-host", "kept.example:443")
    done = run_cli(tmp_path, "thread", "set", key, "--allow-host", "no-port.example")
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.strip().count("\n") == 0 and "HOST:PORT" in done.stderr, done.stderr
    assert _ok(tmp_path, "thread", "show", key)["allowed_hosts"] == ["kept.example:443"]
    done = run_cli(tmp_path, "thread", "set", key, "--network", "some")
    assert done.returncode != 0 and "allow-list" in done.stderr


def test_an_acp_agents_allow_list_is_its_known_hosts_plus_the_named_ones(tmp_path: Path) -> None:
    added = _ok(
        tmp_path, "provider", "add", "oc", "--acp-command", "opencode acp", "--acp-allow-host", "127.0.0.1:9000"
    )
    known = ["opencode.ai:443", "models.opencode.ai:443", "models.dev:443"]
    assert added["acp_allow_hosts"] == [*known, "127.0.0.1:9000"]
    changed = _ok(tmp_path, "provider", "set", "oc", "--acp-allow-host", "none")
    assert changed["acp_allow_hosts"] == known  # loopback only when named
    done = run_cli(tmp_path, "provider", "set", "oc", "--acp-allow-host", "bad host:1")
    assert done.returncode != 0 and done.stderr.strip().count("\n") == 0 and "HOST:PORT" in done.stderr
    done = run_cli(
        tmp_path, "provider", "add", "m", "--base-url", "http://x/v1", "--model", "m", "--acp-allow-host", "a:1"
    )
    assert done.returncode != 0 and "--acp-allow-host is for an ACP agent" in done.stderr
