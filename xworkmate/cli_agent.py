"""The old home of ``xworkmate.cli.agent``, kept while imports move (issue 19)."""

from xworkmate.cli.agent import *  # noqa: F403  (every name of its __all__)
from xworkmate.cli.agent import __all__ as __all__
