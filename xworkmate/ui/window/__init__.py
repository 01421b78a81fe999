"""The main window, cut into its parts (issue 33 item 1): ``main_window`` builds and wires them.

Empty on purpose: importing this package loads nothing, so ``xworkmate gui`` paints its shell first and
loads the window's code after (issue 19, item 7). Import ``xworkmate.ui.window.main_window.MainWindow``.
"""
