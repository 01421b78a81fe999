"""The old home of ``xworkmate.agents.acp.sessions``, kept while imports move (issue 19)."""

from xworkmate.agents.acp.sessions import *  # noqa: F403  (every name of its __all__)
from xworkmate.agents.acp.sessions import __all__ as __all__
