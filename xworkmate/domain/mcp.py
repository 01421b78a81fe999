"""MCP servers a person configures once and gives to lines (issue 15, item 3).

A server is a stdio command, or an http or sse URL (issue 32, item 6). A stdio
server's environment and an http/sse server's headers are lists of references
(``NAME=env:VAR``): the value is read from our environment when the agent is
started and is never stored or logged (SEC-1). Category tags work as
for providers, by the same rule (``domain.categories.tags_allow``): a category
line gets only servers tagged with its category.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from xworkmate.domain.categories import normalize_tags, tags_allow

__all__ = [
    "McpServerError",
    "McpServerRecord",
    "McpTransport",
    "parse_env_ref",
    "parse_header_ref",
    "servers_for_category",
]

McpTransport = Literal["stdio", "http", "sse"]

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
_VAR_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_RE = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$")  # an HTTP header name (RFC 9110 token)


class McpServerError(ValueError):
    """An MCP server that cannot be configured as given; the message names the field."""


class McpServerRecord(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    transport: McpTransport = "stdio"
    command: tuple[str, ...] = ()
    url: str | None = None
    env_refs: tuple[tuple[str, str], ...] = ()
    header_refs: tuple[tuple[str, str], ...] = ()
    """http/sse only: ``(header name, "env:VAR")``, resolved when the agent starts."""
    tags: tuple[str, ...] = ()

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME_RE.fullmatch(value):
            raise ValueError(f"MCP server name {value!r}: use letters, digits, '_', '.' and '-'")
        return value

    @field_validator("tags", mode="before")
    @classmethod
    def _tags(cls, value: object) -> tuple[str, ...]:
        return tuple(sorted(normalize_tags(list(value or ()))))  # type: ignore[call-overload]

    @model_validator(mode="after")
    def _shape(self) -> McpServerRecord:
        if self.transport == "stdio":
            if self.url or self.header_refs:
                raise ValueError("a stdio MCP server has a command, not a URL or headers")
        elif self.command or self.env_refs:
            raise ValueError(f"an {self.transport} MCP server has a URL and headers, not a command or environment")
        return self

    def allows(self, content_category: str | None) -> bool:
        return tags_allow(frozenset(self.tags), content_category)

    def describe(self) -> str:
        target = " ".join(self.command) if self.transport == "stdio" else (self.url or "")
        tags = f" tags={','.join(self.tags)}" if self.tags else ""
        env = f" env={','.join(n for n, _ in self.env_refs)}" if self.env_refs else ""
        headers = f" headers={','.join(n for n, _ in self.header_refs)}" if self.header_refs else ""
        return f"{self.name}  {self.transport}  {target}{env}{headers}{tags}"


def parse_env_ref(item: str) -> tuple[str, str]:
    """``K=env:VAR`` → ``("K", "env:VAR")``; anything else (a pasted value too) is refused, not echoed."""
    name, sep, ref = item.partition("=")
    scheme, _, var = ref.partition(":")
    if not sep or not _VAR_RE.fullmatch(name) or scheme != "env" or not _VAR_RE.fullmatch(var):
        raise McpServerError(
            f"--env for {name or '?'} must look like NAME=env:VAR (a reference to our environment, never a value)"
        )
    return name, ref


def parse_header_ref(item: str) -> tuple[str, str]:
    """``Authorization=env:TOKEN`` → ``("Authorization", "env:TOKEN")``; a value is refused, not echoed."""
    name, sep, ref = item.partition("=")
    scheme, _, var = ref.partition(":")
    if not sep or not _HEADER_RE.fullmatch(name) or scheme != "env" or not _VAR_RE.fullmatch(var):
        shown = name if _HEADER_RE.fullmatch(name) else "?"
        raise McpServerError(
            f"--header {shown} must look like NAME=env:VAR (a reference to our environment, never a value)"
        )
    return name, ref


def servers_for_category(servers: list[McpServerRecord], content_category: str | None) -> list[McpServerRecord]:
    """CAT-2's rule for MCP servers: a category line keeps only servers tagged with its category."""
    return [s for s in servers if s.allows(content_category)]
