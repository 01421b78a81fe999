"""A line taken away: the export's JSON shape and its Markdown (SPEC LOOP-3, CAT-4, SEC-1).

``LineExport`` is the JSON document (``xworkmate export KEY --format json``), validated by this
model wherever it is read back. ``render_markdown`` turns the same value into Markdown, so the
two formats never disagree. Secrets are scrubbed before either is made (the controller passes
every string through the log file's redaction rule), and a category line's export says so in
its header (CAT-4: the person exports it knowingly).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from xworkmate.domain.attachments import attachments_in, describe_size

EXPORT_KIND: Literal["xworkmate.line-export"] = "xworkmate.line-export"
EXPORT_VERSION: Literal[1] = 1


class ExportFormat(StrEnum):
    MARKDOWN = "md"
    JSON = "json"


class ExportedToolCall(BaseModel):
    """A tool call an assistant message made (OpenAI's shape: an id, a name, JSON arguments as text)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str | None = None
    name: str
    arguments: str = ""


class ExportedToolResult(BaseModel):
    """What a tool message answers and how it went; its output is the message's ``content``."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    tool_call_id: str | None = None
    name: str | None = None
    ok: bool | None = None
    error_kind: str | None = None
    summary: str | None = None
    changed_path: str | None = None
    diff: str | None = None


class ExportedAttachment(BaseModel):
    """ATT-1: a file the person attached: an image's bytes in base64, a text file's text."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    mime_type: str
    size: int
    data_base64: str | None = None
    text: str | None = None


class ExportedMessage(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    id: int
    role: str
    source: str
    state: str
    created_at: datetime
    content: str
    quarantined: bool = False
    """Q-1: withheld from the model; the person's export keeps it whole."""
    thought: bool = False
    provider: str | None = None
    model: str | None = None
    tool_calls: tuple[ExportedToolCall, ...] = ()
    tool_result: ExportedToolResult | None = None
    usage: dict[str, Any] | None = None
    """Token usage, when the message carries it (``payload["usage"]``)."""
    attachments: tuple[ExportedAttachment, ...] = ()


class ExportedSource(BaseModel):
    """PROV-1: one human message a task was dispatched on."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    message_id: int
    line_key: str
    created_at: datetime
    content: str


class ExportedLine(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    key: str
    title: str
    kind: str
    parent_key: str | None = None
    category: str | None = None
    archived: bool = False
    execution_mode: str
    provider: str | None = None
    model: str | None = None
    created_at: datetime
    updated_at: datetime
    dispatch_sources: tuple[ExportedSource, ...] = ()
    messages: tuple[ExportedMessage, ...] = ()


class LineExport(BaseModel):
    """The whole export: the line asked for and its tasks (parents before children)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["xworkmate.line-export"] = EXPORT_KIND
    version: Literal[1] = EXPORT_VERSION
    exported_at: datetime
    root_key: str
    categories: tuple[str, ...] = Field(
        default=(), description="every category in the file: the exported lines and their sources (CAT-4)"
    )
    lines: tuple[ExportedLine, ...]

    @property
    def root(self) -> ExportedLine:
        return self.lines[0]


def export_file_name(title: str, fmt: ExportFormat) -> str:
    """A file name for a line's export: its title, made safe on every OS, and the format's suffix."""
    stem = re.sub(r"[^\w\-]+", "-", title, flags=re.UNICODE).strip("-")[:60] or "line"
    return f"{stem}.{fmt.value}"


def message_from_stored(
    *,
    id: int,
    role: str,
    source: str,
    state: str,
    created_at: datetime,
    content: str,
    quarantined: bool,
    payload: dict[str, Any] | None,
) -> ExportedMessage:
    """One stored message as the export shows it: its payload's tool calls, tool result and usage."""
    payload = payload or {}
    calls = []
    for raw in payload.get("tool_calls") or []:
        function = (raw.get("function") or {}) if isinstance(raw, dict) else {}
        arguments = function.get("arguments", "")
        calls.append(
            ExportedToolCall(
                id=raw.get("id") if isinstance(raw, dict) else None,
                name=str(function.get("name") or "?"),
                arguments=arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False),
            )
        )
    result = None
    if "tool_call_id" in payload:
        result = ExportedToolResult(
            tool_call_id=payload.get("tool_call_id"),
            name=payload.get("name"),
            ok=payload.get("ok"),
            error_kind=payload.get("error_kind"),
            summary=payload.get("summary"),
            changed_path=payload.get("changed_path"),
            diff=payload.get("diff"),
        )
    usage = payload.get("usage")
    return ExportedMessage(
        id=id,
        role=role,
        source=source,
        state=state,
        created_at=created_at,
        content=content,
        quarantined=quarantined,
        thought=bool(payload.get("thought")),
        provider=payload.get("provider"),
        model=payload.get("model"),
        tool_calls=tuple(calls),
        tool_result=result,
        usage=usage if isinstance(usage, dict) else None,
        attachments=tuple(
            ExportedAttachment(name=a.name, mime_type=a.mime_type, size=a.size, data_base64=a.data_base64, text=a.text)
            for a in attachments_in(payload)
        ),
    )


def _redacted(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {_redacted(k, redact): _redacted(v, redact) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v, redact) for v in value]
    return value


def scrubbed(export: LineExport, redact: Callable[[str], str]) -> LineExport:
    """SEC-1: ``export`` with ``redact`` applied to every string in it (keys, titles, text, arguments…)."""
    return LineExport.model_validate(_redacted(export.model_dump(mode="json"), redact))


def scrubbed_message(message: ExportedMessage, redact: Callable[[str], str]) -> ExportedMessage:
    """SEC-1: one message as ``scrubbed`` leaves it (for an export written as it is read)."""
    return ExportedMessage.model_validate(_redacted(message.model_dump(mode="json"), redact))


# -- Markdown -------------------------------------------------------------------------------------

_SPEAKERS = {
    "human": "You",
    "agent": "Agent",
    "tool": "Tool",
    "framework_event": "Notice",
    "component_input": "Input",
    "quarantine": "Quarantined",
}


def _when(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _fence(text: str, info: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _code(text: str) -> str:
    tick = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{tick}{pad}{text}{pad}{tick}"


def _one_line(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _message_markdown(message: ExportedMessage) -> list[str]:
    speaker = _SPEAKERS.get(message.source, message.source)
    if message.tool_result is not None:
        speaker = f"Tool result: {message.tool_result.name or '?'}"
        if message.tool_result.ok is False:
            speaker += f" (failed{': ' + message.tool_result.error_kind if message.tool_result.error_kind else ''})"
    elif message.thought:
        speaker = "Agent (thinking)"
    notes = [f"#{message.id}", _when(message.created_at)]
    if message.state != "complete":
        notes.append(message.state)
    if message.model:
        notes.append(message.model)
    out = [f"### {speaker} · {' · '.join(notes)}", ""]
    if message.quarantined:
        out += ["> Quarantined: withheld from the model (Q-1); kept whole here.", ""]
    if message.tool_result is not None:
        if message.tool_result.summary:
            out += [_code(message.tool_result.summary), ""]
        out += [_fence(message.content, "text"), ""]
        if message.tool_result.diff:
            out += [_fence(message.tool_result.diff, "diff"), ""]
    elif message.content:
        out += [message.content, ""]
    for call in message.tool_calls:
        out += [f"- Tool call {_code(call.name)}: {_code(_one_line(call.arguments, 200))}"]
    if message.tool_calls:
        out.append("")
    for attachment in message.attachments:
        out.append(f"- Attached: {_code(attachment.name)} ({attachment.mime_type}, {describe_size(attachment.size)})")
    if message.attachments:
        out.append("")
    if message.usage:
        out += ["Usage: " + ", ".join(f"{k} {v}" for k, v in sorted(message.usage.items())), ""]
    return out


MessagesOf = Callable[["ExportedLine"], Iterable[ExportedMessage]]


def _line_markdown(line: ExportedLine, messages: Iterable[ExportedMessage]) -> Iterator[str]:
    facts = [f"`{line.key}`", line.kind]
    if line.parent_key:
        facts.append(f"dispatched from `{line.parent_key}`")
    if line.category:
        facts.append(f"category **{line.category}**")
    if line.archived:
        facts.append("archived")
    facts.append(line.execution_mode + (f" ({line.provider})" if line.provider else ""))
    yield from [f"## {line.title}", "", " · ".join(facts), ""]
    if line.dispatch_sources:
        yield from ["Dispatched on:", ""]
        yield from (f"- #{s.message_id} in `{s.line_key}`: {_one_line(s.content)}" for s in line.dispatch_sources)
        yield ""
    empty = True
    for message in messages:
        empty = False
        yield from _message_markdown(message)
    if empty:
        yield from ["(no messages)", ""]


def markdown_pieces(export: LineExport, messages: MessagesOf | None = None) -> Iterator[str]:
    """The Markdown file in pieces, in order (issue 34 item 2: written as it is read, never whole in
    memory). ``messages(line)``: that line's messages, read as they are written; by default the
    export's own."""
    root = export.root
    out = [f"# {root.title}", "", f"- Line: `{root.key}`"]
    if export.categories:
        names = ", ".join(f"**{c}**" for c in export.categories)
        out.append(f"- Category: {names} — this export carries category content (CAT-4)")
    out.append(f"- Exported: {_when(export.exported_at)}")
    tasks = len(export.lines) - 1
    out += [f"- Tasks: {tasks}" if tasks else "- Tasks: none", ""]
    lines = itertools.chain(out, *(_line_markdown(line, (messages or _own)(line)) for line in export.lines))
    # "\n".join of every line, the trailing empty ones dropped, then one "\n": blank lines wait for the next one.
    started, blanks = False, 0
    for text in lines:
        if text == "":
            blanks += 1
            continue
        yield ("\n" if started else "") + "\n" * blanks + text
        started, blanks = True, 0
    yield "\n"


# -- JSON, as it is read ---------------------------------------------------------------------------

_EMPTY_MESSAGES = '\n      "messages": []'  # an exported line's key at its depth in the document (indent 2)
_MESSAGE_INDENT = " " * 8


def json_pieces(export: LineExport, messages: MessagesOf) -> Iterator[str]:
    """The JSON file in pieces, in order: exactly ``export.model_dump_json(indent=2) + "\n"`` of the export
    with each line's ``messages(line)`` in it, without ever holding a line's messages whole (issue 34 item
    2). The document is dumped with no messages, and each line's are written where its empty list stood;
    a JSON string holds no raw newline, so that key at its indentation is found only where pydantic put it."""
    bare = export.model_copy(update={"lines": tuple(line.model_copy(update={"messages": ()}) for line in export.lines)})
    text = bare.model_dump_json(indent=2)
    start = 0
    for line in export.lines:
        at = text.index(_EMPTY_MESSAGES, start)
        yield text[start:at] + '\n      "messages": ['
        first = True
        for message in messages(line):
            body = message.model_dump_json(indent=2).replace("\n", "\n" + _MESSAGE_INDENT)
            yield ("\n" if first else ",\n") + _MESSAGE_INDENT + body
            first = False
        yield "]" if first else "\n      ]"
        start = at + len(_EMPTY_MESSAGES)
    yield text[start:] + "\n"


def _own(line: ExportedLine) -> Iterable[ExportedMessage]:
    return line.messages


def render_markdown(export: LineExport) -> str:
    """The export as Markdown: a header naming the line (and any category), then each line's conversation."""
    return "".join(markdown_pieces(export))
