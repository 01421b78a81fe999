"""The packaging configuration, checked without building anything (STYLE 11).

The spec is executed with stand-ins for PyInstaller's build classes, so these
tests run in a second on any OS and without PyInstaller installed; the real
build and its smoke tests are ``packaging/build.sh``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.sandboxing import needs_bwrap

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
SPEC = PACKAGING / "xworkmate.spec"


@pytest.fixture(autouse=True)
def packaging_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # packaging/ is a folder of scripts, not a package (a package named
    # `packaging` would shadow the PyPI one), so its modules load by path.
    monkeypatch.syspath_prepend(str(PACKAGING))


def shipped_files() -> set[Path]:
    """Every file under resources/ and the migrations folder, found without the manifest's help."""
    found: set[Path] = set()
    for top in (ROOT / "resources", ROOT / "xworkmate" / "store" / "migrations"):
        for path in top.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                found.add(path)
    return found


# -- the manifest -------------------------------------------------------------


def test_manifest_covers_every_resource_and_migration_file() -> None:
    import bundle_manifest

    listed = {f.source for f in bundle_manifest.data_files()}
    assert listed == shipped_files()
    versions = [f for f in listed if f.parent.name == "versions" and f.suffix == ".py"]
    assert versions, "no migration scripts found"


def test_manifest_places_files_where_the_frozen_app_looks() -> None:
    import bundle_manifest

    from xworkmate.store.database import MIGRATIONS_DIR

    migrations_dest = MIGRATIONS_DIR.relative_to(ROOT).as_posix()  # database.py: Path(__file__).parent / "migrations"
    for f in bundle_manifest.data_files():
        relative = f.source.relative_to(ROOT).as_posix()
        if relative.startswith("resources/"):
            assert f.dest.as_posix() == relative  # ui/resources.py: sys._MEIPASS / "resources"
        else:
            assert f.dest.as_posix() == f"{migrations_dest}/{f.source.relative_to(MIGRATIONS_DIR).as_posix()}"


def test_required_list_names_every_resource_the_window_loads() -> None:
    import bundle_manifest

    from xworkmate.ui.resources import REQUIRED_FILES

    assert {f"resources/{name}" for name in REQUIRED_FILES} <= set(bundle_manifest.REQUIRED_DATA)


# -- the spec, executed with stand-ins ------------------------------------------


@dataclass
class FakeBuild:
    """What the spec asked PyInstaller to build."""

    analysis: dict[str, Any] = field(default_factory=dict)
    exes: list[dict[str, Any]] = field(default_factory=list)
    collect: dict[str, Any] = field(default_factory=dict)
    bundle: dict[str, Any] | None = None
    rendered_icons: list[list[str]] = field(default_factory=list)


def run_spec(monkeypatch: pytest.MonkeyPatch, platform: str) -> FakeBuild:
    build = FakeBuild()

    class Analysis:
        def __init__(self, scripts: list[str], **kwargs: Any) -> None:
            build.analysis = {"scripts": scripts, **kwargs}
            self.scripts, self.pure = [], []
            self.binaries: list[tuple[str, str, str]] = []
            self.datas = [(f"{dest}/{Path(src).name}", src, "DATA") for src, dest in kwargs["datas"]]

    def exe(*_toc: Any, **kwargs: Any) -> dict[str, Any]:
        build.exes.append(kwargs)
        return kwargs

    def collect(*_toc: Any, **kwargs: Any) -> dict[str, Any]:
        build.collect = kwargs
        return kwargs

    def bundle(*_toc: Any, **kwargs: Any) -> None:
        build.bundle = kwargs

    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_submodules = lambda package, filter=None: [f"{package}.collected"]  # type: ignore[attr-defined]
    hooks.copy_metadata = lambda name: []  # type: ignore[attr-defined]
    for name, module in {
        "PyInstaller": types.ModuleType("PyInstaller"),
        "PyInstaller.utils": types.ModuleType("PyInstaller.utils"),
        "PyInstaller.utils.hooks": hooks,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)

    def fake_run(command: list[str], **_kwargs: Any) -> subprocess.CompletedProcess[str]:
        build.rendered_icons.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "platform", platform)
    namespace = {
        "__file__": str(SPEC),
        "__name__": "__main__",
        "SPECPATH": str(PACKAGING),
        "Analysis": Analysis,
        "PYZ": lambda *toc, **kwargs: None,
        "EXE": exe,
        "COLLECT": collect,
        "BUNDLE": bundle,
    }
    exec(compile(SPEC.read_text(encoding="utf-8"), str(SPEC), "exec"), namespace)
    return build


