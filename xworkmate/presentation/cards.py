"""Tool calls, plans and thoughts as the conversation shows them: plain data, no Qt (issue 19, item 3).

``ToolCard`` is built from a tool message's payload (``tool_card``) or a tool the running turn is
running (``running_card``); the window paints it (``ui/rendering.card_html``). Texts are translated
through ``presentation.text`` in their old context, ``RenderingText``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from xworkmate.domain.network import card_connections
from xworkmate.domain.permissions import DISPATCH_TOOL_NAMES
from xworkmate.domain.stored_text import NUL_REPLACED_NOTE, nul_replaced
from xworkmate.domain.tool_errors import ToolErrorKind
from xworkmate.domain.tools import ActionKind, NativeTool, tool_spec
from xworkmate.presentation.files import shown_line
from xworkmate.presentation.text import QT_TRANSLATE_NOOP, TranslationContext, translate
from xworkmate.presentation.wording import plain_words

__all__ = [
    "ALLOW_HOST",
    "COLLAPSED_LINES",
    "ERROR_WORDS",
    "EXPANDED_LINES",
    "PLAN_MARKS",
    "CardConnection",
    "RenderingText",
    "ToolCard",
    "error_words",
    "plan_text",
    "running_card",
    "thought_summary",
    "tool_calls_line",
    "tool_card",
]

# A collapsed card shows this many lines of output; an expanded one at most EXPANDED_LINES.
COLLAPSED_LINES = 6
EXPANDED_LINES = 400
EXPANDED_CHARS = 50_000
"""An expanded card shows lines up to this many characters in all, too (issue 34: 400 lines of 1,000
characters, an ACP agent's output, took 167 ms to lay out and stood 88,000 px tall)."""


ERROR_WORDS: dict[str, str] = {
    ToolErrorKind.NOT_APPROVED: QT_TRANSLATE_NOOP("RenderingText", "you rejected this"),
    ToolErrorKind.WRITE_REFUSED: QT_TRANSLATE_NOOP("RenderingText", "the write was refused"),
    ToolErrorKind.PATH_ESCAPE: QT_TRANSLATE_NOOP("RenderingText", "refused: outside the line's folder"),
    ToolErrorKind.HIDDEN_PATH: QT_TRANSLATE_NOOP("RenderingText", "refused: a hidden file"),
    ToolErrorKind.HARD_LINK: QT_TRANSLATE_NOOP("RenderingText", "refused: a hard-linked file"),
    ToolErrorKind.INVALID_PATH: QT_TRANSLATE_NOOP("RenderingText", "refused: not a valid path"),
    ToolErrorKind.SKILL_REFUSED: QT_TRANSLATE_NOOP("RenderingText", "refused: not a file of the skill"),
    ToolErrorKind.WORKING_DIRECTORY: QT_TRANSLATE_NOOP("RenderingText", "the line's folder is missing"),
    ToolErrorKind.CANCELLED: QT_TRANSLATE_NOOP("RenderingText", "stopped before it finished"),
    ToolErrorKind.TIMEOUT: QT_TRANSLATE_NOOP("RenderingText", "timed out"),
    ToolErrorKind.INVALID_ARGUMENTS: QT_TRANSLATE_NOOP("RenderingText", "the agent sent arguments that do not fit"),
    ToolErrorKind.UNKNOWN_TOOL: QT_TRANSLATE_NOOP("RenderingText", "no such tool"),
    ToolErrorKind.INTERNAL_ERROR: QT_TRANSLATE_NOOP("RenderingText", "failed: an internal error (logged)"),
    ToolErrorKind.DISPATCH_REFUSED: QT_TRANSLATE_NOOP("RenderingText", "refused"),
    ToolErrorKind.AGENT_FAILED: QT_TRANSLATE_NOOP("RenderingText", "the agent stopped"),
    ToolErrorKind.UNFINISHED: QT_TRANSLATE_NOOP("RenderingText", "unfinished"),
}
"""The one table of tool error kinds in words (issue 30 item 3): a failed card's status, never the code.
English here; shown through ``translate("RenderingText", …)``. A kind not listed reads "failed"."""
_FAILED = QT_TRANSLATE_NOOP("RenderingText", "failed")
_TIMED_OUT_AFTER = QT_TRANSLATE_NOOP("RenderingText", "timed out after {seconds} s")
_TIMEOUT_LINE = re.compile(r"^\[timed out after (?P<secs>[\d.]+) s\b")
# The agent's own words for a plain rejection: the status already says it.
_REJECTED = re.compile(r"^.* was not approved: the person rejected it$")


def error_words(error_kind: str | None, content: str = "", arguments: dict[str, Any] | None = None) -> str:
    """A failed call's status in the person's words: "you rejected this", "timed out after 5 s", …"""
    if error_kind == ToolErrorKind.TIMEOUT:
        first = content.splitlines()[0] if content else ""
        seconds = match["secs"] if (match := _TIMEOUT_LINE.match(first)) else (arguments or {}).get("timeout_s")
        if seconds is not None:
            return translate("RenderingText", _TIMED_OUT_AFTER).format(seconds=f"{float(seconds):g}")
    return translate("RenderingText", ERROR_WORDS.get(str(error_kind), _FAILED))


class RenderingText(TranslationContext):
    """The translation context of the cards' texts; ``RenderingText.tr`` counts with ``%n``."""


ALLOW_HOST = QT_TRANSLATE_NOOP("RenderingText", "Allow this host for this line")
"""The card's button under a refused connection (SBX-4); shown through ``translate("RenderingText", …)``."""


@dataclass(frozen=True)
class CardConnection:
    """A connection the command (or the agent's tool call) made through the line's proxy (SBX-4).

    ``text`` is the card's line for it; ``action`` the label of the button that puts a refused
    ``destination`` on the line's allow-list ("" for one that was let through).
    """

    destination: str
    allowed: bool
    text: str
    action: str = ""


def _connection(destination: str, allowed: bool) -> CardConnection:
    if allowed:
        return CardConnection(destination, True, translate("RenderingText", "Reached {host}").format(host=destination))
    text = translate("RenderingText", "Network refused: {host} — not on this line's allow-list").format(
        host=destination
    )
    return CardConnection(destination, False, text, translate("RenderingText", ALLOW_HOST))


# -- tool cards ----------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCard:
    """A tool call as a compact card: a title line, a status, and a body that may be folded.

    ``body_kind`` says what the body is: ``output`` (a command's output or
    what was read), ``diff`` (a write's unified diff, folded by default) or
    ``reason`` (why a call was refused; always shown). ``remark`` is a line
    always shown under the title (ERR-3: that NUL bytes were replaced);
    ``connections`` the network connections the call made (SBX-4), always shown.
    """

    tool: str
    title: str
    status: str
    ok: bool
    body_kind: Literal["output", "diff", "reason", "none"]
    body: str
    remark: str = ""
    connections: tuple[CardConnection, ...] = ()

    @property
    def refused(self) -> tuple[CardConnection, ...]:
        """The refused connections: each offers to allow its host for the line."""
        return tuple(c for c in self.connections if not c.allowed)

    @property
    def body_lines(self) -> list[str]:
        return self.body.splitlines() if self.body else []

    @property
    def title_line(self) -> str:
        """The title as the card shows it, one line: a command's first line (a heredoc's other lines said as
        a count), a long line cut (issue 34: a 50 KB heredoc made a title 10,000 px tall; 500 KB took 7.7 s)."""
        first, _, rest = self.title.partition("\n")
        more = rest.count("\n") + 1 if rest else 0
        return shown_line(first) + (" " + RenderingText.tr("(+%n more line(s))", "", more) if more else "")

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
            folded = translate("RenderingText", "diff +{added} −{removed} — click to show")
            return [], folded.format(added=added, removed=removed) if lines else ""
        limit = EXPANDED_LINES if expanded or self.body_kind == "reason" else COLLAPSED_LINES
        # Each line cut as a long line is (a minified file's one line of 64 KB: a "collapsed" card
        # 13,000 px tall, 0.15 s to lay out at each switch; 1 MB from an ACP agent, 25 s).
        shown = [shown_line(line) for line in lines[:limit]]
        total = 0
        for count, line in enumerate(shown):
            total += len(line) + 1
            if total > EXPANDED_CHARS and count:
                shown, limit = shown[:count], count
                break
        if len(lines) <= limit:
            return shown, (translate("RenderingText", "click to collapse") if expanded and self.expandable else "")
        hidden = len(lines) - limit
        if expanded:
            return shown, RenderingText.tr("… %n more line(s) not shown here", "", hidden)
        return shown, RenderingText.tr("… %n more line(s) — click to expand", "", hidden)

    def plain_text(self, expanded: bool = False) -> str:
        lines, note = self.shown_lines(expanded)
        head = f"{self.title_line} — {self.status}" if self.status else self.title_line
        network = [c.text for c in self.connections]
        return "\n".join([head, *([self.remark] if self.remark else []), *network, *lines, *([note] if note else [])])


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


_WROTE_LINE = re.compile(r"^(?P<verb>created|updated) .* \((?P<bytes>[\d,]+) bytes written\)$")
_STOPPED_LINE = re.compile(r"^\[(timed out after [\d.]+ s|cancelled): .*\]$")
_EXIT_LINE = re.compile(r"^\[exit code (?P<code>-?\d+|None) after (?P<secs>[\d.]+) s\]$")


def tool_card(payload: dict[str, Any] | None, content: str, *, failed: bool = False) -> ToolCard:
    """The card for a stored tool message (payload written by the controller's turn runner)."""
    card = _stored_card(payload or {}, content, failed=failed)
    # SBX-4: what the call connected to through the line's proxy, a refused host with its button.
    connections = tuple(_connection(destination, allowed) for destination, allowed in card_connections(payload))
    if connections:
        card = replace(card, connections=connections)
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
    spec = tool_spec(name)  # issue 33 item 3: the card's wording is the tool table's (domain/tools.py)
    command = spec is not None and spec.kind is ActionKind.COMMAND
    if not ok:
        if command and error_kind in (None, ToolErrorKind.TIMEOUT, ToolErrorKind.CANCELLED):
            # The command ran (and exited non-zero, or was stopped): its output is the interesting part.
            card = _command_card(name, args, content, ok=False)
            return replace(card, status=error_words(error_kind, content, args)) if error_kind else card
        subject = f"$ {args.get('command', '')}" if command else summary
        return ToolCard(name, subject, error_words(error_kind, content, args), False, "reason", _reason(content))
    if command:
        return _command_card(name, args, content, ok=True)
    if spec is not None and spec.kind is ActionKind.EDIT:
        path = str(data.get("changed_path") or args.get("path") or "?")
        verb = translate("RenderingText", spec.card_title)
        diff = str(data.get("diff") or "")
        first = content.splitlines()[0] if content else ""
        if match := _WROTE_LINE.match(first):  # "created a.py (74 bytes written)": the title names the file
            written = int(match["bytes"].replace(",", ""))
            status = RenderingText.tr("new file · %n byte(s)", "", written)
            if match["verb"] == "updated":
                status = RenderingText.tr("%n byte(s) written", "", written)
        else:
            status = plain_words(first) or translate("RenderingText", "ok")
        return ToolCard(name, verb.format(path=args.get("path", path)), status, True, "diff" if diff else "none", diff)
    if spec is not None and spec.kind is ActionKind.READ and spec.card_title:
        where = args.get("pattern") if name == NativeTool.SEARCH_FILES else args.get("path", ".")
        if name == NativeTool.READ_SKILL:  # SKL-2: the skill, and the file beside its SKILL.md when one was asked
            where = "/".join(str(p) for p in (args.get("name", "?"), args.get("path")) if p)
        title = translate("RenderingText", spec.card_title).format(
            where=repr(where) if name == NativeTool.SEARCH_FILES else where
        )
        count = len(content.splitlines())
        lines = RenderingText.tr("%n line(s)", "", count)
        return ToolCard(name, title, lines, True, "output", content)
    if name in DISPATCH_TOOL_NAMES:  # the product's own words (the CAT-9 reminder): shown in the person's language
        content = plain_words(content)
    return ToolCard(name, summary, translate("RenderingText", "ok"), True, "output", content)


def _reason(content: str) -> str:
    """A failed call's body: what the agent was told, unless the status already says all of it."""
    return "" if _REJECTED.match(content.strip()) else plain_words(content)


def _acp_card(kind: str, summary: str, content: str, *, ok: bool, error_kind: Any, diff: str) -> ToolCard:
    """An ACP agent's tool call: its own title, its diff (folded) or output, or why it was refused."""
    if not ok:
        return ToolCard(kind, summary, error_words(error_kind, content), False, "reason", _reason(content))
    status = (
        translate("RenderingText", "ok · {kind}").format(kind=kind)
        if kind not in ("other", "tool")
        else translate("RenderingText", "ok")
    )
    if diff:
        return ToolCard(kind, summary, status, True, "diff", diff)
    return ToolCard(kind, summary, status, True, "output", content)


def _command_card(name: str, args: dict[str, Any], content: str, *, ok: bool) -> ToolCard:
    lines = content.splitlines()
    status = translate("RenderingText", "ok") if ok else translate("RenderingText", "failed")
    if lines and (match := _EXIT_LINE.match(lines[0])):
        status = translate("RenderingText", "exit {code} · {seconds} s").format(
            code=match["code"], seconds=f"{float(match['secs']):.1f}"
        )
        lines = lines[1:]
    elif lines and _STOPPED_LINE.match(lines[0]):  # the status says it in words (``error_words``)
        lines = lines[1:]
    return ToolCard(name, f"$ {args.get('command', '')}", status, ok, "output", "\n".join(lines))


def running_card(summary: str) -> ToolCard:
    """The card line for a tool the current turn is running right now (``ToolRunning``)."""
    title = translate("RenderingText", "running {summary} …").format(summary=plain_words(summary))
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
    return translate("RenderingText", "→ calls {names}").format(names=", ".join(names))


# -- an ACP agent's thoughts and plans ------------------------------------------------

PLAN_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}


def plan_text(entries: Any) -> str:
    """A plan update (``[[text, status], …]``) as checklist lines: ``☑ done``, ``◐ doing``, ``☐ to do``."""
    lines: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, (list, tuple)) and len(entry) >= 2:
            text, status = str(entry[0]), str(entry[1])
        else:
            text, status = str(entry), "pending"
        shown = shown_line(" ".join(text.splitlines()))  # one line each, an agent's long one cut (issue 34)
        lines.append(f"{PLAN_MARKS.get(status, PLAN_MARKS['pending'])} {shown}")
    return "\n".join(lines) or translate("RenderingText", "(an empty plan)")


def thought_summary(content: str) -> str:
    """A folded thought: one line saying there is reasoning to read."""
    words = len(content.split())
    return RenderingText.tr("Thinking… (%n word(s) — click to show)", "", words)
