"""Paths the model writes stay inside the thread's working directory (SPEC WR-1, ISO-6)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xworkmate.agents.confinement import (
    EscapeReason,
    InvalidPathError,
    InvalidPathReason,
    PathEscapeError,
    WorkingDirectoryError,
    display_path,
    resolve_inside,
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / "sub").mkdir(parents=True)
    (path / "notes.txt").write_text("inside\n")
    return path.resolve()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("secret\n")
    return path.resolve()


def _file_system_is_case_insensitive(directory: Path) -> bool:
    probe = directory / "XwmCaseProbe"
    probe.write_text("")
    try:
        return (directory / "xwmcaseprobe").exists()
    finally:
        probe.unlink()


def test_relative_path_resolves_inside(workspace: Path) -> None:
    assert resolve_inside(workspace, "notes.txt") == workspace / "notes.txt"
    assert resolve_inside(workspace, ".") == workspace
    assert resolve_inside(workspace, "./sub/") == workspace / "sub"


def test_path_that_does_not_exist_yet_resolves_through_its_nearest_existing_ancestor(workspace: Path) -> None:
    """WR-1: a write target may not exist; it is still confined."""
    assert resolve_inside(workspace, "new/deeper/file.txt") == workspace / "new" / "deeper" / "file.txt"


def test_dot_dot_that_comes_back_inside_is_allowed(workspace: Path) -> None:
    assert resolve_inside(workspace, "sub/../notes.txt") == workspace / "notes.txt"
    assert resolve_inside(workspace, f"../{workspace.name}/notes.txt") == workspace / "notes.txt"
    assert resolve_inside(workspace, "missing/../sub") == workspace / "sub"


def test_parent_traversal_to_etc_passwd_is_refused_with_a_message_naming_path_and_folder(
    workspace: Path,
) -> None:
    """WR-1: '../../etc/passwd' never leaves the working directory."""
    with pytest.raises(PathEscapeError) as caught:
        resolve_inside(workspace, "../../etc/passwd")
    assert caught.value.reason is EscapeReason.PARENT_TRAVERSAL
    message = str(caught.value)
    assert "'../../etc/passwd'" in message
    assert str(workspace) in message
    assert "'..'" in message


def test_parent_traversal_beyond_the_root_is_refused(workspace: Path) -> None:
    with pytest.raises(PathEscapeError):
        resolve_inside(workspace, "../" * 60 + "etc/passwd")
    with pytest.raises(PathEscapeError):
        resolve_inside(workspace, "sub/../..")


def test_absolute_path_elsewhere_is_refused(workspace: Path, outside: Path) -> None:
    for path in ("/etc/passwd", str(outside / "secret.txt"), str(outside / "new.txt"), "/"):
        with pytest.raises(PathEscapeError) as caught:
            resolve_inside(workspace, path)
        assert caught.value.reason is EscapeReason.ABSOLUTE_ELSEWHERE
        assert "absolute path" in str(caught.value)


def test_absolute_path_inside_is_allowed(workspace: Path) -> None:
    assert resolve_inside(workspace, str(workspace / "sub" / "x.txt")) == workspace / "sub" / "x.txt"


def test_symlinked_file_pointing_outside_is_refused(workspace: Path, outside: Path) -> None:
    """WR-1: symlinks are resolved before the containment check."""
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(PathEscapeError) as caught:
        resolve_inside(workspace, "link.txt")
    assert caught.value.reason is EscapeReason.SYMLINK
    assert str(outside / "secret.txt") in str(caught.value)


def test_symlinked_directory_pointing_outside_is_refused_for_existing_and_new_files(
    workspace: Path, outside: Path
) -> None:
    (workspace / "linked").symlink_to(outside, target_is_directory=True)
    for path in ("linked", "linked/secret.txt", "linked/new.txt", "linked/new/deeper.txt"):
        with pytest.raises(PathEscapeError) as caught:
            resolve_inside(workspace, path)
        assert caught.value.reason is EscapeReason.SYMLINK


def test_dot_dot_after_a_symlinked_directory_is_applied_to_its_target(workspace: Path, outside: Path) -> None:
    # POSIX semantics: 'linked/..' is the parent of the link's target, not the workspace.
    (workspace / "linked").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathEscapeError):
        resolve_inside(workspace, f"linked/../{outside.name}/secret.txt")


def test_dangling_symlink_pointing_outside_is_refused(workspace: Path, outside: Path) -> None:
    """WR-1: writing through a dangling link would create a file outside."""
    (workspace / "dangling.txt").symlink_to(outside / "does-not-exist.txt")
    with pytest.raises(PathEscapeError) as caught:
        resolve_inside(workspace, "dangling.txt")
    assert caught.value.reason is EscapeReason.SYMLINK


def test_dangling_symlink_pointing_inside_resolves_to_its_target(workspace: Path) -> None:
    (workspace / "pending.txt").symlink_to(workspace / "sub" / "later.txt")
    assert resolve_inside(workspace, "pending.txt") == workspace / "sub" / "later.txt"


def test_symlink_that_stays_inside_is_allowed(workspace: Path) -> None:
    (workspace / "alias").symlink_to(workspace / "sub", target_is_directory=True)
    assert resolve_inside(workspace, "alias/file.txt") == workspace / "sub" / "file.txt"


def test_symlink_loop_is_refused_as_unresolvable(workspace: Path) -> None:
    (workspace / "loop").symlink_to(workspace / "loop")
    with pytest.raises(InvalidPathError) as caught:
        resolve_inside(workspace, "loop")
    assert caught.value.reason is InvalidPathReason.UNRESOLVED_LINK


def test_working_directory_given_through_a_symlink_still_confines(tmp_path: Path, workspace: Path) -> None:
    alias = tmp_path / "alias-of-ws"
    alias.symlink_to(workspace, target_is_directory=True)
    assert resolve_inside(alias, "notes.txt") == workspace / "notes.txt"
    assert resolve_inside(alias, str(alias / "notes.txt")) == workspace / "notes.txt"
    with pytest.raises(PathEscapeError):
        resolve_inside(alias, "../outside/secret.txt")


def test_another_name_for_the_working_directory_counts_as_inside(tmp_path: Path, workspace: Path) -> None:
    # Containment compares directory identity, which is also what makes case
    # variants work on case-insensitive file systems.
    other_name = tmp_path / "other-name"
    other_name.symlink_to(workspace, target_is_directory=True)
    assert resolve_inside(workspace, str(other_name / "sub" / "a.txt")) == workspace / "sub" / "a.txt"


def test_case_variant_of_a_sibling_folder_is_outside_on_a_case_sensitive_file_system(
    tmp_path: Path, workspace: Path
) -> None:
    if _file_system_is_case_insensitive(tmp_path):
        pytest.skip("the temporary folder is on a case-insensitive file system")
    sibling = tmp_path / workspace.name.upper()
    sibling.mkdir()
    for path in (f"../{sibling.name}/x.txt", str(sibling / "x.txt")):
        with pytest.raises(PathEscapeError):
            resolve_inside(workspace, path)


def test_case_variant_of_the_working_directory_is_inside_on_a_case_insensitive_file_system(
    tmp_path: Path, workspace: Path
) -> None:
    if not _file_system_is_case_insensitive(tmp_path):
        pytest.skip("the temporary folder is on a case-sensitive file system")
    shouting = str(workspace.parent / workspace.name.upper() / "NOTES.TXT")
    resolved = resolve_inside(workspace, shouting)
    assert resolved.parent == workspace
    assert resolved.name.lower() == "notes.txt"


def test_nul_byte_is_refused(workspace: Path) -> None:
    with pytest.raises(InvalidPathError) as caught:
        resolve_inside(workspace, "notes.txt\0.png")
    assert caught.value.reason is InvalidPathReason.NUL_BYTE


@pytest.mark.parametrize("path", ["", "   ", "\n"])
def test_empty_path_is_refused(workspace: Path, path: str) -> None:
    with pytest.raises(InvalidPathError) as caught:
        resolve_inside(workspace, path)
    assert caught.value.reason is InvalidPathReason.EMPTY


def test_home_relative_path_is_refused_rather_than_created_inside(workspace: Path) -> None:
    with pytest.raises(InvalidPathError) as caught:
        resolve_inside(workspace, "~/.bashrc")
    assert caught.value.reason is InvalidPathReason.HOME_RELATIVE


def test_missing_working_directory_is_reported(tmp_path: Path) -> None:
    with pytest.raises(WorkingDirectoryError, match="does not exist"):
        resolve_inside(tmp_path / "gone", "notes.txt")


def test_display_path_is_relative_to_the_working_directory(workspace: Path) -> None:
    assert display_path(workspace, workspace / "sub" / "a.txt") == "sub/a.txt"
    assert display_path(workspace, workspace) == "."


_SEGMENTS = st.sampled_from(["..", ".", "sub", "notes.txt", "out", "in", "loop", "new", "WS", "ws"])


@settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(parts=st.lists(_SEGMENTS, min_size=1, max_size=8), absolute=st.booleans())
def test_any_accepted_path_really_is_inside(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str], absolute: bool
) -> None:
    """WR-1 as a property: whatever the model writes, an accepted path is inside the folder."""
    root = _property_tree(tmp_path_factory)
    workspace = root / "ws"
    user_path = os.path.join(*parts)
    if absolute:
        user_path = str(workspace / user_path)
    try:
        resolved = resolve_inside(workspace, user_path)
    except (PathEscapeError, InvalidPathError):
        return
    assert resolved == workspace or workspace in resolved.parents
    assert os.path.realpath(resolved) == str(resolved)


_TREES: dict[str, Path] = {}


def _property_tree(factory: pytest.TempPathFactory) -> Path:
    key = str(factory.getbasetemp())
    if key not in _TREES:
        root = factory.mktemp("property").resolve()
        workspace = root / "ws"
        (workspace / "sub").mkdir(parents=True)
        (workspace / "notes.txt").write_text("x")
        (root / "outside").mkdir()
        (workspace / "out").symlink_to(root / "outside", target_is_directory=True)
        (workspace / "sub" / "in").symlink_to(workspace, target_is_directory=True)
        (workspace / "loop").symlink_to(workspace / "loop")
        _TREES[key] = root
    return _TREES[key]
