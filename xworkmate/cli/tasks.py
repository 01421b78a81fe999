"""``run``, ``task ...`` and ``messages``: headless turns, background tasks, and what a line may read."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from xworkmate.cli.common import (
    EXIT_DATABASE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_SYSTEM,
    EXIT_TERMINATED,
    CliError,
    _body,
    add_command,
)
from xworkmate.cli.threads import thread_json
from xworkmate.domain.attachments import Attachment, attachments_in
from xworkmate.domain.elicitation import parse_answers
from xworkmate.domain.messages import Message
from xworkmate.domain.secrets import redact
from xworkmate.domain.stored_text import NUL_REPLACED_NOTE, nul_replaced
from xworkmate.domain.turn_endings import TurnEnding
from xworkmate.terminal_text import escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController
    from xworkmate.controllers.runs import TurnOutcome


def cmd_run(args: argparse.Namespace, controller: SessionController) -> int:
    # The controller's one gate decides whether the turn runs, and says why not (issue 13).
    try:
        answers = parse_answers(tuple(args.answer or ()))  # issue 32 item 3: an agent's form, answered
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.resume:
        if args.prompt is not None or args.attach:
            raise CliError("--resume takes no PROMPT: it continues the interrupted turn; send a new message without it")
        return _run_headless(controller, args.key, None, args.provider, args.json, resume=True, answers=answers)
    if args.prompt is None:
        raise CliError("run needs a PROMPT (or --resume to continue a turn a crash interrupted)")
    # ATT-1: every --attach file is read and checked first: a bad one stores nothing (ERR-2).
    from xworkmate.controllers.attachments import attachment_from_file

    attachments = tuple(attachment_from_file(path) for path in args.attach or ())
    return _run_headless(
        controller, args.key, args.prompt, args.provider, args.json, attachments=attachments, answers=answers
    )


class _TurnSignalled(Exception):
    """SIGINT or SIGTERM ended a headless turn as Stop ends it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _run_headless(
    controller: SessionController,
    key: str,
    prompt: str | None,
    provider: str | None,
    as_json: bool,
    *,
    resume: bool = False,
    attachments: Sequence[Attachment] = (),
    answers: Mapping[str, str] | None = None,
) -> int:
    """One turn for ``run`` and ``task run``. SIGINT and SIGTERM stop it as Stop does: the partial answer
    and a "Stopped" notice are kept (an ACP agent is reaped), then the exit is 130 or 143 with one line."""
    import asyncio
    import signal

    async def turn() -> TurnOutcome:
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(
            controller.turns.run_resume(key, provider=provider, headless=True, answers=answers)
            if resume
            else controller.turns.run_turn(
                key, prompt, provider=provider, headless=True, attachments=attachments, answers=answers
            )
        )
        received: list[int] = []

        def on_signal(signum: int) -> None:
            if not received:  # the first one stops the turn; the stop itself is quick and never hangs
                received.append(signum)
                task.cancel()

        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, on_signal, signum)
        try:
            return await task
        except asyncio.CancelledError:
            if received:
                raise _TurnSignalled(received[0]) from None
            raise
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)

    try:
        outcome = asyncio.run(turn())
    except _TurnSignalled as exc:
        name, code = ("SIGINT", EXIT_INTERRUPTED) if exc.signum == signal.SIGINT else ("SIGTERM", EXIT_TERMINATED)
        line = f"stopped by {name}; the answer so far and a Stopped notice are kept on line {key}"
        print(f"xworkmate: error: {escape_for_terminal(line)}", file=sys.stderr)
        return code
    return _report_outcome(outcome, as_json)


# ERR-1: a turn that failed under the database (its server lost, its disk full) exits as any command's database
# failure does; the operating system's failures as its; the agent's and the provider's with 1.
_TURN_FAILURE_CODES = {"database": EXIT_DATABASE, "system": EXIT_SYSTEM}


