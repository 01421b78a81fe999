"""Errors of the LLM layer.

Every error names the provider it concerns, so a message shown in the window or
printed by the command line is actionable on its own. ``retryable`` marks the
failures the router may answer by moving to the next *allowed* candidate
(CAT-2): rate limits, server errors, an unreachable provider and timeouts.

SEC-1: a provider may echo the API key it rejected ("Incorrect API key
provided: sk-…"), whole or in pieces. ``domain.secrets.redact(text, key=…)`` is the one rule for
removing it and every other key format, and an error leaves the client only after
``LLMError.redact`` has applied it, so the key reaches no notice, log line, stderr or stored message.
"""

from __future__ import annotations

from typing import Self

from xworkmate.domain.secrets import REDACTED, redact

REDACTED_KEY = REDACTED
"""SEC-1: what stands where an echoed key was (the one marker, ``domain.secrets.REDACTED``)."""


class LLMError(Exception):
    """Base class of every error raised by ``xworkmate.llm``."""

    retryable: bool = False

    def __init__(self, message: str, *, provider: str | None = None) -> None:
        super().__init__(message)
        self.provider = provider

    def redact(self, key: str | None) -> Self:
        """SEC-1: remove ``key``, every run of it, and every known key format (``redact``) from the message
        and every text attribute, in place."""
        self.args = tuple(redact(arg, key=key) if isinstance(arg, str) else arg for arg in self.args)
        for name, value in list(vars(self).items()):
            if isinstance(value, str):
                setattr(self, name, redact(value, key=key))
        return self


class CategoryModelError(LLMError):
    """CAT-2: no provider tagged with the call's content category remains.

    Raised instead of ever using an out-of-group model to make a call succeed.
    """

    def __init__(self, category: str, detail: str = "") -> None:
        message = f"no model is allowed for content category {category!r}: configure a provider tagged {category!r}"
        if detail:
            message = f"{message} ({detail})"
        super().__init__(message)
        self.category = category


class ImagesNotTakenError(LLMError):
    """ATT-1: the person's message carries an image and the chosen model does not take images."""

    def __init__(self, provider: str) -> None:
        from xworkmate.domain.attachments import images_refused

        super().__init__(images_refused(provider), provider=provider)


class NoProviderError(LLMError):
    """No provider is configured at all, so even normal content has nowhere to go."""

    def __init__(self) -> None:
        super().__init__("no model provider is configured: add one first (xworkmate provider add)")


class UnknownProviderError(LLMError, LookupError):
    """A provider was referred to by a name that is not configured."""

    def __init__(self, name: str) -> None:
        super().__init__(f"no provider named {name!r} is configured", provider=name)


class ApiKeyError(LLMError):
    """The API key of a provider could not be obtained (not a rejection by the server)."""


class ProviderAuthError(LLMError):
    """HTTP 401/403: the provider rejected the API key."""

    def __init__(self, provider: str, status: int, detail: str) -> None:
        message = f"provider {provider!r} rejected the API key (HTTP {status})"
        if detail:
            message = f"{message}: {detail}"
        super().__init__(message, provider=provider)
        self.status = status


class ModelNotFoundError(LLMError):
    """HTTP 404 (or an explicit ``model_not_found``): the model does not exist there."""

    def __init__(self, provider: str, model: str, url: str, status: int, detail: str) -> None:
        message = (
            f"provider {provider!r} has no model {model!r} at {url} (HTTP {status}); "
            "check the model name and the base URL"
        )
        if detail:
            message = f"{message}: {detail}"
        super().__init__(message, provider=provider)
        self.model = model
        self.status = status


class ProviderRequestError(LLMError):
    """Any other 4xx: the provider refused the request as made."""

    def __init__(self, provider: str, status: int, detail: str) -> None:
        message = f"provider {provider!r} refused the request (HTTP {status})"
        if detail:
            message = f"{message}: {detail}"
        super().__init__(message, provider=provider)
        self.status = status


class RateLimitedError(LLMError):
    """HTTP 429 that persisted through the client's own retries."""

    retryable = True

    def __init__(self, provider: str, detail: str, retry_after: float | None = None) -> None:
        message = f"provider {provider!r} is rate limiting requests (HTTP 429)"
        if retry_after is not None:
            message = f"{message}, retry after {retry_after:g} s"
        if detail:
            message = f"{message}: {detail}"
        super().__init__(message, provider=provider)
        self.status = 429
        self.retry_after = retry_after


class ProviderServerError(LLMError):
    """HTTP 5xx, or an error object the provider sent inside the stream."""

    retryable = True

    def __init__(self, provider: str, status: int | None, detail: str, retry_after: float | None = None) -> None:
        where = f"HTTP {status}" if status is not None else "error inside the stream"
        message = f"provider {provider!r} failed ({where})"
        if detail:
            message = f"{message}: {detail}"
        super().__init__(message, provider=provider)
        self.status = status
        self.retry_after = retry_after


class ProviderUnreachableError(LLMError):
    """The provider's address could not be reached (refused, DNS, reset before a reply)."""

    retryable = True

    def __init__(self, provider: str, base_url: str, detail: str) -> None:
        message = f"provider {provider!r} is unreachable at {base_url}"
        if detail:
            message = f"{message}: {detail}"
        super().__init__(message, provider=provider)
        self.base_url = base_url


class ProviderTimeoutError(LLMError):
    """A connect, read, write or pool timeout."""

    retryable = True

    def __init__(self, provider: str, base_url: str, phase: str, seconds: float | None) -> None:
        limit = f" after {seconds:g} s" if seconds is not None else ""
        super().__init__(f"provider {provider!r} at {base_url} timed out ({phase}{limit})", provider=provider)
        self.base_url = base_url
        self.phase = phase


class MalformedResponseError(LLMError):
    """The provider answered with something that is not an OpenAI-compatible reply."""

    def __init__(self, provider: str, detail: str) -> None:
        super().__init__(f"provider {provider!r} sent a malformed reply: {detail}", provider=provider)
        self.detail = detail


class MalformedStreamError(MalformedResponseError):
    """A streamed reply broke the protocol: non-JSON data, missing ``choices``, truncation."""

    def __init__(self, provider: str, detail: str) -> None:
        LLMError.__init__(self, f"provider {provider!r} sent a malformed stream: {detail}", provider=provider)
        self.detail = detail


class StreamInterruptedError(LLMError):
    """The connection failed after part of the reply was already delivered.

    Never retried and never failed over: the consumer has already seen output
    from this provider, and repeating the call elsewhere would duplicate it.
    """

    def __init__(self, provider: str, base_url: str, detail: str) -> None:
        super().__init__(f"the stream from provider {provider!r} at {base_url} broke off: {detail}", provider=provider)
        self.base_url = base_url


class ToolArgumentsError(LLMError):
    """A tool call's ``arguments`` are not a JSON object.

    The agent loop feeds ``str(error)`` back to the model as the tool result so
    the model can correct itself.
    """

    def __init__(self, tool_name: str, call_id: str, detail: str) -> None:
        super().__init__(
            f"the arguments of tool call {call_id!r} to {tool_name!r} are not a valid JSON object: {detail}"
        )
        self.tool_name = tool_name
        self.call_id = call_id
        self.detail = detail
