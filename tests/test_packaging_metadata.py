"""The installable package is complete: every subpackage and the resources ship in the wheel."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setuptools() -> dict[str, object]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return dict(data["tool"]["setuptools"])


def test_every_subpackage_is_listed_for_the_wheel() -> None:
    listed = set(_setuptools()["packages"])  # type: ignore[call-overload]
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "xworkmate").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


def test_resources_ship_as_xworkmate_resources() -> None:
    setuptools = _setuptools()
    assert setuptools["package-dir"] == {"xworkmate.resources": "resources"}
    patterns = setuptools["package-data"]["xworkmate.resources"]  # type: ignore[index]
    shipped = {p.name for p in (ROOT / "resources").iterdir() if any(p.match(pat) for pat in patterns)}
    assert shipped == {p.name for p in (ROOT / "resources").iterdir() if p.is_file()}


def test_the_icon_set_ships_in_the_wheel() -> None:
    """Issue 30 item 1: every icon the window loads is package data of ``xworkmate.resources``."""
    from fnmatch import fnmatch

    from xworkmate.icon_names import ICON_NAMES, ICONS_FOLDER

    patterns = _setuptools()["package-data"]["xworkmate.resources"]  # type: ignore[index]
    for name in ICON_NAMES:
        relative = f"{ICONS_FOLDER}/{name}.svg"
        assert (ROOT / "resources" / relative).is_file(), relative
        assert any(fnmatch(relative, pattern) for pattern in patterns), relative
    on_disk = {p.stem for p in (ROOT / "resources" / ICONS_FOLDER).glob("*.svg")}
    assert on_disk == set(ICON_NAMES)  # none loaded that does not ship, none shipped that is not loaded
