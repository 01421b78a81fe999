"""SPEC §1: the UI imports only controllers, domain types, settings (and preferences) and PySide6; no SQL, no HTTP."""

from __future__ import annotations

import ast
from pathlib import Path

import xworkmate.ui

UI_DIR = Path(xworkmate.ui.__file__).resolve().parent
# ``xworkmate.preferences`` sits beside ``settings``: the person's choices read before the store opens (issue 20).
# ``xworkmate.presentation``: what the window shows, worked out without Qt (issue 19, item 3).
ALLOWED_OURS = (
    "xworkmate.controllers",
    "xworkmate.domain",
    "xworkmate.presentation",
    "xworkmate.settings",
    "xworkmate.preferences",
    "xworkmate.icon_names",  # the icon set's names, no imports: shared with the bundle's manifest (issue 30)
    # Import plumbing of the start, no store, no HTTP (issue 34 item 4): the interpreter's own import kept
    # (``lazy``), the compiled code kept between starts (``code_cache``).
    "xworkmate.lazy",
    "xworkmate.code_cache",
    # The gate a switch holds to its paint, which background threads step aside for (issue 34 item 1): threading
    # only, no store, no HTTP.
    "xworkmate.foreground",
    "xworkmate.ui",
)
FORBIDDEN_THIRD_PARTY = ("sqlalchemy", "alembic", "httpx", "psycopg", "sqlite3", "keyring", "PyQt5", "PyQt6")


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_the_ui_imports_only_controllers_domain_settings_and_pyside6() -> None:
    offenders: list[str] = []
    for path in sorted(UI_DIR.rglob("*.py")):
        for name in _imports(path):
            root = name.split(".")[0]
            ours_but_not_allowed = root == "xworkmate" and name != "xworkmate" and not name.startswith(ALLOWED_OURS)
            if ours_but_not_allowed or root in FORBIDDEN_THIRD_PARTY:
                offenders.append(f"{path.name}: {name}")
    assert offenders == []


PRESENTATION_DIR = UI_DIR.parent / "presentation"


def test_the_presentation_layer_imports_only_domain_types() -> None:
    """Issue 19, item 3: between the controllers and the widgets, it reads nothing itself (no store, no
    controllers, no Qt): it is handed domain types and says how they look."""
    offenders = [
        f"{path.name}: {name}"
        for path in sorted(PRESENTATION_DIR.glob("*.py"))
        for name in _imports(path)
        if name.split(".")[0] in ("xworkmate", "PySide6", "shiboken6", "qasync", *FORBIDDEN_THIRD_PARTY)
        and not name.startswith(("xworkmate.domain", "xworkmate.presentation"))
    ]
    assert offenders == []
    assert len(list(PRESENTATION_DIR.glob("*.py"))) >= 6  # the walk found the package
