"""The PySide6 window. Imports only controllers, presentation, domain types and settings (SPEC §1).

Importing the package is light: ``xworkmate gui`` paints its window (``ui/shell``, ``ui/start``) before
the stack and the rest of the window's code load (issue 19, item 7), so ``MainWindow``, ``build_main_window``
and ``run_gui`` are loaded when they are first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication

from xworkmate.presentation.text import install_translator

if TYPE_CHECKING:
    from xworkmate.ui.app import build_main_window, run_gui
    from xworkmate.ui.window.main_window import MainWindow

install_translator(QCoreApplication.translate)  # the Qt-free presentation code speaks the window's language

__all__ = ["MainWindow", "build_main_window", "run_gui"]


def __getattr__(name: str) -> Any:
    if name == "MainWindow":
        from xworkmate.ui.window.main_window import MainWindow

        return MainWindow
    if name in ("build_main_window", "run_gui"):
        from xworkmate.ui import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
