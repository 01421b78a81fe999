"""Packages whose names load from their modules when first asked for (PEP 562).

``xworkmate.cli``, ``xworkmate.controllers`` and ``xworkmate.store`` export names this way, so that
importing one of their light modules (``cli/gui``, ``controllers/first_list``, ``store/first_list``) does
not load the stack: the window is painted, and its first task list read, before it loads (issue 19,
item 7). Each package still names its exports literally (``__all__`` and ``TYPE_CHECKING`` imports),
because the static tools read those.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: a name in ``homes`` loads from ``package.<its module>``
    and becomes a plain attribute of the package (which callers may replace, as tests do)."""

    def attribute(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return attribute
