"""``sandbox.real_path``: the kernel's resolution of a path, the same answer as ``os.path.realpath`` (SBX-1).

The sandbox hides and shows folders by their real paths; resolving them through the kernel is only
faster, never another answer: links (also chained, relative and through a linked parent), ``..`` after a
link, a file, a relative path, a missing tail, a dangling link, a loop, an empty string.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xworkmate.agents.sandbox import real_path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "real" / "deep" / "er").mkdir(parents=True)
    (tmp_path / "real" / "deep" / "file.txt").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "relative").symlink_to("real/deep")
    (tmp_path / "chained").symlink_to("link/deep")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop-a").symlink_to("loop-b")
    (tmp_path / "loop-b").symlink_to("loop-a")
    return tmp_path


@pytest.mark.parametrize(
    "name",
    [
        "real/deep/er",
        "link",
        "link/deep/er",
        "relative",
        "chained/er",
        "link/deep/../deep/er",
        "relative/../deep",
        "link/deep/file.txt",
        "link/deep/missing/tail",
        "dangling",
        "dangling/below",
        "loop-a",
        ".",
    ],
)
def test_real_path_answers_as_realpath_does(tree: Path, name: str) -> None:
    assert real_path(tree / name) == os.path.realpath(tree / name)


def test_real_path_of_a_relative_path_and_of_nothing_is_realpaths(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / "link")
    assert real_path("deep/er") == os.path.realpath("deep/er") == str(tree / "real" / "deep" / "er")
    assert real_path("") == os.path.realpath("")
    assert real_path(Path("deep")) == str(tree / "real" / "deep")
