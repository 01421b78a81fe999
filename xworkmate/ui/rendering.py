"""What a conversation row looks like: Markdown documents, code highlighting and tool cards (SPEC §6).

Nothing here is a widget. ``ToolCard`` is plain data built from a tool
message's payload; ``build_body`` turns a row into the body the message
delegate paints (and measures) at a given width: a ``QTextLayout`` for plain
text, a ``QTextDocument`` (``build_document``) for everything else.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QPointF, QRectF, QRegularExpression
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QFont,
    QPainter,
    QPalette,
    QSyntaxHighlighter,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextLayout,
    QTextOption,
)

from xworkmate.domain.permissions import DISPATCH_TOOL_NAMES, ActionKind, action_kind
from xworkmate.domain.stored_text import NUL_REPLACED_NOTE, nul_replaced
from xworkmate.ui import markdown_style, theme
from xworkmate.ui.wording import plain_words

BodyFormat = Literal["markdown", "plain", "tool", "thought", "plan"]

# A collapsed card shows this many lines of output; an expanded one at most EXPANDED_LINES.
COLLAPSED_LINES = 6
EXPANDED_LINES = 400


_READ_VERBS = {
    "read_file": QT_TRANSLATE_NOOP("RenderingText", "Read {where}"),
    "list_dir": QT_TRANSLATE_NOOP("RenderingText", "Listed {where}"),
    "search_files": QT_TRANSLATE_NOOP("RenderingText", "Searched for {where}"),
}
"""Title templates (English); shown through ``QCoreApplication.translate("RenderingText", …)``."""
_ERROR_TITLES = {
    "write_refused": QT_TRANSLATE_NOOP("RenderingText", "Write refused"),
    "not_approved": QT_TRANSLATE_NOOP("RenderingText", "Not approved"),
    "path_escape": QT_TRANSLATE_NOOP("RenderingText", "Refused: outside the folder"),
    "cancelled": QT_TRANSLATE_NOOP("RenderingText", "Stopped"),
    "timeout": QT_TRANSLATE_NOOP("RenderingText", "Timed out"),
    "invalid_arguments": QT_TRANSLATE_NOOP("RenderingText", "Invalid arguments"),
    "unknown_tool": QT_TRANSLATE_NOOP("RenderingText", "Unknown tool"),
    "agent_failed": QT_TRANSLATE_NOOP("RenderingText", "The agent stopped"),
    "unfinished": QT_TRANSLATE_NOOP("RenderingText", "Unfinished"),
}
_FAILED = QT_TRANSLATE_NOOP("RenderingText", "Failed")
"""Titles (English) by error kind; shown through ``QCoreApplication.translate("RenderingText", …)``."""


class RenderingText(QObject):
    """The translation context of this module's texts; ``RenderingText.tr`` counts with ``%n``."""


# -- tool cards ----------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCard:
    """A tool call as a compact card: a title line, a status, and a body that may be folded.

    ``body_kind`` says what the body is: ``output`` (a command's output or
    what was read), ``diff`` (a write's unified diff, folded by default) or
    ``reason`` (why a call was refused; always shown). ``remark`` is a line
    always shown under the title (ERR-3: that NUL bytes were replaced).
    """

    tool: str
    title: str
    status: str
    ok: bool
    body_kind: Literal["output", "diff", "reason", "none"]
    body: str
    remark: str = ""

    @property
    def body_lines(self) -> list[str]:
        return self.body.splitlines() if self.body else []

    @property
    def expandable(self) -> bool:
        if self.body_kind == "reason":
            return len(self.body_lines) > EXPANDED_LINES
        if self.body_kind == "diff":
            return bool(self.body_lines)
        return len(self.body_lines) > COLLAPSED_LINES

    def shown_lines(self, expanded: bool) -> tuple[list[str], str]:
        """The body lines on screen and the note under them (what is hidden, how to see it)."""
        lines = self.body_lines
        if self.body_kind == "diff" and not expanded:
            added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
            removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
            shown = QCoreApplication.translate("RenderingText", "diff +{added} −{removed} — click to show")
            return [], shown.format(added=added, removed=removed) if lines else ""
        limit = EXPANDED_LINES if expanded or self.body_kind == "reason" else COLLAPSED_LINES
        if len(lines) <= limit:
            return lines, (
                QCoreApplication.translate("RenderingText", "click to collapse") if expanded and self.expandable else ""
            )
        hidden = len(lines) - limit
        if expanded:
            return lines[:limit], RenderingText.tr("… %n more line(s) not shown here", "", hidden)
        return lines[:limit], RenderingText.tr("… %n more line(s) — click to expand", "", hidden)

    def plain_text(self, expanded: bool = False) -> str:
        lines, note = self.shown_lines(expanded)
        head = f"{self.title} — {self.status}" if self.status else self.title
        return "\n".join([head, *([self.remark] if self.remark else []), *lines, *([note] if note else [])])


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


