"""The command line (SPEC §8): the same controllers the window uses.

Every command prints human-readable text or, with ``--json``, JSON; a failure
is one line on stderr and a non-zero exit. Whatever came from a person, a model
or an agent is printed through ``terminal_text`` (issue 12 part 8): control and
bidi characters are shown as escapes, so rows never split or reorder.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError

from xworkmate import __version__
from xworkmate.controllers import SessionController, UnknownSessionKeyError, WorkspaceBindingError
from xworkmate.controllers.failures import describe_failure
from xworkmate.controllers.worktrees import WorktreeDirtyError
from xworkmate.domain.categories import InvalidCategoryError
from xworkmate.domain.keys import InvalidSessionKeyError
from xworkmate.domain.messages import Message
from xworkmate.domain.providers import ProviderKind, ProviderRecord, parse_env_ref
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.stored_text import NUL_REPLACED_NOTE, nul_replaced
from xworkmate.domain.threads import TaskThread, ThreadStatus
from xworkmate.llm.errors import LLMError
from xworkmate.logfile import install_log_file
from xworkmate.settings import Settings
from xworkmate.store import StoreOpenError, describe_database_url, open_store
from xworkmate.terminal_text import escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers.runs import TurnOutcome

# Exit codes (ERR-1): each kind of failure its own, so scripts can tell them apart.
log = logging.getLogger(__name__)
# Tracebacks go to the log file only (ERR-1): without a file, nowhere — never Python's last-resort stderr.
logging.getLogger("xworkmate").addHandler(logging.NullHandler())

EXIT_ERROR = 1  # refused: bad input, unknown key, not runnable, a rule of the product
EXIT_DATABASE = 3  # the database failed (locked, read-only, full, unreachable)
EXIT_SYSTEM = 4  # the operating system failed (disk full, permission denied, no such file)
EXIT_INTERRUPTED = 130  # SIGINT (Ctrl+C): 128 + 2
EXIT_TERMINATED = 143  # SIGTERM: 128 + 15
EXIT_INTERNAL = 70  # a bug of ours (EX_SOFTWARE); the traceback is in the log file

Command = Callable[[argparse.Namespace, SessionController], int]


class CliError(Exception):
    """A failure to report as one line."""


def _settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "settings"
        raise CliError(f"invalid setting XWORKMATE_{field.upper()}: {first['msg']}") from exc


def open_controller(settings: Settings | None = None) -> SessionController:
    settings = settings or _settings()
    store = open_store(settings.effective_database_url)
    return SessionController(store, settings)


def thread_json(thread: TaskThread, status: ThreadStatus) -> dict[str, Any]:
    binding = thread.workspace_binding
    return {
        "session_key": thread.thread_id,
        "thread_id": thread.thread_id,
        "title": thread.title,
        "kind": thread.kind.value,
        "status": status.value,
        "workspace_path": binding.path,
        "workspace_kind": binding.kind.value,
        "workspace_bound_by": binding.bound_by.value,
        "worktree_repo": binding.repo,
        "worktree_branch": binding.branch,
        "execution_mode": thread.execution_binding.mode.value,
        "provider": thread.execution_binding.provider,
        "model": thread.execution_binding.model,
        "permission_level": thread.context_state.permission_level.value,
        "network": thread.context_state.network.value,
        "command_env_names": list(thread.context_state.command_env_names),
        "turn_limit_s": thread.context_state.turn_limit_s,
        "quarantine_untrusted": thread.context_state.quarantine_untrusted,
        "parent_key": thread.parent_key,
        "category": thread.category,
        "archived": thread.archived,
        "created_at": thread.created_at.isoformat(),
        "updated_at": thread.updated_at.isoformat(),
    }


def _body(text: str) -> str:
    """A multi-line body under its header: line breaks kept, later lines indented so none looks like a header."""
    return escape_for_terminal(text, keep_newlines=True).replace("\n", "\n    ")


def _print_thread(controller: SessionController, thread: TaskThread, as_json: bool) -> None:
    status = controller.status_of(thread)
    if as_json:
        from xworkmate.cli_agent import thread_extras_json

        print(json_text({**thread_json(thread, status), **thread_extras_json(controller, thread.thread_id)}))
        return
    marker = "*" if thread.thread_id == controller.current_key else " "
    print(f"{marker} {thread.thread_id}  [{status.value}]  {escape_for_terminal(thread.title)}")
    folder = escape_for_terminal(thread.workspace_binding.path or "(none)")
    print(f"    folder: {folder} ({thread.workspace_binding.bound_by.value})")
    if thread.workspace_binding.branch is not None:
        repo = escape_for_terminal(thread.workspace_binding.repo or "")
        print(f"    worktree of {repo} on branch {escape_for_terminal(thread.workspace_binding.branch)}")


# -- commands -----------------------------------------------------------------


def cmd_gui(args: argparse.Namespace, controller: SessionController) -> int:
    if args.smoke_test:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from xworkmate.ui.app import run_gui

    return run_gui(controller, smoke_test=args.smoke_test)


def cmd_thread_new(args: argparse.Namespace, controller: SessionController) -> int:
    if args.branch is not None and args.worktree is None:
        raise CliError("--branch names the new branch of a worktree line: give --worktree REPO too")
    if args.worktree is not None:
        if args.workspace is not None:
            raise CliError("give --worktree REPO or --workspace DIR, not both")
        thread = controller.create_worktree_line(args.worktree, branch=args.branch, title=args.title)
        _print_thread(controller, thread, args.json)
        return 0
    thread = controller.create_line(title=args.title, workspace=args.workspace)
    _print_thread(controller, thread, args.json)
    return 0


def cmd_thread_list(args: argparse.Namespace, controller: SessionController) -> int:
    summaries = controller.list_lines(include_archived=args.all)
    if args.json:
        rows = [
            {
                "session_key": s.thread_id,
                "thread_id": s.thread_id,
                "title": s.title,
                "kind": s.kind.value,
                "status": controller.summary_status(s).value,
                "workspace_path": s.workspace_path,
                "parent_key": s.parent_key,
                "category": s.category,
                "archived": s.archived,
                "current": s.thread_id == controller.current_key,
            }
            for s in summaries
        ]
        print(json_text(rows))
        return 0
    for s in summaries:
        marker = "*" if s.thread_id == controller.current_key else " "
        print(f"{marker} {s.thread_id}  [{controller.summary_status(s).value}]  {escape_for_terminal(s.title)}")
    return 0


def cmd_thread_show(args: argparse.Namespace, controller: SessionController) -> int:
    _print_thread(controller, controller.get_thread(args.key), args.json)
    return 0


def cmd_thread_bind(args: argparse.Namespace, controller: SessionController) -> int:
    _print_thread(controller, controller.bind_workspace(args.key, args.workspace), args.json)
    return 0


def cmd_thread_archive(args: argparse.Namespace, controller: SessionController) -> int:
    try:
        thread = controller.archive_line(args.key, force=args.force)
    except WorktreeDirtyError as exc:
        raise CliError(f"{exc} (--force removes it, losing them)") from exc
    _print_thread(controller, thread, args.json)
    return 0


def cmd_thread_unarchive(args: argparse.Namespace, controller: SessionController) -> int:
    _print_thread(controller, controller.unarchive_line(args.key), args.json)
    return 0


def cmd_thread_set(args: argparse.Namespace, controller: SessionController) -> int:
    thread = controller.get_thread(args.key)
    if args.permission is not None:
        thread = controller.set_permission(thread.thread_id, args.permission)
    if args.mode is not None or args.provider is not None:
        thread = controller.set_execution(
            thread.thread_id, args.mode or thread.execution_binding.mode.value, args.provider
        )
    if args.title is not None:
        thread = controller.rename_line(thread.thread_id, args.title)
    if args.network is not None:
        thread = controller.set_network(thread.thread_id, args.network)
    if args.env is not None or args.clear_env:
        names = [] if args.clear_env else [n for item in args.env for n in item.split(",")]
        thread = controller.set_command_env(thread.thread_id, names)
    if args.turn_limit is not None:
        thread = controller.set_turn_limit(thread.thread_id, args.turn_limit)
    if args.quarantine_untrusted is not None:
        thread = controller.set_quarantine_untrusted(thread.thread_id, args.quarantine_untrusted)
    from xworkmate.cli_agent import apply_thread_set

    apply_thread_set(args, controller, thread)  # issue 15: MCP servers, the agent's mode/model/options
    _print_thread(controller, thread, args.json)
    return 0


def _provider_json(record: ProviderRecord) -> dict[str, Any]:
    return {
        "name": record.name,
        "kind": record.kind.value,
        "base_url": record.base_url,
        "model": record.model,
        "tags": list(record.tags),
        "api_key_env": record.api_key_env,
        "api_key_keyring": record.api_key_keyring,
        "default": record.is_default,
        "acp_command": list(record.acp_command) or None,
        "acp_state_dirs": _state_dirs_json(record),
        "acp_auth_method": record.acp_auth_method,
    }


def _provider_list_json(controller: SessionController, record: ProviderRecord) -> dict[str, Any]:
    """``provider list``: also what an ACP agent reported in ``agentInfo`` when it last ran (issue 15)."""
    info = controller.acp_agent_info(record.name) if record.kind is ProviderKind.ACP else None
    return {**_provider_json(record), "agent_info": info.model_dump() if info is not None else None}


def _state_dirs_json(record: ProviderRecord) -> list[str] | None:
    if record.kind is not ProviderKind.ACP:
        return None
    from xworkmate.controllers.containment import agent_state_dirs

    return list(agent_state_dirs(record.acp_command, record.acp_state_dirs))


def cmd_provider_add(args: argparse.Namespace, controller: SessionController) -> int:
    import shlex

    api_key: str | None = None
    if args.acp_command:
        if args.base_url or args.model or args.tag:
            raise CliError("an ACP agent takes --acp-command only: it does not go through the router (CAT-3)")
        command = tuple(shlex.split(args.acp_command))
        if not command:
            raise CliError("--acp-command is empty")
        env_refs = []
        for item in args.acp_env or []:
            try:
                env_refs.append(parse_env_ref(item))
            except ValueError as exc:  # the same rule and words as the Settings dialog
                raise CliError(f"--acp-env: {exc}") from None
        record = ProviderRecord.checked(
            name=args.name,
            kind=ProviderKind.ACP,
            acp_command=command,
            acp_env_refs=tuple(env_refs),
            # SBX-1: folders the agent may write in its sandbox; none given: the known agent's defaults.
            acp_state_dirs=tuple(args.acp_state_dir) if args.acp_state_dir else None,
            acp_auth_method=args.acp_auth,
            is_default=args.default,
        )
    else:
        if args.acp_auth:
            raise CliError("--acp-auth is for an ACP agent (--acp-command): it names one of its sign-in methods")
        missing = [flag for flag, value in (("--base-url", args.base_url), ("--model", args.model)) if not value]
        if missing:
            raise CliError(f"an OpenAI-compatible provider needs {' and '.join(missing)} (or use --acp-command)")
        if args.api_key_stdin:
            # Read now, stored only once the controller has checked the whole provider (SEC-1).
            api_key = sys.stdin.readline().strip()
        record = ProviderRecord.checked(
            name=args.name,
            kind=ProviderKind.OPENAI,
            base_url=args.base_url,
            model=args.model,
            tags=tuple(args.tag or ()),
            api_key_env=args.api_key_env,
            api_key_keyring=bool(args.api_key_stdin or args.keyring),
            is_default=args.default,
        )
    stored = controller.add_provider(record, replace=args.replace, api_key=api_key)
    if args.json:
        print(json_text(_provider_json(stored)))
    elif stored.kind is ProviderKind.ACP:
        print(escape_for_terminal(f"added ACP agent {stored.name}: {' '.join(stored.acp_command)}"))
    else:
        print(escape_for_terminal(f"added provider {stored.name}: {stored.model} at {stored.base_url}"))
    return 0


def cmd_provider_set(args: argparse.Namespace, controller: SessionController) -> int:
    """Change an existing provider; today: the sign-in method of an ACP agent (issue 15)."""
    record = controller.get_provider(args.name)
    if record is None:
        raise CliError(f"no provider named {args.name!r}")
    if args.acp_auth is None:
        raise CliError("nothing to change: give --acp-auth METHOD (or --acp-auth none)")
    method = None if args.acp_auth == "none" else args.acp_auth
    stored = controller.add_provider(record.model_copy(update={"acp_auth_method": method}), replace=True)
    if args.json:
        print(json_text(_provider_json(stored)))
    else:
        chosen = stored.acp_auth_method or "the only one it offers, or ask"
        print(escape_for_terminal(f"{stored.name} signs in with: {chosen}"))
    return 0


def cmd_provider_discover(args: argparse.Namespace, controller: SessionController) -> int:
    found = controller.discover_acp_agents()
    if args.json:
        print(json_text([{**_provider_json(r), "version": r.model} for r in found]))
        return 0
    if not found:
        print(
            "no agent CLI found on PATH (looked for qwen, gemini, codex-acp, claude-code-acp, opencode, goose);"
            ' add one by hand with: xworkmate provider add NAME --acp-command "CMD ARGS..."'
        )
    for r in found:
        print(escape_for_terminal(f"{r.name}  {' '.join(r.acp_command)}  {r.model or '(version unknown)'}"))
    return 0


def cmd_provider_list(args: argparse.Namespace, controller: SessionController) -> int:
    records = controller.providers()
    if args.json:
        print(json_text([_provider_list_json(controller, r) for r in records]))
        return 0
    if not records:
        print("no providers; add one with: xworkmate provider add NAME --base-url URL --model MODEL")
    for r in records:
        tags = f" tags={','.join(r.tags)}" if r.tags else ""
        if r.kind is ProviderKind.ACP:
            info = controller.acp_agent_info(r.name)
            reported = f" (reports {info.label})" if info is not None else ""
            command = " ".join(r.acp_command)
            print(escape_for_terminal(f"{'*' if r.is_default else ' '} {r.name}  ACP: {command}{reported}"))
            continue
        print(escape_for_terminal(f"{'*' if r.is_default else ' '} {r.name}  {r.model} at {r.base_url}{tags}"))
    return 0


def cmd_provider_remove(args: argparse.Namespace, controller: SessionController) -> int:
    controller.remove_provider(args.name)
    if not args.json:
        print(escape_for_terminal(f"removed provider {args.name}"))
    else:
        print(json_text({"removed": args.name}, indent=None))
    return 0


def cmd_run(args: argparse.Namespace, controller: SessionController) -> int:
    # The controller's one gate decides whether the turn runs, and says why not (issue 13).
    return _run_headless(controller, args.key, args.prompt, args.provider, args.json)


class _TurnSignalled(Exception):
    """SIGINT or SIGTERM ended a headless turn as Stop ends it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _run_headless(
    controller: SessionController, key: str, prompt: str | None, provider: str | None, as_json: bool
) -> int:
    """One turn for ``run`` and ``task run``. SIGINT and SIGTERM stop it as Stop does: the partial answer
    and a "Stopped" notice are kept (an ACP agent is reaped), then the exit is 130 or 143 with one line."""
    import asyncio
    import signal

    async def turn() -> TurnOutcome:
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(controller.run_turn(key, prompt, provider=provider, headless=True))
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


