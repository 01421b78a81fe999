"""The settings' operations: Settings → Providers, MCP servers and the window's remembered toggles (issue 33
item 2). Each factory returns a ``StoreOp`` whose work runs on the store worker; none touches a widget."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from PySide6.QtCore import QCoreApplication

from xworkmate.controllers import SessionController
from xworkmate.controllers.attention import AttentionTracker
from xworkmate.domain.agent_session import AgentInfo
from xworkmate.domain.mcp import McpServerRecord
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.ui_state import UiStateKey
from xworkmate.ui.ops import StoreOp

T = TypeVar("T")


@dataclass(frozen=True)
class ProviderTable:
    """The providers as Settings → Providers lists them, and what each ACP agent said of itself once it ran."""

    providers: list[ProviderRecord]
    agent_info: dict[str, AgentInfo]


@dataclass(frozen=True)
class ProviderSaved:
    """What ``save_provider`` did: the stored record, the providers now, and why the key was not kept."""

    saved: ProviderRecord
    table: ProviderTable
    key_problem: str = ""


def provider_table(controller: SessionController) -> ProviderTable:
    providers = controller.providers.records()
    info = {p.name: controller.agents.acp_agent_info(p.name) for p in providers if p.kind is ProviderKind.ACP}
    return ProviderTable(providers, {name: found for name, found in info.items() if found is not None})


def read_providers(controller: SessionController) -> StoreOp[ProviderTable]:
    return StoreOp(QCoreApplication.translate("StoreOp", "read the providers"), lambda: provider_table(controller))


def save_provider(
    controller: SessionController, record: ProviderRecord, *, replace: bool, api_key: str = ""
) -> StoreOp[ProviderSaved]:
    """Store the provider, then its typed API key in the OS keyring (never the database, SPEC §7)."""

    def work() -> ProviderSaved:
        saved = controller.providers.add_provider(record, replace=replace)
        problem = ""
        if api_key:
            try:
                saved = controller.providers.set_provider_api_key(saved.name, api_key)
            except Exception as exc:  # keyring backends raise their own types; say what happened
                problem = str(exc) or type(exc).__name__
        return ProviderSaved(saved, provider_table(controller), problem)

    return StoreOp(QCoreApplication.translate("StoreOp", "save the provider {name}").format(name=record.name), work)


def remove_provider(controller: SessionController, name: str) -> StoreOp[ProviderTable]:
    def work() -> ProviderTable:
        controller.providers.remove_provider(name)
        return provider_table(controller)

    return StoreOp(QCoreApplication.translate("StoreOp", "remove the provider {name}").format(name=name), work)


def read_mcp_servers(controller: SessionController) -> StoreOp[list[McpServerRecord]]:
    return StoreOp(QCoreApplication.translate("StoreOp", "read the MCP servers"), controller.agents.mcp_servers)


def add_mcp_server(controller: SessionController, record: McpServerRecord) -> StoreOp[list[McpServerRecord]]:
    def work() -> list[McpServerRecord]:
        controller.agents.add_mcp_server(record)
        return controller.agents.mcp_servers()

    return StoreOp(QCoreApplication.translate("StoreOp", "add the MCP server {name}").format(name=record.name), work)


def remove_mcp_server(controller: SessionController, name: str) -> StoreOp[list[McpServerRecord]]:
    def work() -> list[McpServerRecord]:
        controller.agents.remove_mcp_server(name)
        return controller.agents.mcp_servers()

    return StoreOp(QCoreApplication.translate("StoreOp", "remove the MCP server {name}").format(name=name), work)


def set_ui_state(controller: SessionController, key: UiStateKey[T], value: T) -> StoreOp[None]:
    """Remember one setting (a typed key, its one codec: issue 33 item 3)."""
    what = QCoreApplication.translate("StoreOp", "save the setting")
    return StoreOp(what, lambda: controller.lines.set_ui_state(key.name, key.encode(value)))


def save_ui_states(controller: SessionController, values: Mapping[str, Any]) -> StoreOp[None]:
    """Several settings in one write (the window's layout as it closes)."""
    what = QCoreApplication.translate("StoreOp", "save the window layout")
    return StoreOp(what, lambda: controller.lines.set_ui_states(dict(values)))


def mute_line(tracker: AttentionTracker, key: str, muted: bool) -> StoreOp[None]:
    """No desktop notifications from one line (LOOP-2); its badge still shows."""
    what = QCoreApplication.translate("StoreOp", "change the line's notifications")
    return StoreOp(what, lambda: tracker.set_muted(key, muted))
