"""Check a built bundle holds what XWorkmate needs at run time, before running it.

    python packaging/check_bundle.py dist/xworkmate            # Linux/Windows one-folder
    python packaging/check_bundle.py dist/XWorkmate.app --platform darwin

Prints ``bundle ok: N files checked`` and exits 0, or names every missing or
empty file and exits 1. The list is ``bundle_manifest.required_bundle_files``:
the resources, the Alembic migrations (env.py, script.py.mako,
versions/*.py), the native Qt platform plugin and the SVG plugins, and the
executables. Uses only the standard library, so any Python 3.11 can run it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import bundle_manifest


def data_root(bundle: Path) -> Path:
    """``sys._MEIPASS`` of the bundle: ``_internal`` (one-folder) or ``Contents/Frameworks`` (.app)."""
    for candidate in (bundle / "_internal", bundle / "Contents" / "Frameworks"):
        if candidate.is_dir():
            return candidate
    return bundle


def problems(bundle: Path, platform: str, root: Path = bundle_manifest.REPO_ROOT) -> list[str]:
    """One line per missing or empty file; empty when the bundle is complete."""
    if not bundle.is_dir():
        return [f"not a folder: {bundle}"]
    found: list[str] = []
    meipass = data_root(bundle)
    for name in bundle_manifest.required_bundle_files(root, platform):
        path = meipass / name
        if not path.is_file():
            found.append(f"missing: {path}")
        elif path.stat().st_size == 0:
            found.append(f"empty: {path}")
    for name in bundle_manifest.EXECUTABLES[bundle_manifest.platform_key(platform)]:
        if not (bundle / name).is_file():
            found.append(f"missing executable: {bundle / name}")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path, help="dist/xworkmate (one-folder) or dist/XWorkmate.app")
    parser.add_argument("--platform", default=sys.platform, help="linux, darwin or win32 (default: this OS)")
    args = parser.parse_args(argv)
    try:
        found = problems(args.bundle, args.platform)
    except (FileNotFoundError, ValueError) as exc:
        print(f"check_bundle: {exc}", file=sys.stderr)
        return 1
    if found:
        for line in found:
            print(f"check_bundle: {line}", file=sys.stderr)
        print(f"check_bundle: {args.bundle} is incomplete ({len(found)} problem(s))", file=sys.stderr)
        return 1
    checked = len(bundle_manifest.required_bundle_files(platform=args.platform))
    print(f"bundle ok: {checked} files checked in {data_root(args.bundle)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
