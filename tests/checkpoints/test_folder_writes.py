"""SBX-3: ``FolderWriter`` and the shadow repository's writes on real files, links left by an "agent"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.checkpoints.support import host_state
from xworkmate.agents.checkpoints import ShadowRepo
from xworkmate.agents.folder_writes import FolderWriter, UnsafePath


def test_a_link_at_the_path_itself_is_replaced_never_written_through(tmp_path: Path, outside: Path) -> None:
    """Revert of ``f`` when ``f`` is now a link to the host's file: ``f`` becomes the file again, the host's
    file keeps its bytes (the link is renamed over, not opened)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "f").write_text("the line's f\n")
    repo = ShadowRepo(tmp_path / "data" / "line.git", folder)
    before = repo.snapshot()
    (folder / "f").unlink()
    (folder / "f").symlink_to(outside / "victim")
    repo.snapshot()
    host = host_state(outside)
    repo.restore_path(before.commit, "f")
    assert not (folder / "f").is_symlink() and (folder / "f").read_text() == "the line's f\n"
    assert host_state(outside) == host


def test_a_link_in_the_tree_is_made_as_a_link_and_missing_folders_are_made(tmp_path: Path, outside: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a" / "b").mkdir(parents=True)
    (folder / "a" / "b" / "tool.sh").write_text("#!/bin/sh\n")
    (folder / "a" / "b" / "tool.sh").chmod(0o755)
    (folder / "a" / "link").symlink_to("b/tool.sh")
    repo = ShadowRepo(tmp_path / "data" / "line.git", folder)
    snap = repo.snapshot()
    fork = tmp_path / "fork"
    repo.export_tree(snap.commit, fork)
    assert os.readlink(fork / "a" / "link") == "b/tool.sh"
    assert os.access(fork / "a" / "b" / "tool.sh", os.X_OK)
    (folder / "a" / "link").unlink()
    (folder / "a" / "b" / "tool.sh").unlink()
    (folder / "a" / "b").rmdir()
    repo.restore_path(snap.commit, "a/b/tool.sh")
    assert (folder / "a" / "b" / "tool.sh").read_text() == "#!/bin/sh\n"


def test_a_refusal_names_the_link_in_one_line_whatever_its_target(tmp_path: Path, outside: Path) -> None:
    """The agent chose the link's target: a newline in it cannot break the one-line refusal (ERR-1)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "d").symlink_to(str(outside) + "\nxworkmate: ok")
    host = host_state(outside)
    with FolderWriter(folder) as writer:
        with pytest.raises(UnsafePath) as refused:
            writer.write_file("d/x", b"data", 0o644)
        with pytest.raises(UnsafePath):
            writer.remove("d/victim")
    assert "\n" not in str(refused.value)
    assert str(refused.value) == f"its folder d is now a symbolic link (to {outside}\\nxworkmate: ok)"
    assert refused.value.path == "d/x" and refused.value.folder == "d"
    assert host_state(outside) == host
    assert os.path.islink(folder / "d")


def test_a_restore_replaces_a_link_it_restores_and_a_hunk_never_goes_through_one(tmp_path: Path, outside: Path) -> None:
    """What real git does, which checkout_tree and apply_reverse rest on: ``read-tree --reset -u`` unlinks a
    tracked link ``d`` (to the host's folder) and makes the folder ``d`` again, writing nothing through it;
    a hunk of ``d/sub`` is refused first in our one line (git apply would say "beyond a symbolic link")."""
    folder = tmp_path / "folder"
    (folder / "d").mkdir(parents=True)
    (folder / "d" / "sub").write_text("one\n")
    repo = ShadowRepo(tmp_path / "data" / "line.git", folder)
    first = repo.snapshot()
    (folder / "d" / "sub").write_text("two\n")
    second = repo.snapshot()
    (outside / "sub").rename(outside / "sub-folder")
    (outside / "sub").write_text("two\n")  # what the hunk would apply to, through the link
    (folder / "d" / "sub").unlink()
    (folder / "d").rmdir()
    (folder / "d").symlink_to(outside)
    repo.snapshot()
    host = host_state(outside)
    with pytest.raises(UnsafePath, match="its folder d is now a symbolic link"):
        repo.apply_reverse(repo.patch(first.commit, second.commit, "d/sub"), "d/sub")
    assert host_state(outside) == host
    repo.checkout_tree(repo.tree_of(first.commit))
    assert not (folder / "d").is_symlink() and (folder / "d" / "sub").read_text() == "one\n"
    assert host_state(outside) == host