def _report_outcome(outcome: TurnOutcome, as_json: bool) -> int:
    if as_json:
        print(json_text(outcome.model_dump(mode="json")))
    elif outcome.text:
        print(escape_for_terminal(outcome.text, keep_newlines=True))
    for warning in outcome.warnings:  # issue 32 item 5: the turn went on, the person still hears it (ERR-1)
        print(f"xworkmate: warning: {escape_for_terminal(warning)}", file=sys.stderr)
    if outcome.status is TurnEnding.FAILED:
        raise CliError(outcome.error or "the run failed", _TURN_FAILURE_CODES.get(outcome.failure or "", EXIT_ERROR))
    if outcome.refused_approvals:
        raise CliError(outcome.refused_approvals[0])
    if outcome.status is TurnEnding.STEP_LIMIT:
        raise CliError("the turn stopped at its step limit before the agent finished")
    if outcome.status is TurnEnding.STOPPED:
        raise CliError(outcome.error or "the turn was stopped")
    return 0


def _message_json(message: Message) -> dict[str, Any]:
    return {
        "id": message.id,
        "thread_id": message.thread_id,
        "role": message.role.value,
        "source": message.source.value,
        "state": message.state.value,
        "content": redact(message.content),  # SEC-1: derived text; the stored message keeps what was typed
        "created_at": message.created_at.isoformat(),
        "quarantined": message.quarantined,
        "nul_replaced": nul_replaced(message.payload),  # ERR-3
        # SBX-4: a network-log notice's destination and verdict (host, port, allowed).
        "network": (message.payload or {}).get("network"),
        # ATT-1: what the person attached (name, type, size; the bytes are in `export --format json`).
        "attachments": [
            {"name": a.name, "mime_type": a.mime_type, "size": a.size, "kind": a.kind.value}
            for a in attachments_in(message.payload)
        ],
    }


def cmd_task_start(args: argparse.Namespace, controller: SessionController) -> int:
    started = controller.tasks.start_task(
        args.from_key,
        args.goal,
        context=args.context or "",
        category=args.category,  # omitted → None → a normal task, as the agent's task_start tool (CAT-5)
        model=args.model,
        mode=args.mode,
        title=args.title,
    )
    thread = started.task
    if args.json:
        print(
            json_text(
                {
                    **thread_json(thread, controller.lines.state_of(thread)),
                    "dispatch_source_ids": list(started.source_ids),
                    "reminder": started.reminder,
                }
            )
        )
    else:
        print(
            escape_for_terminal(
                f"started task {thread.thread_id} ({thread.category or 'normal'}) under {started.dispatcher_key}"
            )
        )
        if started.reminder:
            print(escape_for_terminal(started.reminder, keep_newlines=True))
    return 0


def cmd_task_send(args: argparse.Namespace, controller: SessionController) -> int:
    # The controller's one follow-up policy (issue 14). This command runs no turn: a task running
    # elsewhere takes the follow-up when its current step ends; an idle one on its next `task run`.
    # Issue 31: to a task whose turn runs (here or in the window) it is queued, as the window's Send.
    sent = controller.followups.follow_up(args.key, args.text)
    if args.json:
        print(
            json_text(
                {
                    "task": sent.key,
                    "message_id": sent.message_id,
                    "dispatch_source_ids": list(sent.source_ids),
                    "delivery": sent.delivery,
                    "queued": sent.queued,
                },
                indent=None,
            )
        )
    elif sent.queued is not None:
        print(
            f"queued as follow-up {sent.queued} on {sent.key}: its turn is running; it is sent as its own turn when"
            " that turn ends (`xworkmate queue list` shows the queue)"
        )
    else:
        print(f"sent to {sent.key}; its dispatch sources now hold {len(sent.source_ids)} message(s)")
    return 0


def cmd_task_sources(args: argparse.Namespace, controller: SessionController) -> int:
    sources = controller.tasks.task_sources(args.key)
    controller.know_provider_keys()
    if args.json:
        print(json_text([_message_json(m) for m in sources]))
    else:
        for m in sources:
            print(f"#{m.id} [{m.thread_id}] {_body(m.content)}")
    return 0


def cmd_task_run(args: argparse.Namespace, controller: SessionController) -> int:
    return _run_headless(controller, args.key, None, args.provider, args.json)


# ``messages quarantine ID`` / ``messages release ID``: no session key is spelled like these words.
MESSAGE_ACTIONS = ("quarantine", "release")
HIDDEN_MARK = " (hidden from the model)"