_EXIT_LINE = re.compile(r"^\[exit code (?P<code>-?\d+|None) after (?P<secs>[\d.]+) s\]$")


def tool_card(payload: dict[str, Any] | None, content: str, *, failed: bool = False) -> ToolCard:
    """The card for a stored tool message (payload written by the controller's turn runner)."""
    card = _stored_card(payload or {}, content, failed=failed)
    # ERR-3: the card says when the stored output had NUL bytes replaced.
    return replace(card, remark=plain_words(NUL_REPLACED_NOTE)) if nul_replaced(payload) else card


def _stored_card(data: dict[str, Any], content: str, *, failed: bool) -> ToolCard:
    name = str(data.get("name") or "tool")
    args = _arguments(data.get("arguments"))
    summary = plain_words(str(data.get("summary") or name))
    ok = bool(data.get("ok", not failed))
    error_kind = data.get("error_kind")
    if data.get("mode") == "acp":
        return _acp_card(name, summary, content, ok=ok, error_kind=error_kind, diff=str(data.get("diff") or ""))
    if not ok:
        label = QCoreApplication.translate("RenderingText", _ERROR_TITLES.get(str(error_kind), _FAILED))
        subject = f"$ {args.get('command', '')}" if name == "run_command" else summary
        if name == "run_command" and error_kind is None:
            # The command ran and exited non-zero: its output is the interesting part.
            return _command_card(name, args, content, ok=False)
        title = QCoreApplication.translate("RenderingText", "{label}: {subject}").format(label=label, subject=subject)
        status = str(error_kind or QCoreApplication.translate("RenderingText", "error"))
        return ToolCard(name, title, status, False, "reason", plain_words(content))
    if name == "run_command":
        return _command_card(name, args, content, ok=True)
    if action_kind(name) is ActionKind.EDIT:
        path = str(data.get("changed_path") or args.get("path") or "?")
        verb = (
            QCoreApplication.translate("RenderingText", "Wrote {path}")
            if name == "write_file"
            else QCoreApplication.translate("RenderingText", "Edited {path}")
        )
        diff = str(data.get("diff") or "")
        first = plain_words(content.splitlines()[0]) if content else ""
        status = first or QCoreApplication.translate("RenderingText", "ok")
        return ToolCard(name, verb.format(path=args.get("path", path)), status, True, "diff" if diff else "none", diff)
    if name in _READ_VERBS:
        where = args.get("pattern") if name == "search_files" else args.get("path", ".")
        title = QCoreApplication.translate("RenderingText", _READ_VERBS[name]).format(
            where=repr(where) if name == "search_files" else where
        )
        count = len(content.splitlines())
        lines = RenderingText.tr("%n line(s)", "", count)
        return ToolCard(name, title, lines, True, "output", content)
    if name in DISPATCH_TOOL_NAMES:  # the product's own words (the CAT-9 reminder): shown in the person's language
        content = plain_words(content)
    return ToolCard(name, summary, QCoreApplication.translate("RenderingText", "ok"), True, "output", content)


