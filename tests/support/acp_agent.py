"""Moved to :mod:`xworkmate.testing.acp_agent` (issue 21); this path keeps old imports working.

Running ``python tests/support/acp_agent.py SCRIPT.json`` still starts the scripted agent; new code
starts it as ``python -m xworkmate.testing.acp_agent SCRIPT.json``.
"""

import sys

from xworkmate.testing.acp_agent import *  # noqa: F403
from xworkmate.testing.acp_agent import SCRIPT_ENV, ScriptedAgent, load_script, main

__all__ = ["SCRIPT_ENV", "ScriptedAgent", "load_script", "main"]

if __name__ == "__main__":
    main(sys.argv)
