"""Opening the application for a front end that is not the window: the command line (issue 19, item 3).

The CLI talks only to controllers. Here it gets its ``SessionController`` over the store its settings
name, and the errors it tells apart, without reaching into ``store`` or ``llm`` itself.
"""

from __future__ import annotations

from xworkmate.controllers.session import SessionController
from xworkmate.llm.errors import LLMError
from xworkmate.settings import Settings
from xworkmate.store import StoreOpenError, describe_database_url, open_store

__all__ = ["LLMError", "StoreOpenError", "describe_database_url", "open_controller"]


def open_controller(settings: Settings) -> SessionController:
    """The controller over the database ``settings`` name, opened and upgraded; ``StoreOpenError`` if it cannot be."""
    return SessionController(open_store(settings.effective_database_url), settings)
