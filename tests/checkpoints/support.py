"""Helpers for checkpoint tests: a byte-exact picture of a folder, and of a repository's own ``.git``."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from xworkmate.agents.checkpoints import ShadowRepo


def tree_state(folder: Path) -> dict[str, tuple[bytes, bool]]:
    """Every file under ``folder`` but ``.git``: its bytes and whether it is executable."""
    found: dict[str, tuple[bytes, bool]] = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(root, name)
            mode = path.lstat().st_mode
            found[path.relative_to(folder).as_posix()] = (path.read_bytes(), bool(mode & stat.S_IXUSR))
    return found


def shadow_env(shadow: ShadowRepo) -> dict[str, str]:
    """The environment to run git on a line's shadow repository with: nothing of the machine's config."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_DIR": str(shadow.git_dir),
        "GIT_WORK_TREE": str(shadow.work_tree),
        "GIT_OPTIONAL_LOCKS": "0",
    }


def git(folder: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="Person",
        GIT_AUTHOR_EMAIL="p@example.invalid",
        GIT_COMMITTER_NAME="Person",
        GIT_COMMITTER_EMAIL="p@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, env=env, check=True).stdout


def make_repo(folder: Path) -> None:
    """A repository of the person's with a commit, a staged change and a stash."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "tracked.txt").write_text("v1\n")
    git(folder, "add", "tracked.txt")
    git(folder, "commit", "-q", "-m", "first")
    (folder / "tracked.txt").write_text("stashed\n")
    git(folder, "stash", "-q")
    (folder / "staged.txt").write_text("staged\n")
    git(folder, "add", "staged.txt")


def dot_git_state(folder: Path) -> dict[str, bytes]:
    """The repository's own HEAD, index bytes, refs (packed and loose, stash included) and config."""
    dot = folder / ".git"
    state = {name: (dot / name).read_bytes() for name in ("HEAD", "index", "config") if (dot / name).exists()}
    if (dot / "packed-refs").exists():
        state["packed-refs"] = (dot / "packed-refs").read_bytes()
    for path in sorted((dot / "refs").rglob("*")):
        if path.is_file():
            state[path.relative_to(dot).as_posix()] = path.read_bytes()
    state["logs/refs/stash"] = (dot / "logs" / "refs" / "stash").read_bytes()
    state["objects"] = "\n".join(sorted(p.name for p in (dot / "objects").iterdir())).encode()
    return state


def host_state(folder: Path) -> dict[str, tuple[str, bytes, int]]:
    """Everything under ``folder``, links not followed: kind, bytes (or link target) and mode of each entry."""
    found: dict[str, tuple[str, bytes, int]] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root, name)
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                entry = ("link", os.readlink(path).encode(), 0)
            elif stat.S_ISDIR(info.st_mode):
                entry = ("dir", b"", stat.S_IMODE(info.st_mode))
            else:
                entry = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
            found[path.relative_to(folder).as_posix()] = entry
    return found
