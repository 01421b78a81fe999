"""Where XWorkmate keeps its data (SPEC §7, §8).

``XWORKMATE_HOME`` moves the data folder (database, default workspace root),
``XWORKMATE_DATABASE_URL`` selects any SQLAlchemy URL and
``XWORKMATE_WORKSPACE_ROOT`` moves the root under which new lines get their
folders. Nothing here imports Qt or the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from xworkmate.home import (
    APP_NAME,
    ENV_PREFIX,
    SQLITE_FILE,
    absolute,
    blank_is_unset,
    default_home,
    environment_setting,
)

__all__ = ["APP_NAME", "ENV_PREFIX", "Settings"]


class Settings(BaseModel):
    """Arguments win; a field not given comes from ``XWORKMATE_<FIELD>`` (any case), else its default.

    A bad value raises pydantic's ``ValidationError`` naming the field.
    """

    home: Path = Field(default_factory=default_home, description="data folder")
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; SQLite in home if unset")
    workspace_root: Path | None = Field(default=None, description="root of new lines' folders")

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        values = dict(data)
        for field in cls.model_fields:
            if field not in values and (value := environment_setting(field)) is not None:
                values[field] = value
        return values

    @field_validator("home", "workspace_root", mode="after")
    @classmethod
    def _absolute(cls, value: Path | None) -> Path | None:
        return absolute(value) if value is not None else None

    @field_validator("database_url", mode="after")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return blank_is_unset(value)

    @property
    def sqlite_path(self) -> Path:
        return self.home / SQLITE_FILE

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
