"""Moved to :mod:`xworkmate.testing.acp_scripts` (issue 21); this path keeps old imports working."""

from xworkmate.testing.acp_scripts import *  # noqa: F403
from xworkmate.testing.acp_scripts import GATED_AGENT, SCRIPTED_AGENT, agent_folder, report_events, scripted_agent

__all__ = ["GATED_AGENT", "SCRIPTED_AGENT", "agent_folder", "report_events", "scripted_agent"]