def _acp_card(kind: str, summary: str, content: str, *, ok: bool, error_kind: Any, diff: str) -> ToolCard:
    """An ACP agent's tool call: its own title, its diff (folded) or output, or why it was refused."""
    if not ok:
        label = QCoreApplication.translate("RenderingText", _ERROR_TITLES.get(str(error_kind), _FAILED))
        title = QCoreApplication.translate("RenderingText", "{label}: {subject}").format(label=label, subject=summary)
        status = str(error_kind or QCoreApplication.translate("RenderingText", "failed"))
        return ToolCard(kind, title, status, False, "reason", plain_words(content))
    status = (
        QCoreApplication.translate("RenderingText", "ok · {kind}").format(kind=kind)
        if kind not in ("other", "tool")
        else QCoreApplication.translate("RenderingText", "ok")
    )
    if diff:
        return ToolCard(kind, summary, status, True, "diff", diff)
    return ToolCard(kind, summary, status, True, "output", content)


def _command_card(name: str, args: dict[str, Any], content: str, *, ok: bool) -> ToolCard:
    lines = content.splitlines()
    status = (
        QCoreApplication.translate("RenderingText", "ok")
        if ok
        else QCoreApplication.translate("RenderingText", "failed")
    )
    if lines and (match := _EXIT_LINE.match(lines[0])):
        status = QCoreApplication.translate("RenderingText", "exit {code} · {seconds} s").format(
            code=match["code"], seconds=f"{float(match['secs']):.1f}"
        )
        lines = lines[1:]
    return ToolCard(name, f"$ {args.get('command', '')}", status, ok, "output", "\n".join(lines))


def running_card(summary: str) -> ToolCard:
    """The card line for a tool the current turn is running right now (``ToolRunning``)."""
    title = QCoreApplication.translate("RenderingText", "running {summary} …").format(summary=plain_words(summary))
    return ToolCard("running", title, "", True, "none", "")


def tool_calls_line(tool_calls: Any) -> str:
    """An assistant message that only calls tools reads as one short line."""
    names: list[str] = []
    for call in tool_calls if isinstance(tool_calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and function.get("name"):
            names.append(str(function["name"]))
    if not names:
        return ""
    return QCoreApplication.translate("RenderingText", "→ calls {names}").format(names=", ".join(names))


def card_html(card: ToolCard, expanded: bool) -> str:
    """Rich text for a card: a bold title with a coloured status, then monospace body lines."""
    colours = theme.current()
    colour = colours.hex("ok-text" if card.ok else "danger-text")
    mark = "✓" if card.ok else "✗"
    if card.tool == "running":
        mark, colour = "⏳", colours.hex("info-text")
    status = f' <span style="color:{colour}">{html.escape(card.status)}</span>' if card.status else ""
    title = f'<span style="color:{colour}">{mark}</span> <b>{html.escape(card.title)}</b>{status}'
    parts = [f'<p style="margin:0">{title}</p>']
    if card.remark:
        parts.append(f'<p style="margin:2px 0 0 0"><i>{html.escape(card.remark)}</i></p>')
    lines, note = card.shown_lines(expanded)
    if lines:
        rendered = [_diff_line(line) if card.body_kind == "diff" else html.escape(line) for line in lines]
        parts.append(
            '<pre style="margin-top:3px; margin-bottom:0; white-space:pre-wrap">' + "\n".join(rendered) + "</pre>"
        )
    if note:
        parts.append(f'<p style="margin:2px 0 0 0"><i>{html.escape(note)}</i></p>')
    return "".join(parts)


def _diff_line(line: str) -> str:
    escaped = html.escape(line)
    colours = theme.current()
    if line.startswith("@@"):
        return f'<span style="color:{colours.hex("diff-hunk-text")}">{escaped}</span>'
    if line.startswith("+") and not line.startswith("+++"):
        return f'<span style="color:{colours.hex("diff-added-text")}">{escaped}</span>'
    if line.startswith("-") and not line.startswith("---"):
        return f'<span style="color:{colours.hex("diff-removed-text")}">{escaped}</span>'
    return escaped


# -- an ACP agent's thoughts and plans ------------------------------------------------

PLAN_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
_PLAN_COLOURS = {"☑": "ok-text", "◐": "info-text", "☐": "muted-text"}


def plan_text(entries: Any) -> str:
    """A plan update (``[[text, status], …]``) as checklist lines: ``☑ done``, ``◐ doing``, ``☐ to do``."""
    lines: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, (list, tuple)) and len(entry) >= 2:
            text, status = str(entry[0]), str(entry[1])
        else:
            text, status = str(entry), "pending"
        lines.append(f"{PLAN_MARKS.get(status, PLAN_MARKS['pending'])} {text}")
    return "\n".join(lines) or QCoreApplication.translate("RenderingText", "(an empty plan)")


