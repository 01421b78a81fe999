"""An ACP session's offers and the person's choices (issue 15, items 4-7).

``SessionOffers`` keeps, for one turn, what the agent offers (modes, models,
config options, slash commands) from its ``session/new|load|resume`` answer
and later updates, and emits ``AcpOffersChanged`` each time that changes.
``apply_choices`` sends the person's picks with ``session/set_mode``,
``session/set_model`` or ``session/set_config_option``, whichever the agent
supports; a refused pick is one ``AcpChoiceRefused`` and the turn goes on.
``usage_update`` and a prompt answer's ``usage`` become ``UsageReported``.

``models`` and ``session/set_model`` are not in the SDK's schema (they are
unstable in ACP; Qwen Code, Claude Code and Gemini send them): the session
answers are read raw once (``open_session``) so that field is not dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

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


async def open_session(
    connection: ClientSideConnection, method: str, params: BaseModel, response: type[R]
) -> tuple[R, dict[str, Any]]:
    """``session/new|load|resume`` with the answer also kept raw (for the unstable ``models``)."""
    raw = await connection._conn.send_request(method, serialize_params(params))
    data = raw if isinstance(raw, dict) else {}
    return response.model_validate(data), data


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


def _models(raw: Any) -> tuple[tuple[AgentChoice, ...], str | None]:
    if not isinstance(raw, dict):
        return (), None
    offered: list[AgentChoice] = []
    for entry in raw.get("availableModels") or []:
        if isinstance(entry, dict) and isinstance(entry.get("modelId"), str):
            description = entry.get("description")
            offered.append(
                AgentChoice(
                    id=entry["modelId"],
                    name=str(entry.get("name") or entry["modelId"]),
                    description=description if isinstance(description, str) else None,
                )
            )
    current = raw.get("currentModelId")
    return tuple(offered), current if isinstance(current, str) else None


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
        self.can_set_model = False

    def _changed(self, **values: Any) -> None:
        state = self.state.model_copy(update=values)
        if state != self.state:  # an agent that offers nothing reports nothing
            self.state = state
            self.emit(AcpOffersChanged(state))

    def opened(self, response: Any, raw: dict[str, Any]) -> None:
        """The answer of session/new|load|resume: modes, models, config options (each may be absent)."""
        modes, mode = _modes(getattr(response, "modes", None))
        models, model = _models(raw.get("models"))
        self.can_set_model = bool(models)
        self._changed(
            modes=modes,
            mode=mode,
            models=models,
            model=model,
            config_options=_config_options(getattr(response, "config_options", None)),
        )

    def on_update(self, update: Any) -> bool:
        """A session/update about the session itself; True when it was one of these kinds."""
        if isinstance(update, CurrentModeUpdate):
            self._changed(mode=update.current_mode_id)
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
        """Send the person's picks that differ from what the session has; refusals are reported, not raised."""
        state = self.state
        if wanted.wanted_mode and wanted.wanted_mode != state.mode:
            await self._set_mode(connection, session_id, wanted.wanted_mode)
        if wanted.wanted_model and wanted.wanted_model != state.model:
            await self._set_model(connection, session_id, wanted.wanted_model)
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

    async def _set_model(self, connection: ClientSideConnection, session_id: str, model_id: str) -> None:
        if not self.can_set_model or not any(m.id == model_id for m in self.state.models):
            self._refused("model", model_id, "it no longer offers that model")
            return
        try:
            await connection._conn.send_request("session/set_model", {"sessionId": session_id, "modelId": model_id})
        except RequestError as exc:
            self._refused("model", model_id, _why(exc))
            return
        self._changed(model=model_id)

    async def _set_config(
        self, connection: ClientSideConnection, session_id: str, config_id: str, value: str | bool
    ) -> None:
        shown = f"{config_id}={value}"
        if self.state.option(config_id) is None:
            self._refused("config", config_id, "it no longer offers that option")
            return
        try:
            answer = await connection.set_config_option(config_id=config_id, session_id=session_id, value=value)
        except RequestError as exc:
            self._refused("config", config_id, _why(exc), shown)
            return
        options = getattr(answer, "config_options", None)
        if options:
            self._changed(config_options=_config_options(options))
        else:
            self._changed(
                config_options=tuple(
                    o.model_copy(update={"value": value}) if o.id == config_id else o for o in self.state.config_options
                )
            )

    def _refused(self, kind: str, choice: str, why: str, shown: str | None = None) -> None:
        what = {"mode": "mode", "model": "model", "config": "config option"}[kind]
        message = f"The agent did not switch to {what} {shown or choice!r}: {why}; the turn went on without it."
        log.info("ACP choice refused: %s", message)
        self.emit(AcpChoiceRefused(kind, choice, message))


def _why(exc: RequestError) -> str:
    details = exc.data.get("details") if isinstance(exc.data, dict) else None
    return f"{exc}" + (f" ({details})" if details else "")
