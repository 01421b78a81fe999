"""The repository's control files (issue 29 row 3, SBX-3): named for read-only mounts, fingerprinted per turn."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.sandboxing import needs_bwrap
from xworkmate.agents.git_safe import first_line
from xworkmate.agents.repo_guard import control_paths, describe_changes, fingerprint, prepare_control_paths
from xworkmate.agents.sandbox import Access, Sandbox, SandboxPolicy


def git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@x", *args], cwd=folder, check=True, capture_output=True
    )


def worktree(tmp_path: Path) -> tuple[Path, Path]:
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "commit", "-q", "--allow-empty", "-m", "first")
    tree = main / "trees" / "line"
    git(main, "worktree", "add", "-q", "-b", "line", str(tree))
    return main, tree


@needs_bwrap
def test_a_worktree_lines_git_file_and_the_common_dirs_hooks_and_config_stay_read_only(tmp_path: Path) -> None:
    """The worktree's ``.git`` file cannot be pointed elsewhere (row 2's redirect) and, where the main
    repository is writable too, its hooks and config stay read-only; elsewhere nothing is mounted."""
    main, tree = worktree(tmp_path)
    paths = control_paths(tree)
    assert tree / ".git" in paths
    assert {main / ".git" / name for name in ("hooks", "config", "info")} <= set(paths)
    policy = SandboxPolicy(working_directory=main, read_only=paths)  # the main repository is the line's folder
    assert policy.access(tree / ".git") is Access.READ and policy.access(main / ".git" / "hooks" / "x") is Access.READ
    assert policy.access(main / ".git" / "objects" / "x") is Access.WRITE
    done = subprocess.run(
        Sandbox(policy).wrap(["/bin/sh", "-c", "echo 'gitdir: .evil' > trees/line/.git; echo > .git/hooks/x"]),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (tree / ".git").read_text().startswith("gitdir: ") and ".evil" not in (tree / ".git").read_text()
    assert not (main / ".git" / "hooks" / "x").exists(), done.stderr
    elsewhere = SandboxPolicy(working_directory=tree, hidden=(main / ".git",), read_only=paths)
    assert all(m.access is not Access.READ or m.path == tree / ".git" for m in elsewhere.mounts())


def test_the_fingerprint_names_what_changed_and_follows_no_link(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q")
    for hook in (folder / ".git" / "hooks").iterdir():
        hook.unlink()
    prepare_control_paths(folder)
    before = fingerprint(folder)
    assert describe_changes(before, fingerprint(folder)) is None
    (folder / ".git" / "hooks" / "pre-commit").write_text("id\n")
    (folder / ".git" / "commondir").write_text("../.evil\n")
    (folder / ".git" / "info" / "attributes").symlink_to("/etc/passwd")
    with (folder / ".git" / "config").open("a") as config:
        config.write("[core]\n\tfsmonitor = id\n")
    text = describe_changes(before, fingerprint(folder))
    assert text is not None and "\n" not in text
    for said in (
        ".git/hooks/pre-commit was added",
        ".git/commondir was added",
        ".git/info/attributes was added",
        ".git/config was changed",
    ):
        assert said in text


def test_a_missing_hooks_folder_is_made_only_in_a_real_git_folder(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / ".git").mkdir(parents=True)
    prepare_control_paths(real)
    assert (real / ".git" / "hooks").is_dir() and (real / ".git" / "info").is_dir()
    linked, target = tmp_path / "linked", tmp_path / "target"
    linked.mkdir()
    target.mkdir()
    (linked / ".git").symlink_to(target)
    prepare_control_paths(linked)
    assert list(target.iterdir()) == []  # nothing is made through a link


@needs_bwrap
def test_a_submodules_hooks_and_config_stay_read_only_and_a_commit_inside_it_still_works(tmp_path: Path) -> None:
    """The person commits in a submodule too: its git dir under ``.git/modules`` is kept like the top one."""
    library = tmp_path / "library"
    library.mkdir()
    git(library, "init", "-q")
    git(library, "commit", "-q", "--allow-empty", "-m", "lib")
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q")
    git(folder, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    module = folder / ".git" / "modules" / "lib"
    assert {module / "hooks", module / "config"} <= set(control_paths(folder))
    policy = SandboxPolicy(working_directory=folder, read_only=control_paths(folder))
    script = (
        "cd lib && echo x > x.txt && git add x.txt && git -c user.name=t -c user.email=t@x commit -qm x && echo DONE;"
        " echo id > ../.git/modules/lib/hooks/pre-commit; git config core.fsmonitor id; mv ../.git/modules/lib ../m"
    )
    done = subprocess.run(Sandbox(policy).wrap(["/bin/sh", "-c", script]), capture_output=True, text=True, check=False)
    assert "DONE" in done.stdout, done.stderr
    assert not (module / "hooks" / "pre-commit").exists() and "fsmonitor" not in (module / "config").read_text()
    assert (module / "hooks").is_dir() and (module / "config").is_file()  # copied away at most


def test_a_git_link_file_is_read_without_following_a_link_or_waiting_on_a_pipe(tmp_path: Path) -> None:
    """SBX-3: the one reader of ``.git`` files and ``commondir`` (used by ``git_safe`` and here): a FIFO
    or a link the agent put there reads as nothing at once, and a huge file costs its first 4 KiB."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert first_line(fifo) is None  # would block forever if opened plainly
    (tmp_path / "real").write_text("gitdir: /elsewhere\n")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert first_line(tmp_path / "link") is None
    assert first_line(tmp_path / "real") == "gitdir: /elsewhere"
    (tmp_path / "huge").write_bytes(b"gitdir: " + b"a" * 1_000_000)
    assert first_line(tmp_path / "huge") == "gitdir: " + "a" * (4096 - len("gitdir: "))
    tree = tmp_path / "tree"
    tree.mkdir()
    os.mkfifo(tree / ".git")
    assert set(fingerprint(tree)) == {".git"}  # known by its kind, read from nowhere