def plan_html(text: str) -> str:
    """The checklist as rich text: done steps struck through, the current one in bold."""
    rows: list[str] = []
    colours = theme.current()
    for line in text.splitlines():
        mark, _, rest = line.partition(" ")
        token = _PLAN_COLOURS.get(mark)
        if token is None:
            rows.append(html.escape(line))
            continue
        colour = colours.hex(token)
        body = html.escape(rest)
        if mark == "☑":
            body = f'<span style="color:{colours.hex("muted-text")}; text-decoration:line-through">{body}</span>'
        elif mark == "◐":
            body = f"<b>{body}</b>"
        rows.append(f'<span style="color:{colour}">{mark}</span>&nbsp;{body}')
    return '<p style="margin:0">' + "<br>".join(rows) + "</p>"


def thought_summary(content: str) -> str:
    """A folded thought: one line saying there is reasoning to read."""
    words = len(content.split())
    return RenderingText.tr("Thinking… (%n word(s) — click to show)", "", words)


# -- code highlighting ---------------------------------------------------------------

_KEYWORDS = frozenset(
    {
        *("and", "as", "assert", "async", "await", "break", "case", "catch", "class", "const", "continue"),
        *("def", "default", "del", "do", "elif", "else", "enum", "except", "export", "extends", "false"),
        *("False", "final", "finally", "fn", "for", "from", "func", "function", "go", "if", "impl", "import"),
        *("in", "interface", "is", "lambda", "let", "match", "mod", "mut", "new", "nil", "None", "not", "null"),
        *("or", "package", "pass", "pub", "raise", "return", "self", "static", "struct", "super", "switch"),
        *("this", "throw", "true", "True", "try", "type", "use", "var", "void", "while", "with", "yield"),
        *("echo", "then", "fi", "esac", "done", "local"),
    }
)
_HASH_COMMENT_LANGUAGES = frozenset(
    {"python", "py", "sh", "bash", "shell", "zsh", "console", "yaml", "yml", "toml", "ruby", "rb", "r", "perl", ""}
)
_SLASH_COMMENT_LANGUAGES = frozenset(
    {"c", "cpp", "c++", "java", "js", "javascript", "ts", "typescript", "go", "rust", "rs", "kotlin", "swift", "cs", ""}
)


def _char_format(token: str, *, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(theme.current().color(token))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


def is_code_block(fmt: QTextBlockFormat) -> bool:
    return fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage) or fmt.hasProperty(
        QTextFormat.Property.BlockCodeFence
    )


