"""A file's preview as the workspace pane shows it, read without Qt (issue 19, item 3).

Texts keep their catalogue context, ``WorkspacePane``.
"""

from __future__ import annotations

import codecs
import stat
from dataclasses import dataclass
from pathlib import Path

from xworkmate.presentation.text import translate

__all__ = ["PREVIEW_LIMIT", "FilePreview", "human_size", "read_preview"]

PREVIEW_LIMIT = 256 * 1024


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            if unit == "bytes":
                return translate("WorkspacePane", "{size} bytes").format(size=int(value))
            return f"{value:.1f} {unit}"
        value /= 1024
    return translate("WorkspacePane", "{size} bytes").format(size=size)  # pragma: no cover - the loop always returns


@dataclass(frozen=True)
class FilePreview:
    """What the preview shows: the text (possibly empty) and an honest note about it."""

    text: str
    note: str


def read_preview(path: Path, limit: int = PREVIEW_LIMIT) -> FilePreview:
    """Read at most ``limit`` bytes of a text file; say plainly when it is binary or too large."""
    name = path.name or str(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        return FilePreview("", translate("WorkspacePane", "{name}: this file no longer exists").format(name=name))
    except OSError as exc:
        return FilePreview(
            "",
            translate("WorkspacePane", "{name}: cannot read it ({error})").format(name=name, error=exc.strerror or exc),
        )
    if stat.S_ISDIR(info.st_mode):
        return FilePreview(
            "",
            translate("WorkspacePane", "{name}/ is a folder; select a file to preview it").format(name=name),
        )
    if not stat.S_ISREG(info.st_mode):
        # A FIFO or device would block or never end; never open one from the UI.
        return FilePreview(
            "",
            translate("WorkspacePane", "{name}: not a regular file; not previewed").format(name=name),
        )
    try:
        with path.open("rb") as handle:
            chunk = handle.read(limit)
    except OSError as exc:
        return FilePreview(
            "",
            translate("WorkspacePane", "{name}: cannot read it ({error})").format(name=name, error=exc.strerror or exc),
        )
    size = info.st_size
    if b"\x00" in chunk:
        return FilePreview(
            "",
            translate("WorkspacePane", "{name}: binary file ({size}); not previewed").format(
                name=name, size=human_size(size)
            ),
        )
    truncated = size > len(chunk)
    # When cut short, an incomplete UTF-8 sequence at the end is left out rather than garbled.
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text = decoder.decode(chunk, final=not truncated)
    if text.count("\ufffd") > max(8, len(text) // 100):
        return FilePreview(
            "",
            translate("WorkspacePane", "{name}: binary or not UTF-8 text ({size}); not previewed").format(
                name=name, size=human_size(size)
            ),
        )
    if truncated:
        return FilePreview(
            text,
            translate("WorkspacePane", "{name}: too large to show whole ({size}); the first {limit} shown").format(
                name=name, size=human_size(size), limit=human_size(limit)
            ),
        )
    return FilePreview(text, translate("WorkspacePane", "{name} — {size}").format(name=name, size=human_size(size)))
