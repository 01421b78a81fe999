"""Moved to :mod:`xworkmate.testing.acp_gated_agent` (issue 21); this path keeps old imports working."""

import sys

from xworkmate.testing.acp_gated_agent import *  # noqa: F403
from xworkmate.testing.acp_gated_agent import GatedAgent

__all__ = ["GatedAgent"]

if __name__ == "__main__":
    from xworkmate.testing.acp_gated_agent import main

    main(sys.argv)