class CodeHighlighter(QSyntaxHighlighter):
    """Simple highlighting for fenced code in a Markdown document: keywords, strings, numbers, comments.

    Only blocks that Markdown marked as code are touched; the language after
    the fence picks the comment style (``#`` or ``//``; both when unknown).
    """

    _keyword = QRegularExpression(r"\b(" + "|".join(sorted(map(re.escape, _KEYWORDS))) + r")\b")
    _number = QRegularExpression(r"\b(0x[0-9A-Fa-f]+|\d+(\.\d+)?)\b")
    _string = QRegularExpression(r"(\"([^\"\\]|\\.)*\"|'([^'\\]|\\.)*'|`[^`]*`)")
    _hash_comment = QRegularExpression(r"(^|\s)#.*$")
    _slash_comment = QRegularExpression(r"//.*$")

    def __init__(self, document: QTextDocument | QObject) -> None:
        super().__init__(document)
        self._formats = {
            "keyword": _char_format("code-keyword-text", bold=True),
            "number": _char_format("code-number-text"),
            "string": _char_format("code-string-text"),
            "comment": _char_format("code-comment-text", italic=True),
        }

    def highlightBlock(self, text: str) -> None:
        fmt = self.currentBlock().blockFormat()
        if not is_code_block(fmt):
            return
        language = str(fmt.property(QTextFormat.Property.BlockCodeLanguage) or "").strip().lower()
        self._apply(self._keyword, text, "keyword")
        self._apply(self._number, text, "number")
        self._apply(self._string, text, "string")
        if language in _HASH_COMMENT_LANGUAGES:
            self._apply(self._hash_comment, text, "comment")
        if language in _SLASH_COMMENT_LANGUAGES:
            self._apply(self._slash_comment, text, "comment")

    def _apply(self, pattern: QRegularExpression, text: str, kind: str) -> None:
        matches = pattern.globalMatch(text)
        while matches.hasNext():
            match = matches.next()
            self.setFormat(match.capturedStart(), match.capturedLength(), self._formats[kind])


def _style_code_blocks(document: QTextDocument) -> None:
    """Code blocks get a tinted background and wrap inside the card instead of overflowing it."""
    cursor = QTextCursor(document)
    block = document.begin()
    while block.isValid():
        fmt = block.blockFormat()
        if is_code_block(fmt):
            code = QTextBlockFormat()
            code.setBackground(theme.current().color("code-bg"))
            code.setNonBreakableLines(False)
            cursor.setPosition(block.position())
            cursor.mergeBlockFormat(code)
        block = block.next()


# -- documents -------------------------------------------------------------------------

# Characters and openings that can make Markdown differ from its plain text (emphasis, code,
# links, autolinks, HTML, entities, tables, strikethrough, escapes, breaks; lists, quotes and
# headings at the start). An answer with none of them renders the same as plain text.
_MARKDOWN_CHARACTERS = frozenset("\\`*_[]<>#|~&@\n\r\t")
_MARKDOWN_OPENING = re.compile(r"[-+*>#=\s]|\d+[.)]")
_PLAIN_PROSE_LIMIT = 4_000


def is_plain_prose(text: str) -> bool:
    """Whether Markdown would render ``text`` exactly as plain text (one short paragraph, no syntax).

    Such answers are the common case and skip the Markdown parser and the code highlighter.
    """
    return (
        0 < len(text) <= _PLAIN_PROSE_LIMIT
        and not _MARKDOWN_CHARACTERS.intersection(text)
        and _MARKDOWN_OPENING.match(text) is None
        and not text[-1].isspace()
        and "  " not in text
        and "://" not in text
        and "www." not in text.lower()
    )


def _wrapping() -> QTextOption:
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    return option


def _italic(font: QFont) -> QFont:
    italic = QFont(font)
    italic.setItalic(True)
    return italic


