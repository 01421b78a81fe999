"""Render the app icon for installers from ``resources/xworkmate.svg`` with Qt.

    python packaging/render_icons.py --hicolor build/deb/root/usr/share/icons/hicolor
    python packaging/render_icons.py --ico build/icons/xworkmate.ico
    python packaging/render_icons.py --icns build/icons/xworkmate.icns

``--hicolor`` writes ``<size>x<size>/apps/xworkmate.png`` for 48, 64, 128 and
256 (and ``scalable/apps/xworkmate.svg``); ``--ico`` and ``--icns`` write
multi-size Windows and macOS icon files. The containers are written here
(PNG-compressed entries, which Windows Vista+ and macOS 10.7+ read), so no
ImageMagick, Pillow or ``iconutil`` is needed: PySide6 is already in the venv.
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SVG = REPO_ROOT / "resources" / "xworkmate.svg"
PNG = REPO_ROOT / "resources" / "xworkmate.png"
ICON_NAME = "xworkmate"

HICOLOR_SIZES = (48, 64, 128, 256)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS PNG entry types by pixel size (Apple's icns format).
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09", 1024: b"ic10"}


def render_png(size: int) -> bytes:
    """The icon as PNG bytes at ``size`` x ``size``: drawn from the SVG, or scaled from the PNG."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    renderer = QSvgRenderer(str(SVG))
    if renderer.isValid():
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
    else:
        source = QImage(str(PNG))
        if source.isNull():
            raise SystemExit(f"render_icons: cannot read {SVG} or {PNG}")
        image = source.scaled(
            size, size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
        )
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):  # type: ignore[call-overload]  # the stubs say bytes; PySide6 6.12 takes str
        raise SystemExit(f"render_icons: Qt could not encode a {size}x{size} PNG")
    buffer.close()
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico holding one PNG entry per size (ICONDIR + ICONDIRENTRY, all little-endian)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        blob = pngs[size]
        dim = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(blob), offset)
        blobs += blob
        offset += len(blob)
    return header + entries + blobs


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """A macOS .icns holding one PNG entry per size (type, big-endian length including the header)."""
    body = b"".join(ICNS_TYPES[size] + struct.pack(">I", 8 + len(pngs[size])) + pngs[size] for size in sorted(pngs))
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    print(f"wrote {path} ({len(data)} bytes)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hicolor", type=Path, metavar="DIR", help="an icons/hicolor folder to fill")
    parser.add_argument("--ico", type=Path, metavar="FILE", help="write a Windows .ico")
    parser.add_argument("--icns", type=Path, metavar="FILE", help="write a macOS .icns")
    args = parser.parse_args(argv)
    if not (args.hicolor or args.ico or args.icns):
        parser.error("nothing to do: pass --hicolor, --ico and/or --icns")

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # QPainter wants an application
    sizes: set[int] = set()
    if args.hicolor:
        sizes.update(HICOLOR_SIZES)
    if args.ico:
        sizes.update(ICO_SIZES)
    if args.icns:
        sizes.update(ICNS_TYPES)
    pngs = {size: render_png(size) for size in sorted(sizes)}

    if args.hicolor:
        for size in HICOLOR_SIZES:
            _write(args.hicolor / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png", pngs[size])
        scalable = args.hicolor / "scalable" / "apps" / f"{ICON_NAME}.svg"
        scalable.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SVG, scalable)
        print(f"wrote {scalable}")
    if args.ico:
        _write(args.ico, ico_bytes({size: pngs[size] for size in ICO_SIZES}))
    if args.icns:
        _write(args.icns, icns_bytes({size: pngs[size] for size in ICNS_TYPES}))
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
