"""The ``Depends:`` and ``Recommends:`` of the .deb, from what the bundle links.

    python packaging/debian_depends.py dist/xworkmate --arch amd64

Every ELF file in the one-folder bundle is read for the libraries it links
(``DT_NEEDED``). Those the bundle carries are skipped; each other one is found
in the system library folders and mapped to its Debian package with
``dpkg-query -S``; a library the build machine lacks (for example
``libxcb-icccm.so.4`` when no X server is installed) is looked up in
``KNOWN_PACKAGES``. ``libc6`` gets a minimum version from the newest
``GLIBC_x.y`` symbol version any file needs.

Libraries needed only by the GTK theme plugin go to ``Recommends``: Qt
falls back to its own look when that plugin cannot load. ``FONT_RECOMMENDS``
are recommended as well: the window speaks Simplified Chinese (issue 20) and
renders it with a CJK font when one is installed.

Prints the two control-file lines on stdout and the soname -> package table
on stderr. Exits 1, naming the file, if a Qt/PySide library is linked but not
bundled, or if a system library maps to no package.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from elf_needed import is_elf, needed, needed_versions

# Not linked by anything, but what the Chinese window renders with (issue 20; README names it too).
FONT_RECOMMENDS = ("fonts-noto-cjk",)

# dpkg architecture -> multiarch triplet (Debian's library folder names).
MULTIARCH = {
    "amd64": "x86_64-linux-gnu",
    "arm64": "aarch64-linux-gnu",
    "armhf": "arm-linux-gnueabihf",
    "i386": "i386-linux-gnu",
    "ppc64el": "powerpc64le-linux-gnu",
    "riscv64": "riscv64-linux-gnu",
    "s390x": "s390x-linux-gnu",
}

# Debian 12 package names for the libraries Qt's plugins link, used when the
# build machine does not have the library installed (a headless build box
# usually lacks the X11 and GTK ones).
KNOWN_PACKAGES = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libGLX.so.0": "libglx0",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libgtk-3.so.0": "libgtk-3-0",
    "libgdk-3.so.0": "libgtk-3-0",
    "libpango-1.0.so.0": "libpango-1.0-0",
    "libcairo.so.2": "libcairo2",
    "libcairo-gobject.so.2": "libcairo-gobject2",
    "libgdk_pixbuf-2.0.so.0": "libgdk-pixbuf-2.0-0",
    "libatk-1.0.so.0": "libatk1.0-0",
    "libvulkan.so.1": "libvulkan1",
}

# Bundle paths whose missing libraries only cost an optional feature.
OPTIONAL_USERS = ("PySide6/Qt/plugins/platformthemes/libqgtk3.so",)

# Libraries that must come from the bundle, never the system.
BUNDLED_ONLY = re.compile(r"^(libQt6|libpyside6|libshiboken6|libicu)")


class DependsError(RuntimeError):
    """A library the bundle links cannot be accounted for."""


def _elf_files(bundle: Path) -> list[Path]:
    return sorted(p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink() and is_elf(p))


def _find_system_library(soname: str, arch: str) -> Path | None:
    triplet = MULTIARCH.get(arch, "")
    for folder in (f"/lib/{triplet}", f"/usr/lib/{triplet}", "/lib", "/usr/lib", "/lib64", "/usr/lib64"):
        candidate = Path(folder) / soname
        if candidate.exists():
            return candidate
    return None


def _dpkg_owner(path: Path) -> str | None:
    """The package that installed ``path``, trying both sides of the /usr merge."""
    text = str(path)
    variants = [text, str(path.resolve())]
    variants += [v[4:] if v.startswith("/usr/") else "/usr" + v for v in list(variants)]
    for variant in dict.fromkeys(variants):
        result = subprocess.run(["dpkg-query", "-S", variant], capture_output=True, text=True, check=False)
        for line in result.stdout.splitlines():
            if line.startswith("diversion "):
                continue
            owners, _, _ = line.partition(": ")
            return owners.split(",")[0].strip().split(":")[0]
    return None


def _glibc_minimum(files: list[Path]) -> str | None:
    newest: tuple[int, ...] = ()
    for path in files:
        for library, versions in needed_versions(path).items():
            if not library.startswith(("libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so")):
                continue
            for version in versions:
                match = re.fullmatch(r"GLIBC_(\d+(?:\.\d+)*)", version)
                if match:
                    newest = max(newest, tuple(int(n) for n in match.group(1).split(".")))
    return ".".join(map(str, newest)) if newest else None


def compute(bundle: Path, arch: str) -> tuple[list[str], list[str], dict[str, str]]:
    """``(depends, recommends, soname -> package)`` for the bundle."""
    files = _elf_files(bundle)
    bundled = {p.name for p in bundle.rglob("*")}
    users: dict[str, set[str]] = defaultdict(set)
    for path in files:
        for soname in needed(path):
            if soname not in bundled:
                users[soname].add(path.relative_to(bundle).as_posix())

    problems: list[str] = []
    packages: dict[str, str] = {}
    depends: set[str] = set()
    recommends: set[str] = set()
    for soname, needed_by in sorted(users.items()):
        optional = all(user.endswith(OPTIONAL_USERS) for user in needed_by)
        if BUNDLED_ONLY.match(soname):
            problems.append(f"{soname} is linked by {sorted(needed_by)[0]} but not bundled")
            continue
        found = _find_system_library(soname, arch)
        package = (_dpkg_owner(found) if found else None) or KNOWN_PACKAGES.get(soname)
        if package is None:
            if optional:
                continue
            problems.append(f"no Debian package known for {soname} (linked by {sorted(needed_by)[0]})")
            continue
        packages[soname] = package
        (recommends if optional else depends).add(package)
    if problems:
        raise DependsError("; ".join(problems))

    recommends -= depends
    glibc = _glibc_minimum(files)
    depends_list = sorted(f"libc6 (>= {glibc})" if p == "libc6" and glibc else p for p in depends)
    return depends_list, sorted(recommends), packages


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path, help="the one-folder bundle, e.g. dist/xworkmate")
    parser.add_argument("--arch", required=True, help="dpkg architecture, e.g. amd64")
    args = parser.parse_args(argv)
    try:
        depends, recommends, packages = compute(args.bundle, args.arch)
    except DependsError as exc:
        print(f"debian_depends: {exc}", file=sys.stderr)
        return 1
    for soname, package in sorted(packages.items()):
        print(f"  {soname:32} {package}", file=sys.stderr)
    print(f"Depends: {', '.join(depends)}")
    print(f"Recommends: {', '.join(sorted({*recommends, *FONT_RECOMMENDS}))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
