"""The line's repository's control files: what git runs as the person, kept read-only and watched (SBX-3).

Git runs what a repository's ``hooks`` hold and what its ``config`` names (``core.fsmonitor``,
``core.hooksPath``, filter drivers…) as whoever runs git. An agent that changed them in its folder
would have the person's own next ``git commit`` run its code outside the sandbox. So:

* ``control_paths`` names them (the folder's ``.git`` entry; ``hooks``, ``config``, ``info``,
  ``config.worktree`` of its git dir, for a worktree of the common dir, and of the submodules' git
  dirs under ``modules``) for the sandbox to mount read-only, as Codex keeps ``.git`` out of its
  writable roots; git itself still commits;
* ``prepare_control_paths`` makes a missing ``hooks``/``info`` folder (``git init`` makes both), so
  there is something to mount read-only instead of a gap the agent could fill;
* ``fingerprint`` and ``describe_changes`` tell, after a turn, what changed there anyway (outside
  the sandbox's reach, or with no sandbox), so the line can say so.

Everything here reads what an adversary may have written: no link is followed, reads are bounded.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from xworkmate.agents.git_safe import GitUnsafe, first_line, run_git

__all__ = [
    "control_paths",
    "describe_changes",
    "fingerprint",
    "fingerprint_paths",
    "listed_changes",
    "prepare_control_paths",
]

_CONTROL_NAMES = ("hooks", "info", "config", "config.worktree", "commondir")
_MAX_ENTRIES = 500
_MAX_HASHED_BYTES = 1024 * 1024  # a larger file is known by its size and time
_MAX_HASHED_TOTAL = 16 * 1024 * 1024  # past this, every further file too
_MAX_SUBMODULES = 50


def _git_dirs(folder: Path, *, gitlinks: bool = True) -> list[Path]:
    """The folder's git dir and, when it names another, its common dir (a worktree's main ``.git``), the
    submodules' under ``modules`` and, with ``gitlinks``, those of the repositories the index registers."""
    dot_git = folder / ".git"
    try:
        mode = os.lstat(dot_git).st_mode
    except OSError:
        return []
    if stat.S_ISDIR(mode):
        git_dir = dot_git
    elif stat.S_ISREG(mode):
        named = first_line(dot_git) or ""
        if not named.startswith("gitdir:"):
            return []
        git_dir = folder / named.removeprefix("gitdir:").strip()
    else:
        return []
    found = [git_dir]
    common = (first_line(git_dir / "commondir") or "").strip()
    if common:
        found.append(git_dir / common)
    found += _submodule_git_dirs(Path(os.path.normpath(found[-1])) / "modules")
    if gitlinks:
        found += _gitlink_git_dirs(folder, git_dir)
    return [Path(os.path.normpath(p)) for p in dict.fromkeys(found)]


def _gitlink_git_dirs(folder: Path, git_dir: Path) -> list[Path]:
    """The git dirs of the repositories nested in the folder that its index registers (gitlinks): a plain
    ``git status`` there runs ``status`` inside each, under that repository's own hooks and config
    (``core.fsmonitor``), which the agent wrote. Listed with ``agents.git_safe`` (nothing they name runs);
    one reached through a link is left out, as git leaves it out."""
    try:
        done = run_git(["ls-files", "--stage", "-z"], cwd=folder, git_dir=git_dir, work_tree=folder)
    except GitUnsafe:
        return []
    if done.returncode != 0:
        return []
    real = os.path.realpath(folder)
    found: list[Path] = []
    for entry in done.stdout.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        if not meta.startswith(b"160000 "):
            continue
        nested = os.path.normpath(os.path.join(real, os.fsdecode(name)))
        if os.path.realpath(nested) != nested or not nested.startswith(real + os.sep):
            continue
        found += _git_dirs(Path(nested), gitlinks=False)
        if len(found) >= _MAX_SUBMODULES:
            break
    return found


def _submodule_git_dirs(modules: Path) -> list[Path]:
    """The submodules' git dirs under ``modules`` (a person commits in a submodule too): folders with a
    ``HEAD`` file, nested ones included, at most ``_MAX_SUBMODULES``, no link followed."""
    found: list[Path] = []
    if not os.path.isdir(modules) or os.path.islink(modules):
        return found
    for current, dirs, files in os.walk(modules, followlinks=False):
        dirs.sort()
        if "HEAD" in files and Path(current) != modules:
            found.append(Path(current))
            dirs[:] = ["modules"] if "modules" in dirs else []  # a submodule's own submodules
        if len(found) >= _MAX_SUBMODULES:
            break
    return found


