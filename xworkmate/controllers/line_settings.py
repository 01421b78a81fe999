"""A line's own settings: permission level, sandbox, turn limit, quarantine, how it runs (SBX-1, Q-1, CAT-3).

``LineSettingsController`` is that section of ``SessionController``; each change is
one stored write and one ``LineUpdated``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xworkmate.controllers.changes import LineUpdated
from xworkmate.controllers.context import ControllerContext
from xworkmate.domain.network import parse_host_ports
from xworkmate.domain.providers import ProviderKind
from xworkmate.domain.threads import (
    MAX_TURN_LIMIT_S,
    ExecutionBinding,
    ExecutionMode,
    NetworkAccess,
    PermissionLevel,
    TaskThread,
    parse_turn_limit,
)

if TYPE_CHECKING:  # issue 34 item 4: the sandbox's code loads at its first use, not with the window
    from xworkmate.agents.sandbox import SandboxStatus


class LineSettingsController:
    """Per-line settings the person (or an "Always" approval) changes."""

    def __init__(self, ctx: ControllerContext) -> None:
        self._ctx = ctx

    def set_permission(self, key: str, level: PermissionLevel | str) -> TaskThread:
        thread = self._ctx.get_thread(key)
        try:
            chosen = PermissionLevel(level)
        except ValueError as exc:
            choices = ", ".join(p.value for p in PermissionLevel)
            raise ValueError(f"unknown permission level {level!r}; choose one of {choices}") from exc
        updated = self._ctx.store.threads.set_permission(thread.thread_id, chosen)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    def set_network(self, key: str, network: NetworkAccess | str) -> TaskThread:
        """SBX-4: what network the line's sandboxed processes reach (``off`` by default)."""
        thread = self._ctx.get_thread(key)
        try:
            chosen = NetworkAccess(network)
        except ValueError as exc:
            choices = ", ".join(n.value for n in NetworkAccess)
            raise ValueError(f"unknown network setting {network!r}; choose one of {choices}") from exc
        updated = self._ctx.store.threads.set_sandbox(thread.thread_id, network=chosen)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    def set_allowed_hosts(
        self, key: str, *, add: Sequence[str] = (), remove: Sequence[str] = (), clear: bool = False
    ) -> TaskThread:
        """SBX-4: the ``host:port`` entries an allow-list line reaches; ``clear`` first, then ``remove``, then
        ``add``. A malformed entry is refused in one line and nothing changes."""
        thread = self._ctx.get_thread(key)
        removed, added = set(parse_host_ports(remove)), parse_host_ports(add)
        kept = () if clear else thread.context_state.allowed_hosts
        hosts = tuple(dict.fromkeys([*(h for h in kept if h not in removed), *added]))
        updated = self._ctx.store.threads.set_sandbox(thread.thread_id, allowed_hosts=hosts)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    def set_command_env(self, key: str, names: Sequence[str]) -> TaskThread:
        """SBX-1: the environment variables the person lets through to the line's commands.

        Refused, with the name: not a variable name, ``XWORKMATE_*``, or a name that looks like a secret.
        """
        thread = self._ctx.get_thread(key)
        from xworkmate.agents.sandbox import command_env_name_problem

        chosen = tuple(dict.fromkeys(name.strip() for name in names if name.strip()))
        for name in chosen:
            problem = command_env_name_problem(name)
            if problem is not None:
                raise ValueError(problem)
        updated = self._ctx.store.threads.set_sandbox(thread.thread_id, command_env_names=chosen)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    def set_turn_limit(self, key: str, limit: int | str) -> TaskThread:
        """How long one turn on the line may run: seconds, or text as the person writes it (``30``
        minutes, ``90s``, ``2h``). Past it the turn ends as Stop ends it (issue 13)."""
        thread = self._ctx.get_thread(key)
        seconds = parse_turn_limit(limit) if isinstance(limit, str) else limit
        if not 1 <= seconds <= MAX_TURN_LIMIT_S:
            raise ValueError(f"a turn limit must be between 1 second and {MAX_TURN_LIMIT_S // 86400} days")
        updated = self._ctx.store.threads.set_turn_limit(thread.thread_id, seconds)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    def set_quarantine_untrusted(self, key: str, on: bool | str) -> TaskThread:
        """Q-1: quarantine the output of the line's untrusted tools (``domain.tool_trust``) as it is stored."""
        thread = self._ctx.get_thread(key)
        if isinstance(on, str):
            if on not in ("on", "off"):
                raise ValueError(f"quarantine of untrusted tools is 'on' or 'off', not {on!r}")
            on = on == "on"
        updated = self._ctx.store.threads.set_quarantine_untrusted(thread.thread_id, on)
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated

    def sandbox_status(self) -> SandboxStatus:
        """Which sandbox backend contains agent processes here, or why none can (``xworkmate doctor``)."""
        from xworkmate.agents.sandbox import detect_sandbox

        return detect_sandbox()

    def set_execution(self, key: str, mode: ExecutionMode | str, provider: str | None = None) -> TaskThread:
        """Choose how a line runs: the native agent (optionally pinned to a provider) or an ACP agent CLI."""
        thread = self._ctx.get_thread(key)
        try:
            chosen = ExecutionMode(mode)
        except ValueError as exc:
            raise ValueError(f"unknown execution mode {mode!r}; choose native or acp") from exc
        record = self._ctx.store.providers.get(provider) if provider else None
        if provider and record is None:
            raise LookupError(f"no provider named {provider!r}")
        if chosen is ExecutionMode.ACP:
            if thread.category is not None:
                # CAT-3: agent CLIs bypass the router, so category content never goes to them.
                raise ValueError(
                    f"line {thread.thread_id} carries category {thread.category!r}: its content may only reach"
                    " providers tagged with it, and external agent CLIs do not go through the router"
                )
            if record is None or record.kind is not ProviderKind.ACP:
                raise ValueError(
                    "ACP mode needs an ACP agent provider (add one with `xworkmate provider add NAME --acp-command`)"
                )
        elif record is not None and record.kind is not ProviderKind.OPENAI:
            raise ValueError(f"provider {provider!r} is an ACP agent; choose --mode acp for it")
        updated = self._ctx.store.threads.set_execution(
            thread.thread_id,
            ExecutionBinding(
                mode=chosen,
                provider=provider,
                model=record.model if record is not None else None,
                # A different agent cannot resume another agent's session.
                acp_session_id=thread.execution_binding.acp_session_id
                if provider == thread.execution_binding.provider
                else None,
            ),
        )
        self._ctx.emit(LineUpdated(key=thread.thread_id))
        return updated
