"""The old home of ``xworkmate.agents.acp.terminals``, kept while imports move (issue 19)."""

from xworkmate.agents.acp.terminals import *  # noqa: F403  (every name of its __all__)
from xworkmate.agents.acp.terminals import __all__ as __all__
