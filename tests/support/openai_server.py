"""Moved to :mod:`xworkmate.testing.openai_server` (issue 21); this path keeps old imports working."""

from xworkmate.testing.openai_server import *  # noqa: F403
from xworkmate.testing.openai_server import (
    CHAT_PATH,
    MODELS_PATH,
    RESPONSES_PATH,
    DropConnectionReply,
    ErrorReply,
    HangReply,
    OpenAIServer,
    RawStreamReply,
    RecordedRequest,
    Reply,
    ScriptedToolCall,
    TextReply,
    ToolCallReply,
    unused_base_url,
)

__all__ = [
    "CHAT_PATH",
    "MODELS_PATH",
    "RESPONSES_PATH",
    "DropConnectionReply",
    "ErrorReply",
    "HangReply",
    "OpenAIServer",
    "RawStreamReply",
    "RecordedRequest",
    "Reply",
    "ScriptedToolCall",
    "TextReply",
    "ToolCallReply",
    "unused_base_url",
]
