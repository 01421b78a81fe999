"""Exporting a line and its tasks to Markdown or JSON (SPEC LOOP-3, PROV-1, CAT-4, CAT-8, SEC-1).

The export reads as the person at the desktop (``DESKTOP``: every line, quarantined rows whole),
as the window does. Every string passes the log file's redaction rule first
(``logfile.redact_secrets``: keys this process has read, secret-named environment values, key
shapes; the environment read once per export, ``logfile.environment_redactor``), after the
configured providers' keys are registered, so a key a provider echoed into a message never
reaches the file (SEC-1).

A task's dispatch sources are read as the task itself reads them (CAT-8: a normal task's export
never carries its category dispatcher's words); ``categories`` names every category in the file,
the lines' and their sources', so whoever writes it asks first (CAT-4).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TextIO

from xworkmate.controllers.known_keys import register_provider_keys
from xworkmate.domain.export import (
    ExportedLine,
    ExportedMessage,
    ExportedSource,
    ExportFormat,
    LineExport,
    json_pieces,
    markdown_pieces,
    message_from_stored,
    render_markdown,
    scrubbed,
    scrubbed_message,
)
from xworkmate.domain.messages import Message
from xworkmate.domain.viewers import DESKTOP
from xworkmate.logfile import environment_redactor
from xworkmate.store import Store
from xworkmate.store.repositories import utcnow

__all__ = [
    "ExportWriteError",
    "build_export",
    "export_text",
    "register_provider_keys",
    "save_export",
    "write_export",
]

SourcesReader = Callable[[str], list[Message]]


class ExportWriteError(OSError):
    """The export could not be written; the message is one line naming the file (ERR-1)."""


def save_export(text: str, path: Path) -> Path:
    """Write an export's text to ``path`` (UTF-8); ``ExportWriteError`` in one line when it cannot be."""
    return _write_whole(path, lambda out: out.write(text))


def _write_whole(path: Path, write: Callable[[TextIO], object]) -> Path:
    """``write`` into a file beside ``path`` that takes its name once complete: nobody (a person opening
    it, another program watching the folder) sees half an export, and a failed write leaves what was at
    ``path`` before as it was (ERR-1)."""
    partial = path.with_name(f".{path.name}.partial")
    made = False
    try:
        with partial.open("w", encoding="utf-8") as out:
            made = True
            write(out)
        os.replace(partial, path)
        made = False
    except OSError as exc:
        raise ExportWriteError(f"cannot write {path}: {exc.strerror or exc}") from exc
    finally:
        if made:  # a write that failed, or a read under it that did: its half goes
            partial.unlink(missing_ok=True)
    return path


def build_export(
    store: Store, key: str, *, sources: SourcesReader, now: datetime | None = None, with_messages: bool = True
) -> LineExport:
    """``key`` and its subtree (parents before children), as the desktop reads them, scrubbed (SEC-1).

    ``sources(task_key)``: the task's dispatch sources as the task reads them (PROV-1, CAT-8).
    ``with_messages=False``: everything but the messages (what ``write_export`` reads them into as it
    writes: issue 34 item 2); ``categories`` is the same either way.
    """
    lines = []
    categories: dict[str, None] = {}  # CAT-4: every category in the file, in order of appearance
    for line_key in store.threads.subtree(key):
        thread = store.threads.get(line_key)
        if thread is None:
            continue  # gone between the two reads
        messages = store.messages.list_for_thread(line_key, viewer=DESKTOP) if with_messages else []
        held = sources(line_key) if thread.parent_key is not None else []
        for category in (thread.category, *_source_categories(store, held)):
            if category is not None:
                categories.setdefault(category)
        lines.append(
            ExportedLine(
                key=thread.thread_id,
                title=thread.title,
                kind=thread.kind.value,
                parent_key=thread.parent_key,
                category=thread.category,
                archived=thread.archived,
                execution_mode=thread.execution_binding.mode.value,
                provider=thread.execution_binding.provider,
                model=thread.execution_binding.model,
                created_at=thread.created_at,
                updated_at=thread.updated_at,
                dispatch_sources=tuple(
                    ExportedSource(message_id=m.id, line_key=m.thread_id, created_at=m.created_at, content=m.content)
                    for m in held
                ),
                messages=tuple(_exported(m) for m in messages),
            )
        )
    export = LineExport(exported_at=now or utcnow(), root_key=key, categories=tuple(categories), lines=tuple(lines))
    register_provider_keys(store)
    return scrubbed(export, environment_redactor())


def _exported(m: Message) -> ExportedMessage:
    return message_from_stored(
        id=m.id,
        role=m.role.value,
        source=m.source.value,
        state=m.state.value,
        created_at=m.created_at,
        content=m.content,
        quarantined=m.quarantined,
        payload=m.payload,
    )


def write_export(store: Store, export: LineExport, path: Path, fmt: ExportFormat) -> Path:
    """Write ``export`` to ``path``; when it was read ``with_messages=False`` its messages are read a page
    at a time and written as they come, scrubbed one by one (SEC-1): neither format holds the line whole
    (issue 34 item 2), and the file is the one built whole, byte for byte. ``ExportWriteError`` in one line."""
    unread = not any(line.messages for line in export.lines)  # read ``with_messages=False``
    if not unread:
        return save_export(export_text(export, fmt), path)
    register_provider_keys(store)
    redact = environment_redactor()

    def messages(line: ExportedLine) -> Iterator[ExportedMessage]:
        for message in store.messages.iter_for_thread(line.key, viewer=DESKTOP):
            yield scrubbed_message(_exported(message), redact)

    pieces = markdown_pieces if fmt is ExportFormat.MARKDOWN else json_pieces

    def write(out: TextIO) -> None:
        for piece in pieces(export, messages):
            out.write(piece)

    return _write_whole(path, write)


def _source_categories(store: Store, held: list[Message]) -> list[str | None]:
    """The categories of the lines a task's sources come from (CAT-4: declared like the lines')."""
    found = []
    for line_key in dict.fromkeys(m.thread_id for m in held):
        source_line = store.threads.get(line_key)
        found.append(source_line.category if source_line is not None else None)
    return found


def export_text(export: LineExport, fmt: ExportFormat) -> str:
    """The export as the file's text: Markdown, or JSON that ``LineExport`` reads back."""
    if fmt is ExportFormat.MARKDOWN:
        return render_markdown(export)
    return export.model_dump_json(indent=2) + "\n"
