"""Providers: validation, discovery, the keyring and probing (issue 19; SEC-1, ERR-2, CAT-2).

``ProviderController`` is the providers section of ``SessionController``. The
record's own rules live on ``ProviderRecord.checked`` (domain); what needs this
installation (the data folder, the providers already stored) is checked here.
The LLM code (keyring, HTTP) loads on first use, not at start-up.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pydantic import ValidationError

from xworkmate.controllers.context import ControllerContext
from xworkmate.domain.providers import ProviderKind, ProviderRecord, offers_agent_provider
from xworkmate.store.repositories import ProviderExistsError

if TYPE_CHECKING:
    from xworkmate.domain.threads import TaskThread
    from xworkmate.llm.providers import ProviderConfig
    from xworkmate.llm.router import ModelRouter

RouterFactory = Callable[[list["ProviderConfig"]], "ModelRouter"]

LOCAL_ENDPOINTS = ("http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1")


class ProviderConfigError(ValueError):
    """A stored provider that cannot be used; the message names the provider and the field."""


def provider_config(record: ProviderRecord) -> ProviderConfig:
    from xworkmate.llm.providers import ProviderConfig

    try:
        return ProviderConfig(
            name=record.name,
            base_url=record.base_url or "",
            model=record.model or "",
            tags=frozenset(record.tags),
            api_key_env=record.api_key_env,
            api_key_keyring=record.api_key_keyring,
            is_default=record.is_default,
            vision=record.vision,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise ProviderConfigError(f"provider {record.name!r}: {field}: {first['msg']}") from exc


def default_router(providers: list[ProviderConfig]) -> ModelRouter:
    from xworkmate.llm.router import ModelRouter

    return ModelRouter(providers)


def acp_agent_problem(key: str, name: str | None, record: ProviderRecord | None) -> str | None:
    """Why a line in ACP mode has no agent to start, or ``None`` when its agent is usable."""
    if record is not None and record.kind is ProviderKind.ACP and record.acp_command:
        return None
    if record is not None:
        what = f"provider {name!r} is not an ACP agent"
    else:
        what = f"no provider named {name!r}" if name else "no ACP agent is chosen"
    return (
        f"line {key} is set to run an ACP agent, but {what};"
        f" pick one with `xworkmate thread set {key} --mode acp --provider NAME`"
    )


@dataclasses.dataclass(frozen=True)
class ProviderChoices:
    """What a line's provider picker offers (issue 18): the providers it may use, and the one that runs."""

    allowed: tuple[ProviderRecord, ...]
    will_run: str | None


