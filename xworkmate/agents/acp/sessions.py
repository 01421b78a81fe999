"""An ACP session's offers and the person's choices (issue 15, items 4-7).

``SessionOffers`` keeps, for one turn, what the agent offers (modes, models,
config options, slash commands) from its ``session/new|load|resume`` answer
and later updates, and emits ``AcpOffersChanged`` each time that changes.
``apply_choices`` sends the person's picks as config options where the agent
offers them (mode and model included), ``session/set_mode`` for an agent that
offers modes alone; a refused pick is one ``AcpChoiceRefused`` and the turn
goes on. ``usage_update`` and a prompt answer's ``usage`` become ``UsageReported``.

The unstable ``models`` field and ``session/set_model`` were removed from ACP
(June 2026) and are in neither schema: some agents still send the field, and
it is ignored; a model is picked only through a ``category: "model"`` option
(issue 32, item 1).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from acp import RequestError
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    SessionConfigOptionBoolean,
    SessionConfigSelectGroup,
    UsageUpdate,
)
from acp.utils import serialize_params
from pydantic import BaseModel

from xworkmate.agents.events import UsageReported
from xworkmate.domain.agent_session import AgentChoice, AgentCommand, AgentConfigOption, AgentSessionState

__all__ = [
    "AcpAgentReported",
    "AcpChoiceRefused",
    "AcpOffersChanged",
    "AcpSessionInfo",
    "SessionOffers",
    "open_session",
    "prompt_usage",
]

log = logging.getLogger(__name__)

R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class AcpOffersChanged:
    """What the agent offers now (no ``wanted_*``: the controller keeps the person's choices)."""

    state: AgentSessionState


@dataclass(frozen=True)
class AcpSessionInfo:
    """The agent's ``session_info_update`` (issue 32 item 6): the title of ``session_id`` and when it was last active;
    ``None`` clears what was said before."""

    session_id: str
    title: str | None
    updated_at: str | None


@dataclass(frozen=True)
class AcpAgentReported:
    """The agent's ``agentInfo`` from ``initialize`` (issue 15, item 8)."""

    name: str
    title: str | None
    version: str
    lists_sessions: bool = False
    takes_images: bool = False  # ATT-1: its promptCapabilities.image


@dataclass(frozen=True)
class AcpChoiceRefused:
    """A pick the agent refused or no longer offers; ``kind``: mode | model | config; one line in ``message``."""

    kind: str
    choice: str
    message: str


async def open_session(connection: ClientSideConnection, method: str, params: BaseModel, response: type[R]) -> R:
    """``session/new|load|resume`` by method name (the caller picks which one the agent supports)."""
    raw = await connection._conn.send_request(method, serialize_params(params))
    return response.model_validate(raw if isinstance(raw, dict) else {})


def prompt_usage(response: Any) -> UsageReported | None:
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    return UsageReported(tokens_in=usage.input_tokens, tokens_out=usage.output_tokens)


def _modes(modes: Any) -> tuple[tuple[AgentChoice, ...], str | None]:
    if modes is None:
        return (), None
    offered = tuple(AgentChoice(id=m.id, name=m.name or m.id, description=m.description) for m in modes.available_modes)
    return offered, modes.current_mode_id


def _config_options(options: Any) -> tuple[AgentConfigOption, ...]:
    out: list[AgentConfigOption] = []
    for entry in options or []:
        option = getattr(entry, "root", entry)
        category = option.category if isinstance(option.category, str) else None
        if isinstance(option, SessionConfigOptionBoolean):
            out.append(
                AgentConfigOption(
                    id=option.id,
                    name=option.name,
                    description=option.description,
                    kind="boolean",
                    value=option.current_value,
                    category=category,
                )
            )
            continue
        choices: list[AgentChoice] = []
        for item in option.options:
            values = item.options if isinstance(item, SessionConfigSelectGroup) else [item]
            choices.extend(AgentChoice(id=v.value, name=v.name, description=v.description) for v in values)
        out.append(
            AgentConfigOption(
                id=option.id,
                name=option.name,
                description=option.description,
                kind="select",
                value=option.current_value,
                choices=tuple(choices),
                category=category,
            )
        )
    return tuple(out)


class SessionOffers:
    """The turn's view of what the agent offers; ``emit`` hears every change."""

    def __init__(self, emit: Callable[[object], None], agent: str | None) -> None:
        self.emit = emit
        self.state = AgentSessionState(agent=agent)

    def _changed(self, **values: Any) -> None:
        state = self.state.model_copy(update=values).with_category_options()
        if state != self.state:  # an agent that offers nothing reports nothing
            self.state = state
            self.emit(AcpOffersChanged(state))

    def opened(self, response: Any) -> None:
        """The answer of session/new|load|resume: modes and config options (each may be absent).

        Issue 32, item 1: models come only from a ``category: "model"`` config option; the unstable
        ``models`` field some agents still send belongs to an API removed upstream (June 2026).
        """
        modes, mode = _modes(getattr(response, "modes", None))
        self._changed(
            modes=modes,
            mode=mode,
            models=(),
            model=None,
            config_options=_config_options(getattr(response, "config_options", None)),
        )

    def on_update(self, update: Any) -> bool:
        """A session/update about the session itself; True when it was one of these kinds."""
        if isinstance(update, CurrentModeUpdate):
            option = self.state.category_option("mode")
            if option is None:
                self._changed(mode=update.current_mode_id)
            else:  # the option is the mode: both views say the same
                self._changed(config_options=_with_value(self.state.config_options, option.id, update.current_mode_id))
        elif isinstance(update, ConfigOptionUpdate):
            self._changed(config_options=_config_options(update.config_options))
        elif isinstance(update, AvailableCommandsUpdate):
            commands = []
            for command in update.available_commands:
                hint = getattr(getattr(command.input, "root", None), "hint", None) if command.input else None
                commands.append(AgentCommand(name=command.name, description=command.description or "", hint=hint))
            self._changed(commands=tuple(commands))
        elif isinstance(update, UsageUpdate):
            cost = update.cost
            self.emit(
                UsageReported(
                    context_used=update.used,
                    context_size=update.size,
                    cost=cost.amount if cost else None,
                    currency=cost.currency if cost else None,
                )
            )
        else:
            return False
        return True

    async def apply_choices(self, connection: ClientSideConnection, session_id: str, wanted: AgentSessionState) -> None:
        """Send the person's picks that differ from what the session has; refusals are reported, not raised.

        Issue 32, item 1: a mode or model the agent offers as a config option is set as that option;
        ``session/set_mode`` only when it offers modes alone. The kept model pick is sent again when a
        resumed session forgot it.
        """
        if wanted.wanted_mode and wanted.wanted_mode != self.state.mode:
            option = self.state.category_option("mode")
            if option is not None:
                await self._set_config(connection, session_id, option.id, wanted.wanted_mode, kind="mode")
            else:
                await self._set_mode(connection, session_id, wanted.wanted_mode)
        model = wanted.model_to_send
        if model and model != self.state.model:
            option = self.state.category_option("model")
            if option is None or not any(c.id == model for c in option.choices):
                self._refused("model", model, "it no longer offers that model")
            else:
                await self._set_config(connection, session_id, option.id, model, kind="model")
        for config_id, value in wanted.wanted_config.items():
            option = self.state.option(config_id)
            if option is None or option.value != value:
                await self._set_config(connection, session_id, config_id, value)

    async def _set_mode(self, connection: ClientSideConnection, session_id: str, mode_id: str) -> None:
        if not any(m.id == mode_id for m in self.state.modes):
            self._refused("mode", mode_id, "it no longer offers that mode")
            return
        try:
            await connection.set_session_mode(session_id=session_id, mode_id=mode_id)
        except RequestError as exc:
            self._refused("mode", mode_id, _why(exc))
            return
        self._changed(mode=mode_id)

    async def _set_config(
        self,
        connection: ClientSideConnection,
        session_id: str,
        config_id: str,
        value: str | bool,
        kind: Literal["mode", "model", "config"] = "config",
    ) -> None:
        """``session/set_config_option``; ``kind`` says which pick a refusal is about (mode and model are options)."""
        choice, shown = (config_id, f"{config_id}={value}") if kind == "config" else (str(value), None)
        if self.state.option(config_id) is None:
            self._refused(kind, choice, "it no longer offers that option", shown)
            return
        try:
            answer = await connection.set_config_option(config_id=config_id, session_id=session_id, value=value)
        except RequestError as exc:
            self._refused(kind, choice, _why(exc), shown)
            return
        options = getattr(answer, "config_options", None)
        if options:
            self._changed(config_options=_config_options(options))
        else:
            self._changed(config_options=_with_value(self.state.config_options, config_id, value))

    def _refused(self, kind: str, choice: str, why: str, shown: str | None = None) -> None:
        what = {"mode": "mode", "model": "model", "config": "config option"}[kind]
        message = f"The agent did not switch to {what} {shown or choice!r}: {why}; the turn went on without it."
        log.info("ACP choice refused: %s", message)
        self.emit(AcpChoiceRefused(kind, choice, message))


def _with_value(
    options: tuple[AgentConfigOption, ...], config_id: str, value: str | bool
) -> tuple[AgentConfigOption, ...]:
    return tuple(o.model_copy(update={"value": value}) if o.id == config_id else o for o in options)


def _why(exc: RequestError) -> str:
    details = exc.data.get("details") if isinstance(exc.data, dict) else None
    return f"{exc}" + (f" ({details})" if details else "")
