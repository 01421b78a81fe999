"""A line's network allow-list as plain rules (SPEC SBX-4): what a ``host:port`` entry is.

One home for the form of an entry, used by the CLI, the window, the store and the proxy
(``agents.net_proxy``), which compares a connection's target with the list as given.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "HOST_PORT_FORM",
    "ToolConnections",
    "card_connections",
    "host_port",
    "is_loopback",
    "parse_host_port",
    "parse_host_ports",
    "url_host_port",
]

HOST_PORT_FORM = "HOST:PORT (for example api.openai.com:443, or [::1]:8080)"
_NAME = re.compile(r"^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?$")


def host_port(host: str, port: int) -> str:
    """The canonical entry for ``host`` and ``port``: lower case, IPv6 in brackets, no trailing dot."""
    host = host.strip().lower().rstrip(".")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_host_port(text: str) -> str:
    """One allow-list entry as the person wrote it, made canonical; ``ValueError`` in one line otherwise."""
    entry = text.strip()
    if entry.startswith("["):
        host, sep, port_text = entry[1:].partition("]:")
    else:
        host, sep, port_text = entry.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"{text!r} is not a network destination; write {HOST_PORT_FORM}")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if entry.startswith("[") or not _NAME.match(host.lower()):
            raise ValueError(f"{text!r} does not name a host; write {HOST_PORT_FORM}") from None
    return host_port(host, int(port_text))


def parse_host_ports(entries: Iterable[str]) -> tuple[str, ...]:
    """Several entries, canonical, each once, in the order given."""
    return tuple(dict.fromkeys(parse_host_port(entry) for entry in entries))


def is_loopback(entry: str) -> bool:
    """Whether an entry's host is this machine (``localhost``, 127/8, ::1): never on a default list (SBX-4)."""
    host = entry.rpartition(":")[0].strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_host_port(url: str) -> str | None:
    """The ``host:port`` an http(s) URL reaches (443/80 when it names no port), or None."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return host_port(parts.hostname, port or (443 if parts.scheme == "https" else 80))


# -- which tool call a connection belongs to (SBX-4, issue 29) ---------------------------------


@dataclass
class ToolConnections:
    """The one rule for attributing a connection the line's proxy reported to a tool call.

    A connection belongs to the tool call running when it was made: the most recent one started and
    not yet finished (a native turn runs one ``run_command`` at a time; an ACP agent's tool call in
    progress). With none running (an ACP agent's own model request) it belongs to no call, and only
    the line's notice tells of it. Each call keeps its connections, each destination and verdict
    once, for its card (stored in the tool message's payload under ``connections``).
    """

    _running: list[str] = field(default_factory=list)
    _seen: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def started(self, call_id: str) -> None:
        if call_id in self._running:
            self._running.remove(call_id)
        self._running.append(call_id)

    def connection(self, host: str, port: int, allowed: bool) -> str | None:
        """The id of the call this connection belongs to (recorded for its card), or None."""
        if not self._running:
            return None
        call_id = self._running[-1]
        entry = {"host": host, "port": port, "allowed": allowed}
        seen = self._seen.setdefault(call_id, [])
        if entry not in seen:
            seen.append(entry)
        return call_id

    def finished(self, call_id: str) -> list[dict[str, Any]]:
        """The call ended: what it connected to, in order (the card's ``connections`` payload)."""
        if call_id in self._running:
            self._running.remove(call_id)
        return self._seen.pop(call_id, [])


def card_connections(payload: dict[str, Any] | None) -> list[tuple[str, bool]]:
    """A stored tool message's connections as (``host:port``, allowed), in order; [] for none or a bad payload."""
    found: list[tuple[str, bool]] = []
    entries = (payload or {}).get("connections")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("port"), int) or not entry.get("host"):
            continue
        found.append((host_port(str(entry["host"]), int(entry["port"])), entry.get("allowed") is True))
    return found
