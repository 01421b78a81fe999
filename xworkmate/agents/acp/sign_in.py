"""Signing in to an ACP agent (issue 15): the method the provider names, else the agent's only one, else the one a
person chooses; "authentication required" from session/new|load signs in once and asks again.
"""

from __future__ import annotations

import logging
import shlex
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from acp import RequestError
from acp.client.connection import ClientSideConnection

from xworkmate.agents.acp.errors import (
    AUTH_REQUIRED,
    AcpAuthError,
    command_label,
)
from xworkmate.agents.acp.reports import (
    AcpAuthMethod,
    AcpSignedIn,
)
from xworkmate.agents.acp.turn_state import _TurnState

log = logging.getLogger(__name__)


class _SignIn(_TurnState):
    """The part of ``_Turn`` that signs in."""

    # -- signing in (issue 15)

    async def _signed(self, connection: ClientSideConnection, phase: str, call: Callable[[], Awaitable[Any]]) -> Any:
        """``call`` (session/new or session/load); on "authentication required", sign in once and call again."""
        agent = self.agent
        assert agent is not None
        agent.enter(phase)
        try:
            return await call()
        except RequestError as exc:
            if exc.code != AUTH_REQUIRED or self.signed_in is not None:
                raise
        await self._sign_in(connection, phase)
        agent.enter(phase)
        return await call()

    async def _sign_in(self, connection: ClientSideConnection, phase: str) -> None:
        agent = self.agent
        assert agent is not None
        label = command_label(self.command)
        methods = self.auth_methods
        if not methods:
            raise AcpAuthError(
                self.command,
                f"ACP agent {label} refused {phase}: authentication required, and it lists no sign-in method;"
                f" sign in by running {label} once in a terminal",
            )
        if len(methods) == 1:
            await self._authenticate(connection, methods[0], "only")
            return
        if self.choose_auth is None:
            name = self.provider or "NAME"
            raise AcpAuthError(
                self.command,
                f"ACP agent {label} needs sign-in and offers several methods ({', '.join(m.id for m in methods)});"
                f" choose one with `xworkmate provider set {name} --acp-auth METHOD`",
            )
        with agent.paused_clock():  # a person is choosing: the startup timeout waits
            chosen = await self.choose_auth(methods)
        if chosen is None:
            raise AcpAuthError(self.command, f"ACP agent {label} was not signed in: no sign-in method was chosen")
        await self._authenticate(connection, self._method(chosen), "person")

    def _method(self, method_id: str) -> AcpAuthMethod:
        for method in self.auth_methods:
            if method.id == method_id:
                return method
        offered = ", ".join(m.id for m in self.auth_methods) or "none"
        name = self.provider or "NAME"
        raise AcpAuthError(
            self.command,
            f"ACP agent {command_label(self.command)} has no sign-in method {method_id!r} (it offers: {offered});"
            f" change it with `xworkmate provider set {name} --acp-auth METHOD` (or `--acp-auth none`)",
        )

    async def _authenticate(self, connection: ClientSideConnection, method: AcpAuthMethod, chosen_by: str) -> None:
        agent = self.agent
        assert agent is not None
        if method.runs_in_terminal:
            # Issue 32 item 4: a terminal method is the agent's own login program; it is never sent as
            # ``authenticate``. In the window it runs in a sign-in terminal (``auth.terminal`` advertised);
            # headless, the one line says exactly what to run, and the next turn starts signed in.
            if self.show_login is None or self.launch_login is None:
                env = f" with {', '.join(method.env_names)} set as the agent asks" if method.env_names else ""
                raise AcpAuthError(
                    self.command,
                    f"ACP agent {command_label(self.command)} signs in with {method.id!r} in a terminal and no one"
                    f" is at the window; run `{method.command}`{env} in a terminal, then run the line again",
                )
            await self._sign_in_in_terminal(method, chosen_by)
            return
        agent.enter("authenticate")
        try:
            await connection.authenticate(method_id=method.id)
        except RequestError as exc:
            hint = f"; sign in by running `{method.command}` in a terminal" if method.command else ""
            # The agent's own explanation (``data.details``) is kept, on the same one line.
            details = exc.data.get("details") if isinstance(exc.data, dict) else None
            why = f"{exc} ({' '.join(str(details).split())})" if details else str(exc)
            raise AcpAuthError(
                self.command,
                f"ACP agent {command_label(self.command)} refused sign-in with {method.id!r}: {why}"
                f" (code {exc.code}){hint}",
            ) from None
        self.signed_in = method.id
        log.info("line %s: signed in to ACP agent %s with %r", self.request.thread_id, self.command[0], method.id)
        self.emit(AcpSignedIn(method.id, chosen_by))

    async def _sign_in_in_terminal(self, method: AcpAuthMethod, chosen_by: str) -> None:
        """The login program on a pty in the agent's sandbox, shown in the window; status 0 signs in."""
        agent = self.agent
        assert agent is not None and self.show_login is not None and self.launch_login is not None
        agent.enter("sign-in terminal")
        terminal = await self.launch_login(method)
        try:
            self.show_login(terminal)
            with agent.paused_clock():  # a person is typing: the startup timeout waits
                status = await terminal.wait()
        finally:
            terminal.close()  # cancelled: the program ends with the turn
        if status != 0:
            how = f"was stopped by signal {-status}" if status < 0 else f"exited with status {status}"
            raise AcpAuthError(
                self.command,
                f"ACP agent {command_label(self.command)} was not signed in: its sign-in program `{method.command}`"
                f" {how}; send your message again to retry",
            )
        self.signed_in = method.id
        log.info(
            "line %s: signed in to ACP agent %s in a terminal (%r)", self.request.thread_id, self.command[0], method.id
        )
        self.emit(AcpSignedIn(method.id, chosen_by))


def _auth_methods(advertised: Sequence[Any], command: Sequence[str]) -> tuple[AcpAuthMethod, ...]:
    """The agent's ``authMethods`` as shown to a person; a terminal method gets the command to run."""
    methods: list[AcpAuthMethod] = []
    for entry in advertised:
        meta = entry.field_meta if isinstance(entry.field_meta, dict) else {}
        official = getattr(entry, "type", None)
        kind = str(official or meta.get("type") or "agent")
        text: str | None = None
        env_names: tuple[str, ...] = ()
        login_args: tuple[str, ...] = ()
        login_env: tuple[tuple[str, str], ...] = ()
        if kind == "terminal":
            args = getattr(entry, "args", None) or meta.get("args") or []
            login_args = tuple(str(a) for a in args)
            text = shlex.join([*command, *login_args]) if command else None
            env = getattr(entry, "env", None) or meta.get("env") or {}
            login_env = tuple(sorted((str(n), str(v)) for n, v in env.items())) if isinstance(env, dict) else ()
            env_names = tuple(name for name, _value in login_env)
        methods.append(
            AcpAuthMethod(
                id=entry.id,
                name=entry.name or entry.id,
                description=entry.description,
                kind=kind,
                command=text,
                env_names=env_names,
                runs_in_terminal=official == "terminal",
                login_args=login_args,
                login_env=login_env,
            )
        )
    return tuple(methods)
