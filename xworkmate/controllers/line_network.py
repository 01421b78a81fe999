"""Which network a line's processes get (SPEC SBX-4): the line's setting, and an ACP agent's model hosts.

``agents.sandbox`` runs the rule and ``agents.net_proxy`` enforces the list; this module only knows
which hosts a known agent CLI talks to and how an agent's process relates to its line's setting.
"""

from __future__ import annotations

import os

from xworkmate.domain.network import is_loopback, url_host_port
from xworkmate.domain.providers import ProviderRecord
from xworkmate.domain.threads import NetworkAccess, TaskThread

__all__ = ["AGENT_MODEL_HOSTS", "agent_model_hosts", "agent_network"]

# SBX-4: the hosts a known agent CLI reaches its own model service at (by its executable's name). Never
# loopback: a local model server is named by the person (`provider set NAME --acp-allow-host HOST:PORT`).
# Qwen Code and OpenCode are read from the versions the tests pin (0.24.4: its OAuth at chat.qwen.ai, the
# token's model endpoint portal.qwen.ai, else DashScope; 1.18.33: Zen at opencode.ai, the model list at
# models.opencode.ai, formerly models.dev); the others from their vendors' documentation.
AGENT_MODEL_HOSTS: dict[str, tuple[str, ...]] = {
    "qwen": (
        "chat.qwen.ai:443",
        "portal.qwen.ai:443",
        "dashscope.aliyuncs.com:443",
        "dashscope-intl.aliyuncs.com:443",
    ),
    "gemini": ("generativelanguage.googleapis.com:443", "oauth2.googleapis.com:443"),
    "codex-acp": ("api.openai.com:443", "chatgpt.com:443", "auth.openai.com:443"),
    "claude-code-acp": ("api.anthropic.com:443",),
    "opencode": ("opencode.ai:443", "models.opencode.ai:443", "models.dev:443"),
    "goose": (),
}


def agent_model_hosts(record: ProviderRecord) -> tuple[str, ...]:
    """Every ``host:port`` an ACP agent's sandbox reaches: the known agent's model hosts, its base URL's
    host (not loopback) and the person's ``--acp-allow-host`` entries (loopback allowed: they named it)."""
    name = os.path.basename(record.acp_command[0]) if record.acp_command else ""
    hosts = list(AGENT_MODEL_HOSTS.get(name, ()))
    base = url_host_port(record.base_url) if record.base_url else None
    if base is not None and not is_loopback(base):
        hosts.append(base)
    return tuple(dict.fromkeys([*hosts, *record.acp_allow_hosts]))


def agent_network(thread: TaskThread) -> NetworkAccess:
    """An agent CLI needs its model: on a line that is ``on`` it shares the network; otherwise it gets the
    allow-list (the line's entries and its model hosts), never the whole network (issue 29 row 8)."""
    return NetworkAccess.ON if thread.context_state.network is NetworkAccess.ON else NetworkAccess.ALLOW_LIST
