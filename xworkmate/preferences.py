"""The person's preferences that the window needs before the store opens (issue 20): the language, and
the theme (issue 30 item 1: the opening screen is painted in it, not light for a dark-theme user).

They live in ``$XWORKMATE_HOME/preferences.json``, not in the database: the
window chooses its language before it builds a widget, and the store may open
only after the first paint (issue 19). ``XWORKMATE_LANGUAGE`` overrides the
file (tests and one-off runs). A missing file means the defaults; an
unreadable or invalid one logs one line and means the defaults too, never an
error. Nothing here imports Qt, the store or pydantic: ``xworkmate gui`` reads the language before its
first paint, before the stack loads (issue 19, item 7), so the file is read with ``json`` and checked here.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PREFERENCES_FILE = "preferences.json"
LANGUAGE_ENV = "XWORKMATE_LANGUAGE"


class Language(StrEnum):
    """What the window speaks: the system's language (when it has a translation), English or Simplified Chinese."""

    SYSTEM = "system"
    ENGLISH = "en"
    CHINESE = "zh_CN"


# The compiled catalogues (issue 20), named here so the window (ui/i18n.py) and the bundle's manifest
# (packaging/bundle_manifest.py) agree: the app's under resources/i18n/, Qt's own from PySide6's translations.
CATALOGUE_FOLDER = "i18n"
QT_CATALOGUES: dict[Language, tuple[str, ...]] = {Language.CHINESE: ("qtbase_zh_CN.qm",)}


def app_catalogue(language: Language) -> str:
    """The file name of the app's compiled catalogue for ``language`` (``xworkmate_zh_CN.qm``)."""
    return f"xworkmate_{language.value}.qm"


THEME_CHOICES = ("system", "light", "dark")
"""``Preferences.theme``: the values of ``ui.theme.ThemeMode`` (named here: this module imports no Qt)."""


@dataclass(frozen=True)
class Preferences:
    language: Language = Language.SYSTEM
    theme: str = "system"

    @classmethod
    def from_json(cls, text: str) -> Preferences:
        """The preferences a file holds; ``ValueError`` saying what is wrong with it. Keys a newer version
        wrote are ignored, so they do not break an older one."""
        data: Any = json.loads(text)  # JSONDecodeError is a ValueError
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        language = data.get("language", Language.SYSTEM.value)
        theme = data.get("theme", "system")
        if theme not in THEME_CHOICES:
            log.warning("ignoring the theme %r: use one of %s", theme, ", ".join(THEME_CHOICES))
            theme = "system"
        try:
            return cls(language=Language(language), theme=theme)
        except ValueError:
            choices = ", ".join(choice.value for choice in Language)
            raise ValueError(f"language {language!r} is not one of {choices}") from None

    def to_json(self) -> str:
        return json.dumps({key: str(value) for key, value in asdict(self).items()}, indent=2)


def preferences_path(home: Path) -> Path:
    return home / PREFERENCES_FILE


def load_preferences(home: Path) -> Preferences:
    """The saved preferences; the defaults when there are none or they cannot be read (one log line)."""
    path = preferences_path(home)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Preferences()
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("ignoring the preferences in %s (unreadable: %s); using the defaults", path, exc)
        return Preferences()
    try:
        return Preferences.from_json(text)
    except ValueError as exc:
        log.warning("ignoring the preferences in %s (%s); using the defaults", path, exc)
        return Preferences()


def save_preferences(home: Path, preferences: Preferences) -> None:
    """Write the preferences atomically (a crash leaves the old file or the new one, never half of one)."""
    home.mkdir(parents=True, exist_ok=True)
    path = preferences_path(home)
    handle, temporary = tempfile.mkstemp(prefix=".preferences-", suffix=".json", dir=home)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(preferences.to_json() + "\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def chosen_language(home: Path) -> Language:
    """``XWORKMATE_LANGUAGE`` when it names a language, else the saved preference."""
    override = os.environ.get(LANGUAGE_ENV, "").strip()
    if override:
        try:
            return Language(override)
        except ValueError:
            choices = ", ".join(language.value for language in Language)
            log.warning("ignoring %s=%r: use one of %s", LANGUAGE_ENV, override, choices)
    return load_preferences(home).language
