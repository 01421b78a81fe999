"""The old home of ``xworkmate.cli.search``, kept while imports move (issue 19)."""

from __future__ import annotations

from xworkmate.cli.search import (
    add_search_and_export_commands,
    cmd_export,
    cmd_search,
)

__all__ = [
    "add_search_and_export_commands",
    "cmd_export",
    "cmd_search",
]
