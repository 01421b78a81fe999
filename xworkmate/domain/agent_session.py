"""What an ACP agent offers a line, and what the line has used (issue 15, items 4-6).

``AgentSessionState``: the agent's modes, models, config options and slash
commands as its last ``session/new|load|resume`` answer and later updates
(``current_mode_update``, ``config_option_update``, ``available_commands_update``)
described them, plus the choices the person made in the line's pickers
(``wanted_*``), which the next turn applies (issue 32, item 1). Config options are the one way
to set what an agent offers as one: a ``category: "mode"`` or ``"model"`` option *is* the line's
mode or model (``with_category_options``), set with ``session/set_config_option``;
``session/set_mode`` only for an agent that offers modes alone; the removed unstable
``session/set_model`` never. A model pick is kept (``chosen_model``) and sent again when a
resumed session forgot it.

``LineUsage``: the line's meter: context used of its size, tokens in and out,
cost where known. Fed by ACP ``usage_update`` and the ``usage`` of
OpenAI-compatible responses (native agent).

Pure data and rules; no I/O.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AgentChoice",
    "AgentCommand",
    "AgentConfigOption",
    "AgentInfo",
    "AgentSessionState",
    "LineUsage",
    "UnknownAgentChoiceError",
    "format_tokens",
]


class UnknownAgentChoiceError(ValueError):
    """A mode, model or config value the line's agent does not offer; the message lists what it offers."""


class AgentChoice(BaseModel):
    """One mode, model or select value the agent offers."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    name: str
    description: str | None = None


class AgentConfigOption(BaseModel):
    """One of the agent's ``configOptions``: a select (``choices``) or a boolean."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    name: str
    description: str | None = None
    kind: Literal["select", "boolean"] = "select"
    value: str | bool = ""
    choices: tuple[AgentChoice, ...] = ()
    category: str | None = None


class AgentCommand(BaseModel):
    """A slash command from ``available_commands_update``; ``hint`` describes its input, if it takes one."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    description: str = ""
    hint: str | None = None


class SessionInfo(BaseModel):
    """What the agent said about one of its sessions (ACP ``session_info_update``, issue 32 item 6)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    title: str | None = None
    updated_at: str | None = None


class AgentSessionState(BaseModel):
    """What the line's agent offers, and what the person chose for the next turn."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    agent: str | None = None
    modes: tuple[AgentChoice, ...] = ()
    mode: str | None = None
    models: tuple[AgentChoice, ...] = ()
    model: str | None = None
    config_options: tuple[AgentConfigOption, ...] = ()
    commands: tuple[AgentCommand, ...] = ()
    wanted_mode: str | None = None
    wanted_model: str | None = None
    wanted_config: dict[str, str | bool] = Field(default_factory=dict)
    chosen_model: str | None = None
    """The person's last model pick, kept after it was applied: a resumed session that forgot it gets it again."""
    session_info: dict[str, SessionInfo] = Field(default_factory=dict)
    """Issue 32 item 6: each agent session's title and last activity as the agent said, by session id (a title
    belongs to the session it was said for, never to the line's next one)."""

    def title_of(self, session_id: str | None) -> str | None:
        info = self.session_info.get(session_id) if session_id else None
        return info.title if info is not None else None

    def with_session_info(self, session_id: str, title: str | None, updated_at: str | None) -> AgentSessionState:
        """The agent's ``session_info_update`` for ``session_id``; ``None`` clears what it said before."""
        known = dict(self.session_info)
        known[session_id] = SessionInfo(title=title, updated_at=updated_at)
        return self.model_copy(update={"session_info": known})

    @property
    def shown_mode(self) -> str | None:
        return self.wanted_mode or self.mode

    @property
    def shown_model(self) -> str | None:
        return self.wanted_model or self.model

    def shown_config(self, option: AgentConfigOption) -> str | bool:
        return self.wanted_config.get(option.id, option.value)

    def option(self, config_id: str) -> AgentConfigOption | None:
        return next((o for o in self.config_options if o.id == config_id), None)

    def category_option(self, category: Literal["mode", "model"]) -> AgentConfigOption | None:
        """The select config option the agent offers as the session's mode or model, if any."""
        return next((o for o in self.config_options if o.category == category and o.kind == "select"), None)

    @property
    def other_options(self) -> tuple[AgentConfigOption, ...]:
        """The config options that are not the mode or the model (those have their own pickers)."""
        shown = {id(o) for o in (self.category_option("mode"), self.category_option("model")) if o is not None}
        return tuple(o for o in self.config_options if id(o) not in shown)

    def with_category_options(self) -> AgentSessionState:
        """Mode and model as the agent's config options say, where it offers them as options (one view of each)."""
        update: dict[str, object] = {}
        mode = self.category_option("mode")
        if mode is not None:
            update.update(modes=mode.choices, mode=str(mode.value))
        model = self.category_option("model")
        if model is not None:
            update.update(models=model.choices, model=str(model.value))
        return self.model_copy(update=update) if update else self

    @property
    def model_to_send(self) -> str | None:
        """The model the next turn asks for: a new pick, or the kept one when the session forgot it."""
        return self.wanted_model or self.chosen_model

    def choose_mode(self, mode_id: str) -> AgentSessionState:
        """The person picked ``mode_id``; refused when the agent does not offer it."""
        _check(mode_id, self.modes, "mode")
        return self.model_copy(update={"wanted_mode": None if mode_id == self.mode else mode_id})

    def choose_model(self, model_id: str) -> AgentSessionState:
        _check(model_id, self.models, "model")
        return self.model_copy(
            update={"wanted_model": None if model_id == self.model else model_id, "chosen_model": model_id}
        )

    def choose_config(self, config_id: str, value: str | bool) -> AgentSessionState:
        option = self.option(config_id)
        if option is None:
            offered = ", ".join(o.id for o in self.config_options) or "none"
            raise UnknownAgentChoiceError(f"the agent has no config option {config_id!r} (it offers: {offered})")
        if option.kind == "boolean":
            if isinstance(value, str):
                if value.lower() not in ("on", "off", "true", "false"):
                    raise UnknownAgentChoiceError(f"config option {config_id!r} is on or off, not {value!r}")
                value = value.lower() in ("on", "true")
        else:
            _check(str(value), option.choices, f"value of {config_id!r}")
            value = str(value)
        wanted = dict(self.wanted_config)
        if value == option.value:
            wanted.pop(config_id, None)
        else:
            wanted[config_id] = value
        return self.model_copy(update={"wanted_config": wanted})

    def offered(self, update: AgentSessionState) -> AgentSessionState:
        """The agent reported ``update`` (offers and current values): the person's choices are kept."""
        return update.model_copy(
            update={
                "wanted_mode": self.wanted_mode,
                "wanted_model": self.wanted_model,
                "wanted_config": dict(self.wanted_config),
                "chosen_model": self.chosen_model,
                "commands": update.commands or self.commands,
                "session_info": dict(self.session_info),
            }
        )


