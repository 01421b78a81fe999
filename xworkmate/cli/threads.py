"""``thread ...``: task lines, their folders, settings, categories, generations and forks."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from xworkmate.cli.agent import add_thread_commands, add_thread_set_arguments, apply_thread_set, thread_extras_json
from xworkmate.cli.common import CliError, Command, add_command
from xworkmate.domain.secrets import redact
from xworkmate.domain.threads import LineState, NetworkAccess, PermissionLevel, TaskThread
from xworkmate.domain.tool_trust import TOOL_TRUST
from xworkmate.domain.tools import ToolTrust
from xworkmate.terminal_text import escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController

# issue 33 item 3: named from the tool table (domain/tools.py), not restated here
_UNTRUSTED_TOOLS = ", ".join(name for name, trust in TOOL_TRUST.items() if trust is ToolTrust.UNTRUSTED)
_EVERY_HOST = "*"  # ``--no-allow-host`` without a destination: clear the list


def thread_json(thread: TaskThread, state: LineState) -> dict[str, Any]:
    binding = thread.workspace_binding
    return {
        "session_key": thread.thread_id,
        "thread_id": thread.thread_id,
        "title": redact(thread.title),  # SEC-1: a title made from a message before titles were redacted
        "kind": thread.kind.value,
        "status": state.status.value,
        "status_reason": state.reason,  # ISO-4: why it is not runnable (SBX-3: how its folder was swapped)
        "workspace_path": binding.path,
        "workspace_kind": binding.kind.value,
        "workspace_bound_by": binding.bound_by.value,
        "worktree_repo": binding.repo,
        "worktree_branch": binding.branch,
        "execution_mode": thread.execution_binding.mode.value,
        "provider": thread.execution_binding.provider,
        "model": thread.execution_binding.model,
        "acp_session_id": thread.execution_binding.acp_session_id,
        "permission_level": thread.context_state.permission_level.value,
        "network": thread.context_state.network.value,
        "allowed_hosts": list(thread.context_state.allowed_hosts),
        "command_env_names": list(thread.context_state.command_env_names),
        "turn_limit_s": thread.context_state.turn_limit_s,
        "quarantine_untrusted": thread.context_state.quarantine_untrusted,
        "selected_skills": list(thread.context_state.selected_skills),  # SKL-1
        "parent_key": thread.parent_key,
        "category": thread.category,
        "archived": thread.archived,
        "created_at": thread.created_at.isoformat(),
        "updated_at": thread.updated_at.isoformat(),
    }


def _print_thread(controller: SessionController, thread: TaskThread, as_json: bool) -> None:
    state = controller.lines.state_of(thread)
    if as_json:
        print(json_text({**thread_json(thread, state), **thread_extras_json(controller, thread.thread_id)}))
        return
    marker = "*" if thread.thread_id == controller.lines.current_key else " "
    print(f"{marker} {thread.thread_id}  [{state.status.value}]  {escape_for_terminal(redact(thread.title))}")
    folder = escape_for_terminal(thread.workspace_binding.path or "(none)")
    print(f"    folder: {folder} ({thread.workspace_binding.bound_by.value})")
    if thread.context_state.selected_skills:  # SKL-1
        print(f"    skills: {escape_for_terminal(', '.join(thread.context_state.selected_skills))}")
    if thread.workspace_binding.branch is not None:
        repo = escape_for_terminal(thread.workspace_binding.repo or "")
        print(f"    worktree of {repo} on branch {escape_for_terminal(thread.workspace_binding.branch)}")


def cmd_thread_new(args: argparse.Namespace, controller: SessionController) -> int:
    if args.branch is not None and args.worktree is None:
        raise CliError("--branch names the new branch of a worktree line: give --worktree REPO too")
    if args.worktree is not None:
        if args.workspace is not None:
            raise CliError("give --worktree REPO or --workspace DIR, not both")
        thread = controller.lines.create_worktree_line(args.worktree, branch=args.branch, title=args.title)
        _print_thread(controller, thread, args.json)
        return 0
    thread = controller.lines.create_line(title=args.title, workspace=args.workspace)
    _print_thread(controller, thread, args.json)
    return 0


def cmd_thread_list(args: argparse.Namespace, controller: SessionController) -> int:
    summaries = controller.lines.list_lines(include_archived=args.all)
    if args.json:
        rows = [
            {
                "session_key": s.thread_id,
                "thread_id": s.thread_id,
                "title": redact(s.title),
                "kind": s.kind.value,
                "status": state.status.value,
                "status_reason": state.reason,
                "workspace_path": s.workspace_path,
                "parent_key": s.parent_key,
                "category": s.category,
                "archived": s.archived,
                "current": s.thread_id == controller.lines.current_key,
            }
            for s in summaries
            for state in (controller.lines.summary_state(s),)
        ]
        print(json_text(rows))
        return 0
    lines = controller.lines
    for s in summaries:
        marker = "*" if s.thread_id == lines.current_key else " "
        print(f"{marker} {s.thread_id}  [{lines.summary_status(s).value}]  {escape_for_terminal(redact(s.title))}")
    return 0


def cmd_thread_show(args: argparse.Namespace, controller: SessionController) -> int:
    thread = controller.get_thread(args.key)
    interrupted = controller.turns.interruption(thread.thread_id)  # issue 31: a turn a crash cut short, to resume
    if args.json:
        extra = {"interrupted_turn": interrupted is not None}
        print(
            json_text(
                {
                    **thread_json(thread, controller.lines.state_of(thread)),
                    **thread_extras_json(controller, thread.thread_id),
                    **extra,
                }
            )
        )
        return 0
    _print_thread(controller, thread, False)
    if interrupted is not None:
        print(
            "    interrupted: a crash cut its last turn short; continue it with"
            f" `xworkmate run {thread.thread_id} --resume`"
        )
    return 0


def cmd_thread_bind(args: argparse.Namespace, controller: SessionController) -> int:
    _print_thread(controller, controller.lines.bind_workspace(args.key, args.workspace), args.json)
    return 0


def cmd_thread_archive(args: argparse.Namespace, controller: SessionController) -> int:
    from xworkmate.controllers.worktrees import WorktreeDirtyError

    try:
        thread = controller.lines.archive_line(args.key, force=args.force)
    except WorktreeDirtyError as exc:
        raise CliError(f"{exc} (--force removes it, losing them)") from exc
    _print_thread(controller, thread, args.json)
    return 0


def cmd_thread_unarchive(args: argparse.Namespace, controller: SessionController) -> int:
    _print_thread(controller, controller.lines.unarchive_line(args.key), args.json)
    return 0


def cmd_thread_set(args: argparse.Namespace, controller: SessionController) -> int:
    thread = controller.get_thread(args.key)
    if args.permission is not None:
        thread = controller.line_settings.set_permission(thread.thread_id, args.permission)
    if args.mode is not None or args.provider is not None:
        thread = controller.line_settings.set_execution(
            thread.thread_id, args.mode or thread.execution_binding.mode.value, args.provider
        )
    if args.title is not None:
        thread = controller.lines.rename_line(thread.thread_id, args.title)
    if args.network is not None:
        thread = controller.line_settings.set_network(thread.thread_id, args.network)
    if args.allow_host or args.no_allow_host:
        removed = [entry for entry in args.no_allow_host or () if entry != _EVERY_HOST]
        thread = controller.line_settings.set_allowed_hosts(
            thread.thread_id,
            add=args.allow_host or (),
            remove=removed,
            clear=_EVERY_HOST in (args.no_allow_host or ()),
        )
    if args.env is not None or args.clear_env:
        names = [] if args.clear_env else [n for item in args.env for n in item.split(",")]
        thread = controller.line_settings.set_command_env(thread.thread_id, names)
    if args.turn_limit is not None:
        thread = controller.line_settings.set_turn_limit(thread.thread_id, args.turn_limit)
    if args.quarantine_untrusted is not None:
        thread = controller.line_settings.set_quarantine_untrusted(thread.thread_id, args.quarantine_untrusted)
    if args.skill or args.no_skill:
        thread = controller.skills.set_skills(thread.thread_id, add=args.skill or (), remove=args.no_skill or ())
    apply_thread_set(args, controller, thread)  # issue 15: MCP servers, the agent's mode/model/options
    _print_thread(controller, thread, args.json)
    return 0


def cmd_thread_category(args: argparse.Namespace, controller: SessionController) -> int:
    moved = controller.tasks.set_category(args.key, None if args.clear else args.set)
    thread = controller.get_thread(args.key)
    if args.json:
        print(json_text({**thread_json(thread, controller.lines.state_of(thread)), "relabelled": moved}))
    else:
        label = thread.category or "normal"
        print(escape_for_terminal(f"{thread.thread_id} is now {label}; relabelled {len(moved)} line(s) in its subtree"))
    return 0


def cmd_thread_compact(args: argparse.Namespace, controller: SessionController) -> int:
    generation = controller.tasks.compact(args.key)
    print(
        json_text({"session_key": args.key, "current_session_id": generation}, indent=None) if args.json else generation
    )
    return 0


def cmd_thread_fork(args: argparse.Namespace, controller: SessionController) -> int:
    _print_thread(controller, controller.tasks.fork(args.key, title=args.title), args.json)
    return 0


def add_thread_parser(sub: Any) -> None:
    """``thread ACTION``: task lines."""
    thread = sub.add_parser("thread", help="task lines")
    tsub = thread.add_subparsers(dest="thread_command", metavar="ACTION", required=True)

    def add(name: str, func: Command, help_text: str) -> argparse.ArgumentParser:
        return add_command(tsub, name, func, help_text)

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
    levels = [level.value for level in PermissionLevel]
    tset.add_argument("--permission", choices=levels, help="what the agent may do unasked")
    tset.add_argument("--title")
    tset.add_argument("--mode", choices=["native", "acp"], help="built-in agent, or an external agent CLI")
    tset.add_argument(
        "--network",
        choices=[n.value for n in NetworkAccess],
        help="the network the line's sandboxed processes reach: none, only --allow-host entries, or all (SBX-4)",
    )
    tset.add_argument(
        "--allow-host",
        action="append",
        metavar="HOST:PORT",
        help="add a destination an allow-list line (and its ACP agent) may reach; repeatable (SBX-4)",
    )
    tset.add_argument(
        "--no-allow-host",
        action="append",
        nargs="?",
        const=_EVERY_HOST,
        metavar="HOST:PORT",
        help="remove one destination from the line's allow-list, or, without one, all of them",
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
        help=f"store untrusted tools' output ({_UNTRUSTED_TOOLS}) hidden from the model, as a placeholder (Q-1)",
    )
    tset.add_argument(
        "--skill", action="append", metavar="NAME", help="select a skill for the line; repeatable (SKL-1)"
    )
    tset.add_argument("--no-skill", action="append", metavar="NAME", help="unselect a skill; repeatable")

    add_thread_set_arguments(tset)  # issue 15
    add_thread_commands(add)

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