def build_document(
    text: str,
    body_format: BodyFormat,
    font: QFont,
    width: float,
    *,
    raw: bool = False,
    card: ToolCard | None = None,
    expanded: bool = False,
) -> QTextDocument:
    """The document a row paints: Markdown (unless ``raw``), plain text, or a tool card."""
    document = QTextDocument()
    document.setDocumentMargin(0)
    document.setDefaultFont(font)
    document.setDefaultTextOption(_wrapping())
    if body_format == "tool" and card is not None:
        document.setHtml(card_html(card, expanded))
    elif body_format == "plan":
        document.setHtml(plan_html(text))
    elif body_format == "thought":
        document.setDefaultFont(_italic(font))
        document.setPlainText(text)
    elif body_format == "markdown" and not raw:  # plain prose never gets here: build_body lays it out
        # Attached to the empty document, so no deferred re-highlight is left pending on the event
        # loop; run once the code blocks carry their language. The document owns it (Qt parent),
        # and it must live as long as the document: its destructor clears the formats.
        highlighter = CodeHighlighter(document)
        document.setMarkdown(text)
        _style_code_blocks(document)
        markdown_style.polish(document)  # issue 18: spacing, quotes, inline code, code headers
        highlighter.rehighlight()
    else:
        document.setPlainText(text)
    document.setTextWidth(max(width, 10.0))
    return document


_PLAIN_LAYOUT_LIMIT = 20_000
"""Longer plain texts go to a ``QTextDocument``, which lays out and paints paragraph by paragraph."""


class PlainBody:
    """Plain text laid out by one ``QTextLayout``: what ``QTextDocument.setPlainText`` shows, at a
    fifth of the cost to build and half to paint (issue 7: most rows are plain — the person's own
    words, notices, answers without Markdown — and every switch builds the rows it shows).
    """

    def __init__(self, text: str, font: QFont, width: float) -> None:
        self._text = text
        # A line separator breaks the line inside the one paragraph, as a new block would.
        self._layout = QTextLayout(text.replace("\r\n", "\n").replace("\n", "\u2028"), font)
        self._layout.setTextOption(_wrapping())
        self._layout.setCacheEnabled(True)
        self._width = -1.0
        self._height = 0.0
        self.set_width(width)

    def set_width(self, width: float) -> None:
        width = max(width, 10.0)
        if width == self._width:
            return
        self._width = width
        layout = self._layout
        layout.beginLayout()
        top = 0.0
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            line.setPosition(QPointF(0.0, top))
            top += line.height()
        layout.endLayout()
        self._height = top

    def height(self) -> float:
        return self._height

    def plain_text(self) -> str:
        return self._text

    def draw(self, painter: QPainter, clip: QRectF, palette: QPalette) -> None:
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        self._layout.draw(painter, QPointF(0.0, 0.0), [], clip)


class DocumentBody:
    """A rendered ``QTextDocument`` body: Markdown, tool cards, plans, long plain texts."""

    def __init__(self, document: QTextDocument) -> None:
        self.document = document
        self._decorations: tuple[float, markdown_style.Decorations] | None = None

    def set_width(self, width: float) -> None:
        width = max(width, 10.0)
        if self.document.textWidth() != width:
            self.document.setTextWidth(width)

    def decorations(self) -> markdown_style.Decorations:
        """Code block headers and quote bars at the current width (issue 18)."""
        width = self.document.textWidth()
        if self._decorations is None or self._decorations[0] != width:
            self._decorations = (width, markdown_style.decorations(self.document))
        return self._decorations[1]

    def height(self) -> float:
        return self.document.size().height()  # size() lays it out

    def plain_text(self) -> str:
        return self.document.toPlainText()

    def draw(self, painter: QPainter, clip: QRectF, palette: QPalette) -> None:
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = palette
        context.clip = clip
        self.document.documentLayout().draw(painter, context)
        if self.document.property(markdown_style.DECORATED):
            markdown_style.paint_decorations(painter, self.document, self.decorations())


Body = PlainBody | DocumentBody


def is_plain_body(text: str, body_format: BodyFormat, *, raw: bool = False) -> bool:
    """Whether a row's body is plain text (laid out without a ``QTextDocument``)."""
    if len(text) > _PLAIN_LAYOUT_LIMIT:
        return False
    if body_format in ("plain", "thought"):
        return True
    return body_format == "markdown" and (raw or is_plain_prose(text))


