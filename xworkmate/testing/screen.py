"""A desktop-sized offscreen screen for tests, testers' windows and screenshots (issue 30).

Qt's offscreen platform has one 800×800 screen, and the window fits itself to the screen it opens on
(``ui/shell.WindowShell.fit_on_screen``): offscreen, every window would open 796 pixels wide, its
workspace pane hidden, unlike on the desktops people and testers script for. With ``QT_QPA_PLATFORM``
unset or plain ``offscreen``, this gives the platform a 1920×1200 screen through its ``configfile``
option; any other choice (a tester's, ``xcb``, a configured offscreen) is left alone. Call it before
the ``QApplication`` exists.
"""

from __future__ import annotations

import atexit
import json
import os
import tempfile
from pathlib import Path

__all__ = ["DESKTOP_SCREEN", "desktop_offscreen", "use_desktop_offscreen"]

DESKTOP_SCREEN = (1920, 1200)


def use_desktop_offscreen(size: tuple[int, int] = DESKTOP_SCREEN) -> None:
    os.environ["QT_QPA_PLATFORM"] = desktop_offscreen(os.environ.get("QT_QPA_PLATFORM"), size)


def desktop_offscreen(platform: str | None, size: tuple[int, int] = DESKTOP_SCREEN) -> str:
    """The ``QT_QPA_PLATFORM`` to use instead of ``platform`` (the one chosen, if any)."""
    if platform not in (None, "", "offscreen"):
        return platform
    width, height = size
    screens = {"screens": [{"name": "desktop", "x": 0, "y": 0, "width": width, "height": height, "dpr": 1}]}
    config = Path(tempfile.gettempdir(), f"xworkmate-offscreen-{os.getpid()}.json")
    config.write_text(json.dumps(screens), encoding="utf-8")
    atexit.register(config.unlink, missing_ok=True)
    return f"offscreen:configfile={config}"