def _report_outcome(outcome: TurnOutcome, as_json: bool) -> int:
    if as_json:
        print(json_text(outcome.model_dump(mode="json")))
    elif outcome.text:
        print(escape_for_terminal(outcome.text, keep_newlines=True))
    if outcome.status == "failed":
        raise CliError(outcome.error or "the run failed")
    if outcome.refused_approvals:
        raise CliError(outcome.refused_approvals[0])
    if outcome.status == "step_limit":
        raise CliError("the turn stopped at its step limit before the agent finished")
    if outcome.status == "stopped":
        raise CliError(outcome.error or "the turn was stopped")
    return 0


def _message_json(message: Message) -> dict[str, Any]:
    return {
        "id": message.id,
        "thread_id": message.thread_id,
        "role": message.role.value,
        "source": message.source.value,
        "state": message.state.value,
        "content": message.content,
        "created_at": message.created_at.isoformat(),
        "quarantined": message.quarantined,
        "nul_replaced": nul_replaced(message.payload),  # ERR-3
    }


def cmd_thread_category(args: argparse.Namespace, controller: SessionController) -> int:
    moved = controller.set_category(args.key, None if args.clear else args.set)
    thread = controller.get_thread(args.key)
    if args.json:
        print(json_text({**thread_json(thread, controller.status_of(thread)), "relabelled": moved}))
    else:
        label = thread.category or "normal"
        print(escape_for_terminal(f"{thread.thread_id} is now {label}; relabelled {len(moved)} line(s) in its subtree"))
    return 0


