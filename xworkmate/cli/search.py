"""``xworkmate search`` and ``xworkmate export`` (SPEC LOOP-3, §8), beside ``cli.py``.

``search QUERY [--line KEY] [--json] [--limit N]`` prints the hits grouped by line, matches in
``[brackets]``; ``export KEY --format md|json [-o FILE] [--yes]`` writes a line and its tasks, to
stdout without ``-o``. Both read as the person at the desktop (CAT-4), and both are redacted
(SEC-1); an export carrying category content is asked about on a terminal and needs ``--yes``
elsewhere (CAT-4). An export printed to stdout has its control sequences escaped like every other
CLI output (Markdown: ``escape_document``; JSON: every non-ASCII character as ``\\uXXXX``, still
valid JSON that reads back the same); ``-o FILE`` writes the text as it is.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xworkmate.cli.common import add_command
from xworkmate.domain.export import ExportFormat, LineExport
from xworkmate.domain.search import DEFAULT_SEARCH_LIMIT
from xworkmate.domain.secrets import redact
from xworkmate.terminal_text import escape_document, escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController

__all__ = ["add_search_and_export_commands"]


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def cmd_search(args: argparse.Namespace, controller: SessionController) -> int:
    results = controller.search(args.query, line=args.line, limit=args.limit)
    if args.json:
        print(json_text(results.model_dump(mode="json")))
        return 0
    if not results.lines:
        print(f"no matches for {escape_for_terminal(redact(args.query))!s}")
        return 0
    for line in results.lines:
        marks = "".join(
            [f" [category {line.category}]" if line.category else "", " [archived]" if line.archived else ""]
        )
        print(f"{escape_for_terminal(line.title.marked())} ({line.line_key}){marks}")
        for hit in line.hits:
            when = hit.created_at.strftime("%Y-%m-%d %H:%M")
            print(f"  #{hit.message_id} {hit.role} {when}  {escape_for_terminal(hit.snippet.marked())}")
    if results.truncated:
        print(f"(more than {args.limit} messages match; narrow the query or raise --limit)")
    return 0


def confirm_category_export(export: LineExport, *, yes: bool) -> None:
    """CAT-4: category content leaves only knowingly: asked on a terminal, refused in one line
    without ``--yes`` when nobody can answer (a script, a pipe)."""
    from xworkmate.cli.common import CliError

    if not export.categories or yes:
        return
    names = ", ".join(export.categories)
    said = f"{export.root_key} carries category content ({names}): whoever can read the file can read it"
    if not sys.stdin.isatty():
        raise CliError(f"not exported: {said}; pass --yes to export it anyway (CAT-4)")
    print(f"{escape_for_terminal(said)}. Export anyway? [y/N] ", end="", file=sys.stderr, flush=True)
    try:
        answer = input()
    except EOFError:
        answer = ""
    if answer.strip().lower() not in {"y", "yes"}:
        raise CliError("not exported: declined (CAT-4)")


def cmd_export(args: argparse.Namespace, controller: SessionController) -> int:
    from xworkmate.cli.common import CliError
    from xworkmate.controllers.export import export_text

    export = controller.line_export(args.key)
    confirm_category_export(export, yes=args.yes)
    fmt = ExportFormat(args.format)
    text = export_text(export, fmt)
    if args.output is None:
        sys.stdout.write(escape_document(text) if fmt is ExportFormat.MARKDOWN else json_text(json.loads(text)) + "\n")
        return 0
    from xworkmate.controllers.export import ExportWriteError, save_export

    try:
        path = save_export(text, Path(args.output).expanduser())
    except ExportWriteError as exc:
        raise CliError(str(exc)) from exc
    print(f"exported {args.key} to {path}")
    return 0


def add_search_and_export_commands(sub: Any) -> None:
    """Add the two commands to ``build_parser``'s subcommands."""
    search = add_command(sub, "search", cmd_search, "search every line's messages, tool output and titles")
    search.add_argument("query")
    search.add_argument("--line", metavar="KEY", help="only this line")
    search.add_argument("--limit", type=_positive, default=DEFAULT_SEARCH_LIMIT, metavar="N", help="messages at most")

    export = sub.add_parser("export", help="export a line and its tasks to Markdown or JSON")
    export.add_argument("key")
    export.add_argument("--format", choices=[f.value for f in ExportFormat], default=ExportFormat.MARKDOWN.value)
    export.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    export.add_argument("--yes", action="store_true", help="export category content without asking (CAT-4)")
    export.set_defaults(func=cmd_export)
