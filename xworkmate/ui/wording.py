"""Plain words in the window (issues 18 and 20): Qt-free in ``xworkmate.presentation.wording`` since
issue 19, re-exported here for the window's modules."""

from xworkmate.presentation import wording as _wording
from xworkmate.presentation.wording import *  # noqa: F403

__all__ = _wording.__all__
