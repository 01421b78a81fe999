"""SBX-1 test helpers: a marker for tests that need bubblewrap, a PATH without it, answering approvals."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from xworkmate.agents.sandbox import detect_sandbox
from xworkmate.controllers import SessionController
from xworkmate.controllers.changes import ApprovalRequested

# Locally a machine without bubblewrap skips these, saying why; in CI (`.ci/run` installs it) they must run.
needs_bwrap = pytest.mark.skipif(
    not detect_sandbox().available and not os.environ.get("CI"),
    reason=f"bubblewrap cannot run here: {detect_sandbox().detail}",
)


def path_without_bwrap(tmp_path: Path, fake_bwrap: str | None = None) -> str:
    """A PATH with every tool of the system's but bwrap, or with a ``bwrap`` that fails saying ``fake_bwrap``."""
    bin_dir = tmp_path / "bin-no-bwrap"
    bin_dir.mkdir()
    for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            target = bin_dir / name
            if name != "bwrap" and not os.path.lexists(target):
                target.symlink_to(os.path.join(folder, name))
    if fake_bwrap is not None:
        script = bin_dir / "bwrap"
        script.write_text(f"#!/bin/sh\necho '{fake_bwrap}' >&2\nexit 1\n")
        script.chmod(0o755)
    return str(bin_dir)


def answer_approvals(controller: SessionController, allowed: bool) -> list[ApprovalRequested]:
    """Answer every approval the controller asks for, as a person at the window would; returns them."""
    asked: list[ApprovalRequested] = []

    def on_change(change: object) -> None:
        if isinstance(change, ApprovalRequested):
            asked.append(change)
            asyncio.get_running_loop().call_soon(controller.approvals.settle, change.approval_id, allowed)

    controller.subscribe(on_change)
    return asked


# SBX-4 (issue 29 row 8): shell probes for the team PostgreSQL on 127.0.0.1:5432, directly and through the
# line's proxy (curl told to use it even for loopback); each prints one word the tests look for.
PG_DIRECT_PROBE = "(exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null && echo PG-DIRECT-OPEN || echo PG-DIRECT-CLOSED"
PG_PROXIED_PROBE = (
    "curl -s -o /dev/null -w 'PG-PROXIED-%{http_code}' --noproxy '' -x \"$HTTPS_PROXY\" http://127.0.0.1:5432/"
)


def server_destination(base_url: str) -> str:
    """The ``host:port`` of a test server's base URL, as an allow-list names it (SBX-4)."""
    from xworkmate.domain.network import url_host_port

    found = url_host_port(base_url)
    assert found is not None, base_url
    return found


def non_loopback_address() -> str | None:
    """One of this machine's own non-loopback IPv4 addresses (a stand-in for a remote model host: inside a
    sandbox, only the proxy leads there), or None. A UDP ``connect`` sends nothing; it only picks a route."""
    import ipaddress
    import socket

    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return None if ipaddress.ip_address(address).is_loopback else address


def network_log(controller: SessionController, key: str) -> list[dict[str, object]]:
    """SBX-4: the line's network-log notices (host, port, allowed), oldest first (without the tool call
    each belongs to: ``network_calls``)."""
    return [
        {k: v for k, v in m.payload["network"].items() if k != "tool_call_id"}
        for m in controller.lines.messages(key)
        if m.payload and "network" in m.payload
    ]


def network_calls(controller: SessionController, key: str) -> list[tuple[str, object]]:
    """SBX-4: each network-log notice's ``host:port`` and the tool call id it names (None: no call ran)."""
    found: list[tuple[str, object]] = []
    for m in controller.lines.messages(key):
        network = (m.payload or {}).get("network")
        if isinstance(network, dict):
            found.append((f"{network['host']}:{network['port']}", network.get("tool_call_id")))
    return found