@pytest.fixture
def linux_build(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBuild]:
    yield run_spec(monkeypatch, "linux")


def test_spec_bundles_every_resource_and_migration_file(linux_build: FakeBuild) -> None:
    datas = linux_build.analysis["datas"]
    bundled = {Path(src) for src, _dest in datas}
    assert shipped_files() <= bundled
    for src, dest in datas:
        src_path = Path(src)
        if src_path.is_relative_to(ROOT / "resources") or src_path.is_relative_to(ROOT / "xworkmate"):
            assert dest == src_path.parent.relative_to(ROOT).as_posix()  # resources/i18n/ keeps its folder


def test_spec_is_one_folder_and_windowed(linux_build: FakeBuild) -> None:
    (main_exe,) = linux_build.exes
    assert main_exe["exclude_binaries"] is True  # one-folder: libraries are collected beside the executable
    assert main_exe["console"] is False
    assert main_exe["name"] == "xworkmate" == linux_build.collect["name"]
    assert linux_build.bundle is None
    assert Path(linux_build.analysis["scripts"][0]) == PACKAGING / "xworkmate_entry.py"


def test_spec_names_the_imports_made_at_run_time(linux_build: FakeBuild) -> None:
    hidden = set(linux_build.analysis["hiddenimports"])
    assert {
        "xworkmate.collected",
        "alembic.collected",
        "keyring.backends.collected",
        "sqlalchemy.dialects.sqlite.pysqlite",
        "sqlalchemy.dialects.postgresql.psycopg",
        "psycopg_binary.pq",
        "qasync",
        "pydantic",
    } <= hidden
    excludes = set(linux_build.analysis["excludes"])
    assert {"PyQt5", "PyQt6", "PySide2", "PySide6.QtQml", "PySide6.QtNetwork", "tkinter"} <= excludes
    assert not {"PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets"} & excludes
    # Every Qt module the app imports is in the bundle (issue 30: QtSvg was excluded after the icons
    # began to use it, and the frozen window failed to start).
    assert not _qt_modules_imported() & excludes


def _qt_modules_imported() -> set[str]:
    app = Path(__file__).resolve().parents[2] / "xworkmate"
    found: set[str] = set()
    for source in app.rglob("*.py"):
        if "testing" in source.relative_to(app).parts:
            continue  # the testers' package is never frozen
        found |= set(re.findall(r"^\s*(?:from|import) (PySide6\.Qt\w+)", source.read_text(encoding="utf-8"), re.M))
    assert "PySide6.QtWidgets" in found  # the scan finds the window's imports
    return found


def test_spec_leaves_the_testers_plugin_and_pytest_out(linux_build: FakeBuild) -> None:
    """Issue 21: xworkmate.testing (pytest plugin, driver) is for testers, never in the frozen app."""
    assert {"xworkmate.testing", "pytest", "_pytest", "pytestqt"} <= set(linux_build.analysis["excludes"])


def test_spec_builds_an_app_bundle_on_macos(monkeypatch: pytest.MonkeyPatch) -> None:
    import bundle_manifest

    import xworkmate

    build = run_spec(monkeypatch, "darwin")
    assert build.bundle is not None
    assert build.bundle["name"] == "XWorkmate.app"
    assert build.bundle["icon"].endswith("xworkmate.icns")
    plist = build.bundle["info_plist"]
    assert plist["CFBundleShortVersionString"] == xworkmate.__version__
    assert plist["CFBundleExecutable"] == build.exes[0]["name"]
    assert bundle_manifest.EXECUTABLES["darwin"] == (f"Contents/MacOS/{plist['CFBundleExecutable']}",)
    assert plist["NSHighResolutionCapable"] is True


def test_spec_adds_a_console_twin_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    import bundle_manifest

    build = run_spec(monkeypatch, "win32")
    by_name = {exe["name"]: exe for exe in build.exes}
    assert by_name["XWorkmate"]["console"] is False
    assert by_name["xworkmate-cli"]["console"] is True  # the smoke test needs a stdout
    assert {f"{name}.exe" for name in by_name} == set(bundle_manifest.EXECUTABLES["win32"])
    assert all(exe["icon"].endswith("xworkmate.ico") for exe in build.exes)


# -- check_bundle.py ------------------------------------------------------------


