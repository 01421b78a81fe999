"""The ``xwm_llm`` scripting layer: short verbs over the real OpenAI-compatible test server (issue 21).

``ScriptedLLM`` *is* an :class:`~xworkmate.testing.openai_server.OpenAIServer` (everything it offers
still works: ``script(...)``, ``chat_requests``, hanging and dropped replies); it adds one verb per
kind of reply. Each verb queues one reply; each chat request the app makes takes the next one::

    xwm_llm.reply("Done.")
    xwm_llm.stream(["Hel", "lo"], delay=0.05)
    xwm_llm.tool_call("write_file", path="a.txt", content="hi\\n", quote="create a.txt")
    xwm_llm.fail(500, {"error": {"message": "boom"}})
    assert [r.body["model"] for r in xwm_llm.chat_requests] == ["test-model"]

A request that finds nothing queued gets HTTP 418 (the app reports a refused request).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any, Self

from xworkmate.testing.openai_server import ErrorReply, OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply

DEFAULT_MODEL = "test-model"


class ScriptedLLM(OpenAIServer):
    """A real HTTP server on 127.0.0.1 with ``reply`` / ``stream`` / ``tool_call`` / ``fail``."""

    def __init__(self, *, models: Sequence[str] = (DEFAULT_MODEL,)) -> None:
        super().__init__(models=models)
        self._call_ids = itertools.count(1)

    def reply(self, text: str) -> Self:
        """The next answer is ``text``, in one piece."""
        self.script(TextReply([text]))
        return self

    def stream(self, chunks: Sequence[str], *, delay: float = 0.0) -> Self:
        """The next answer streams ``chunks``, waiting ``delay`` seconds before each one."""
        self.script(TextReply(list(chunks), delay=delay))
        return self

    def tool_call(self, name: str, /, **arguments: Any) -> Self:
        """The next answer asks for one tool call ``name(**arguments)`` (arguments as JSON)."""
        call = ScriptedToolCall(id=f"call-{next(self._call_ids)}", name=name, arguments=json.dumps(arguments))
        self.script(ToolCallReply([call]))
        return self

    def fail(self, status: int, body: Any = None) -> Self:
        """The next request gets HTTP ``status``; a dict ``body`` is sent as JSON, a string as text."""
        self.script(ErrorReply(status, body))
        return self

    @property
    def models_seen(self) -> list[str]:
        """The ``model`` of every chat request, in order (what a category test asserts on)."""
        return [str((r.body or {}).get("model")) for r in self.chat_requests]