def control_paths(folder: str | os.PathLike[str]) -> tuple[Path, ...]:
    """SBX-3: the existing control files of the repository at ``folder``, for read-only mounts."""
    root = Path(folder)
    found = [root / ".git"] if os.path.isfile(root / ".git") and not os.path.islink(root / ".git") else []
    for git_dir in _git_dirs(root):
        found += [git_dir / name for name in _CONTROL_NAMES[:4] if os.path.lexists(git_dir / name)]
    return tuple(found)


def prepare_control_paths(folder: str | os.PathLike[str]) -> None:
    """Make a missing ``.git/hooks`` or ``.git/info`` folder (as ``git init`` does) so it can be mounted
    read-only; only in a ``.git`` that is a real folder, never through a link."""
    dot_git = Path(folder, ".git")
    try:
        if not stat.S_ISDIR(os.lstat(dot_git).st_mode):
            return
    except OSError:
        return
    for name in ("hooks", "info"):
        with contextlib.suppress(OSError):  # there already (or as something else, which the fingerprint reports)
            os.mkdir(dot_git / name, 0o755)


def fingerprint(folder: str | os.PathLike[str]) -> dict[str, str]:
    """What the repository's control files are now: shown path → kind, mode and content digest."""
    root = Path(folder)
    prints = _Prints()
    prints.entry(root / ".git", _shown(root, root / ".git"))
    for git_dir in _git_dirs(root):
        for name in _CONTROL_NAMES:
            prints.walk(git_dir / name, _shown(root, git_dir / name))
    return prints.seen


def fingerprint_paths(paths: Iterable[tuple[Path, str]]) -> dict[str, str]:
    """The same bounded fingerprint of other paths (each with the name it is shown by), no link followed;
    a folder is walked (``agents.agent_config`` watches an agent CLI's config this way)."""
    prints = _Prints()
    for path, shown in paths:
        prints.walk(path, shown)
    return prints.seen


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return os.fspath(path)


class _Prints:
    """One fingerprint being taken: at most ``_MAX_ENTRIES`` entries and ``_MAX_HASHED_TOTAL`` bytes read."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}
        self.hashed = 0

    def walk(self, path: Path, shown: str) -> None:
        if not self.entry(path, shown) or not self.seen[shown].startswith("dir"):
            return
        for current, dirs, files in os.walk(path, followlinks=False):
            for name in sorted(dirs) + sorted(files):
                if len(self.seen) >= _MAX_ENTRIES:
                    dirs.clear()
                    return
                full = Path(current, name)
                self.entry(full, f"{shown}/{full.relative_to(path).as_posix()}")
            dirs.sort()

    def entry(self, path: Path, shown: str) -> bool:
        try:
            status = os.lstat(path)
        except OSError:
            return False
        mode = stat.S_IMODE(status.st_mode)
        if stat.S_ISDIR(status.st_mode):
            self.seen[shown] = f"dir {mode:o}"
        elif stat.S_ISLNK(status.st_mode):
            self.seen[shown] = f"link {os.readlink(path)}"
        elif stat.S_ISREG(status.st_mode):
            self.seen[shown] = f"file {mode:o} {self.digest(path, status)}"
        else:
            self.seen[shown] = f"other {stat.S_IFMT(status.st_mode):o}"
        return True

    def digest(self, path: Path, status: os.stat_result) -> str:
        if status.st_size > _MAX_HASHED_BYTES or self.hashed + status.st_size > _MAX_HASHED_TOTAL:
            return f"{status.st_size} bytes, changed {status.st_mtime_ns}"
        self.hashed += status.st_size
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return f"unreadable {status.st_size} {status.st_mtime_ns}"
        with os.fdopen(fd, "rb") as handle:
            return hashlib.sha256(handle.read(_MAX_HASHED_BYTES + 1)).hexdigest()


def describe_changes(before: dict[str, str], after: dict[str, str]) -> str | None:
    """One notice for the line when a turn changed the repository's control files, else None."""
    shown = listed_changes(before, after)
    if shown is None:
        return None
    return (
        f"During this turn {shown}. Git runs hooks and the commands a repository's config names as you,"
        " outside the sandbox: check them before you run git in this folder."
    )


def listed_changes(before: dict[str, str], after: dict[str, str]) -> str | None:
    """What changed between two fingerprints, as the notices name it ("x was added; y was changed"), or None."""
    changes = [f"{p} was added" for p in after if p not in before]
    changes += [f"{p} was changed" for p in after if p in before and before[p] != after[p]]
    changes += [f"{p} was removed" for p in before if p not in after]
    if not changes:
        return None
    return "; ".join(sorted(changes)[:8]) + ("; …" if len(changes) > 8 else "")