class ProviderController:
    """The stored providers: add (checked), list, remove, keys in the keyring, probing endpoints, routing."""

    def __init__(self, ctx: ControllerContext, router_factory: RouterFactory | None = None) -> None:
        self._ctx = ctx
        self._router_factory = router_factory

    def records(self) -> list[ProviderRecord]:
        return self._ctx.store.providers.list()

    def get_provider(self, name: str) -> ProviderRecord | None:
        return self._ctx.store.providers.get(name)

    def has_agent_provider(self) -> bool:
        return offers_agent_provider(self._ctx.store.providers.list())

    def router(self) -> ModelRouter:
        """The router over the stored OpenAI-compatible providers (the turns and the dispatcher use it)."""
        records = [r for r in self.records() if r.kind is ProviderKind.OPENAI]
        return (self._router_factory or default_router)([provider_config(r) for r in records])

    def provider_choices(
        self, key: str, records: Sequence[ProviderRecord] | None = None, thread: TaskThread | None = None
    ) -> ProviderChoices:
        """The OpenAI-compatible providers the line may use (CAT-2, the router's one rule) and the one that runs.

        ``will_run`` is the line's own provider when it may use it, else the router's first allowed
        one (the default, or the category's first tagged provider), or None when none may run.
        """
        openai = [r for r in (self.records() if records is None else records) if r.kind is ProviderKind.OPENAI]
        if not openai:
            return ProviderChoices(allowed=(), will_run=None)  # and the turn code is not imported on a switch
        from xworkmate.llm.router import ModelRouter

        thread = thread if thread is not None and thread.thread_id == key else self._ctx.get_thread(key)
        configs = []
        for record in openai:
            try:
                configs.append(provider_config(record))
            except ProviderConfigError:
                continue
        router = ModelRouter(configs)
        allowed = [config.name for config in router.allowed(thread.category)]
        pinned = thread.execution_binding.provider
        will_run = pinned if pinned in allowed else (allowed[0] if allowed else None)
        by_name = {record.name: record for record in openai}
        return ProviderChoices(allowed=tuple(by_name[name] for name in allowed), will_run=will_run)

    # -- validation and storing ------------------------------------------------------

    def add_provider(
        self, record: ProviderRecord, *, replace: bool = False, api_key: str | None = None
    ) -> ProviderRecord:
        """Store a provider; with ``api_key``, keep that key in the OS keyring and point the provider at it.

        Every check runs before anything is written (SEC-1, ERR-2): a refused add leaves both the
        providers table and the keyring as they were.
        """
        record = self.check_provider(record, replace=replace)
        store = self._ctx.store
        if api_key is None:
            return store.providers.add(record, replace=replace)
        if record.kind is not ProviderKind.OPENAI:
            raise ValueError(f"ACP agent {record.name!r} takes its secrets through acp_env_refs, not an API key")
        from xworkmate.llm.providers import api_key_stored

        with api_key_stored(record.name, api_key):
            return store.providers.add(record.model_copy(update={"api_key_keyring": True}), replace=replace)

    def check_provider(self, record: ProviderRecord, *, replace: bool) -> ProviderRecord:
        """Everything checked before a provider is stored: the window's dialog and the CLI both come through here.

        The record's own rules (domain/providers.py) run again, for a record changed with ``model_copy``;
        then what needs this installation (the data folder, the providers already stored).
        """
        record = ProviderRecord.checked(**record.model_dump())
        if record.kind is ProviderKind.OPENAI:
            provider_config(record)  # a bad config names the field
        else:
            from xworkmate.controllers.containment import state_dir_problem

            for entry in record.acp_state_dirs or ():
                problem = state_dir_problem(entry, data_folder=self._ctx.settings.home)
                if problem is not None:
                    raise ValueError(f"ACP agent {record.name!r}: {entry} cannot be a writable folder: {problem}")
        if not replace and self._ctx.store.providers.get(record.name) is not None:
            raise ProviderExistsError(record.name)
        return record

    def set_provider_api_key(self, name: str, api_key: str) -> ProviderRecord:
        """Keep a provider's key in the OS keyring (never in the database) and point the provider at it."""
        from xworkmate.llm.providers import api_key_stored

        store = self._ctx.store
        record = store.providers.get(name)
        if record is None:
            raise LookupError(f"no provider named {name!r}")
        with api_key_stored(name, api_key):
            return store.providers.add(record.model_copy(update={"api_key_keyring": True}), replace=True)

    def remove_provider(self, name: str) -> None:
        if not self._ctx.store.providers.remove(name):
            raise LookupError(f"no provider named {name!r}")

    # -- discovery and probing ---------------------------------------------------------

    def discover_acp_agents(self) -> list[ProviderRecord]:
        """Agent CLIs found on PATH, as providers one could add (not stored). Nothing is hard-coded."""
        from xworkmate.agents.acp_discovery import discover_agents

        return [
            ProviderRecord(name=agent.name, kind=ProviderKind.ACP, acp_command=agent.command, model=agent.version)
            for agent in discover_agents()
        ]

    async def list_provider_models(self, base_url: str, *, timeout_s: float = 2.0) -> list[str]:
        """The models an OpenAI-compatible endpoint offers; used to detect Ollama and fill the model picker."""
        from xworkmate.llm.openai_client import OpenAIChatClient, Timeouts

        client = OpenAIChatClient(
            base_url=base_url.rstrip("/"),
            model="",
            provider_name=base_url,
            timeouts=Timeouts(connect=timeout_s, read=timeout_s, write=timeout_s, pool=timeout_s),
        )
        async with client:
            return await client.list_models()

    async def detect_local_endpoints(self, candidates: tuple[str, ...] = LOCAL_ENDPOINTS) -> dict[str, list[str]]:
        """Local servers that answer (Ollama at 127.0.0.1:11434, LM Studio at :1234), with their models."""
        from xworkmate.llm.errors import LLMError

        async def probe(url: str) -> tuple[str, list[str] | None]:
            try:
                return url, await self.list_provider_models(url, timeout_s=1.0)
            except LLMError:
                return url, None

        results = await asyncio.gather(*(probe(url) for url in candidates))
        return {url: models for url, models in results if models is not None}
