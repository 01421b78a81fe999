"""The data folder, as ``Settings.home`` reads it, without pydantic (issue 19, item 7).

``xworkmate gui`` chooses the window's language (``preferences.json`` in this folder) before its first
paint, and paints before the stack (SQLAlchemy, pydantic) loads; ``Settings`` takes its default and its
``XWORKMATE_HOME`` reading from here, so the two never disagree. Nothing here imports Qt or the store.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "xworkmate"
ENV_PREFIX = "XWORKMATE_"
SQLITE_FILE = "xworkmate.sqlite3"
"""The database in the data folder when ``XWORKMATE_DATABASE_URL`` names none."""


def environment_setting(field: str) -> str | None:
    """``XWORKMATE_<FIELD>`` from the environment, its name in any case; ``None`` when it is not set."""
    wanted = f"{ENV_PREFIX}{field.upper()}"
    for name, value in os.environ.items():
        if name.upper() == wanted:
            return value
    return None


def default_home() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def absolute(path: Path) -> Path:
    return path.expanduser().resolve()


def chosen_home() -> Path:
    """``XWORKMATE_HOME`` when it is set, else the platform's data folder; absolute, as ``Settings.home``."""
    value = environment_setting("home")
    return absolute(Path(value) if value is not None else default_home())


def database_url_setting() -> str | None:
    """``XWORKMATE_DATABASE_URL`` as ``Settings.database_url`` reads it: stripped, and blank is unset."""
    return blank_is_unset(environment_setting("database_url"))


def blank_is_unset(value: str | None) -> str | None:
    """A database URL as the settings keep it: stripped, and a blank one is no URL."""
    return value.strip() or None if value is not None else None
