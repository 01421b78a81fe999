"""The fresh-desktop preflight for the Qt xcb plugin (issue 18, item 1).

A real ELF "plugin" is compiled against two stub libraries named like the X11
ones a fresh desktop lacks; the stubs are then deleted, so ``ldd`` reports
them "not found" exactly as it does for ``libqxcb.so`` on a fresh Debian.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "qt_preflight.py"

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("gcc") is None or shutil.which("ldd") is None,
    reason="needs Linux, gcc and ldd",
)


def _stub(folder: Path, soname: str) -> None:
    source = folder / f"{soname}.c"
    symbol = soname.split(".")[0].replace("-", "_")
    source.write_text(f"int stub_{symbol}(void) {{ return 0; }}\n")
    subprocess.run(
        ["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", str(folder / soname), str(source)], check=True
    )


def fake_plugin(tmp_path: Path, sonames: list[str]) -> Path:
    """``platforms/libqxcb.so`` linking ``sonames``, which no longer exist anywhere."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for soname in sonames:
        _stub(stubs, soname)
    plugin_dir = tmp_path / "plugins" / "platforms"
    plugin_dir.mkdir(parents=True)
    source = tmp_path / "plugin.c"
    source.write_text("int plugin_entry(void) { return 1; }\n")
    plugin = plugin_dir / "libqxcb.so"
    links = [f"-l:{soname}" for soname in sonames]
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-Wl,--no-as-needed", "-o", str(plugin), str(source), f"-L{stubs}", *links],
        check=True,
    )
    shutil.rmtree(stubs)
    return plugin


def _absent_known_sonames(count: int) -> list[str]:
    """Sonames from the .deb's table that this machine lacks, so ``ldd`` cannot resolve them."""
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        from debian_depends import KNOWN_PACKAGES
    finally:
        sys.path.remove(str(ROOT / "packaging"))
    present = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
    absent = [s for s in sorted(KNOWN_PACKAGES) if f"{s} (" not in present]
    if len(absent) < count:
        pytest.skip(f"this machine has all but {len(absent)} of the X11 libraries Qt links")
    return absent[:count]


def _packages(sonames: list[str]) -> list[str]:
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        from debian_depends import KNOWN_PACKAGES
    finally:
        sys.path.remove(str(ROOT / "packaging"))
    return sorted({KNOWN_PACKAGES[s] for s in sonames})


def run_preflight(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XWORKMATE_PREFLIGHT_NO_INSTALL="1")
    env.pop("QT_QPA_PLATFORM", None)  # the tests run offscreen; the preflight is for the xcb desktop
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, check=False)


def test_missing_libraries_give_one_line_with_the_exact_command(tmp_path: Path) -> None:
    sonames = _absent_known_sonames(2)
    plugin = fake_plugin(tmp_path, sonames)
    result = run_preflight("--plugin", str(plugin))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "qt_preflight: the Qt xcb plugin cannot load; run: sudo apt-get install -y " + " ".join(_packages(sonames))
    ]


def test_warn_mode_reports_but_lets_the_offscreen_set_up_go_on(tmp_path: Path) -> None:
    sonames = _absent_known_sonames(1)
    plugin = fake_plugin(tmp_path, sonames)
    result = run_preflight("--warn", "--plugin", str(plugin))
    assert result.returncode == 0
    assert f"sudo apt-get install -y {_packages(sonames)[0]}" in result.stderr


def test_a_library_no_package_provides_is_named(tmp_path: Path) -> None:
    plugin = fake_plugin(tmp_path, ["libnot-a-debian-library.so.7"])
    result = run_preflight("--plugin", str(plugin))
    assert result.returncode == 1
    assert result.stderr == (
        "qt_preflight: the Qt xcb plugin needs libnot-a-debian-library.so.7, which no known Debian package provides\n"
    )


def test_an_offscreen_set_up_only_warns(tmp_path: Path) -> None:
    plugin = fake_plugin(tmp_path, _absent_known_sonames(1))
    env = dict(os.environ, XWORKMATE_PREFLIGHT_NO_INSTALL="1", QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--plugin", str(plugin)], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0
    assert result.stderr.startswith("qt_preflight: warning: the Qt xcb plugin cannot load; run: sudo apt-get install")


def test_nothing_missing_says_nothing(tmp_path: Path) -> None:
    plugin = fake_plugin(tmp_path, [])
    result = run_preflight("--plugin", str(plugin))
    assert (result.returncode, result.stderr) == (0, "")


def test_mapping_uses_the_debs_one_table() -> None:
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import debian_depends
        import qt_preflight
    finally:
        sys.path.remove(str(ROOT / "packaging"))
    assert qt_preflight.KNOWN_PACKAGES is debian_depends.KNOWN_PACKAGES
    packages, unknown = qt_preflight.packages_for(["libEGL.so.1", "libfontconfig.so.1", "libdbus-1.so.3"])
    assert (packages, unknown) == (["libdbus-1-3", "libegl1", "libfontconfig1"], [])
