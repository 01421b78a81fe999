"""The old home of ``xworkmate.agents.acp.terminals``, kept while imports move (issue 19)."""

from __future__ import annotations

from xworkmate.agents.acp.terminals import (
    TerminalPlan,
    TurnTerminals,
    terminal_refusal,
)

__all__ = ["TerminalPlan", "TurnTerminals", "terminal_refusal"]
