"""A new line's folder and its row are made together or not at all (ERR-2)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

__all__ = ["new_line_folder"]


@contextlib.contextmanager
def new_line_folder(folder: Path) -> Iterator[Path]:
    """Make ``folder`` for a line about to be stored; if storing fails, take it away again.

    Only a folder made here, and only while still empty, is removed: the shared parents
    (``threads/``) stay, since another process may be making its own line beside it.
    """
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        yield folder
    except BaseException:
        if made:
            with contextlib.suppress(OSError):  # not empty, or already gone: leave it
                folder.rmdir()
        raise
