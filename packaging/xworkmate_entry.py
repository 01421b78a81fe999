"""The frozen app's entry point: the same ``main`` as the ``xworkmate`` command.

PyInstaller runs this file as ``__main__``; everything else is ``xworkmate.entry``. Before it, the
run-time hook ``pyi_rth_xworkmate.py`` calls ``restore_library_path`` and serves the allow-list
sandbox's bridge (``xworkmate --net-bridge``, SBX-4).
"""

from __future__ import annotations

import os
import sys


def restore_library_path() -> None:
    """Give programs we start the person's library path, not the bundle's.

    On Linux the bootloader prepends the bundle to ``LD_LIBRARY_PATH`` (the old
    value is kept in ``LD_LIBRARY_PATH_ORIG``). This process's loader has
    already read it, so changing it here only affects children: agent commands
    and ACP agent CLIs must load the system's libssl/libz, not ours.
    """
    if not getattr(sys, "frozen", False) or sys.platform in ("darwin", "win32"):
        return
    name = "LIBPATH" if sys.platform.startswith("aix") else "LD_LIBRARY_PATH"
    original = os.environ.pop(f"{name}_ORIG", None)
    if original is not None:
        os.environ[name] = original
    else:
        os.environ.pop(name, None)


if __name__ == "__main__":
    # The run-time hook pyi_rth_xworkmate.py has restored the library path and served --net-bridge.
    os.environ.setdefault("QT_API", "pyside6")  # qasync must bind to PySide6 (STYLE 2)
    from xworkmate.entry import main

    sys.exit(main())
