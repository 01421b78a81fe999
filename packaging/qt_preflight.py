"""Check that the Qt xcb platform plugin can load on this desktop (issue 18, item 1).

    python packaging/qt_preflight.py            # make run: install or stop
    python packaging/qt_preflight.py --warn     # make's set-up: install or warn

A fresh Debian or Ubuntu desktop lacks some X11 libraries the PySide6 wheel's
``libqxcb.so`` links (``libxcb-cursor0``, ``libxcb-icccm4``, ...), and Qt then
aborts with "could not load the Qt platform plugin xcb". This runs ``ldd`` on
the installed plugin, maps every library reported "not found" to its Debian
package with the one table the .deb uses (``debian_depends.KNOWN_PACKAGES``),
and installs them with ``apt-get`` when running as root or when ``sudo -n``
works. Otherwise it prints one line with the exact ``sudo apt-get install``
command and exits 1 (``--warn``, or ``QT_QPA_PLATFORM`` naming another
platform: exits 0, so ``make test``, which runs offscreen, never needs these
libraries).

Exits 0 with nothing to say when the plugin is absent (macOS, Windows) or
nothing is missing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from debian_depends import KNOWN_PACKAGES

NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$")


def default_plugin() -> Path | None:
    """The ``libqxcb.so`` of the PySide6 that this Python imports, or None."""
    try:
        import PySide6
    except ImportError:
        return None
    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return plugin if plugin.exists() else None


def missing_libraries(ldd_output: str) -> list[str]:
    """Sonames ``ldd`` reported as not found, once each, in order."""
    found: dict[str, None] = {}
    for line in ldd_output.splitlines():
        match = NOT_FOUND.match(line)
        if match:
            found.setdefault(match.group(1))
    return list(found)


def packages_for(sonames: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(packages, unknown sonames)``; packages sorted, once each."""
    packages = sorted({KNOWN_PACKAGES[s] for s in sonames if s in KNOWN_PACKAGES})
    unknown = [s for s in sonames if s not in KNOWN_PACKAGES]
    return packages, unknown


def install_command(packages: Sequence[str]) -> str:
    return "sudo apt-get install -y " + " ".join(packages)


def _installer() -> list[str] | None:
    """How to run apt-get with root rights here, or None when we cannot without a password."""
    if shutil.which("apt-get") is None or os.environ.get("XWORKMATE_PREFLIGHT_NO_INSTALL"):
        return None
    if os.geteuid() == 0:
        return []
    probe = ["sudo", "-n", "true"]
    if shutil.which("sudo") and subprocess.run(probe, capture_output=True, check=False).returncode == 0:
        return ["sudo", "-n"]
    return None


def run(plugin: Path, *, warn: bool) -> int:
    result = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=False)
    missing = missing_libraries(result.stdout)
    if not missing:
        return 0
    packages, unknown = packages_for(missing)
    failed = 1 if not warn else 0
    prefix = "qt_preflight:" + (" warning:" if warn else "")
    if unknown:
        names = ", ".join(unknown)
        print(f"{prefix} the Qt xcb plugin needs {names}, which no known Debian package provides", file=sys.stderr)
    if not packages:
        return failed
    installer = _installer()
    if installer is not None:
        print(f"qt_preflight: installing {' '.join(packages)} for the Qt xcb plugin", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        steps = [[*installer, "apt-get", "update", "-qq"], [*installer, "apt-get", "install", "-y", "-qq", *packages]]
        if all(subprocess.run(step, env=env, check=False).returncode == 0 for step in steps):
            again = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=False)
            if not missing_libraries(again.stdout):
                return 0
    print(f"{prefix} the Qt xcb plugin cannot load; run: {install_command(packages)}", file=sys.stderr)
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugin", type=Path, help="the libqxcb.so to check (default: the installed PySide6's)")
    parser.add_argument("--warn", action="store_true", help="report but exit 0 (make's set-up, offscreen tests)")
    args = parser.parse_args(argv)
    if not sys.platform.startswith("linux") or shutil.which("ldd") is None:
        return 0
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    warn = args.warn or (platform != "" and not platform.startswith("xcb"))  # offscreen, wayland: xcb unused
    plugin = args.plugin or default_plugin()
    if plugin is None or not plugin.exists():
        return 0
    return run(plugin, warn=warn)


if __name__ == "__main__":
    sys.exit(main())
