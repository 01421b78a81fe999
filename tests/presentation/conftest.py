"""The presentation tests read English, whatever an earlier test (a window in Chinese) installed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from xworkmate.presentation import text


@contextmanager
def installed(translator: text.Translator) -> Iterator[None]:
    """``translator`` for the block; the one installed before (Qt's, once the window was imported) after it."""
    previous = text.install_translator(translator)
    try:
        yield
    finally:
        text.install_translator(previous)


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    with installed(text.english):
        yield