def cmd_thread_compact(args: argparse.Namespace, controller: SessionController) -> int:
    generation = controller.compact(args.key)
    print(
        json_text({"session_key": args.key, "current_session_id": generation}, indent=None) if args.json else generation
    )
    return 0


def cmd_thread_fork(args: argparse.Namespace, controller: SessionController) -> int:
    _print_thread(controller, controller.fork(args.key, title=args.title), args.json)
    return 0


def cmd_task_start(args: argparse.Namespace, controller: SessionController) -> int:
    started = controller.start_task(
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
                    **thread_json(thread, controller.status_of(thread)),
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
    sent = controller.follow_up(args.key, args.text)
    if args.json:
        print(
            json_text(
                {
                    "task": sent.key,
                    "message_id": sent.message_id,
                    "dispatch_source_ids": list(sent.source_ids),
                },
                indent=None,
            )
        )
    else:
        print(f"sent to {sent.key}; its dispatch sources now hold {len(sent.source_ids)} message(s)")
    return 0


def cmd_task_sources(args: argparse.Namespace, controller: SessionController) -> int:
    sources = controller.task_sources(args.key)
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
    messages = controller.messages_as(args.key, args.as_key)
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
        message = controller.quarantine_message(message_id)
    else:
        message = controller.release_message(message_id)
    if args.json:
        print(json_text(_message_json(message), indent=None))
    else:
        state = "hidden from the model" if message.quarantined else "shown to the model"
        print(escape_for_terminal(f"message {message.id} on {message.thread_id} is {state}"))
    return 0


# -- parser -------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="xworkmate", description="XWorkmate: a desktop workbench for AI agent tasks.")
    parser.add_argument("--version", action="version", version=f"xworkmate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    gui = sub.add_parser("gui", help="open the window")
    gui.add_argument("--smoke-test", action="store_true", help="build the main window offscreen, print ok, exit")
    gui.set_defaults(func=cmd_gui)

    thread = sub.add_parser("thread", help="task lines")
    tsub = thread.add_subparsers(dest="thread_command", metavar="ACTION", required=True)

    def add(name: str, func: Command, help_text: str) -> argparse.ArgumentParser:
        p = tsub.add_parser(name, help=help_text)
        p.add_argument("--json", action="store_true", help="print JSON")
        p.set_defaults(func=func)
        return p

    new = add("new", cmd_thread_new, "create a task line with its own key and folder")
    new.add_argument("--title", help="title shown in the list")
    new.add_argument("--workspace", metavar="DIR", help="bind this existing folder instead of a new one")
    new.add_argument(
        "--worktree", metavar="REPO", help="a new git worktree of this repository, on a new branch (issue 16)"
    )
    new.add_argument("--branch", metavar="NAME", help="the worktree's new branch (default xworkmate/<folder name>)")
    lst = add("list", cmd_thread_list, "list task lines")
    lst.add_argument("--all", action="store_true", help="include archived lines")
    show = add("show", cmd_thread_show, "show one task line")
    show.add_argument("key")
    bind = add("bind", cmd_thread_bind, "bind a task line to an existing folder")
    bind.add_argument("key")
    bind.add_argument("--workspace", metavar="DIR", required=True)
    archive = add("archive", cmd_thread_archive, "archive a task line")
    archive.add_argument("key")
    archive.add_argument(
        "--force", action="store_true", help="a worktree line: remove its worktree even with uncommitted changes"
    )
    unarchive = add("unarchive", cmd_thread_unarchive, "unarchive a task line (a worktree line's worktree comes back)")
    unarchive.add_argument("key")
    tset = add("set", cmd_thread_set, "change a task line's settings")
    tset.add_argument("key")
    tset.add_argument("--permission", choices=["ask", "auto-edit", "full"], help="what the agent may do unasked")
    tset.add_argument("--title")
    tset.add_argument("--mode", choices=["native", "acp"], help="built-in agent, or an external agent CLI")
    tset.add_argument(
        "--network", choices=["off", "on"], help="whether the line's sandboxed commands reach the network (SBX-1)"
    )
    tset.add_argument(
        "--env",
        action="append",
        metavar="NAME[,NAME]",
        help="environment variables passed to the line's commands (replaces the list; never XWORKMATE_* or secrets)",
    )
    tset.add_argument("--clear-env", action="store_true", help="pass no extra variables to the line's commands")
    tset.add_argument("--provider", metavar="NAME", help="the provider (or ACP agent) this line uses")
    tset.add_argument(
        "--turn-limit",
        metavar="MINUTES",
        help="how long one turn may run before it is stopped (default 30; also 90s, 2h)",
    )
    tset.add_argument(
        "--quarantine-untrusted",
        choices=["off", "on"],
        help="store untrusted tools' output (run_command) hidden from the model, as a placeholder (Q-1)",
    )

    from xworkmate.cli_agent import add_mcp_parser, add_thread_commands, add_thread_set_arguments

    add_thread_set_arguments(tset)  # issue 15
    add_thread_commands(add)
    add_mcp_parser(sub)
    provider = sub.add_parser("provider", help="model providers")
    psub = provider.add_subparsers(dest="provider_command", metavar="ACTION", required=True)
    padd = psub.add_parser("add", help="add an OpenAI-compatible endpoint")
    padd.add_argument("name")
    padd.add_argument("--base-url", help="e.g. http://127.0.0.1:11434/v1")
    padd.add_argument("--model")
    padd.add_argument("--acp-command", metavar='"CMD ARGS..."', help="an agent CLI speaking ACP on stdio")
    padd.add_argument("--acp-env", action="append", metavar="NAME=env:VAR", help="environment for the agent")
    padd.add_argument(
        "--acp-state-dir",
        action="append",
        metavar="DIR",
        help="a folder the agent may write in its sandbox (its own state, e.g. ~/.qwen); repeatable; "
        "default: the known agent's own folders",
    )
    padd.add_argument(
        "--acp-auth",
        metavar="METHOD",
        help="the id of the agent's sign-in method (one of the authMethods it lists); default: the only one it"
        " offers, else the window asks and `run` refuses",
    )
    padd.add_argument("--tag", action="append", metavar="CATEGORY", help="a content category it is cleared for")
    padd.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    padd.add_argument("--keyring", action="store_true", help="the API key is in the OS keyring")
    padd.add_argument("--api-key-stdin", action="store_true", help="read the API key from stdin into the keyring")
    padd.add_argument("--default", action="store_true", help="use it when no provider is chosen")
    padd.add_argument("--replace", action="store_true", help="replace a provider of the same name")
    padd.add_argument("--json", action="store_true")
    padd.set_defaults(func=cmd_provider_add)
    pset = psub.add_parser("set", help="change a provider's settings")
    pset.add_argument("name")
    pset.add_argument(
        "--acp-auth", metavar="METHOD", help="the ACP agent's sign-in method id (`none`: the only one, or ask)"
    )
    pset.add_argument("--json", action="store_true")
    pset.set_defaults(func=cmd_provider_set)
    plist = psub.add_parser("list", help="list providers")
    plist.add_argument("--json", action="store_true")
    plist.set_defaults(func=cmd_provider_list)
    pdisc = psub.add_parser("discover", help="find agent CLIs on PATH that speak ACP")
    pdisc.add_argument("--json", action="store_true")
    pdisc.set_defaults(func=cmd_provider_discover)
    prm = psub.add_parser("remove", help="remove a provider")
    prm.add_argument("name")
    prm.add_argument("--json", action="store_true")
    prm.set_defaults(func=cmd_provider_remove)

    for name, func, help_text in (
        ("category", cmd_thread_category, "mark a line (and its subtree) with a content category, or clear it"),
        ("compact", cmd_thread_compact, "start a new session generation for a line (dispatch sources are kept)"),
        ("fork", cmd_thread_fork, "fork a line: a new line with a copy of its conversation"),
    ):
        p = add(name, func, help_text)
        p.add_argument("key")
        if name == "category":
            group = p.add_mutually_exclusive_group(required=True)
            group.add_argument("--set", metavar="CATEGORY")
            group.add_argument("--clear", action="store_true")
        if name == "fork":
            p.add_argument("--title")

    task = sub.add_parser("task", help="background tasks")
    ksub = task.add_subparsers(dest="task_command", metavar="ACTION", required=True)
    kstart = ksub.add_parser("start", help="start a task under a line (normal unless --category)")
    kstart.add_argument("--from", dest="from_key", required=True, metavar="KEY")
    kstart.add_argument("--goal", required=True)
    kstart.add_argument("--context")
    kstart.add_argument("--category", help="the dispatcher's own category, for a category task")
    kstart.add_argument("--model", help="provider (or model) for the task")
    kstart.add_argument("--mode", choices=["native", "acp"], default="native")
    kstart.add_argument("--title")
    kstart.add_argument("--json", action="store_true")
    kstart.set_defaults(func=cmd_task_start)
    ksend = ksub.add_parser(
        "send",
        help="send a task a follow-up (its dispatch sources are re-captured); a running task answers it"
        " when its current step ends, an idle one on its next `task run`",
    )
    ksend.add_argument("key")
    ksend.add_argument("text")
    ksend.add_argument("--json", action="store_true")
    ksend.set_defaults(func=cmd_task_send)
    ksrc = ksub.add_parser("sources", help="the human messages a task was dispatched on, as it sees them")
    ksrc.add_argument("key")
    ksrc.add_argument("--json", action="store_true")
    ksrc.set_defaults(func=cmd_task_sources)
    krun = ksub.add_parser("run", help="run a task's turn on what it was dispatched with, headless")
    krun.add_argument("key")
    krun.add_argument("--provider", metavar="NAME")
    krun.add_argument("--json", action="store_true")
    krun.set_defaults(func=cmd_task_run)

    msgs = sub.add_parser(
        "messages",
        help="a line's messages, optionally as another line may read them;"
        " `messages quarantine|release MESSAGE_ID` hides a message from the model or shows it again",
    )
    msgs.add_argument("key", metavar="KEY|quarantine|release")
    msgs.add_argument("message_id", nargs="?", metavar="MESSAGE_ID", help="with quarantine or release")
    msgs.add_argument("--as", dest="as_key", metavar="VIEWER_KEY")
    msgs.add_argument("--json", action="store_true")
    msgs.set_defaults(func=cmd_messages)

    doctor = sub.add_parser("doctor", help="which sandbox contains agents, the database, keyring and agents found")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(func=cmd_doctor, doctor=True)

    run = sub.add_parser("run", help="run one agent turn on a line, headless")
    run.add_argument("key")
    run.add_argument("prompt")
    run.add_argument("--provider", metavar="NAME", help="use this provider for the turn")
    run.add_argument("--json", action="store_true")
    run.set_defaults(func=cmd_run)

    from xworkmate.cli_checkpoints import add_checkpoint_commands

    add_checkpoint_commands(sub)  # changes, restore, revert, checkpoints (LOOP-1)
    from xworkmate.cli_search import add_search_and_export_commands  # LOOP-3

    add_search_and_export_commands(sub)
    return parser


def cmd_doctor(args: argparse.Namespace, controller: SessionController | None = None) -> int:
    """Print which sandbox contains agents and why, the database, the keyring and the agents found."""
    from xworkmate.controllers.doctor import gather_facts

    facts = gather_facts(_settings())
    if args.json:
        print(json_text([{"name": f.name, "ok": f.ok, "detail": f.detail} for f in facts]))
    else:
        width = max(len(f.name) for f in facts)
        for fact in facts:
            print(f"{'ok ' if fact.ok else '!! '} {fact.name.ljust(width)}  {escape_for_terminal(fact.detail)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. ERR-1: every failure ends as one line on stderr and an exit code of its kind;
    the traceback, when there is one, goes to the log file under the data folder."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Command | None = getattr(args, "func", None)
    if func is None:
        args = parser.parse_args(["gui", *(argv or [])])
        func = cmd_gui
    if func is cmd_gui and (missing := missing_gui_modules()):
        # Issue 19: the core installs without Qt; the window says in one line how to get it.
        return _fail(
            f"the window needs {' and '.join(missing)}, which are not installed: "
            "pip install 'xworkmate[gui]' (the command line works without them)",
            EXIT_ERROR,
            window=False,
            database_url="",
        )
    window = func is cmd_gui and not getattr(args, "smoke_test", False)
    database_url = ""
    log_path: Path | None = None
    try:
        settings = _settings()
        database_url = settings.effective_database_url
        log_path = install_log_file(settings.home)
        if getattr(args, "doctor", False):
            return cmd_doctor(args)  # needs no open store: a broken database is one of its facts
        controller = open_controller(settings)
        try:
            return func(args, controller)
        finally:
            controller.close()
    except _REFUSALS as exc:
        message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        return _fail(message, EXIT_ERROR, window=window, database_url=database_url)
    except KeyboardInterrupt:
        return _fail("interrupted", EXIT_INTERRUPTED, window=False, database_url=database_url)
    except Exception as exc:  # the database, the system, or a bug of ours: one line, the traceback to the log
        log.error("command failed", exc_info=True)
        message = describe_failure(exc, database_url)
        if log_path is not None:
            message = message.replace("the log file", str(log_path))
        return _fail(message, _failure_code(exc), window=window, database_url=database_url)


def missing_gui_modules() -> list[str]:
    """The window's own dependencies (the ``gui`` extra) that this installation lacks."""
    import importlib.util

    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except (ImportError, ValueError):
            return True

    return [name for name in ("PySide6", "qasync") if absent(name)]


def _failure_code(exc: Exception) -> int:
    if isinstance(exc, (SQLAlchemyError, StoreOpenError)):
        return EXIT_DATABASE
    return EXIT_SYSTEM if isinstance(exc, OSError) else EXIT_INTERNAL


# Failures that are the product saying no: one line, exit 1, no traceback anywhere.
_REFUSALS: tuple[type[BaseException], ...] = (
    CliError,
    UnknownSessionKeyError,
    InvalidSessionKeyError,
    WorkspaceBindingError,
    NotRunnable,
    InvalidCategoryError,
    LookupError,
    ValueError,
    LLMError,
)


def _fail(message: str, code: int, *, window: bool, database_url: str) -> int:
    """Say it in one line on stderr; when the window was to open, also in a dialog (ERR-1)."""
    line = escape_for_terminal(message.strip() or "failed")  # control characters shown as escapes: one line
    print(f"xworkmate: error: {line}", file=sys.stderr)
    if window:
        try:
            from xworkmate.ui.dialogs import StartupErrorDialog

            StartupErrorDialog.ask(None, line, describe_database_url(database_url))
        except Exception:  # no display: the line on stderr is all there is
            log.warning("could not show the start-up error dialog", exc_info=True)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
