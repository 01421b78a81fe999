"""Packages whose names load from their modules when first asked for (PEP 562).

``xworkmate.cli``, ``xworkmate.controllers`` and ``xworkmate.store`` export names this way, so that
importing one of their light modules (``cli/gui``, ``controllers/first_list``, ``store/first_list``) does
not load the stack: the window is painted, and its first task list read, before it loads (issue 19,
item 7). Each package still names its exports literally (``__all__`` and ``TYPE_CHECKING`` imports),
because the static tools read those.

``BUILTIN_IMPORT`` is the interpreter's own ``__import__`` as it was when this module first loaded: on the
window's path (``xworkmate.entry`` loads this package's ``cli`` first) that is before PySide6 replaces it with
its ``__feature__`` hook, so ``ui/start`` can load the stack with it (issue 34, item 4).
"""

from __future__ import annotations

import builtins
import importlib
from collections.abc import Callable, Mapping
from typing import Any

BUILTIN_IMPORT: Callable[..., Any] = builtins.__import__


def lazy_attributes(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: a name in ``homes`` loads from ``package.<its module>`` (from
    the module itself when its home is a whole name, ``xworkmate.…``) and becomes a plain attribute of the
    package (which callers may replace, as tests do)."""

    def attribute(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = home if home.startswith("xworkmate.") else f"{package}.{home}"
        value = getattr(importlib.import_module(module), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return attribute
