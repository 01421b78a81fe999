"""The old home of the workspace tools, kept while imports move to ``xworkmate.agents.tools`` (issue 19)."""

from xworkmate.agents.tools import *  # noqa: F403  (every name of its __all__)
from xworkmate.agents.tools import __all__ as __all__