def fake_bundle(tmp_path: Path, platform: str = "linux") -> Path:
    """A folder laid out like a finished bundle, with every file check_bundle wants."""
    import bundle_manifest

    bundle = tmp_path / ("XWorkmate.app" if platform == "darwin" else "xworkmate")
    meipass = bundle / ("Contents/Frameworks" if platform == "darwin" else "_internal")
    for name in bundle_manifest.required_bundle_files(platform=platform):
        target = meipass / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("x")
    for name in bundle_manifest.EXECUTABLES[bundle_manifest.platform_key(platform)]:
        (bundle / name).parent.mkdir(parents=True, exist_ok=True)
        (bundle / name).write_text("#!")
    if platform == "linux":
        frozen_stand_in(bundle / "xworkmate")
    return bundle


# What the spec's first run-time hook imports; a stand-in carries its own copies, as a bundle does.
HOOK_FILES = (
    PACKAGING / "pyi_rth_xworkmate.py",
    PACKAGING / "xworkmate_entry.py",
    ROOT / "xworkmate" / "__init__.py",
    ROOT / "xworkmate" / "agents" / "__init__.py",
    ROOT / "xworkmate" / "agents" / "net_bridge.py",
    ROOT / "xworkmate" / "agents" / "scope_exec.py",
)


def frozen_stand_in(executable: Path) -> Path:
    """An executable that starts as the bundle's does: with the spec's first run-time hook (then it would
    run the entry script; this stand-in stops after the hook).

    Like a bundle, it brings the code it runs in its own folder: the sandbox shows a frozen app's folder
    and hides ``/tmp`` and the home, where a checkout (and so the hook's source) may lie. The interpreter
    is the host's own, which the sandbox shows as it shows Python's prefix to any command."""
    internal = executable.parent / "_internal"
    for source in HOOK_FILES:
        copy = internal / (source.name if source.parent == PACKAGING else source.relative_to(ROOT))
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(source.read_bytes())
    python = os.path.realpath(sys.executable)
    executable.write_text(f"#!/bin/sh\nexec '{python}' -E -s -S '{internal / 'pyi_rth_xworkmate.py'}' \"$@\"\n")
    executable.chmod(0o755)
    return executable


def test_spec_serves_the_bridge_mode_before_pyinstallers_own_hooks(linux_build: FakeBuild) -> None:
    """SBX-4: custom run-time hooks run first; PySide6's (QtCore, ~100 ms) must not delay each sandboxed command."""
    assert [Path(hook) for hook in linux_build.analysis["runtime_hooks"]] == [PACKAGING / "pyi_rth_xworkmate.py"]
    assert str(PACKAGING) in linux_build.analysis["pathex"]  # the hook imports xworkmate_entry


@needs_bwrap
def test_the_bundles_bridge_mode_forwards_through_the_proxy_in_bwrap(tmp_path: Path) -> None:
    """SBX-4 in the frozen app: ``xworkmate --net-bridge`` (no Python to run the bridge script with) gives a
    command in a real allow-list sandbox its listed local server through the real proxy, and a bad
    argument its one-line usage; run here through the same start-up code the bundle's executable runs."""
    import check_bundle

    assert check_bundle.bridge_problems(frozen_stand_in(tmp_path / "app" / "xworkmate")) == []


