"""Texts the core says that the window shows translated (issue 20).

The core stays Qt-free, so it cannot call ``QCoreApplication.translate``. It
marks a fixed text, or a ``str.format`` template, with ``QT_TRANSLATE_NOOP``:
``pyside6-lupdate`` finds the call by its name and puts the text in the
catalogue under ``context``; at run time the call returns the text unchanged.
The window translates it where it shows it (``ui/wording.py``). The CLI and
``--json`` output keep the English text.
"""

from __future__ import annotations


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # the name lupdate looks for
    """``text`` unchanged; marks it for the catalogue under ``context``."""
    del context
    return text
