"""An ACP turn's tool cards: the agent's tool call reports become ``ToolStarted``/``ToolDone`` events, with the
call's text and, for an edit, its diff and changed path inside the working directory.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    ResourceContentBlock,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
)

from xworkmate.agents.acp.turn_state import _ToolState, _TurnState
from xworkmate.agents.confinement import (
    ToolError,
    display_path,
    resolve_inside,
)
from xworkmate.agents.events import (
    ToolDone,
    ToolStarted,
)
from xworkmate.agents.tools import ToolLimits, ToolResult
from xworkmate.domain.permissions import action_kind
from xworkmate.domain.tool_errors import ToolErrorKind
from xworkmate.domain.tools import ActionKind


class _ToolCards(_TurnState):
    """The part of ``_Turn`` that reports the agent's tool calls."""

    def _tool_update(self, update: ToolCallStart | ToolCallProgress) -> None:
        tool = self.tools.get(update.tool_call_id)
        if tool is None:
            tool = self.tools[update.tool_call_id] = _ToolState(id=update.tool_call_id)
        if tool.done:
            return  # refused or already finished: later reports add nothing
        tool.merge(update)
        if not tool.started:
            tool.started = True
            self.emit(ToolStarted(tool.to_call()))
        if tool.status in ("completed", "failed"):
            ok = tool.status == "completed"
            self._finish_tool(tool, ok=ok, error_kind=None if ok else ToolErrorKind.FAILED, content=None)

    def _finish_tool(self, tool: _ToolState, *, ok: bool, error_kind: str | None, content: str | None) -> None:
        tool.done = True
        diff, changed = self._diff(tool)
        result = ToolResult(
            ok=ok,
            content=content if content is not None else self._tool_text(tool),
            tool_name=tool.kind,
            error_kind=error_kind,
            changed_path=changed,
            diff=diff,
        )
        self.emit(ToolDone(tool.to_call(), result))

    def _tool_text(self, tool: _ToolState) -> str:
        parts: list[str] = []
        for item in tool.content:
            if isinstance(item, ContentToolCallContent):
                text = _content_text(item.content)
                if text:
                    parts.append(text)
            elif isinstance(item, TerminalToolCallContent):
                parts.append(self.terminals.card_text(item.terminal_id) or f"(terminal {item.terminal_id})")
        if not parts and tool.raw_output is not None:
            raw = tool.raw_output if isinstance(tool.raw_output, str) else json.dumps(tool.raw_output, default=str)
            parts.append(raw)
        text = "\n".join(parts) or f"{tool.title or tool.kind}: {tool.status}"
        limit = ToolLimits().read_max_chars
        return text if len(text) <= limit else text[:limit] + "\n[output truncated]\n"

    def _diff(self, tool: _ToolState) -> tuple[str | None, Path | None]:
        limits = ToolLimits()
        chunks: list[str] = []
        changed: Path | None = None
        for item in tool.content:
            if not isinstance(item, FileEditToolCallContent):
                continue
            inside = self._inside(item.path)
            if changed is None:
                changed = inside
            shown = display_path(self.working_directory, inside) if inside else item.path
            before = (item.old_text or "").splitlines(keepends=True)
            after = item.new_text.splitlines(keepends=True)
            source = f"a/{shown}" if item.old_text is not None else "/dev/null"
            chunks.append("".join(difflib.unified_diff(before, after, source, f"b/{shown}")))
        if changed is None and action_kind(tool.kind) is ActionKind.EDIT and tool.locations:
            changed = self._inside(tool.locations[0])
        text = "".join(chunks) or None
        if text is not None and len(text) > limits.diff_max_chars:
            text = text[: limits.diff_max_chars] + "\n[diff truncated]\n"
        return text, changed

    def _inside(self, path: str) -> Path | None:
        try:
            return resolve_inside(self.working_directory, path)
        except ToolError:
            return None


def _content_text(block: Any) -> str:
    if isinstance(block, TextContentBlock):
        return block.text
    if isinstance(block, ResourceContentBlock):
        return f"[{block.title or block.name}]({block.uri})"
    return ""
