"""``xworkmate queue``: a line's follow-up queue (issue 31 item 3), the one the window's strip shows.

``queue list KEY`` prints it in delivery order; ``remove``, ``edit`` and ``move`` change it by
position (1 is delivered first). Bad input is one line on stderr, exit 1 (ERR-1).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from xworkmate.cli.common import CliError, add_command
from xworkmate.domain.followup_queue import QueuedFollowup
from xworkmate.terminal_text import escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController


def _position(text: str, what: str) -> int:
    try:
        return int(text.lstrip("#"))
    except ValueError:
        raise CliError(f"{what} must be a queue position (1, 2, …), not {text!r}") from None


def _item_json(item: QueuedFollowup) -> dict[str, Any]:
    return {"position": item.position, "text": item.text, "created_at": item.created_at.isoformat()}


def _print_items(key: str, items: list[QueuedFollowup], as_json: bool) -> None:
    if as_json:
        print(json_text([_item_json(item) for item in items]))
    elif not items:
        print(f"no queued follow-ups on {key}")
    else:
        for item in items:
            print(escape_for_terminal(f"{item.position}. {item.text}"))


def cmd_queue_list(args: argparse.Namespace, controller: SessionController) -> int:
    _print_items(args.key, controller.queue.items(args.key), args.json)
    return 0


def cmd_queue_remove(args: argparse.Namespace, controller: SessionController) -> int:
    removed = controller.queue.remove(args.key, _position(args.n, "N"))
    if args.json:
        print(json_text(_item_json(removed), indent=None))
    else:
        print(escape_for_terminal(f"removed {removed.position}. {removed.text}"))
    return 0


def cmd_queue_edit(args: argparse.Namespace, controller: SessionController) -> int:
    edited = controller.queue.edit(args.key, _position(args.n, "N"), args.text)
    if args.json:
        print(json_text(_item_json(edited), indent=None))
    else:
        print(escape_for_terminal(f"{edited.position}. {edited.text}"))
    return 0


def cmd_queue_move(args: argparse.Namespace, controller: SessionController) -> int:
    items = controller.queue.move(args.key, _position(args.n, "N"), _position(args.pos, "POS"))
    _print_items(args.key, items, args.json)
    return 0


def add_queue_parser(sub: Any) -> None:
    """``queue list|remove|edit|move``."""
    queue = sub.add_parser(
        "queue",
        help="a line's follow-up queue: what was sent while a turn ran, delivered one turn each in order",
    )
    qsub = queue.add_subparsers(dest="queue_command", metavar="ACTION", required=True)
    qlist = add_command(qsub, "list", cmd_queue_list, "the line's queued follow-ups, in delivery order")
    qlist.add_argument("key")
    qremove = add_command(qsub, "remove", cmd_queue_remove, "take follow-up N out of the queue (it is not sent)")
    qremove.add_argument("key")
    qremove.add_argument("n", metavar="N")
    qedit = add_command(qsub, "edit", cmd_queue_edit, "replace follow-up N's text")
    qedit.add_argument("key")
    qedit.add_argument("n", metavar="N")
    qedit.add_argument("text", metavar="TEXT")
    qmove = add_command(qsub, "move", cmd_queue_move, "move follow-up N to position POS")
    qmove.add_argument("key")
    qmove.add_argument("n", metavar="N")
    qmove.add_argument("pos", metavar="POS")
