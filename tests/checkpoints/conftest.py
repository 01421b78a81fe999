"""Fixtures of the checkpoint tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """The person's own files beside the line's folder (SBX-3): a file ``victim`` and a folder ``sub``."""
    path = tmp_path / "outside"
    (path / "sub").mkdir(parents=True)
    (path / "victim").write_text("the host's victim\n")
    (path / "sub" / "keep.txt").write_text("the host's folder\n")
    return path
