"""``QT_TRANSLATE_NOOP`` for the window's own texts, typed: PySide6's is declared to return ``object``, so
a table of marked texts (``{Status.RUNNING: QT_TRANSLATE_NOOP("TaskLines", "Running")}``) would not be a
``dict[..., str]`` to mypy. ``pyside6-lupdate`` finds the call by its name, wherever it comes from.

The core marks its texts with ``xworkmate.domain.translatable.QT_TRANSLATE_NOOP``, which also records
them so the window can recognise a core text it is handed; the window's own texts need no such record.
"""

from __future__ import annotations


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """``text`` unchanged; marks it for the catalogue under ``context``."""
    return text