def build_body(
    text: str,
    body_format: BodyFormat,
    font: QFont,
    width: float,
    *,
    raw: bool = False,
    card: ToolCard | None = None,
    expanded: bool = False,
) -> Body:
    """The body a row paints: a plain layout when it is plain text, else ``build_document``'s document."""
    if is_plain_body(text, body_format, raw=raw):
        # An agent's reasoning reads as an aside: italic (and dimmed by the delegate).
        return PlainBody(text, _italic(font) if body_format == "thought" else font, width)
    return DocumentBody(build_document(text, body_format, font, width, raw=raw, card=card, expanded=expanded))


# A fence line opens or closes a code block; a blank line outside one ends every block.
_FENCE_LINE = re.compile(r" {0,3}(```|~~~)")
_CHUNK_GAP = 6.0
"""The space between two settled parts of a streaming answer: a Markdown paragraph's margin."""


class StreamingBody:
    """The body of an answer that is still streaming in, rendered in settled parts.

    Re-rendering the whole answer on every flush costs time in proportion to its
    length (about 0.5 ms per 1,000 characters of Markdown here), so a long answer
    stalled the window more with each flush. Text up to the last blank line
    outside a code fence is settled: it is rendered once, as one more part, and
    only the unsettled tail is rendered again. The stored message replaces this
    body with one document when the turn ends.
    """

    def __init__(self, font: QFont, width: float, *, raw: bool = False) -> None:
        self._font = QFont(font)
        self._width = width
        self._raw = raw
        self._text = ""
        self._settled = 0
        self._parts: list[Body] = []
        self._tail: Body | None = None
        self.rendered_chars = 0
        """Characters rendered so far, settled parts and tails alike (tests check it grows linearly)."""

    def matches(self, font: QFont, raw: bool) -> bool:
        return raw == self._raw and font == self._font

    def update(self, text: str) -> None:
        """Show ``text``: what is new past the settled parts is rendered, the rest is kept."""
        if text == self._text:
            return
        if not text.startswith(self._text[: self._settled]):  # another answer: start over
            self._settled = 0
            self._parts = []
        self._text = text
        boundary = self._last_boundary(text)
        if boundary > self._settled:
            self._parts.append(self._render(text[self._settled : boundary]))
            self._settled = boundary
        tail = text[self._settled :]
        self._tail = self._render(tail) if tail.strip() else None

    def _last_boundary(self, text: str) -> int:
        """Where the last blank line outside a code fence ends (past ``_settled``), or ``_settled``."""
        boundary = self._settled
        in_fence = False  # the settled text ends outside any fence, by construction
        position = self._settled
        for line in text[self._settled :].splitlines(keepends=True):
            position += len(line)
            if _FENCE_LINE.match(line):
                in_fence = not in_fence
            elif not in_fence and not line.strip() and line.endswith("\n") and position < len(text):
                boundary = position
        return boundary

    def _render(self, text: str) -> Body:
        self.rendered_chars += len(text)
        return build_body(text.strip("\n"), "markdown", self._font, self._width, raw=self._raw)

    def _shown(self) -> list[Body]:
        return [*self._parts, self._tail] if self._tail is not None else self._parts

    @property
    def parts(self) -> tuple[Body, ...]:
        """What is shown, in order: the settled parts, then the tail (if it has any text)."""
        return tuple(self._shown())

    def set_width(self, width: float) -> None:
        if width == self._width:
            return
        self._width = width
        for part in self._shown():
            part.set_width(width)

    def height(self) -> float:
        parts = self._shown()
        return sum(part.height() for part in parts) + _CHUNK_GAP * max(len(parts) - 1, 0)

    def plain_text(self) -> str:
        return "\n\n".join(part.plain_text() for part in self._shown())

    def draw(self, painter: QPainter, clip: QRectF, palette: QPalette) -> None:
        top = 0.0
        for part in self._shown():
            height = part.height()
            if top + height >= clip.top() and top <= clip.bottom():  # parts out of sight are skipped
                painter.save()
                painter.translate(0.0, top)
                part.draw(painter, clip.translated(0.0, -top), palette)
                painter.restore()
            top += height + _CHUNK_GAP
