"""What a frozen XWorkmate must carry besides Python modules (STYLE 11).

One list, read by ``xworkmate.spec`` (what PyInstaller copies), by
``check_bundle.py`` (what a built bundle must hold before it is run) and by
``tests/packaging`` (that the list covers every file on disk). Plain Python,
no PyInstaller or Qt import, so the test runs anywhere.

Destinations are relative to the bundle's data root, ``sys._MEIPASS``
(``dist/xworkmate/_internal`` on Linux and Windows,
``XWorkmate.app/Contents/Frameworks`` on macOS):

- ``resources/``: ``xworkmate/ui/resources.py`` looks in ``sys._MEIPASS/resources``.
- ``resources/i18n/*.qm``: the window's compiled catalogues (issue 20), built by
  ``make translations`` (pyside6-lrelease), never committed; the Chinese one is
  required, so a bundle built before the catalogues fails the build.
- ``PySide6/Qt/translations/qtbase_zh_CN.qm``: Qt's own Chinese (file picker,
  standard buttons); the spec drops Qt's other catalogues.
- ``xworkmate/store/migrations/``: ``xworkmate/store/database.py`` uses
  ``Path(__file__).parent / "migrations"``, and a frozen module's ``__file__``
  is ``sys._MEIPASS/xworkmate/store/database.pyc``. Alembic reads ``env.py``
  and ``versions/*.py`` from disk, so they ship as source files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from xworkmate.icon_names import ICON_NAMES, ICONS_FOLDER
from xworkmate.preferences import CATALOGUE_FOLDER, QT_CATALOGUES, Language, app_catalogue

REPO_ROOT = Path(__file__).resolve().parent.parent

# Source folder (relative to the repository) -> destination folder (relative to sys._MEIPASS).
DATA_TREES: dict[str, str] = {
    "resources": "resources",
    "xworkmate/store/migrations": "xworkmate/store/migrations",
}

# Files the app cannot start without, named so a broken tree fails the build,
# not only a bundle that lost them (ui/resources.py REQUIRED_FILES; Alembic).
REQUIRED_DATA: tuple[str, ...] = (
    "resources/style.qss",
    "resources/xworkmate.svg",
    "resources/xworkmate.png",
    "xworkmate/store/migrations/env.py",
    "xworkmate/store/migrations/script.py.mako",
    f"resources/{CATALOGUE_FOLDER}/{app_catalogue(Language.CHINESE)}",
    *(f"resources/{ICONS_FOLDER}/{name}.svg" for name in ICON_NAMES),  # issue 30: the window's icon set
)
MIGRATION_VERSIONS = "xworkmate/store/migrations/versions"

# Qt plugins the window needs on each OS, relative to sys._MEIPASS. The smoke
# test runs on the offscreen platform, so it would pass without the real
# platform plugin; this list is what catches that before a person launches it.
QT_PLUGIN_DIR = "PySide6/Qt/plugins"
QT_TRANSLATIONS_DIR = "PySide6/Qt/translations"
QT_TRANSLATIONS: tuple[str, ...] = tuple(name for names in QT_CATALOGUES.values() for name in names)
REQUIRED_QT_PLUGINS: dict[str, tuple[str, ...]] = {
    "linux": (
        "platforms/libqxcb.so",
        "platforms/libqwayland.so",
        "platforms/libqoffscreen.so",
        "imageformats/libqsvg.so",
        "iconengines/libqsvgicon.so",
    ),
    "darwin": (
        "platforms/libqcocoa.dylib",
        "platforms/libqoffscreen.dylib",
        "imageformats/libqsvg.dylib",
        "iconengines/libqsvgicon.dylib",
    ),
    "win32": (
        "platforms/qwindows.dll",
        "platforms/qoffscreen.dll",
        "imageformats/qsvg.dll",
        "iconengines/qsvgicon.dll",
    ),
}

# Executables, relative to the one-folder bundle (or the .app on macOS). On
# Windows the windowed XWorkmate.exe has no console, so xworkmate-cli.exe
# (console) is the one that prints: the smoke test and scripts use it.
EXECUTABLES: dict[str, tuple[str, ...]] = {
    "linux": ("xworkmate",),
    "darwin": ("Contents/MacOS/xworkmate",),
    "win32": ("XWorkmate.exe", "xworkmate-cli.exe"),
}

_SKIPPED_DIRS = {"__pycache__"}
_SKIPPED_SUFFIXES = {".pyc", ".pyo"}


@dataclass(frozen=True)
class DataFile:
    source: Path  # absolute path in the checkout
    dest: PurePosixPath  # path of the file inside the bundle, relative to sys._MEIPASS


def _shipped(path: Path, tree: Path) -> bool:
    parts = path.relative_to(tree).parts
    if any(part in _SKIPPED_DIRS or part.startswith(".") for part in parts):
        return False
    return path.is_file() and path.suffix not in _SKIPPED_SUFFIXES


def data_files(root: Path = REPO_ROOT) -> list[DataFile]:
    """Every file of every data tree, with its place in the bundle."""
    files: list[DataFile] = []
    for source_dir, dest_dir in DATA_TREES.items():
        tree = root / source_dir
        if not tree.is_dir():
            raise FileNotFoundError(f"data folder missing from the checkout: {tree}")
        for path in sorted(tree.rglob("*")):
            if _shipped(path, tree):
                files.append(DataFile(path, PurePosixPath(dest_dir) / path.relative_to(tree).as_posix()))
    return files


def pyinstaller_datas(root: Path = REPO_ROOT) -> list[tuple[str, str]]:
    """``(source file, destination folder)`` pairs for ``Analysis(datas=...)``."""
    return [(str(f.source), str(f.dest.parent)) for f in data_files(root)]


def required_bundle_files(root: Path = REPO_ROOT, platform: str = "linux") -> list[str]:
    """Paths relative to ``sys._MEIPASS`` that a finished bundle must contain."""
    shipped = [str(f.dest) for f in data_files(root)]
    missing_here = [name for name in REQUIRED_DATA if name not in shipped]
    if missing_here:
        hint = " (the .qm catalogues: run `make translations`)" if any(n.endswith(".qm") for n in missing_here) else ""
        raise FileNotFoundError(f"required files missing from the checkout: {', '.join(missing_here)}{hint}")
    if not any(name.startswith(MIGRATION_VERSIONS + "/") and name.endswith(".py") for name in shipped):
        raise FileNotFoundError(f"no migration scripts in the checkout's {MIGRATION_VERSIONS}/")
    plugins = [f"{QT_PLUGIN_DIR}/{name}" for name in REQUIRED_QT_PLUGINS[platform_key(platform)]]
    return shipped + plugins + [f"{QT_TRANSLATIONS_DIR}/{name}" for name in QT_TRANSLATIONS]


def platform_key(platform: str) -> str:
    """``sys.platform`` folded onto the keys of ``REQUIRED_QT_PLUGINS``."""
    if platform.startswith("linux"):
        return "linux"
    if platform in ("darwin", "win32"):
        return platform
    raise ValueError(f"no bundle layout known for platform {platform!r}")
