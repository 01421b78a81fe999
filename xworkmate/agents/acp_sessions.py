"""The old home of ``xworkmate.agents.acp.sessions``, kept while imports move (issue 19)."""

from __future__ import annotations

from xworkmate.agents.acp.sessions import (
    AcpAgentReported,
    AcpChoiceRefused,
    AcpOffersChanged,
    SessionOffers,
    open_session,
    prompt_usage,
)

__all__ = [
    "AcpAgentReported",
    "AcpChoiceRefused",
    "AcpOffersChanged",
    "SessionOffers",
    "open_session",
    "prompt_usage",
]
