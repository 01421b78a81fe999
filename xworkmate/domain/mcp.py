"""MCP servers a person configures once and gives to lines (issue 15, item 3).

A server is a stdio command or an http URL. Its environment is a list of
references (``NAME=env:VAR``): the value is read from our environment when the
agent is started and is never stored or logged (SEC-1). Category tags work as
for providers, by the same rule (``domain.categories.tags_allow``): a category
line gets only servers tagged with its category.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, field_validator

from xworkmate.domain.categories import normalize_tags, tags_allow

__all__ = ["McpServerError", "McpServerRecord", "parse_env_ref", "servers_for_category"]

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
_VAR_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class McpServerError(ValueError):
    """An MCP server that cannot be configured as given; the message names the field."""


class McpServerRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    transport: Literal["stdio", "http"] = "stdio"
    command: tuple[str, ...] = ()
    url: str | None = None
    env_refs: tuple[tuple[str, str], ...] = ()
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

    def allows(self, content_category: str | None) -> bool:
        return tags_allow(frozenset(self.tags), content_category)

    def describe(self) -> str:
        target = " ".join(self.command) if self.transport == "stdio" else (self.url or "")
        tags = f" tags={','.join(self.tags)}" if self.tags else ""
        env = f" env={','.join(n for n, _ in self.env_refs)}" if self.env_refs else ""
        return f"{self.name}  {self.transport}  {target}{env}{tags}"


def parse_env_ref(item: str) -> tuple[str, str]:
    """``K=env:VAR`` → ``("K", "env:VAR")``; anything else (a pasted value too) is refused, not echoed."""
    name, sep, ref = item.partition("=")
    scheme, _, var = ref.partition(":")
    if not sep or not _VAR_RE.fullmatch(name) or scheme != "env" or not _VAR_RE.fullmatch(var):
        raise McpServerError(
            f"--env for {name or '?'} must look like NAME=env:VAR (a reference to our environment, never a value)"
        )
    return name, ref


def servers_for_category(servers: list[McpServerRecord], content_category: str | None) -> list[McpServerRecord]:
    """CAT-2's rule for MCP servers: a category line keeps only servers tagged with its category."""
    return [s for s in servers if s.allows(content_category)]
