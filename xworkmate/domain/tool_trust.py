"""How far each tool's output may be trusted, in one table (SPEC Q-1).

A line that turns on ``ContextState.quarantine_untrusted`` has the output of
its untrusted tools quarantined as it is stored: kept whole for the person, the
model sees only the standard placeholder naming the message. The controller
that records native turns asks this module, and so do the store, the window
and the CLI about which messages a person may hide.

Each native tool's trust is its ``ToolSpec.trust`` (``domain.tools``). Today
``run_command`` is the one untrusted tool: its output is whatever the command
printed, which may be anything the command read from the network or the disk.
Tools to come (a web fetch, MCP results) are added to that table; a name the
table does not know is untrusted, so a new tool is never trusted by omission.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from xworkmate.domain.messages import MessageSource
from xworkmate.domain.tool_errors import OUR_OWN_RESULTS
from xworkmate.domain.tools import TOOL_SPECS, ToolTrust

# From the one tool table (``domain.tools``, issue 33 item 3).
TOOL_TRUST: Mapping[str, ToolTrust] = MappingProxyType({spec.name.value: spec.trust for spec in TOOL_SPECS})


def tool_trust(tool_name: str) -> ToolTrust:
    """The tool's trust level; unknown tools are untrusted (fail closed)."""
    return TOOL_TRUST.get(tool_name, ToolTrust.UNTRUSTED)


def quarantines_output(tool_name: str, *, quarantine_untrusted: bool, error_kind: str | None = None) -> bool:
    """Q-1: is this tool's result stored quarantined on a line with this setting?"""
    if not quarantine_untrusted or error_kind in OUR_OWN_RESULTS:
        return False
    return tool_trust(tool_name) is ToolTrust.UNTRUSTED


# A person may hide any tool result or agent-made message from the model; never the person's own
# words (they are the evidence WR-1 reads) nor framework notices (the model never sees those anyway).
QUARANTINABLE_SOURCES = frozenset(
    {MessageSource.TOOL, MessageSource.AGENT, MessageSource.COMPONENT_INPUT, MessageSource.QUARANTINE}
)


def can_be_quarantined(source: MessageSource) -> bool:
    """Q-1: may a person hide a message of this source from the model?"""
    return source in QUARANTINABLE_SOURCES
