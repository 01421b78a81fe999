"""``provider ...``: OpenAI-compatible endpoints and ACP agents, through the controller's checks."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from xworkmate.cli.common import CliError, add_command
from xworkmate.domain.providers import ProviderKind, ProviderRecord, parse_env_ref
from xworkmate.terminal_text import escape_for_terminal, json_text

if TYPE_CHECKING:
    from xworkmate.controllers import SessionController


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
        "acp_allow_hosts": _allow_hosts_json(record),
        "vision": record.vision,
    }


def _provider_list_json(controller: SessionController, record: ProviderRecord) -> dict[str, Any]:
    """``provider list``: also what an ACP agent reported in ``agentInfo`` when it last ran (issue 15)."""
    info = controller.agents.acp_agent_info(record.name) if record.kind is ProviderKind.ACP else None
    return {**_provider_json(record), "agent_info": info.model_dump() if info is not None else None}


def _state_dirs_json(record: ProviderRecord) -> list[str] | None:
    if record.kind is not ProviderKind.ACP:
        return None
    from xworkmate.controllers.containment import agent_state_dirs

    return list(agent_state_dirs(record.acp_command, record.acp_state_dirs))


def _allow_hosts_json(record: ProviderRecord) -> list[str] | None:
    """SBX-4: every ``host:port`` the agent's sandbox reaches: its known model hosts and the person's."""
    if record.kind is not ProviderKind.ACP:
        return None
    from xworkmate.controllers.line_network import agent_model_hosts

    return list(agent_model_hosts(record))


def cmd_provider_add(args: argparse.Namespace, controller: SessionController) -> int:
    import shlex

    api_key: str | None = None
    if args.acp_command:
        if args.base_url or args.model or args.tag or args.vision:
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
            acp_allow_hosts=tuple(args.acp_allow_host or ()),
            is_default=args.default,
        )
    else:
        if args.acp_allow_host:
            raise CliError("--acp-allow-host is for an ACP agent (--acp-command): its sandbox reaches only those")
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
            vision=args.vision,
        )
    stored = controller.providers.add_provider(record, replace=args.replace, api_key=api_key)
    if args.json:
        print(json_text(_provider_json(stored)))
    elif stored.kind is ProviderKind.ACP:
        print(escape_for_terminal(f"added ACP agent {stored.name}: {' '.join(stored.acp_command)}"))
    else:
        print(escape_for_terminal(f"added provider {stored.name}: {stored.model} at {stored.base_url}"))
    return 0


def cmd_provider_set(args: argparse.Namespace, controller: SessionController) -> int:
    """Change an existing provider: an ACP agent's sign-in method (issue 15) or the hosts its sandbox reaches
    (SBX-4: ``--acp-allow-host`` replaces the list; ``none`` empties it)."""
    record = controller.providers.get_provider(args.name)
    if record is None:
        raise CliError(f"no provider named {args.name!r}")
    if args.acp_auth is None and args.acp_allow_host is None:
        raise CliError("nothing to change: give --acp-auth METHOD (or none) or --acp-allow-host HOST:PORT (or none)")
    update: dict[str, Any] = {}
    if args.acp_auth is not None:
        update["acp_auth_method"] = None if args.acp_auth == "none" else args.acp_auth
    if args.acp_allow_host is not None:
        update["acp_allow_hosts"] = tuple(h for h in args.acp_allow_host if h != "none")
    stored = controller.providers.add_provider(ProviderRecord.checked(**{**dict(record), **update}), replace=True)
    if args.json:
        print(json_text(_provider_json(stored)))
        return 0
    if args.acp_auth is not None:
        chosen = stored.acp_auth_method or "the only one it offers, or ask"
        print(escape_for_terminal(f"{stored.name} signs in with: {chosen}"))
    if args.acp_allow_host is not None:
        hosts = ", ".join(_allow_hosts_json(stored) or ()) or "nothing"
        print(escape_for_terminal(f"{stored.name}'s sandbox reaches: {hosts}"))
    return 0


def cmd_provider_discover(args: argparse.Namespace, controller: SessionController) -> int:
    found = controller.providers.discover_acp_agents()
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
    records = controller.providers.records()
    if args.json:
        print(json_text([_provider_list_json(controller, r) for r in records]))
        return 0
    if not records:
        print("no providers; add one with: xworkmate provider add NAME --base-url URL --model MODEL")
    for r in records:
        tags = f" tags={','.join(r.tags)}" if r.tags else ""
        if r.kind is ProviderKind.ACP:
            info = controller.agents.acp_agent_info(r.name)
            reported = f" (reports {info.label})" if info is not None else ""
            command = " ".join(r.acp_command)
            print(escape_for_terminal(f"{'*' if r.is_default else ' '} {r.name}  ACP: {command}{reported}"))
            continue
        vision = " vision" if r.vision else ""  # ATT-1: it takes images
        print(escape_for_terminal(f"{'*' if r.is_default else ' '} {r.name}  {r.model} at {r.base_url}{tags}{vision}"))
    return 0


def cmd_provider_remove(args: argparse.Namespace, controller: SessionController) -> int:
    controller.providers.remove_provider(args.name)
    if not args.json:
        print(escape_for_terminal(f"removed provider {args.name}"))
    else:
        print(json_text({"removed": args.name}, indent=None))
    return 0


_ALLOW_HOST_HELP = (
    "a host the ACP agent's sandbox may reach besides its known model hosts (its model server, e.g."
    " 127.0.0.1:8080: loopback is never allowed unless named); repeatable (SBX-4)"
)


def add_provider_parser(sub: Any) -> None:
    """``provider ACTION``: model providers and ACP agents."""
    provider = sub.add_parser("provider", help="model providers")
    psub = provider.add_subparsers(dest="provider_command", metavar="ACTION", required=True)
    padd = add_command(psub, "add", cmd_provider_add, "add an OpenAI-compatible endpoint")
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
    padd.add_argument("--acp-allow-host", action="append", metavar="HOST:PORT", help=_ALLOW_HOST_HELP)
    padd.add_argument("--tag", action="append", metavar="CATEGORY", help="a content category it is cleared for")
    padd.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    padd.add_argument("--keyring", action="store_true", help="the API key is in the OS keyring")
    padd.add_argument("--api-key-stdin", action="store_true", help="read the API key from stdin into the keyring")
    padd.add_argument("--default", action="store_true", help="use it when no provider is chosen")
    padd.add_argument(
        "--vision", action="store_true", help="the model takes images (attachments are sent as image_url parts)"
    )
    padd.add_argument("--replace", action="store_true", help="replace a provider of the same name")
    pset = add_command(psub, "set", cmd_provider_set, "change a provider's settings")
    pset.add_argument("name")
    pset.add_argument(
        "--acp-auth", metavar="METHOD", help="the ACP agent's sign-in method id (`none`: the only one, or ask)"
    )
    pset.add_argument(
        "--acp-allow-host", action="append", metavar="HOST:PORT", help=_ALLOW_HOST_HELP + " (replaces; `none`: empty)"
    )
    add_command(psub, "list", cmd_provider_list, "list providers")
    add_command(psub, "discover", cmd_provider_discover, "find agent CLIs on PATH that speak ACP")
    prm = add_command(psub, "remove", cmd_provider_remove, "remove a provider")
    prm.add_argument("name")
