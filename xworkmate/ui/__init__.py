"""The PySide6 window. Imports only controllers, domain types and settings (SPEC §1)."""

from xworkmate.ui.app import build_main_window, run_gui
from xworkmate.ui.main_window import MainWindow

__all__ = ["MainWindow", "build_main_window", "run_gui"]
