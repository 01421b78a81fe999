"""The category router (CAT-2): the one gate between content and models.

Every model call declares its ``content_category``. The router keeps, in the
candidate chain, the pinned model, the palette and the final fallback pool,
only providers whose tags contain that category, and raises
``CategoryModelError`` when none remain. Failover on a retryable error moves to
the next candidate of that same filtered list, so an out-of-group model is never
used to make a call succeed. Normal content (``None``) may use any provider.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterable, Mapping, Sequence
from contextlib import aclosing
from typing import Any

import httpx

from xworkmate.domain.categories import normalize_category
from xworkmate.llm.errors import (
    CategoryModelError,
    ImagesNotTakenError,
    LLMError,
    NoProviderError,
    UnknownProviderError,
)
from xworkmate.llm.events import (
    ChatCompletion,
    ProviderFailover,
    ProviderSelected,
    RouterEvent,
)
from xworkmate.llm.openai_client import (
    ChatMessage,
    OpenAIChatClient,
    RetryPolicy,
    Timeouts,
    ToolSpec,
)
from xworkmate.llm.providers import ProviderConfig, resolve_api_key

ProviderRef = str | ProviderConfig
"""A provider by configured name, or a config object (e.g. a registered one with another model)."""

KeyResolver = Callable[[ProviderConfig], str | None]
ClientFactory = Callable[[ProviderConfig, str | None], OpenAIChatClient]


class ModelRouter:
    """Chooses, in order, the providers a call may use, and runs the call with failover.

    Without an explicit ``chain`` the chain is every configured provider, the
    default one first. The order of the candidates is: ``pinned``, ``chain``,
    ``palette``, ``fallback`` (duplicates dropped). To use the pinned provider
    and nothing else, pass ``pinned=name, chain=[]``.
    """

    def __init__(
        self,
        providers: Iterable[ProviderConfig],
        *,
        key_resolver: KeyResolver = resolve_api_key,
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        client_factory: ClientFactory | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._providers: dict[str, ProviderConfig] = {}
        for cfg in providers:
            if cfg.name in self._providers:
                raise ValueError(f"provider name {cfg.name!r} is configured twice")
            self._providers[cfg.name] = cfg
        self._key_resolver = key_resolver
        self._timeouts = timeouts
        self._retry = retry
        self._transport = transport
        self._client_factory = client_factory or self._default_client

    # -- choosing ------------------------------------------------------------------------

    @property
    def providers(self) -> tuple[ProviderConfig, ...]:
        return tuple(self._providers.values())

    def provider(self, name: str) -> ProviderConfig:
        try:
            return self._providers[name]
        except KeyError:
            raise UnknownProviderError(name) from None

    def default_chain(self) -> list[ProviderConfig]:
        """Every configured provider, those marked ``is_default`` first, otherwise in configured order."""
        providers = list(self._providers.values())
        return [p for p in providers if p.is_default] + [p for p in providers if not p.is_default]

    def allowed(self, content_category: str | None) -> list[ProviderConfig]:
        """The configured providers that may see content of this category, default first."""
        category = normalize_category(content_category)
        return [p for p in self.default_chain() if p.allows(category)]

    def first_allowed(self, content_category: str | None) -> ProviderConfig:
        """CAT-6: the provider used when none was chosen (the group's first for category content)."""
        return self.candidates(content_category)[0]

    def candidates(
        self,
        content_category: str | None,
        *,
        chain: Sequence[ProviderRef] | None = None,
        pinned: ProviderRef | None = None,
        palette: Sequence[ProviderRef] | None = None,
        fallback: Sequence[ProviderRef] | None = None,
    ) -> list[ProviderConfig]:
        """CAT-2: the providers this call may use, in the order to try them.

        Each source (pinned, chain, palette, fallback) is filtered to providers
        tagged with the category; ``None`` keeps every provider. Raises
        ``CategoryModelError`` when no allowed provider remains and
        ``NoProviderError`` when normal content finds no provider at all.
        """
        category = normalize_category(content_category)
        sources: list[ProviderConfig] = []
        if pinned is not None:
            sources.append(self._resolve(pinned))
        sources.extend(self._resolve(ref) for ref in (self.default_chain() if chain is None else chain))
        sources.extend(self._resolve(ref) for ref in palette or ())
        sources.extend(self._resolve(ref) for ref in fallback or ())

        result: list[ProviderConfig] = []
        seen: set[tuple[str, str]] = set()
        for cfg in sources:
            if not cfg.allows(category) or (cfg.name, cfg.model) in seen:
                continue
            seen.add((cfg.name, cfg.model))
            result.append(cfg)
        if result:
            return result
        if category is None:
            raise NoProviderError()
        considered = sorted({cfg.name for cfg in sources})
        detail = f"none of {', '.join(considered)} is tagged {category!r}" if considered else "no candidates"
        raise CategoryModelError(category, detail)

    def _resolve(self, ref: ProviderRef) -> ProviderConfig:
        return ref if isinstance(ref, ProviderConfig) else self.provider(ref)

    # -- calling -------------------------------------------------------------------------

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        content_category: str | None,
        tools: Sequence[ToolSpec] | None = None,
        chain: Sequence[ProviderRef] | None = None,
        pinned: ProviderRef | None = None,
        palette: Sequence[ProviderRef] | None = None,
        fallback: Sequence[ProviderRef] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> AsyncGenerator[RouterEvent, None]:
        """Stream a reply from the first allowed candidate that answers.

        Yields ``ProviderSelected`` once, before the answering provider's first
        event, and ``ProviderFailover`` for each candidate that failed with a
        retryable error before producing output. Once output has been yielded
        an error is raised as is: repeating the call elsewhere would duplicate it.
        """
        category = normalize_category(content_category)
        candidates = self.candidates(category, chain=chain, pinned=pinned, palette=palette, fallback=fallback)
        candidates = _takes_images(candidates, messages)
        for position, cfg in enumerate(candidates):
            self._check_allowed(cfg, category)
            client = self._client_factory(cfg, self._key_resolver(cfg))
            sent = _shown_to(cfg, messages)
            started = False
            try:
                async with (
                    client,
                    aclosing(
                        client.stream_chat(
                            sent,
                            tools,
                            model=cfg.model,
                            temperature=temperature,
                            max_tokens=max_tokens,
                            tool_choice=tool_choice,
                            extra_body=extra_body,
                        )
                    ) as events,
                ):
                    async for event in events:
                        if not started:
                            started = True
                            yield ProviderSelected(cfg.name, cfg.model)
                        yield event
                return
            except LLMError as exc:
                if started or not exc.retryable or position == len(candidates) - 1:
                    raise
                yield ProviderFailover(cfg.name, cfg.model, exc)

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        content_category: str | None,
        tools: Sequence[ToolSpec] | None = None,
        chain: Sequence[ProviderRef] | None = None,
        pinned: ProviderRef | None = None,
        palette: Sequence[ProviderRef] | None = None,
        fallback: Sequence[ProviderRef] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        on_failover: Callable[[ProviderFailover], None] | None = None,
    ) -> ChatCompletion:
        """A non-streamed reply from the first allowed candidate that answers (same rules as ``stream``)."""
        category = normalize_category(content_category)
        candidates = self.candidates(category, chain=chain, pinned=pinned, palette=palette, fallback=fallback)
        candidates = _takes_images(candidates, messages)
        for position, cfg in enumerate(candidates):
            self._check_allowed(cfg, category)
            client = self._client_factory(cfg, self._key_resolver(cfg))
            try:
                async with client:
                    return await client.complete(
                        _shown_to(cfg, messages),
                        tools,
                        model=cfg.model,
                        temperature=temperature,
                        max_tokens=max_tokens,
                        tool_choice=tool_choice,
                        extra_body=extra_body,
                    )
            except LLMError as exc:
                if not exc.retryable or position == len(candidates) - 1:
                    raise
                if on_failover is not None:
                    on_failover(ProviderFailover(cfg.name, cfg.model, exc))
        raise AssertionError("unreachable: candidates() never returns an empty list")

    @staticmethod
    def _check_allowed(cfg: ProviderConfig, category: str | None) -> None:
        # CAT-2 defence in depth: the call site re-checks what candidates() decided.
        if not cfg.allows(category):
            raise CategoryModelError(category or "", f"{cfg.name!r} is not tagged for it")

    def _default_client(self, cfg: ProviderConfig, api_key: str | None) -> OpenAIChatClient:
        return OpenAIChatClient.for_provider(
            cfg, api_key=api_key, timeouts=self._timeouts, retry=self._retry, transport=self._transport
        )


