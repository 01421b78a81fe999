"""``xworkmate doctor``: the facts a person needs when something does not run (issue 12).

Each check is independent: a database that cannot be opened still leaves the
sandbox, keyring and agent facts to read. Nothing here imports Qt.
"""

from __future__ import annotations

import configparser
from dataclasses import dataclass
from pathlib import Path

from xworkmate.agents.sandbox import detect_sandbox
from xworkmate.agents.scope_exec import SCOPED_ABI, landlock_abi
from xworkmate.settings import Settings

__all__ = ["Fact", "abstract_sockets", "gather_facts", "plaintext_keyring_file"]

# keyrings.alt's PlaintextKeyring keeps every key, base64 only, in this file of the python_keyring folder.
_PLAINTEXT_FILE = "keyring_pass.cfg"


@dataclass(frozen=True)
class Fact:
    name: str
    ok: bool
    detail: str


def gather_facts(settings: Settings) -> list[Fact]:
    return [
        _sandbox(),
        abstract_sockets(),
        _database(settings),
        Fact("data folder", settings.home.is_dir(), str(settings.home)),
        _keyring(),
        _agents(),
    ]


def _sandbox() -> Fact:
    status = detect_sandbox()
    return Fact("sandbox", status.available, status.describe())


def abstract_sockets(abi: int | None = None) -> Fact:
    """SBX-4: whether a network-``on`` line's commands can reach the host's abstract Unix sockets."""
    abi = landlock_abi() if abi is None else abi
    if abi >= SCOPED_ABI:
        return Fact(
            "abstract sockets",
            True,
            f"with the network on, the host's abstract sockets (X11, D-Bus) are out of reach (Landlock ABI {abi})",
        )
    return Fact(
        "abstract sockets",
        False,
        f"with the network on, the host's abstract sockets (X11, D-Bus) are reachable on this kernel "
        f"(Landlock ABI {abi}, scoping needs {SCOPED_ABI}: Linux 6.12+); prefer allow-list",
    )


def _database(settings: Settings) -> Fact:
    from xworkmate.store import StoreOpenError, open_store

    try:
        store = open_store(settings.effective_database_url)
    except StoreOpenError as exc:
        return Fact("database", False, str(exc))
    try:
        return Fact("database", True, f"{store.description}, {store.threads.count()} lines")
    finally:
        store.close()


def _keyring() -> Fact:
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
    except Exception as exc:  # any backend failure is the fact to report
        return Fact("keyring", False, f"cannot load a keyring backend: {exc}")
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    plaintext = plaintext_keyring_file(backend)
    if plaintext is not None:
        return Fact(
            "keyring",
            False,
            f"{name}; {plaintext} holds keys in plain text, readable by any program you run: use a system"
            " keyring (Secret Service, KWallet), enter the keys again and delete that file",
        )
    if isinstance(backend, fail.Keyring):
        return Fact("keyring", False, f"{name}: no keyring; API keys can still come from environment variables")
    return Fact("keyring", True, name)


def plaintext_keyring_file(backend: object) -> Path | None:
    """SBX-3: the plain-text key file in use, or None: the backend is a plaintext file keyring
    (``keyrings.alt`` ``PlaintextKeyring``), or its file in the python_keyring folder holds keys."""
    from keyring.util import platform_

    path = Path(getattr(backend, "file_path", None) or platform_.data_root() / _PLAINTEXT_FILE)
    if type(backend).__name__ == "PlaintextKeyring":
        return path
    try:
        parser = configparser.RawConfigParser()
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error, UnicodeDecodeError):
        return None
    return path if any(parser.options(section) for section in parser.sections()) else None


def _agents() -> Fact:
    from xworkmate.agents.acp_discovery import KNOWN_AGENTS, discover_agents

    found = discover_agents()
    if not found:
        looked = ", ".join(agent.binary for agent in KNOWN_AGENTS)
        return Fact("agents", True, f"no agent CLI on PATH (looked for {looked})")
    return Fact(
        "agents", True, "; ".join(f"{a.name} {a.version or '(version unknown)'} at {a.command[0]}" for a in found)
    )
