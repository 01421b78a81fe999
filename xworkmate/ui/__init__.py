"""The PySide6 window. Imports only controllers, presentation, domain types and settings (SPEC §1)."""

from PySide6.QtCore import QCoreApplication

from xworkmate.presentation.text import install_translator
from xworkmate.ui.app import build_main_window, run_gui
from xworkmate.ui.main_window import MainWindow

install_translator(QCoreApplication.translate)  # the Qt-free presentation code speaks the window's language

__all__ = ["MainWindow", "build_main_window", "run_gui"]
