"""The old home of ``xworkmate.cli.checkpoints``, kept while imports move (issue 19)."""

from xworkmate.cli.checkpoints import *  # noqa: F403  (every name of its __all__)
from xworkmate.cli.checkpoints import __all__ as __all__
