"""Text the command line prints to a terminal (SPEC §8, ERR-1; issue 12 part 8).

Titles, messages, paths and error lines come from people, models and agents.
Printed raw, an escape sequence (``\\x1b[2J``) drives the terminal, a newline
or tab inside a title splits or shifts a ``thread list`` row, and a bidi
override (U+202E) makes a row read in another order than it is stored.
``escape_for_terminal`` is the one place that decides what reaches the
terminal; every human-readable line the CLI prints goes through it, and
``escape_document`` is its form for a whole document printed to stdout (an
export: SEC-1, a model's OSC 52 clipboard write, OSC 0 title or ``CSI 2J``
must not reach the terminal; ``-o FILE`` keeps the text as is).

``--json`` output needs no escaping here: ``json_text`` keeps ``ensure_ascii``,
so control and bidi characters (and all other non-ASCII text) appear as
``\\uXXXX`` and the output stays valid JSON that reads back unchanged.
"""

from __future__ import annotations

import json
import re

__all__ = [
    "UNSAFE_FOR_TERMINAL",
    "escape_document",
    "escape_for_terminal",
    "json_text",
    "plain_terminal_output",
    "shown",
]

_BIDI_CONTROLS = (
    0x061C,  # ARABIC LETTER MARK
    0x200E,  # LEFT-TO-RIGHT MARK
    0x200F,  # RIGHT-TO-LEFT MARK
    *range(0x202A, 0x202F),  # LRE, RLE, PDF, LRO, RLO
    *range(0x2066, 0x206A),  # LRI, RLI, FSI, PDI
)
# C0 (tab and newline included), DEL, C1 (NEL U+0085 included), the bidi
# controls, and the Unicode line and paragraph separators, which some
# terminals also break lines on.
UNSAFE_FOR_TERMINAL: frozenset[int] = frozenset(
    (*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI_CONTROLS, 0x2028, 0x2029)
)
_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _escape(code: int) -> str:
    if code in _NAMED:
        return _NAMED[code]
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


_ONE_LINE = {code: _escape(code) for code in UNSAFE_FOR_TERMINAL}
_KEEP_NEWLINES = {code: text for code, text in _ONE_LINE.items() if code != 0x0A}
_DOCUMENT = {code: text for code, text in _KEEP_NEWLINES.items() if code != 0x09}


def escape_for_terminal(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control and bidi character written as a visible escape (``\\x1b``, ``\\u202e``).

    By default the result is one line: ``\\n`` and ``\\t`` are escaped too, so
    a title or an error message can never split or shift a row.

    With ``keep_newlines`` (multi-line bodies: a message, a model's answer)
    ``\\n`` stays a line break and a ``\\r\\n`` line ending is printed as a
    plain line break; everything else is escaped as above, a lone ``\\r``
    included (it would move the cursor back and let text overwrite the line).

    Backslashes are left as they are, so ordinary text (a Windows path) prints
    unchanged; a title that literally contains ``\\x1b`` looks the same as one
    holding the escape character, which is harmless since neither reaches the
    terminal as a control.
    """
    if keep_newlines:
        return text.replace("\r\n", "\n").translate(_KEEP_NEWLINES)
    return text.translate(_ONE_LINE)


_SHOWN_MAX = 200


def shown(text: str, limit: int = _SHOWN_MAX) -> str:
    """A name or link target an agent chose, safe inside a one-line message wherever it is shown (a
    refusal in the window or the CLI): escaped as ``escape_for_terminal`` escapes it, and cut to
    ``limit`` characters, since the agent may have made it as long as it liked (SBX-3)."""
    line = escape_for_terminal(text)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def escape_document(text: str) -> str:
    """A document (an exported Markdown file) for stdout: as ``escape_for_terminal(keep_newlines=True)``,
    but a tab stays a tab, since a document's tabs are its content (a Makefile in a code block) and
    only move the cursor along the line (SEC-1)."""
    return text.replace("\r\n", "\n").translate(_DOCUMENT)


# CSI (``ESC [ … final``), OSC (``ESC ] … BEL`` or ``ESC \\``) and the two-character escapes (``ESC =``, ``ESC (B``).
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[()][0-9A-Za-z]|[@-Z\\-_=>])")


def plain_terminal_output(text: str) -> str:
    """What a program wrote to its terminal, as plain text for a text view (issue 32 item 4, a sign-in
    terminal): escape sequences (colours, cursor moves, OSC titles) removed, ``\\r\\n`` a line break, a
    backspace, a lone ``\\r`` and every other control or bidi character dropped; tabs and newlines kept."""
    text = _ANSI.sub("", text).replace("\r\n", "\n")
    return text.translate({code: None for code in UNSAFE_FOR_TERMINAL if code not in (0x09, 0x0A)})


def json_text(value: object, *, indent: int | None = 2) -> str:
    """``value`` as JSON with every non-ASCII character escaped, bidi and C1 controls included."""
    return json.dumps(value, indent=indent, ensure_ascii=True)
