"""The old home of ``xworkmate.cli.search``, kept while imports move (issue 19)."""

from xworkmate.cli.search import *  # noqa: F403  (every name of its __all__)
from xworkmate.cli.search import __all__ as __all__
