"""Where XWorkmate keeps its data (SPEC §7, §8).

``XWORKMATE_HOME`` moves the data folder (database, default workspace root),
``XWORKMATE_DATABASE_URL`` selects any SQLAlchemy URL and
``XWORKMATE_WORKSPACE_ROOT`` moves the root under which new lines get their
folders. Nothing here imports Qt or the store.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

APP_NAME = "xworkmate"


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="XWORKMATE_", extra="ignore")

    home: Path = Field(default_factory=_default_home, description="data folder")
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; SQLite in home if unset")
    workspace_root: Path | None = Field(default=None, description="root of new lines' folders")

    @field_validator("home", "workspace_root", mode="after")
    @classmethod
    def _absolute(cls, value: Path | None) -> Path | None:
        return value.expanduser().resolve() if value is not None else None

    @field_validator("database_url", mode="after")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None

    @property
    def sqlite_path(self) -> Path:
        return self.home / "xworkmate.sqlite3"

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite:///{self.sqlite_path}"

    @property
    def effective_workspace_root(self) -> Path:
        return self.workspace_root or (self.home / "workspace")

    @property
    def threads_root(self) -> Path:
        """``<workspace root>/.xworkmate/threads`` (ISO-3)."""
        return self.effective_workspace_root / ".xworkmate" / "threads"
