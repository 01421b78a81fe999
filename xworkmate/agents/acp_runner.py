"""The old home of ``xworkmate.agents.acp``, kept while imports move (issue 19)."""

from xworkmate.agents.acp import *  # noqa: F403  (every name of its __all__)
from xworkmate.agents.acp import __all__ as __all__
