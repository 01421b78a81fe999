"""Command-line review and undo of what agents changed (LOOP-1, issue 16 item 5).

``changes``, ``restore``, ``revert`` and ``checkpoints`` (retention, pruning, a line's own
excludes): the same ``CheckpointController`` the window uses. Bad input ends as one line
through ``cli.main``'s error boundary (``CheckpointError`` is a ``ValueError``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from xworkmate.cli.common import add_command
from xworkmate.terminal_text import escape_document, escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController
    from xworkmate.domain.checkpoints import FileChange, TurnChanges

__all__ = ["add_checkpoint_commands"]

# The parser is built on every start (the window's too): the checkpoint models load only when a command runs.
_LETTER = {"added": "A", "modified": "M", "deleted": "D"}


def _turn_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a turn number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("turns are numbered from 1")
    return value


def _file_line(change: FileChange) -> str:
    if change.too_large:
        detail = "(over the size cap: listed, not stored)"
    elif change.binary:
        detail = "(binary)"
    else:
        detail = f"+{change.additions} -{change.deletions}"
    if change.mode_changed:
        detail += " (mode)"
    return f"  {_LETTER[change.kind.value]}  {escape_for_terminal(change.path)}  {detail}"


def _print_changes(changes: TurnChanges) -> None:
    from xworkmate.domain.checkpoints import ChangeScope

    if changes.scope is ChangeScope.TURN:
        chip = f" (message {changes.message_id})" if changes.message_id is not None else ""
        head = f"turn {changes.turn}{chip}"
    elif changes.scope is ChangeScope.LINE:
        head = f"the whole line (turns 1–{changes.turn})"
    else:
        head = "uncommitted in the folder's repository"
    count = len(changes.files)
    print(f"{head}: {count} file{'s' if count != 1 else ''} changed")
    for change in changes.files:
        print(_file_line(change))


def cmd_changes(args: argparse.Namespace, controller: SessionController) -> int:
    from xworkmate.domain.checkpoints import ChangeScope

    checkpoints = controller.checkpoints
    if args.all:
        found = checkpoints.turns(args.key)
    elif args.line:
        found = [checkpoints.changes(args.key, ChangeScope.LINE)]
    elif args.uncommitted:
        found = [checkpoints.changes(args.key, ChangeScope.UNCOMMITTED)]
    else:
        found = [checkpoints.changes(args.key, ChangeScope.TURN, args.turn)]
    if args.json:
        data: Any = [c.model_dump(mode="json") for c in found]
        print(json_text(data if args.all else data[0]))
    elif args.patch:
        for changes in found:
            for change in changes.files:
                turn = changes.turn if changes.scope is ChangeScope.TURN else None
                patch = checkpoints.file_patch(args.key, change.path, changes.scope, turn)
                if patch:  # the agent wrote these files: their control sequences are shown, not run (SEC-1)
                    patch = escape_document(patch)
                    print(patch, end="" if patch.endswith("\n") else "\n")
    else:
        if not found:
            print(f"no turn of line {args.key} changed files")
        for changes in found:
            _print_changes(changes)
    return 0


def cmd_restore(args: argparse.Namespace, controller: SessionController) -> int:
    from xworkmate.domain.checkpoints import CheckpointError

    checkpoints = controller.checkpoints
    if args.undo:
        if args.turn is not None or args.fork:
            raise CheckpointError("--undo takes no --turn or --fork: it undoes the last restore or revert")
        checkpoints.undo_restore(args.key, force=args.force)
        print(json_text({"key": args.key, "undone": True}) if args.json else f"undid the last restore on {args.key}")
        return 0
    if args.turn is None:
        raise CheckpointError("give --turn N (the folder goes back to before that turn) or --undo")
    result = checkpoints.restore(args.key, args.turn, fork=args.fork, force=args.force)
    if args.json:
        print(json_text(result.model_dump(mode="json")))
    else:
        print(
            f"restored the folder of {result.key} to before turn {result.turn}; `xworkmate restore {result.key} --undo`"
        )
        if result.fork_key:
            print(f"forked at that turn: {result.fork_key}")
        if not result.before_exact:
            print(_NOT_EXACT)
    return 0


_NOT_EXACT = (
    "the snapshot before that turn was the folder's first, taken beside the turn, and files changed after the"
    " turn began: some of the turn's own first changes may still be there"
)


def cmd_revert(args: argparse.Namespace, controller: SessionController) -> int:
    checkpoints = controller.checkpoints
    if args.hunk is None:
        checkpoints.revert_file(args.key, args.file, args.turn)
        done = f"reverted {escape_for_terminal(args.file)} to before turn {args.turn}"
    else:
        checkpoints.revert_hunk(args.key, args.file, args.turn, args.hunk)
        done = f"took back hunk {args.hunk} of {escape_for_terminal(args.file)} (turn {args.turn})"
    print(json_text({"key": args.key, "turn": args.turn, "file": args.file, "hunk": args.hunk}) if args.json else done)
    return 0


def cmd_checkpoints_prune(args: argparse.Namespace, controller: SessionController) -> int:
    pruned = controller.checkpoints.prune(args.older_than)
    if args.json:
        print(json_text({"pruned": pruned}))
    else:
        print(f"pruned the checkpoints of {len(pruned)} archived line(s)")
        for key in pruned:
            print(f"  {key}")
    return 0


def cmd_checkpoints_retention(args: argparse.Namespace, controller: SessionController) -> int:
    checkpoints = controller.checkpoints
    days = checkpoints.retention_days() if args.days is None else checkpoints.set_retention_days(args.days)
    print(json_text({"retention_days": days}) if args.json else f"checkpoints of archived lines are kept {days} days")
    return 0


def cmd_checkpoints_exclude(args: argparse.Namespace, controller: SessionController) -> int:
    checkpoints = controller.checkpoints
    if args.clear or args.patterns:
        patterns = checkpoints.set_excludes(args.key, [] if args.clear else args.patterns)
    else:
        patterns = checkpoints.excludes(args.key)
    if args.json:
        print(json_text({"key": args.key, "excludes": patterns}))
    else:
        for pattern in patterns:
            print(escape_for_terminal(pattern))
    return 0


def add_checkpoint_commands(sub: Any) -> None:
    """Register ``changes``, ``restore``, ``revert`` and ``checkpoints`` on the top-level subparsers."""
    changes = sub.add_parser("changes", help="what a line's turns changed in its folder (LOOP-1)")
    changes.add_argument("key")
    which = changes.add_mutually_exclusive_group()
    which.add_argument("--turn", type=_turn_number, metavar="N", help="that turn (default: the last)")
    which.add_argument("--all", action="store_true", help="every turn that changed files")
    which.add_argument("--line", action="store_true", help="the whole line, all turns together")
    which.add_argument("--uncommitted", action="store_true", help="the folder repository's uncommitted changes")
    how = changes.add_mutually_exclusive_group()
    how.add_argument("--json", action="store_true")
    how.add_argument("--patch", action="store_true", help="unified diffs of the text files")
    changes.set_defaults(func=cmd_changes)

    restore = add_command(
        sub, "restore", cmd_restore, "put a line's folder back as it was before a turn, or --undo that"
    )
    restore.add_argument("key")
    restore.add_argument("--turn", type=_turn_number, metavar="N")
    restore.add_argument("--fork", action="store_true", help="also fork the line at that turn (later messages out)")
    restore.add_argument("--undo", action="store_true", help="undo the last restore or revert")
    restore.add_argument(
        "--force", action="store_true", help="even with changes made since the last checkpoint (undo brings them back)"
    )

    revert = add_command(sub, "revert", cmd_revert, "one file (or --hunk) back to before a turn")
    revert.add_argument("key")
    revert.add_argument("--turn", type=_turn_number, metavar="N", required=True)
    revert.add_argument("--file", metavar="PATH", required=True, help="relative to the line's folder")
    revert.add_argument("--hunk", type=int, metavar="I", help="only this hunk (0-based, as --patch shows them)")

    checkpoints = sub.add_parser("checkpoints", help="checkpoint retention, pruning and a line's excludes")
    csub = checkpoints.add_subparsers(dest="checkpoints_command", metavar="ACTION", required=True)
    prune = add_command(
        csub, "prune", cmd_checkpoints_prune, "delete the checkpoints of lines archived longer ago than the retention"
    )
    prune.add_argument("--older-than", type=int, metavar="DAYS", help="instead of the retention setting")
    retention = add_command(
        csub, "retention", cmd_checkpoints_retention, "show or set how long archived lines keep their checkpoints"
    )
    retention.add_argument("days", nargs="?", metavar="DAYS")
    exclude = add_command(
        csub, "exclude", cmd_checkpoints_exclude, "show or set a line's own exclude patterns (gitignore syntax)"
    )
    exclude.add_argument("key")
    exclude.add_argument("patterns", nargs="*", metavar="PATTERN")
    exclude.add_argument("--clear", action="store_true")