def _check(value: str, offered: tuple[AgentChoice, ...], what: str) -> None:
    if not any(c.id == value for c in offered):
        listed = ", ".join(c.id for c in offered) or "none (run a turn first: the agent says what it offers)"
        raise UnknownAgentChoiceError(f"the agent offers no {what} {value!r} (it offers: {listed})")


class AgentInfo(BaseModel):
    """Who an ACP agent says it is (``agentInfo`` of its ``initialize`` answer; issue 15, item 8)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    title: str | None = None
    version: str = ""
    lists_sessions: bool = False
    """It advertised ``session/list`` (``sessionCapabilities.list``) when it last started."""
    takes_images: bool | None = None
    """ATT-1: its ``promptCapabilities.image`` when it last started (None: not known, reported before it was kept)."""

    @property
    def label(self) -> str:
        return f"{self.title or self.name} {self.version}".strip()


class LineUsage(BaseModel):
    """The line's meter. ``None`` where the agent or provider did not say."""

    model_config = ConfigDict(frozen=True)

    context_used: int | None = None
    context_size: int | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    currency: str | None = None

    def plus(
        self,
        *,
        tokens_in: int = 0,
        tokens_out: int = 0,
        context_used: int | None = None,
        context_size: int | None = None,
        cost: float | None = None,
        currency: str | None = None,
    ) -> LineUsage:
        """A report added: tokens add up; context and (cumulative) cost replace what was known."""
        return LineUsage(
            tokens_in=self.tokens_in + max(tokens_in, 0),
            tokens_out=self.tokens_out + max(tokens_out, 0),
            context_used=context_used if context_used is not None else self.context_used,
            context_size=context_size if context_size is not None else self.context_size,
            cost=cost if cost is not None else self.cost,
            currency=currency if cost is not None else self.currency,
        )

    @property
    def empty(self) -> bool:
        return self.context_used is None and not self.tokens_in and not self.tokens_out and self.cost is None

    def describe(self) -> str:
        """``ctx 12.3k/128k · in 4.1k · out 812 · 0.0123 USD`` (parts that are unknown are left out)."""
        parts: list[str] = []
        if self.context_used is not None:
            size = f"/{format_tokens(self.context_size)}" if self.context_size else ""
            parts.append(f"ctx {format_tokens(self.context_used)}{size}")
        if self.tokens_in or self.tokens_out:
            parts.append(f"in {format_tokens(self.tokens_in)} · out {format_tokens(self.tokens_out)}")
        if self.cost is not None:
            parts.append(f"{self.cost:.4f} {self.currency or ''}".rstrip())
        return " · ".join(parts) or "no usage yet"

    def compact(self) -> str:
        """What the header's meter shows (issue 30 item 2): the context's fill when known
        (``12.3k/128k``), else the tokens in and out (``4.1k/812``); ``describe`` is the detail on hover."""
        if self.context_used is not None:
            size = f"/{format_tokens(self.context_size)}" if self.context_size else ""
            return f"{format_tokens(self.context_used)}{size}"
        if self.tokens_in or self.tokens_out:
            return f"↑{format_tokens(self.tokens_in)} ↓{format_tokens(self.tokens_out)}"
        return ""


def format_tokens(count: int | None) -> str:
    if count is None:
        return "?"
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k".replace(".0k", "k")
    return f"{count / 1_000_000:.1f}M".replace(".0M", "M")
