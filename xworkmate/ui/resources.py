"""Finding and loading the app's resources: icon, stylesheet and the window's icon set.

The resources live in the repository's top-level ``resources/`` folder; a
PyInstaller build puts them in ``sys._MEIPASS/resources``. A missing or
unreadable file raises ``ResourceMissingError`` with the paths that were
tried, so a smoke test fails loudly instead of passing without an icon.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QByteArray
from PySide6.QtGui import QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

import xworkmate
from xworkmate.icon_names import ICON_NAMES, ICONS_FOLDER

ICON_PNG = "xworkmate.png"
ICON_SVG = "xworkmate.svg"
STYLESHEET = "style.qss"
REQUIRED_FILES = (ICON_PNG, ICON_SVG, STYLESHEET, *(f"{ICONS_FOLDER}/{name}.svg" for name in ICON_NAMES))
ICON_SIZES = (16, 24, 32, 48)


class ResourceMissingError(RuntimeError):
    """A resource the window needs is missing or unreadable; the message says which and where."""


@dataclass(frozen=True)
class AppResources:
    folder: Path
    icon: QIcon
    stylesheet: str


def resource_dir_candidates() -> list[Path]:
    """Where ``resources/`` may be, most specific first."""
    candidates: list[Path] = []
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        candidates.append(Path(frozen_root) / "resources")
    package_dir = Path(xworkmate.__file__).resolve().parent
    candidates.append(package_dir.parent / "resources")  # the repository checkout
    candidates.append(package_dir / "resources")  # an installed wheel with package data
    return list(dict.fromkeys(candidates))  # frozen, the checkout candidate is sys._MEIPASS/resources again


def find_resource_dir(candidates: list[Path] | None = None) -> Path:
    """The first candidate folder that holds every required file."""
    tried = candidates if candidates is not None else resource_dir_candidates()
    for folder in tried:
        if all((folder / name).is_file() for name in REQUIRED_FILES):
            return folder
    looked = "; ".join(str(path) for path in tried)
    needed = ", ".join(REQUIRED_FILES)
    raise ResourceMissingError(f"resources not found: no folder with {needed} (looked in: {looked})")


def load_resources(folder: Path | None = None) -> AppResources:
    """Read the icon and the stylesheet; raise ``ResourceMissingError`` if either is unusable."""
    root = folder if folder is not None else find_resource_dir()
    for name in REQUIRED_FILES:
        if not (root / name).is_file():
            raise ResourceMissingError(f"resource missing: {root / name}")
    pixmap = QPixmap(str(root / ICON_PNG))
    if pixmap.isNull():
        raise ResourceMissingError(f"resource unreadable: {root / ICON_PNG} is not a PNG image Qt can load")
    icon = QIcon(pixmap)
    icon.addFile(str(root / ICON_SVG))
    try:
        stylesheet = (root / STYLESHEET).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceMissingError(f"resource unreadable: {root / STYLESHEET}: {exc}") from exc
    if not stylesheet.strip():
        raise ResourceMissingError(f"resource empty: {root / STYLESHEET}")
    return AppResources(folder=root, icon=icon, stylesheet=stylesheet)


def themed_icon(name: str, colour: str, folder: Path | None = None) -> QIcon:
    """The icon ``name`` (one of ``ICON_NAMES``) drawn in ``colour`` (``#rrggbb``), at the usual sizes;
    ``ResourceMissingError`` when its file is missing or not an SVG Qt can draw."""
    root = folder if folder is not None else find_resource_dir()
    path = root / ICONS_FOLDER / f"{name}.svg"
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResourceMissingError(f"resource unreadable: {path}: {exc}") from exc
    renderer = QSvgRenderer(QByteArray(source.replace("currentColor", colour).encode("utf-8")))
    if not renderer.isValid():
        raise ResourceMissingError(f"resource unreadable: {path} is not an SVG image Qt can draw")
    icon = QIcon()
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)  # clear: the strokes go on nothing
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        icon.addPixmap(QPixmap.fromImage(image))
    return icon