def cmd_messages(args: argparse.Namespace, controller: SessionController) -> int:
    if args.key in MESSAGE_ACTIONS:
        return _cmd_message_action(args, controller)
    if args.message_id is not None:
        raise CliError(f"messages {args.key}: unexpected {args.message_id!r} (quarantine or release take an id)")
    messages = controller.tasks.messages_as(args.key, args.as_key)
    controller.know_provider_keys()
    if args.json:
        print(json_text([_message_json(m) for m in messages]))
    else:
        for m in messages:
            mark = HIDDEN_MARK if m.quarantined else ""
            print(f"#{m.id} {m.role.value}/{m.source.value}{mark}: {_body(m.content)}")
            if nul_replaced(m.payload):
                print(f"    ({NUL_REPLACED_NOTE})")  # ERR-3
    return 0


def _cmd_message_action(args: argparse.Namespace, controller: SessionController) -> int:
    """Q-1: hide a message from the model, or show it again."""
    if args.message_id is None:
        raise CliError(f"messages {args.key} needs a MESSAGE_ID")
    try:
        message_id = int(args.message_id.lstrip("#"))
    except ValueError:
        raise CliError(f"{args.message_id!r} is not a message id") from None
    if args.key == "quarantine":
        message = controller.lines.quarantine_message(message_id)
    else:
        message = controller.lines.release_message(message_id)
    if args.json:
        print(json_text(_message_json(message), indent=None))
    else:
        state = "hidden from the model" if message.quarantined else "shown to the model"
        print(escape_for_terminal(f"message {message.id} on {message.thread_id} is {state}"))
    return 0


def add_task_and_messages_parsers(sub: Any) -> None:
    """``task ACTION`` and ``messages``."""
    task = sub.add_parser("task", help="background tasks")
    ksub = task.add_subparsers(dest="task_command", metavar="ACTION", required=True)
    kstart = add_command(ksub, "start", cmd_task_start, "start a task under a line (normal unless --category)")
    kstart.add_argument("--from", dest="from_key", required=True, metavar="KEY")
    kstart.add_argument("--goal", required=True)
    kstart.add_argument("--context")
    kstart.add_argument("--category", help="the dispatcher's own category, for a category task")
    kstart.add_argument("--model", help="provider (or model) for the task")
    kstart.add_argument("--mode", choices=["native", "acp"], default="native")
    kstart.add_argument("--title")
    ksend = add_command(
        ksub,
        "send",
        cmd_task_send,
        "send a task a follow-up (its dispatch sources are re-captured when it is delivered); to a running"
        " task it is queued and sent as its own turn when that turn ends, an idle one answers it on its next"
        " `task run`",
    )
    ksend.add_argument("key")
    ksend.add_argument("text")
    ksrc = add_command(
        ksub, "sources", cmd_task_sources, "the human messages a task was dispatched on, as it sees them"
    )
    ksrc.add_argument("key")
    krun = add_command(ksub, "run", cmd_task_run, "run a task's turn on what it was dispatched with, headless")
    krun.add_argument("key")
    krun.add_argument("--provider", metavar="NAME")

    msgs = add_command(
        sub,
        "messages",
        cmd_messages,
        "a line's messages, optionally as another line may read them;"
        " `messages quarantine|release MESSAGE_ID` hides a message from the model or shows it again",
    )
    msgs.add_argument("key", metavar="KEY|quarantine|release")
    msgs.add_argument("message_id", nargs="?", metavar="MESSAGE_ID", help="with quarantine or release")
    msgs.add_argument("--as", dest="as_key", metavar="VIEWER_KEY")


def add_run_parser(sub: Any) -> None:
    """``run KEY PROMPT``: one headless turn."""
    run = add_command(sub, "run", cmd_run, "run one agent turn on a line, headless")
    run.add_argument("key")
    run.add_argument("prompt", nargs="?")
    run.add_argument("--provider", metavar="NAME", help="use this provider for the turn")
    run.add_argument(
        "--resume",
        action="store_true",
        help="continue the line's turn that a crash interrupted (no PROMPT; native: its last step runs again,"
        " ACP: the agent's session is resumed)",
    )
    run.add_argument(
        "--attach",
        action="append",
        metavar="FILE",
        help="attach an image (up to 10 MB) or a text file (up to 256 KiB) to the message; repeatable",
    )
    run.add_argument(
        "--answer",
        action="append",
        metavar="NAME=VALUE",
        help="an ACP agent's form asks for NAME: answer VALUE (typed as the form says); repeatable",
    )
