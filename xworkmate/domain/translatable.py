"""Texts the core says that the window shows translated (issue 20).

The core stays Qt-free, so it cannot call ``QCoreApplication.translate``. It
marks a fixed text, or a ``str.format`` template, with ``QT_TRANSLATE_NOOP``:
``pyside6-lupdate`` finds the call by its name and puts the text in the
catalogue under ``context``; at run time the call returns the text unchanged.
The window translates it where it shows it (``ui/wording.py``). The CLI and
``--json`` output keep the English text.

Every marked text is also recorded (``marked_texts``), so the window can
recognise a core text it is handed, even one a template rendered with values.
Mark texts at module level, so they are recorded when their module is imported,
and name the context as a string literal (lupdate reads only literals); the core
uses the context ``"CoreText"``.
"""

from __future__ import annotations

_MARKED: dict[str, str] = {}


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # the name lupdate looks for
    """``text`` unchanged; marks it for the catalogue under ``context``."""
    _MARKED.setdefault(text, context)
    return text


def marked_texts() -> dict[str, str]:
    """Every text marked so far (text → its context), in marking order."""
    return dict(_MARKED)
