"""What an approval card says will happen (issue 30, item 3): plain data, no Qt.

``approval_view`` turns the controller's ``ApprovalRequested`` into the card's parts: the file a
write names and its diff (or a new file's content), or a command with its folder and the line's
network setting. The call's raw arguments stay behind the card's "Details" toggle. Texts are
translated in the context ``ApprovalText``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Literal, Protocol

from xworkmate.domain.change_preview import ChangePreview, PreviewNote
from xworkmate.domain.tools import NativeTool
from xworkmate.presentation.files import FOLD_MARK, LONG_LINE_CHARS, cut_lines, fold_lines, has_long_line
from xworkmate.presentation.text import QT_TRANSLATE_NOOP, TranslationContext, translate
from xworkmate.presentation.wording import home_relative


class ApprovalRequest(Protocol):
    """What a card is made from: the controller's ``ApprovalRequested`` (named by shape, so this layer
    imports no controller)."""

    @property
    def tool(self) -> str: ...
    @property
    def arguments(self) -> str: ...
    @property
    def change(self) -> ChangePreview | None: ...
    @property
    def folder(self) -> str | None: ...
    @property
    def network(self) -> str | None: ...
    @property
    def allowed_hosts(self) -> tuple[str, ...]: ...


__all__ = ["ApprovalText", "ApprovalView", "approval_view", "code_language", "network_words", "pretty_arguments"]


class ApprovalText(TranslationContext):
    """The approval card's worded parts; ``ApprovalText.tr`` counts with ``%n``."""


_NETWORK = {
    "off": QT_TRANSLATE_NOOP("ApprovalText", "Network: off"),
    "allow-list": QT_TRANSLATE_NOOP("ApprovalText", "Network: allow-list only"),
    "on": QT_TRANSLATE_NOOP("ApprovalText", "Network: on"),
}
_NOTES = {
    PreviewNote.OUTSIDE: QT_TRANSLATE_NOOP("ApprovalText", "The path is outside the line's folder; nothing was read"),
    PreviewNote.NOT_TEXT: QT_TRANSLATE_NOOP("ApprovalText", "The current file is not text; no diff to show"),
    PreviewNote.TOO_LARGE: QT_TRANSLATE_NOOP("ApprovalText", "The current file is too large to compare"),
    PreviewNote.NO_MATCH: QT_TRANSLATE_NOOP(
        "ApprovalText", "The text to replace is not found exactly once in the file: this edit would fail"
    ),
    PreviewNote.MISSING: QT_TRANSLATE_NOOP("ApprovalText", "The file does not exist: this edit would fail"),
}
# File endings and the fence language ``ui.rendering.CodeHighlighter`` knows them by.
_LANGUAGES = {
    ".py": "python",
    ".sh": "sh",
    ".bash": "bash",
    ".js": "javascript",
    ".ts": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".java": "java",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".rb": "ruby",
}


def code_language(path: str) -> str:
    """The highlighter's language for a file name ("" when it has none)."""
    return _LANGUAGES.get(os.path.splitext(path)[1].lower(), "")


def network_words(network: str | None, allowed_hosts: tuple[str, ...] = ()) -> str:
    """The line's network setting as the card says it (SBX-4)."""
    if network is None:
        return ""
    words = translate("ApprovalText", _NETWORK.get(network, _NETWORK["off"]))
    if network == "allow-list" and allowed_hosts:
        shown = ", ".join(allowed_hosts[:3]) + (" …" if len(allowed_hosts) > 3 else "")
        words = translate("ApprovalText", "{network} ({hosts})").format(network=words, hosts=shown)
    return words


@dataclass(frozen=True)
class ApprovalView:
    """The card's parts. ``body_kind``: ``diff`` (a unified diff), ``content`` (a new file's text, in
    ``language``), ``command`` (a shell command) or ``none``; ``target`` the file or folder line above it,
    ``facts`` the lines under it (network), ``note`` what is not shown or why there is no diff."""

    heading: str
    target: str
    body_kind: Literal["diff", "content", "command", "none"]
    body: str
    note: str = ""
    facts: tuple[str, ...] = ()
    language: str = ""
    details: str = ""