IMAGE_NOT_SHOWN = "[an image the person attached earlier: not shown, this model does not take images]"


def _image_parts(message: ChatMessage) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(part, Mapping) and part.get("type") == "image_url" for part in content
    )


def _takes_images(candidates: list[ProviderConfig], messages: Sequence[ChatMessage]) -> list[ProviderConfig]:
    """ATT-1: images in the person's latest message go only to a model that takes them. The first allowed
    candidate is the one the call is for: without vision the call is refused in one line before any request;
    failover skips the candidates without it. Older images are shown to other models as a notice."""
    users = [m for m in messages if m.get("role") == "user"]
    if not users or not _image_parts(users[-1]):
        return candidates
    if not candidates[0].vision:
        raise ImagesNotTakenError(candidates[0].name)
    return [cfg for cfg in candidates if cfg.vision]


def _shown_to(cfg: ProviderConfig, messages: Sequence[ChatMessage]) -> Sequence[ChatMessage]:
    if cfg.vision or not any(_image_parts(m) for m in messages):
        return messages
    shown: list[ChatMessage] = []
    for message in messages:
        if _image_parts(message):
            parts = [
                part if part.get("type") != "image_url" else {"type": "text", "text": IMAGE_NOT_SHOWN}
                for part in message["content"]
            ]
            message = {**message, "content": parts}
        shown.append(message)
    return shown
