"""Provider configuration, the category router (CAT-2) and the OpenAI-compatible client.

Imports only ``xworkmate.domain`` and third-party libraries; no Qt. Names are
re-exported lazily, so importing ``xworkmate.llm.errors`` does not load httpx.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "ApiKeyError": "xworkmate.llm.errors",
    "CategoryModelError": "xworkmate.llm.errors",
    "ChatCompletion": "xworkmate.llm.events",
    "ChatMessage": "xworkmate.llm.openai_client",
    "CompletionAccumulator": "xworkmate.llm.events",
    "Finished": "xworkmate.llm.events",
    "KEYRING_SERVICE": "xworkmate.llm.providers",
    "LLMError": "xworkmate.llm.errors",
    "MalformedResponseError": "xworkmate.llm.errors",
    "MalformedStreamError": "xworkmate.llm.errors",
    "ModelNotFoundError": "xworkmate.llm.errors",
    "ModelRouter": "xworkmate.llm.router",
    "NoProviderError": "xworkmate.llm.errors",
    "OpenAIChatClient": "xworkmate.llm.openai_client",
    "ProviderAuthError": "xworkmate.llm.errors",
    "ProviderConfig": "xworkmate.llm.providers",
    "ProviderFailover": "xworkmate.llm.events",
    "ProviderRef": "xworkmate.llm.router",
    "ProviderRequestError": "xworkmate.llm.errors",
    "ProviderSelected": "xworkmate.llm.events",
    "ProviderServerError": "xworkmate.llm.errors",
    "ProviderTimeoutError": "xworkmate.llm.errors",
    "ProviderUnreachableError": "xworkmate.llm.errors",
    "REDACTED_KEY": "xworkmate.llm.errors",
    "RateLimitedError": "xworkmate.llm.errors",
    "ReasoningDelta": "xworkmate.llm.events",
    "RetryPolicy": "xworkmate.llm.openai_client",
    "RouterEvent": "xworkmate.llm.events",
    "StreamEvent": "xworkmate.llm.events",
    "StreamInterruptedError": "xworkmate.llm.errors",
    "TextDelta": "xworkmate.llm.events",
    "Timeouts": "xworkmate.llm.openai_client",
    "ToolArgumentsError": "xworkmate.llm.errors",
    "ToolCall": "xworkmate.llm.events",
    "ToolCallDelta": "xworkmate.llm.events",
    "ToolCallReady": "xworkmate.llm.events",
    "ToolSpec": "xworkmate.llm.openai_client",
    "UnknownProviderError": "xworkmate.llm.errors",
    "Usage": "xworkmate.llm.events",
    "UsageReport": "xworkmate.llm.events",
    "collect_stream": "xworkmate.llm.events",
    "resolve_api_key": "xworkmate.llm.providers",
    "store_api_key": "xworkmate.llm.providers",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'xworkmate.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
