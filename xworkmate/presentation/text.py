"""Translation for Qt-free code: the window installs Qt's, everything else reads English (issue 19).

``translate(context, source, disambiguation, n)`` has the signature of ``QCoreApplication.translate``,
and ``pyside6-lupdate`` finds a call to it by its name, so a text keeps its catalogue context whether it
is translated here or in a widget. Plurals are written ``Context.tr(source, "", n)`` on a
``TranslationContext`` subclass named after the context (the form lupdate reads as a numerus entry).
``QT_TRANSLATE_NOOP`` marks a text to be translated later, without recording it as a core text (that is
``domain.translatable``'s, for texts the core itself says).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

Translator = Callable[[str, str, str | None, int], str]
"""``(context, source, disambiguation, n)`` → the text in the installed language."""


def english(_context: str, source: str, _disambiguation: str | None = None, n: int = -1) -> str:
    """No catalogue: the English source, with ``%n`` filled in and ``(s)`` read for the count."""
    if n < 0:
        return source
    return english_plural(source.replace("%n", str(n)), n)


def english_plural(text: str, count: int) -> str:
    """A ``%n … (s)`` text with no translation installed reads as English: "1 file", "2 files".

    Translated texts carry their own forms (Qt's numerus forms) and no "(s)", so they pass unchanged.
    """
    return text.replace("(s)", "" if count == 1 else "s")


_installed: list[Translator] = [english]


def install_translator(translator: Translator) -> Translator:
    """Where ``translate`` looks from now on (the window installs ``QCoreApplication.translate``); returns
    the translator installed before, to put back."""
    previous, _installed[0] = _installed[0], translator
    return previous


def translate(context: str, source: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``source`` in the installed language, as ``QCoreApplication.translate`` would give it."""
    return _installed[0](context, source, disambiguation, n)


class TranslationContext:
    """A catalogue context for ``tr``: subclass it with the context's name (lupdate reads the class name)."""

    context: ClassVar[str] = ""

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.context = cls.__name__

    @classmethod
    def tr(cls, source: str, disambiguation: str | None = None, n: int = -1) -> str:
        return translate(cls.context, source, disambiguation, n)


def QT_TRANSLATE_NOOP(_context: str, text: str) -> str:  # the name lupdate looks for
    """``text`` unchanged; marks it for the catalogue under the context."""
    return text
