"""A file's preview as the workspace pane shows it, read without Qt (issue 19, item 3), and a line too long
to lay out on the GUI thread, shown cut (the preview's and the diff's: issue 34; LOOP-1).

Qt lays a line of a plain-text view out whole, on the GUI thread, at each paint and each sideways scroll: a
minified bundle's one line of 1 MB took ~0.2 s to go into a view and ~0.13 s at every scroll step. The
preview and the diff (``ui/changes/diff_view``) show each line up to ``LONG_LINE_CHARS`` characters and
then how many more it has; what they were given stays whole where it is used (a patch's hunks, the file).
What a person approves is shown whole: an approval card folds a long line (``fold_lines``) instead.

Texts keep their catalogue context, ``WorkspacePane`` (the cut's note: ``LongLines``).
"""

from __future__ import annotations

import codecs
import stat
from dataclasses import dataclass
from pathlib import Path

from xworkmate.presentation.text import TranslationContext, english_plural, translate

__all__ = [
    "FOLD_MARK",
    "LONG_LINE_CHARS",
    "PREVIEW_LIMIT",
    "FilePreview",
    "LongLines",
    "cut_line",
    "cut_lines",
    "cut_note",
    "fold_lines",
    "has_long_line",
    "human_size",
    "read_preview",
    "shown_line",
]

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
    text = cut_lines(text)  # a minified file's one long line would freeze the view (issue 34)
    if truncated:
        return FilePreview(
            text,
            translate("WorkspacePane", "{name}: too large to show whole ({size}); the first {limit} shown").format(
                name=name, size=human_size(size), limit=human_size(limit)
            ),
        )
    return FilePreview(text, translate("WorkspacePane", "{name} — {size}").format(name=name, size=human_size(size)))


class LongLines(TranslationContext):
    """The catalogue context of the note after a cut line."""


LONG_LINE_CHARS = 1_000
"""Nine widths of a wide pane; a screenful of lines this long paints in under a frame."""


def cut_line(line: str) -> tuple[str, int]:
    """``line`` as a view shows it, and how many of its characters are not shown."""
    if len(line) <= LONG_LINE_CHARS:
        return line, 0
    return line[:LONG_LINE_CHARS], len(line) - LONG_LINE_CHARS


def cut_note(hidden: int) -> str:
    """What follows a cut line: " … 12345 more characters on this line, not shown"."""
    # english_plural: "1 more character" with no catalogue installed (a translated text has no "(s)")
    return " " + english_plural(LongLines.tr("… %n more character(s) on this line, not shown", "", hidden), hidden)


def shown_line(line: str) -> str:
    """``line`` as a view shows it: cut at ``LONG_LINE_CHARS`` and followed by its ``cut_note`` when longer."""
    kept, hidden = cut_line(line)
    return kept + cut_note(hidden) if hidden else kept


def has_long_line(text: str) -> bool:
    """Whether a line of ``text`` is longer than ``LONG_LINE_CHARS``."""
    return len(text) > LONG_LINE_CHARS and max(map(len, text.split("\n"))) > LONG_LINE_CHARS


def cut_lines(text: str) -> str:
    """``text`` with each line longer than ``LONG_LINE_CHARS`` cut and followed by its ``cut_note``."""
    if not has_long_line(text):
        return text
    return "\n".join(map(shown_line, text.split("\n")))


def line_cut_note(limit: int) -> str:
    """What ends a line cut as it streams in, its length not known yet: " … the rest of this line is not shown"."""
    return " " + english_plural(
        LongLines.tr("… the rest of this line (longer than %n character(s)) is not shown", "", limit), limit
    )


class LineCutter:
    """Text that comes in pieces (a program's output), each line cut at ``limit`` characters: what passes it is
    not shown, once followed by ``line_cut_note``. A view lays a line out whole at each change of it; the
    program decides how long its lines are (a megabyte on one line froze the window)."""

    def __init__(self, limit: int = LONG_LINE_CHARS) -> None:
        self.limit = limit
        self._column = 0  # characters of the current line shown so far
        self._cutting = False  # the current line passed ``limit``: the rest of it is dropped

    def feed(self, text: str) -> str:
        """What to show of ``text``, the next piece of the output."""
        shown: list[str] = []
        for n, line in enumerate(text.split("\n")):
            if n:
                shown.append("\n")
                self._column, self._cutting = 0, False
            if self._cutting or not line:
                continue
            room = self.limit - self._column
            if len(line) > room:
                shown.append(line[:room] + line_cut_note(self.limit))
                self._column, self._cutting = self.limit, True
            else:
                shown.append(line)
                self._column += len(line)
        return "".join(shown)


FOLD_MARK = "↪\u00a0"
"""What starts the rest of a folded line, on a line of its own (a no-break space: a view wrapping the rest
keeps the mark beside it)."""


def fold_lines(text: str) -> str:
    """``text`` with each line longer than ``LONG_LINE_CHARS`` folded: its next ``LONG_LINE_CHARS`` characters
    on a line of their own after ``FOLD_MARK``, and so on. All of it is shown; no line is laid out long."""
    if not has_long_line(text):
        return text
    folded: list[str] = []
    for line in text.split("\n"):
        pieces = [line[at : at + LONG_LINE_CHARS] for at in range(0, len(line), LONG_LINE_CHARS)] or [""]
        folded.append(pieces[0])
        folded.extend(FOLD_MARK + piece for piece in pieces[1:])
    return "\n".join(folded)
