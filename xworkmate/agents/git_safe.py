"""Running git on a line's folder as on ground written by an adversary (SBX-3).

An agent owns its folder, the folder's ``.git`` included: it can set ``core.fsmonitor``,
``core.hooksPath``, a ``filter.<name>.clean`` named by its own ``.gitattributes``, an
``include.path`` to a file that sets any of these, or rewrite ``.git`` to ``gitdir: .evil``.
Plain ``git status`` on the host then runs the agent's command as the person (issue 29,
rows 1 and 2). Every git XWorkmate runs for a line goes through :func:`run_git`, which:

* builds the environment from nothing (``PATH`` and ``TMPDIR`` kept): no ``GIT_*`` of the
  caller, no system or global config, no system attributes, ``HOME``/``XDG_CONFIG_HOME`` at
  ``/dev/null``, no prompt, pager, editor or askpass, no replace refs, no optional locks,
  ``GIT_ALLOW_PROTOCOL`` empty (no transport at all, so a partial clone's lazy fetch, a
  ``remote.*.uploadpack`` or ``core.sshCommand`` cannot run), ``LC_ALL=C``;
* names the repository itself (``GIT_DIR``, ``GIT_COMMON_DIR`` and ``GIT_WORK_TREE``) instead
  of letting git discover it, so ``core.worktree``, embedded bare repositories and a
  ``commondir`` file written during the call cannot move it (``safe.bareRepository=explicit``
  as well);
* overrides, at command-line scope (git's highest), every key with which git executes
  something: the fixed ones in :data:`FIXED_OVERRIDES`, and every driver the repository's
  config defines under an agent-chosen name (``filter.<n>.clean|smudge|process``,
  ``diff.<n>.command|textconv``, ``merge.<n>.driver``, ``credential.<url>.helper``,
  ``gpg.<fmt>.program``). Those names are read first with ``git config --list --name-only``
  in the very environment of the call: listing config executes nothing, and it follows
  ``include``/``includeIf`` exactly as the call will, so a driver defined in an included
  file is found too. Empty commands are no-ops in git (``filter.<n>.required`` is set false
  so an emptied required filter does not make git die).

The overrides travel as ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``
(git >= 2.31) rather than ``-c``: a subsection name may contain ``=`` (``-c`` would split it
wrongly), and git hands these variables on to the git processes it starts itself (a
submodule's ``status``, ``worktree add``'s checkout), so the overrides hold there too.
Callers also pass ``--ignore-submodules=dirty`` where git would otherwise run ``status``
inside a nested repository whose own config the listing did not see.

Others mostly override ``core.fsmonitor`` alone (fish's CVE-2022-20001 fix, powerline-gitstatus'
CVE-2022-42906, the issue starship#3974 after Justin Steven's 2022 write-up on buried bare
repositories and fsmonitor): one key of a dozen, and nothing for drivers named in attributes.
Why not another design: a sandboxed git (bwrap, read-only) would still run the agent's
command, only confined, and cost a sandbox per call; a private ``GIT_COMMON_DIR`` that
never reads the repository's config breaks split or sparse indexes, ``sha256`` repositories
and every write (``worktree add``). Git's own answer to hostile repositories (CVE-2022-24765:
``safe.directory``) only covers repositories owned by another user, and
``safe.bareRepository`` only discovery; editors (VS Code's workspace trust) simply do not
run git in an untrusted folder. What remains is a race: a key the agent adds between the
listing and the call (milliseconds) is not overridden, so only an agent process still running
then could win it: archive refuses a running line, and SBX-3 has the sandbox keep
``.git/config`` read-only during a turn.

The shadow checkpoint repository (``agents/checkpoints.py``) is XWorkmate's own: its config
is not listed (``trusted_config``), the fixed overrides and environment still apply since
its work tree (``.gitattributes``, nested repositories) is the agent's.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from xworkmate.agents.priority import background_argv
from xworkmate.terminal_text import shown

__all__ = [
    "FIXED_OVERRIDES",
    "GIT_TIMEOUT_S",
    "GitRedirected",
    "GitUnsafe",
    "expect_gitdir",
    "first_line",
    "folder_gitdir",
    "git_env",
    "run_git",
    "trusted_env",
]

GIT_TIMEOUT_S = 120

FIXED_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),  # no hook is found under /dev/null: none runs
    ("core.sshCommand", "false"),
    ("core.gitProxy", ""),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("core.askPass", ""),
    ("credential.helper", ""),  # an empty value clears the helper list
    ("diff.external", ""),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("gpg.ssh.defaultKeyCommand", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("log.showSignature", "false"),
    ("core.alternateRefsCommand", ""),
    ("uploadpack.packObjectsHook", ""),
    ("core.attributesFile", os.devnull),
    ("status.submoduleSummary", "false"),
    ("diff.ignoreSubmodules", "dirty"),
    ("submodule.recurse", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("protocol.allow", "never"),
    ("safe.bareRepository", "explicit"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)
"""Keys with which git runs a program (or reaches a program through a transport), made inert."""

_UNTRUSTED_INDEX = (("core.untrackedCache", "false"),)  # the index is the agent's: its untracked cache is not believed

# Sections whose subsection name the agent chooses (through .gitattributes or a URL) and the key that is a command.
_NAMED_COMMANDS = re.compile(
    r"^(?:filter\..+\.(?:clean|smudge|process)"
    r"|diff\..+\.(?:command|textconv)"
    r"|merge\..+\.driver"
    r"|credential\..+\.helper"
    r"|gpg\..+\.program"
    r"|remote\..+\.(?:uploadpack|receivepack|vcs|proxy))$",
    re.IGNORECASE | re.DOTALL,
)
_REQUIRED_FILTER = re.compile(r"^filter\.(.+)\.(?:clean|smudge|process)$", re.IGNORECASE | re.DOTALL)


class GitUnsafe(ValueError):
    """git was not run: the folder's repository could not be made safe to run it in; one line."""