def pretty_arguments(arguments: str) -> str:
    """The raw arguments, indented, for the Details toggle."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return arguments
    return json.dumps(parsed, indent=2, ensure_ascii=False)


def _more(count: int) -> str:
    return ApprovalText.tr("… %n more line(s) not shown", "", count) if count else ""


def _notes(*notes: str) -> str:
    return " · ".join(note for note in notes if note)


def _cut(shown: str) -> str:
    """The note for a new file's content or a diff whose long lines the card cuts (issue 34: a line of
    megabytes froze the window for seconds); the call is whole under Details."""
    if not has_long_line(shown):
        return ""
    return translate(
        "ApprovalText", "Lines longer than {limit} characters are cut here; Details shows the whole call"
    ).format(limit=f"{LONG_LINE_CHARS:,}")


def _folded(command: str) -> str:
    """The note for a command the card folds: all of it is shown, a long line in pieces."""
    if not has_long_line(command):
        return ""
    return translate(
        "ApprovalText", "Lines longer than {limit} characters are folded: {mark}starts the rest of one"
    ).format(limit=f"{LONG_LINE_CHARS:,}", mark=FOLD_MARK)


def _command(tool: str, arguments: str) -> str | None:
    """The shell command a call would run: a native ``run_command``'s, or an ACP ``execute`` call's input."""
    try:
        args = json.loads(arguments)
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    if tool == NativeTool.RUN_COMMAND:
        return str(args.get("command", ""))
    given = args.get("input")
    if tool == "execute" and isinstance(given, dict) and given.get("command"):
        command = given["command"]
        return " ".join(str(part) for part in command) if isinstance(command, list) else str(command)
    return None


def approval_view(request: ApprovalRequest, heading: str) -> ApprovalView:
    """What the card shows for ``request``; ``heading`` is its one-line summary, already worded."""
    # What the person approves is shown whole: the call's long lines folded, not cut (issue 34).
    details = fold_lines(pretty_arguments(request.arguments))
    change = request.change
    if change is not None:
        if change.created:
            target = translate("ApprovalText", "{path} — new file").format(path=change.path)
            return ApprovalView(
                heading,
                target,
                "content",
                cut_lines(change.content),
                _notes(_more(change.more_lines), _cut(change.content)),
                language=code_language(change.path),
                details=details,
            )
        if change.note is not PreviewNote.NONE:
            note = translate("ApprovalText", _NOTES[change.note])
            return ApprovalView(heading, change.path, "none", "", note, details=details)
        lines = change.diff.splitlines()
        added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
        removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
        target = translate("ApprovalText", "{path} — +{added} −{removed}").format(
            path=change.path, added=added, removed=removed
        )
        body = "\n".join(line for line in lines if not line.startswith(("--- ", "+++ ")))
        if not body:
            return ApprovalView(
                heading, change.path, "none", "", translate("ApprovalText", "No change"), details=details
            )
        # The diff view cuts its long lines itself (``ui/changes/diff_view``).
        return ApprovalView(
            heading, target, "diff", body, _notes(_more(change.more_lines), _cut(body)), details=details
        )
    command = _command(request.tool, request.arguments)
    if command is not None:
        folder = (
            translate("ApprovalText", "in {folder}").format(folder=home_relative(request.folder))
            if request.folder
            else ""
        )
        facts = tuple(f for f in (network_words(request.network, request.allowed_hosts),) if f)
        # The block shows the command: the heading does not say it again.
        heading = translate("ApprovalText", "The agent asks to run this command")
        return ApprovalView(heading, folder, "command", fold_lines(command), _folded(command), facts, details=details)
    return ApprovalView(heading, "", "none", "", details=details)