def test_the_bundles_scope_mode_runs_the_command_in_the_scope(tmp_path: Path) -> None:
    """SBX-4 in the frozen app: ``xworkmate --scope-exec -- COMMAND`` (a network-``on`` sandbox's launcher)
    execs the command in the Landlock scope, keeping its exit code, and a bad argument gets the usage."""
    import check_bundle

    assert check_bundle.scope_problems(frozen_stand_in(tmp_path / "app" / "xworkmate")) == []


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_check_bundle_accepts_a_complete_bundle(
    tmp_path: Path, platform: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import check_bundle

    assert check_bundle.main([str(fake_bundle(tmp_path, platform)), "--platform", platform]) == 0
    assert "bundle ok" in capsys.readouterr().out


@pytest.mark.parametrize(
    "missing",
    [
        "resources/style.qss",
        "resources/xworkmate.svg",
        "xworkmate/store/migrations/env.py",
        "first migration script",
        "PySide6/Qt/plugins/platforms/libqxcb.so",
    ],
)
def test_check_bundle_names_the_missing_file(tmp_path: Path, missing: str, capsys: pytest.CaptureFixture[str]) -> None:
    import check_bundle

    bundle = fake_bundle(tmp_path)
    if missing == "first migration script":
        first = min((ROOT / "xworkmate" / "store" / "migrations" / "versions").glob("*.py"))
        missing = first.relative_to(ROOT).as_posix()
    (bundle / "_internal" / missing).unlink()
    assert check_bundle.main([str(bundle), "--platform", "linux"]) == 1
    err = capsys.readouterr().err
    assert f"missing: {bundle / '_internal' / missing}" in err
    assert err.count("missing") == 1


def test_check_bundle_refuses_an_empty_stylesheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import check_bundle

    bundle = fake_bundle(tmp_path)
    (bundle / "_internal" / "resources" / "style.qss").write_text("")
    assert check_bundle.main([str(bundle), "--platform", "linux"]) == 1
    assert "empty:" in capsys.readouterr().err


def test_check_bundle_runs_as_a_script_from_anywhere(tmp_path: Path) -> None:
    bundle = fake_bundle(tmp_path)
    (bundle / "_internal" / "resources" / "xworkmate.svg").unlink()
    proc = subprocess.run(
        [sys.executable, str(PACKAGING / "check_bundle.py"), str(bundle), "--platform", "linux"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "resources/xworkmate.svg" in proc.stderr


# -- the entry script -----------------------------------------------------------


def load_entry() -> types.ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location("xworkmate_entry_under_test", PACKAGING / "xworkmate_entry.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("original", "expected"), [("/home/me/lib", "/home/me/lib"), (None, None)])
def test_frozen_linux_app_gives_children_the_original_library_path(
    monkeypatch: pytest.MonkeyPatch, original: str | None, expected: str | None
) -> None:
    entry = load_entry()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/xworkmate/_internal" + (f":{original}" if original else ""))
    if original is None:
        monkeypatch.delenv("LD_LIBRARY_PATH_ORIG", raising=False)
    else:
        monkeypatch.setenv("LD_LIBRARY_PATH_ORIG", original)
    entry.restore_library_path()
    assert os.environ.get("LD_LIBRARY_PATH") == expected
    assert "LD_LIBRARY_PATH_ORIG" not in os.environ


def test_unfrozen_runs_leave_the_library_path_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = load_entry()
    monkeypatch.delattr(sys, "frozen", raising=False)
    monkeypatch.setenv("LD_LIBRARY_PATH", "/custom")
    entry.restore_library_path()
    assert os.environ["LD_LIBRARY_PATH"] == "/custom"


# -- icons ----------------------------------------------------------------------


def test_icons_render_at_every_size(tmp_path: Path, qapp: Any) -> None:
    import render_icons
    from PySide6.QtGui import QImage, QImageReader

    assert (
        render_icons.main(
            [
                "--hicolor",
                str(tmp_path / "hicolor"),
                "--ico",
                str(tmp_path / "x.ico"),
                "--icns",
                str(tmp_path / "x.icns"),
            ]
        )
        == 0
    )
    for size in (48, 64, 128, 256):
        image = QImage(str(tmp_path / "hicolor" / f"{size}x{size}" / "apps" / "xworkmate.png"))
        assert (image.width(), image.height()) == (size, size)
    for name, sizes in (("x.ico", render_icons.ICO_SIZES), ("x.icns", tuple(render_icons.ICNS_TYPES))):
        reader = QImageReader(str(tmp_path / name))
        assert reader.imageCount() == len(sizes)
        read = []
        for index in range(reader.imageCount()):
            reader.jumpToImage(index)
            read.append(reader.read().width())
        assert sorted(read) == sorted(sizes)


# -- Linux helpers --------------------------------------------------------------

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux ELF files")


@linux_only
def test_elf_reader_sees_what_a_qt_plugin_links() -> None:
    import PySide6
    from elf_needed import needed, needed_versions

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    links = needed(plugin)
    assert {"libQt6Gui.so.6", "libQt6XcbQpa.so.6", "libxcb.so.1"} <= set(links)
    assert any(v.startswith("GLIBC_") for v in needed_versions(plugin).get("libc.so.6", ()))


@linux_only
def test_debian_depends_refuses_a_bundle_missing_a_qt_library(tmp_path: Path) -> None:
    import shutil

    import PySide6
    from debian_depends import DependsError, compute

    plugins = tmp_path / "xworkmate" / "_internal" / "PySide6" / "Qt" / "plugins" / "platforms"
    plugins.mkdir(parents=True)
    shutil.copy(Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so", plugins)
    with pytest.raises(DependsError, match=r"libQt6XcbQpa\.so\.6 is linked by .*libqxcb\.so but not bundled"):
        compute(tmp_path / "xworkmate", "amd64")


@pytest.mark.parametrize("script", ["build.sh", "macos/build_dmg.sh"])
def test_shell_scripts_parse(script: str) -> None:
    bash = subprocess.run(["bash", "-n", str(PACKAGING / script)], capture_output=True, text=True, check=False)
    assert bash.returncode == 0, bash.stderr
    assert os.access(PACKAGING / script, os.X_OK)