class GitRedirected(GitUnsafe):
    """The line's ``.git`` no longer points to the repository XWorkmate made for it."""


def git_env(
    *,
    git_dir: Path | None = None,
    work_tree: Path | None = None,
    index_file: Path | None = None,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The whole environment of a git call: nothing inherited but ``PATH`` and ``TMPDIR``."""
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    if "TMPDIR" in os.environ:
        env["TMPDIR"] = os.environ["TMPDIR"]
    env.update(
        HOME=os.devnull,
        XDG_CONFIG_HOME=os.devnull,
        LC_ALL="C",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_SYSTEM=os.devnull,
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_NO_LAZY_FETCH="1",
        GIT_ALLOW_PROTOCOL="",  # set and empty: no transport is allowed
        GIT_PROTOCOL_FROM_USER="0",
        GIT_PAGER="cat",
        GIT_EDITOR="false",
        GIT_SEQUENCE_EDITOR="false",
    )
    if git_dir is not None:
        env["GIT_DIR"] = str(git_dir)
        env["GIT_COMMON_DIR"] = str(_common_dir(git_dir))
    if work_tree is not None:
        env["GIT_WORK_TREE"] = str(work_tree)
    if index_file is not None:
        env["GIT_INDEX_FILE"] = str(index_file)
    if extra:
        env.update(extra)
    return env


def _common_dir(git_dir: Path) -> Path:
    """The repository's common dir as ``git_dir/commondir`` names it now, read once (no link followed).

    git reads that file at every start, and the agent can write it (``.git`` itself stays writable so
    that it can commit): one written between the config listing and the call would move the config
    the call reads to the agent's folder, drivers and all (SBX-3). Named to git as ``GIT_COMMON_DIR``,
    both see the same one.
    """
    try:
        fd = os.open(git_dir / "commondir", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return git_dir
    try:
        named = os.read(fd, 4096).decode("utf-8", "surrogateescape").rstrip("\r\n") if _is_file(fd) else ""
    finally:
        os.close(fd)
    if not named:
        return git_dir
    return Path(os.path.normpath(named if os.path.isabs(named) else git_dir / named))


def _is_file(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


def _with_overrides(env: dict[str, str], overrides: Sequence[tuple[str, str]]) -> dict[str, str]:
    out = dict(env)
    out["GIT_CONFIG_COUNT"] = str(len(overrides))
    for i, (key, value) in enumerate(overrides):
        out[f"GIT_CONFIG_KEY_{i}"] = key
        out[f"GIT_CONFIG_VALUE_{i}"] = value
    return out


def _named_overrides(keys: Iterable[str]) -> list[tuple[str, str]]:
    """An empty value for every agent-named command key; ``required`` off for every filter."""
    found: dict[str, str] = {}
    for key in keys:
        if not _NAMED_COMMANDS.match(key):
            continue
        found[key] = ""
        required = _REQUIRED_FILTER.match(key)
        if required:
            found[f"filter.{required.group(1)}.required"] = "false"
    return list(found.items())


def _listed_keys(cwd: Path, env: dict[str, str], timeout: float | None) -> list[str]:
    """Every key git will see in this call's environment (includes followed); nothing is executed."""
    done = _spawn(["config", "--list", "--name-only", "-z"], cwd, _with_overrides(env, FIXED_OVERRIDES), None, timeout)
    if done.returncode != 0:
        raise GitUnsafe(f"git cannot read the repository's config in {cwd}: {_complaint(done.stderr)}")
    return [raw.decode("utf-8", "surrogateescape") for raw in done.stdout.split(b"\0") if raw]


def _spawn(
    args: Sequence[str], cwd: Path, env: dict[str, str], stdin: bytes | None, timeout: float | None
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            background_argv(["git", "--no-pager", *args]),  # an agent's work below the window (agents.priority)
            cwd=cwd,
            env=env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GitUnsafe(f"git {args[0]} took longer than {timeout:.0f} s in {cwd}; it was stopped") from None


_MIN_VERSION = (2, 31)  # GIT_CONFIG_COUNT; an older git would silently ignore every override
_version_checked = False


def _check_version() -> None:
    global _version_checked
    if _version_checked:
        return
    done = _spawn(["version"], Path(os.sep), git_env(), None, GIT_TIMEOUT_S)
    found = re.search(rb"(\d+)\.(\d+)", done.stdout)
    if done.returncode != 0 or found is None:
        raise GitUnsafe("git is not installed or does not answer `git version`")
    if (int(found.group(1)), int(found.group(2))) < _MIN_VERSION:
        raise GitUnsafe(
            f"git {found.group(0).decode()} is too old to run safely on a line's folder; 2.31 or newer is needed"
        )
    _version_checked = True


def _complaint(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[0] if lines else "git failed"


def run_git(
    args: Sequence[str],
    *,
    cwd: Path,
    git_dir: Path | None = None,
    work_tree: Path | None = None,
    index_file: Path | None = None,
    extra_env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float | None = GIT_TIMEOUT_S,
    trusted_config: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """One git call that runs nothing the repository's config, hooks or attributes name (SBX-3).

    ``trusted_config``: the repository is XWorkmate's own (the shadow checkpoint repository);
    its config is not listed for agent-named drivers. The exit code is the caller's to judge.
    """
    _check_version()
    env = git_env(git_dir=git_dir, work_tree=work_tree, index_file=index_file, extra=extra_env)
    overrides = list(FIXED_OVERRIDES)
    if not trusted_config:
        overrides += _UNTRUSTED_INDEX
        overrides += _named_overrides(_listed_keys(cwd, env, timeout))
    return _spawn(args, cwd, _with_overrides(env, overrides), stdin, timeout)


def trusted_env(
    *, git_dir: Path, work_tree: Path | None = None, extra_env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a git process on XWorkmate's own repository that a caller streams itself
    (``cat-file --batch``): as ``run_git(..., trusted_config=True)`` would give it, overrides included."""
    _check_version()
    env = git_env(git_dir=git_dir, work_tree=work_tree, extra=extra_env)
    return _with_overrides(env, FIXED_OVERRIDES)


_MAX_FIRST_LINE = 4096  # what is read of a ``.git`` or ``commondir`` file: the agent may have made it huge


def first_line(path: str | os.PathLike[str]) -> str | None:
    """The first line of a small file git reads to find a repository (a ``.git`` file's ``gitdir:``,
    a ``commondir``), as written, or None when it is not a regular file one can read: opened without
    following a link or waiting on a pipe (the agent wrote it), its first 4 KiB only (SBX-3)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.read(fd, _MAX_FIRST_LINE)
    except OSError:
        return None
    finally:
        os.close(fd)
    return head.decode("utf-8", "surrogateescape").split("\n", 1)[0].rstrip("\r")


def _gitdir_line(dot_git: Path) -> str:
    """The path a ``.git`` file names (``gitdir: <path>``), as written."""
    first = first_line(dot_git)
    if first is None:
        raise GitUnsafe(f"cannot read {dot_git}: not a regular file")
    if not first.startswith("gitdir:"):
        raise GitUnsafe(f"{dot_git} is not a git link file")
    return first[len("gitdir:") :].strip()


def folder_gitdir(folder: Path) -> Path:
    """The repository of a folder whose top holds ``.git`` (a folder or a ``gitdir:`` file).

    Named to git explicitly with the folder as work tree, so ``core.worktree`` cannot move it;
    where it points is only read, with nothing of its config run.
    """
    dot_git = folder / ".git"
    if dot_git.is_dir():
        return dot_git
    if not dot_git.is_file():
        raise GitUnsafe(f"{folder} has no .git")
    return (folder / _gitdir_line(dot_git)).resolve()


def expect_gitdir(folder: Path, expected: Path) -> None:
    """Refuse a line's ``.git`` that no longer points to the repository XWorkmate made (row 2)."""
    dot_git = folder / ".git"
    if dot_git.is_symlink() or not dot_git.is_file():
        kind = "a folder" if dot_git.is_dir() and not dot_git.is_symlink() else "something else"
        raise GitRedirected(f"the line's .git in {folder} was replaced by {kind}; XWorkmate will not run git there")
    written = _gitdir_line(dot_git)
    if (folder / written).resolve() != expected.resolve():
        raise GitRedirected(
            f"the line's .git file in {folder} was changed to point to {shown(written)};"
            " XWorkmate will not run git there"
        )
