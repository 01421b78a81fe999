"""The OS sandbox every process an agent starts runs in (SPEC SBX-1, SBX-2). No Qt, no store.

A declarative ``SandboxPolicy`` goes in, an argv comes out. The policy says what
the process sees:

* the whole system read-only;
* the line's folder as the one writable place (an ACP agent also gets its own
  state folders, ``writable``);
* the XWorkmate data folder, every other line's folder and the database hidden
  behind empty mounts (``hidden``);
* the person's home replaced by an empty private folder, in which only the
  toolchains on PATH are shown again, read-only (``readable``): their ``bin``
  folders and what those resolve into, never their whole parent
  (``toolchain_dirs``, SBX-3);
* parts of the writable folders kept read-only (``read_only``: the repository's
  hooks and config, ``repo_guard``; the config an agent CLI runs outside the
  sandbox, ``agent_config``; SBX-3), wherever they would otherwise be writable;
* the credentials that always stay hidden (``denied``, ``always_hidden``:
  keyrings, ``~/.ssh``, cloud and registry tokens), hidden last so that no
  binding, shallower or deeper, shows them again (SBX-3);
* a private ``/tmp`` and ``/run`` (the local services' sockets stay hidden even
  with the network on; only the resolver's folder is shown then); no network
  unless the line allows it; with it ``on``, the host's abstract Unix sockets
  kept out of reach where the kernel can (``agents.scope_exec``, SBX-4); an
  ``allow-list`` sandbox has no network of its own either and reaches only the
  listed hosts through XWorkmate's proxy (``agents.net_proxy``, SBX-4);
* a new session, no capabilities, and a PID namespace: when the command's first
  process ends, or we die, every process it started is killed with it.

``SandboxPolicy.access`` is the same rule as a pure function (the deepest mount
on a path decides, a denied one always), so the file tools refuse exactly what
the sandbox hides (SBX-2, SBX-3) and tests check both against one rule without
starting a process. ``bubblewrap_argv`` is the Linux
backend; another backend (macOS ``sandbox-exec``) would read the same mounts.

``detect_sandbox`` says whether a backend can run here and why, once per PATH.
There is no silent fallback: a caller that gets an unavailable status must ask
the person (or refuse, headless) before running anything unsandboxed.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path

from xworkmate.agents import scope_exec
from xworkmate.domain.lines import folder_problem
from xworkmate.domain.network import is_loopback
from xworkmate.domain.secrets import is_secret_name

__all__ = [
    "ALWAYS_HIDDEN",
    "INSTALL_HINT",
    "PROXY_PORT",
    "Access",
    "Mount",
    "ProxyRoute",
    "Sandbox",
    "SandboxPolicy",
    "SandboxStatus",
    "SandboxUnavailable",
    "always_hidden",
    "bubblewrap_argv",
    "command_env_name_problem",
    "detect_sandbox",
    "holder_argv",
    "looks_secret",
    "loopback_forwards",
    "proxy_environment",
    "sandbox_environment",
    "toolchain_dirs",
]

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: `apt install bubblewrap`; Fedora: `dnf install bubblewrap`)"

# The allow-list every sandboxed process gets (plus HOME, set to the private home).
_ALLOWED_NAMES = frozenset({"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "COLORTERM", "NO_COLOR"})
_PROXY_NAMES = frozenset({"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"})


# SBX-3: credentials under the home that no binding ever shows to a sandboxed process.
ALWAYS_HIDDEN: tuple[str, ...] = (
    ".local/share/python_keyring",
    ".local/share/keyrings",
    ".ssh",
    ".gnupg",
    ".aws",
    ".config/gcloud",
    ".config/gh",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".docker/config.json",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".kube",
)

# How many entries of one PATH folder are looked at for links that lead elsewhere.
_PATH_FOLDER_SCAN = 5000


# SBX-4: where an allow-list sandbox's bridge listens, in the sandbox's own network namespace (always free).
PROXY_PORT = 3128


@dataclass(frozen=True)
class ProxyRoute:
    """SBX-4: a running allow-list proxy (``agents.net_proxy``) as the sandbox reaches it: its Unix
    socket, the argv that starts the bridge before its ``SOCKET`` (``net_proxy.bridge_launch``: the host's
    Python on the compiled script, or the frozen app in its bridge mode), and the folders shown read-only
    so that they can be reached (the socket's folder, Python's prefix or the app's bundle).

    ``enter``, when the proxy runs a holder (one bridge in a sandbox of its own, ``holder_argv``), is the
    ``nsenter`` argv that joins the holder's user and network namespaces: each command's sandbox then keeps
    that network (its loopback, where the bridge listens) and starts no bridge. Empty: the bridge starts
    in each command's sandbox, then execs the command."""

    socket: Path
    bridge: tuple[str, ...]
    shown: tuple[Path, ...]
    enter: tuple[str, ...] = ()


class SandboxUnavailable(Exception):
    """No sandbox can run here; the message is one line that names what to install."""


class Access(Enum):
    """What a sandboxed process can do at a path."""

    WRITE = "write"  # the host's files, writable
    READ = "read"  # the host's files, read-only
    PRIVATE = "private"  # an empty folder of its own (private /tmp and home): writes vanish with it
    HIDDEN = "hidden"  # nothing of the host's: the data folder, other lines' folders

    @property
    def hides(self) -> bool:
        """Nothing of the host's is seen here; the file tools refuse it too (SBX-2)."""
        return self in (Access.HIDDEN, Access.PRIVATE)


@dataclass(frozen=True)
class Mount:
    path: Path
    access: Access


# At the same depth, the later kind wins: a folder shown again beats the empty one over it.
_RANK = {Access.HIDDEN: 0, Access.PRIVATE: 0, Access.READ: 1, Access.WRITE: 2}


@dataclass(frozen=True)
class SandboxPolicy:
    """What one sandboxed process may see and change. Paths are made real (links resolved)."""

    working_directory: Path
    hidden: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    home: Path | None = None
    # SBX-4: ``network`` shares the host's network; else ``allowed_hosts`` (a tuple, possibly empty) asks for
    # the allow-list proxy, reached through ``proxy`` once it runs; neither: no network at all.
    network: bool = False
    # SBX-3: kept read-only where they would be writable (the repository's hooks and config, an agent CLI's config).
    read_only: tuple[Path, ...] = ()
    # SBX-3: always hidden, whatever shows them (``always_hidden``); applied after every other mount.
    denied: tuple[Path, ...] = ()
    allowed_hosts: tuple[str, ...] | None = None
    proxy: ProxyRoute | None = None
    # SBX-3: the working folder's pin (``domain.lines.FolderPin.text``), checked again before each process starts.
    pin: str | None = None

    def mounts(self) -> tuple[Mount, ...]:
        """The mounts over the read-only root, shallowest first (a deeper mount covers a shallower one),
        then the denied paths some mount would show, which cover everything."""
        # Local services' sockets live in /run (PostgreSQL, MySQL, Docker, the session's D-Bus and systemd,
        # through which ``systemd-run --user`` starts a command outside the sandbox): hidden whatever the
        # network; with the network on, only the resolver's folder is shown again, for DNS.
        wanted: list[Mount] = [Mount(Path("/tmp"), Access.PRIVATE), Mount(Path("/run"), Access.PRIVATE)]
        if self.network:
            wanted += [Mount(p, Access.READ) for p in _resolver_folders()]
        if self.home is not None:
            wanted.append(Mount(_real(self.home), Access.PRIVATE))
        wanted += [Mount(_real(p), Access.READ) for p in self.readable]
        wanted += [Mount(_real(p), Access.HIDDEN) for p in self.hidden]
        wanted += [Mount(_real(p), Access.WRITE) for p in self.writable]
        wanted.append(Mount(_real(self.working_directory), Access.WRITE))
        base = _without_hidden_twice(_by_depth(wanted))
        spelled = _spelled(base)  # once: with many lines' folders hidden, base has thousands of mounts
        kept = [
            Mount(p, Access.READ)
            for p in map(_real, self.read_only)
            if _decide_spelled(spelled, os.fspath(p)) is Access.WRITE
        ]
        if kept:
            base = _by_depth([*base, *kept])
            spelled = _spelled(base)
        shown = [m for m in base if not m.access.hides]
        denied = [
            Mount(p, Access.HIDDEN)
            for p in dict.fromkeys(map(_real, self.denied))
            if not _decide_spelled(spelled, os.fspath(p)).hides or any(below(m.path, p) for m in shown)
        ]
        anchors = _anchors([*base, *denied])  # each a writable folder as it was: no access changes
        if anchors:
            base = _by_depth([*base, *anchors])
        return (*base, *sorted(denied, key=lambda m: len(m.path.parts)))

    def access(self, path: str | os.PathLike[str]) -> Access:
        """SBX-2 as a pure rule: what the sandbox lets a process do at ``path`` (resolved like a tool)."""
        return self.rule()(path)

    def rule(self, *, resolve: bool = True, within: Path | None = None) -> Callable[[str | os.PathLike[str]], Access]:
        """``access`` for many paths (a listing, a search), from the mounts decided once per policy (a
        line's is built once per turn). Without ``resolve`` the paths must already be real (a walk of a
        real folder that follows no link); ``within`` (a real folder) keeps only the mounts that can
        decide a path inside it."""
        spelled = self._spelled
        if within is not None:
            inside = os.fspath(within).rstrip(os.sep) + os.sep
            spelled = [m for m in spelled if inside.startswith(m[1]) or m[1].startswith(inside)]
        return lambda path: _decide_spelled(spelled, os.fspath(_real(Path(path)) if resolve else path))

    @functools.cached_property
    def _spelled(self) -> list[tuple[str, str, Access]]:
        return _spelled(self.mounts())


def _anchors(mounts: Sequence[Mount]) -> list[Mount]:
    """Each writable folder between a mount that hides or keeps read-only a path inside a writable folder and
    the mount above it, mounted on itself (its access unchanged): a mount point cannot be renamed, so
    nothing can move such a path away with its folder. Else a parent line's agent could rename the folder
    that holds a nested line's (``mv x y`` carries ``x/app`` out of its mount's path) and its next sandbox
    would find nothing left to hide at that path and show the nested line's files (SBX-1); the same for the
    repository's hooks under ``.git``, a credential inside an agent's writable folder (SBX-3). The folders
    between a path and the nearest mount above it are what that mount makes them (no mount between), so
    they are pinned where that mount is writable. ``mounts`` in the order they are made (a later mount of a
    path wins)."""
    access_at = {os.fspath(m.path): m.access for m in mounts}
    found: dict[str, None] = {}
    for path, access in access_at.items():
        if access is Access.WRITE:
            continue
        between: list[str] = []
        for folder in folders_above(path):
            if folder in access_at or folder in found:
                if folder in found or access_at[folder] is Access.WRITE:
                    found.update(dict.fromkeys(between))
                break
            between.append(folder)
    return [Mount(Path(folder), Access.WRITE) for folder in found]


def folders_above(path: str) -> Iterator[str]:
    """The folders that hold ``path`` (real, absolute), nearest first, the root last (strings: fast)."""
    while path != os.sep:
        path = path.rpartition(os.sep)[0] or os.sep
        yield path


def _resolver_folders() -> list[Path]:
    """The folder under ``/run`` that ``/etc/resolv.conf`` leads into (systemd-resolved, NetworkManager,
    resolvconf), if it does: a process with the network on needs it to resolve names (SBX-4)."""
    real = _real(Path("/etc/resolv.conf"))
    return [real.parent] if below(real, Path("/run")) and real.parent != Path("/run") else []


def _by_depth(wanted: Iterable[Mount]) -> tuple[Mount, ...]:
    by_path: dict[Path, Mount] = {}
    for mount in sorted(wanted, key=lambda m: (len(m.path.parts), _RANK[m.access])):
        if mount.path == Path("/"):
            continue  # the root stays the read-only view of the system
        by_path[mount.path] = mount  # same path: the later (higher-ranked) one wins
    return tuple(sorted(by_path.values(), key=lambda m: (len(m.path.parts), _RANK[m.access])))


def _without_hidden_twice(mounts: tuple[Mount, ...]) -> tuple[Mount, ...]:
    """``mounts`` (by depth) without each hidden one whose folder the nearest mount above it hides already: the
    other lines' folders in the person's home or in ``/tmp`` (private, empty) or in the data folder. Mounted
    anyway, bubblewrap made each one's path in the empty home to mount on, so the agent saw an empty folder
    named after every other line's project (``~/projects/acme-merger``); and each cost a mount at every
    command (2,000 such folders: ~60 ms of bubblewrap's start). What a process or a file tool can reach is the
    same: the nearest mount above decides there, and it hides."""
    access_at = {os.fspath(m.path): m.access for m in mounts}

    def above(path: str) -> Access:
        # The root is never a mount (``_by_depth``): the system, read-only.
        return next((access_at[f] for f in folders_above(path) if f in access_at), Access.READ)

    return tuple(m for m in mounts if m.access is not Access.HIDDEN or not above(os.fspath(m.path)).hides)


def below(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """``path`` is strictly inside ``folder`` (both real; compared as strings, which is fast)."""
    return os.fspath(path).startswith(os.fspath(folder).rstrip(os.sep) + os.sep)


def _decide(mounts: Iterable[Mount], real: Path) -> Access:
    return _decide_spelled(_spelled(mounts), os.fspath(real))


def _spelled(mounts: Iterable[Mount]) -> list[tuple[str, str, Access]]:
    """Each mount as its path, the prefix of what is inside it, and its access (strings compare fast)."""
    return [(os.fspath(m.path), os.fspath(m.path).rstrip(os.sep) + os.sep, m.access) for m in mounts]


def _decide_spelled(mounts: Iterable[tuple[str, str, Access]], real: str) -> Access:
    """The last mount on ``real`` decides (mounts come in the order they are made); the root is read-only."""
    decided = Access.READ
    for path, inside, access in mounts:
        if real == path or real.startswith(inside):
            decided = access
    return decided


def always_hidden(home: str | os.PathLike[str]) -> tuple[Path, ...]:
    """SBX-3: the credential paths under ``home`` that stay hidden whatever a binding shows."""
    return tuple(Path(home, name) for name in ALWAYS_HIDDEN)


def _real(path: Path) -> Path:
    return Path(real_path(path))


_O_PATH = getattr(os, "O_PATH", None)


def real_path(path: str | os.PathLike[str]) -> str:
    """``os.path.realpath(path)``, asked of the kernel where ``path`` exists: opened without being read
    (``O_PATH``), its name as the kernel resolved it read back from ``/proc/self/fd``. Three system calls,
    where realpath makes one ``lstat`` a component and walks them in Python (about 6x the time): a turn's
    sandbox resolves every line's folder, and each command every mount (issue 34: many lines). A missing
    path, a system without ``O_PATH`` or ``/proc``: realpath itself."""
    given = os.fspath(path)
    if _O_PATH is None or not given:
        return os.path.realpath(given)
    try:
        fd = os.open(given, _O_PATH | os.O_CLOEXEC)
    except (OSError, ValueError):  # missing, not reachable, a NUL in it
        return os.path.realpath(given)
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return os.path.realpath(given)
    finally:
        os.close(fd)
    if not real.startswith(os.sep) or real.endswith(" (deleted)"):  # removed meanwhile, or not a path
        return os.path.realpath(given)
    return real


def bubblewrap_argv(
    policy: SandboxPolicy, command: Sequence[str], *, bwrap: str = "bwrap", abstract_scope: bool = True
) -> list[str]:
    """The bubblewrap command line that runs ``command`` under ``policy``, in the working directory.
    With the network on, ``command`` runs behind ``scope_exec`` where the kernel can scope (SBX-4): the
    host's abstract Unix sockets out of reach (``abstract_scope=False`` only shows what it prevents).
    An allow-list sandbox whose proxy holds a network joins it (``_held_network``)."""
    enter = _held_network(policy)
    argv = [
        *enter,
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-all",
        # SBX-4: a held network is the proxy holder's namespace, joined by ``enter``: kept, not the host's.
        *(["--share-net"] if policy.network or enter else []),
        *_CONFINED,
    ]
    for mount in policy.mounts():
        target = os.fspath(mount.path)
        if mount.access is Access.PRIVATE:
            argv += ["--tmpfs", target]
        elif not os.path.lexists(target):
            continue  # nothing there to show or hide
        elif mount.access is Access.HIDDEN:
            argv += ["--tmpfs", target] if os.path.isdir(target) else ["--ro-bind", os.devnull, target]
        elif mount.access is Access.READ:
            argv += ["--ro-bind", target, target]
        else:
            argv += ["--bind", target, target]
    binds, command = _network_route(policy, command)
    if policy.network and abstract_scope:
        shown, command = _abstract_scoped(command)
        binds += shown
    argv += binds
    argv += ["--chdir", os.fspath(_real(policy.working_directory)), "--", *command]
    return argv


_CONFINED = (
    "--die-with-parent",
    "--new-session",
    # Root (a packaged app run by root, CI) keeps capabilities in the sandbox unless dropped,
    # and CAP_SYS_ADMIN could unmount what hides the data folder (or reconfigure a held network).
    "--cap-drop",
    "ALL",
)


def _held_network(policy: SandboxPolicy) -> tuple[str, ...]:
    """SBX-4: the argv before bwrap that joins the proxy holder's network, when this sandbox uses one."""
    route = policy.proxy
    if policy.network or policy.allowed_hosts is None or route is None:
        return ()
    return route.enter


def _network_route(policy: SandboxPolicy, command: Sequence[str]) -> tuple[list[str], list[str]]:
    """SBX-4: the mounts and the command for an allow-list sandbox with a running proxy (its folder and
    Python or bundle shown read-only, ``command`` run behind the bridge); with a holder, or without a
    proxy, the command as it is (the holder's network, or none at all)."""
    route = policy.proxy
    if policy.network or policy.allowed_hosts is None or route is None or route.enter:
        return [], list(command)
    return _shown(route), _bridge_command(route, policy.allowed_hosts, command)


def _shown(route: ProxyRoute) -> list[str]:
    """The bindings that let the bridge run and reach the proxy (its socket's folder, Python or the bundle)."""
    return _read_only_binds(route.shown)


def _read_only_binds(folders: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Each existing folder shown read-only, once: not the root (it is already) nor one inside another."""
    paths = [Path(folder) for folder in folders]
    argv: list[str] = []
    for path in paths:
        target = os.fspath(path)
        if os.path.isdir(target) and target != "/" and not any(below(path, other) for other in paths):
            argv += ["--ro-bind", target, target]
    return argv


def _bridge_command(route: ProxyRoute, allowed: Iterable[str], command: Sequence[str]) -> list[str]:
    return [*route.bridge, os.fspath(route.socket), str(PROXY_PORT), *loopback_forwards(allowed), "--", *command]


def holder_argv(route: ProxyRoute, allowed: Iterable[str], *, bwrap: str, info_fd: int) -> list[str]:
    """SBX-4: the proxy's holder, a sandbox with a network of its own (loopback only) in which the bridge
    only serves (no command); ``--info-fd`` says its pid, whose network each command joins (``enter``).
    It runs no agent code: the system read-only, private ``/tmp`` and ``/run`` with the bridge's folders
    shown again. No ``--dev``: bwrap would then nest a second user namespace (for devpts) under the one
    that owns the network, and a non-root ``nsenter`` could not join it; only ``/dev/null`` is a device there."""
    return [
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev-bind",
        os.devnull,
        os.devnull,
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        "/run",
        *_shown(route),
        "--unshare-all",
        *_CONFINED,
        "--info-fd",
        str(info_fd),
        "--chdir",
        "/",
        "--",
        *_bridge_command(route, allowed, ()),
    ]


@functools.lru_cache(maxsize=1)
def _scope_launch() -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    return scope_exec.launch()


def _abstract_scoped(command: Sequence[str]) -> tuple[list[str], list[str]]:
    """SBX-4, network on: the launcher's folders shown read-only and ``command`` behind it, where the kernel
    can keep the host's abstract Unix sockets out of reach (Landlock ABI 6); elsewhere ``command`` as it is."""
    launch = _scope_launch()
    if launch is not None and not all(os.path.isdir(folder) for folder in launch[1]):
        _scope_launch.cache_clear()  # a /tmp cleaner took the compiled launcher from a long-running app
        launch = _scope_launch()
    if launch is None:
        return [], list(command)
    prefix, shown = launch
    return _read_only_binds(shown), [*prefix, "--", *command]


def loopback_forwards(allowed: Iterable[str]) -> list[str]:
    """SBX-4: the bridge's ``ADDRESS,PORT,TARGET`` forwards for the listed loopback services. Loopback in
    the sandbox is its own (an agent's local server works there); a listed host service is reached at the
    same address and port through the proxy, whether or not the client honours the proxy variables."""
    forwards: list[str] = []
    for entry in allowed:
        if not is_loopback(entry):
            continue
        host, _, port = entry.rpartition(":")
        addresses = ("127.0.0.1", "::1") if host == "localhost" else (host.strip("[]"),)
        forwards += [f"{address},{port},{entry}" for address in addresses]
    return forwards


def proxy_environment(port: int = PROXY_PORT) -> dict[str, str]:
    """SBX-4: the variables that send a sandboxed process's requests to the bridge; nothing is exempt."""
    url = f"http://127.0.0.1:{port}"
    env = {name: url for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")}
    # Loopback goes direct: in the sandbox it is its own (no host service there but the bridge's forwards),
    # and an agent CLI may talk to a server of its own on it (OpenCode's on 127.0.0.1:4096).
    local = "localhost,127.0.0.1,::1"
    return {**env, "NO_PROXY": local, "no_proxy": local, "NODE_USE_ENV_PROXY": "1"}


def python_module_files(command: Sequence[str]) -> list[str]:
    """For an agent run as ``PYTHON -m package.module …`` by this very interpreter: the file the package
    is imported from (its ``__init__.py``), so that ``toolchain_dirs`` shows the package's folder read-only
    where the sandbox puts an empty folder. Python's own prefix is shown already; a package installed in
    editable mode from a checkout under ``/tmp`` or the home lives outside it, and the agent would not
    start ("No module named …"). Any other command: nothing."""
    if len(command) < 3 or command[1] != "-m" or not command[2]:
        return []
    program = shutil.which(command[0])
    if program is None or os.path.abspath(program) != os.path.abspath(sys.executable):
        return []  # another interpreter finds its modules on its own path, which we cannot read from here
    try:
        spec = importlib.util.find_spec(command[2].split(".", 1)[0])
    except (ImportError, ValueError):
        return []
    return [spec.origin] if spec is not None and spec.origin and os.path.isabs(spec.origin) else []


def toolchain_dirs(
    path_env: str, private: Sequence[Path], *, extra: Iterable[str | os.PathLike[str]] = ()
) -> tuple[Path, ...]:
    """The folders a process needs to find its tools that the sandbox would otherwise replace by an
    empty one (``private``: the home, ``/tmp``), shown read-only (SBX-3): never a toolchain's whole
    parent (``~/.local``, ``~/.cargo`` hold credentials), only

    * each PATH entry inside one of them, as written and with links resolved (``~/.cargo/bin``);
    * for each entry of such a PATH folder that resolves elsewhere inside them, and each path in
      ``extra`` (an agent's executable and script), the install folder it resolves into
      (``_install_folder``: ``~/.local/pipx/venvs/x``, ``~/.pyenv/versions/3.11.7``, an npm prefix);
    * for a version manager's ``shims`` folder, the manager's root, which its shims run from
      (``~/.pyenv``).
    """
    roots = [_real(p) for p in private]
    found: dict[Path, None] = {}

    def root_of(path: Path) -> Path | None:
        return next((root for root in roots if root in path.parents), None)

    def show_install_folder(path: Path) -> None:
        for candidate in (Path(os.path.abspath(path)), _real(path)):
            root = root_of(candidate)
            if root is not None:
                found[_install_folder(candidate, root)] = None

    for entry in path_env.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        for folder in dict.fromkeys((Path(os.path.abspath(entry)), _real(Path(entry)))):
            root = root_of(folder)
            if root is None:
                continue
            found[folder] = None
            if folder.name == "shims":
                manager = folder.parent.parent.parent if folder.parent.parent.name == "plugins" else folder.parent
                if root in manager.parents:
                    found[manager] = None
            for item in _links_out(folder):
                show_install_folder(item)
    for path in extra:
        if os.path.isabs(path):
            show_install_folder(Path(path))
    return tuple(found)


def _links_out(folder: Path) -> tuple[Path, ...]:
    """The entries of a PATH folder that resolve into another folder (read once per state of the folder)."""
    try:
        return _links_out_of(folder, os.stat(folder).st_mtime_ns)
    except OSError:
        return ()


@functools.lru_cache(maxsize=64)
def _links_out_of(folder: Path, changed_ns: int) -> tuple[Path, ...]:
    real = _real(folder)
    try:
        with os.scandir(folder) as entries:
            items = [Path(e.path) for _, e in zip(range(_PATH_FOLDER_SCAN), entries, strict=False)]
    except OSError:
        return ()
    return tuple(item for item in items if _real(item).parent != real)


def _install_folder(file: Path, root: Path) -> Path:
    """The folder a tool at ``file`` (inside ``root``) is installed in: the npm prefix holding its
    ``node_modules``; ``X`` for ``X/bin/tool`` when ``X`` is two or more levels below the root (a
    virtualenv, a Python or Rust version); else the file's own folder. Never ``root`` itself."""
    rel = file.relative_to(root).parts
    if "node_modules" in rel[:-1]:
        keep = rel[: max(rel.index("node_modules"), 1)]
    elif len(rel) >= 4 and rel[-2] == "bin":
        keep = rel[:-2]
    else:
        keep = rel[:-1] or rel
    return root.joinpath(*keep)


def looks_secret(name: str) -> bool:
    """Never passed to a sandboxed process: a secret's name, or XWorkmate's own settings (SEC-1)."""
    return is_secret_name(name) or name.upper().startswith("XWORKMATE_")


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def command_env_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be passed to a line's commands, or None when it can."""
    if not _ENV_NAME.fullmatch(name):
        return f"{name!r} is not an environment variable name"
    if name.upper().startswith("XWORKMATE_"):
        return f"{name} is XWorkmate's own setting and is never passed to commands"
    if looks_secret(name):
        return f"{name} looks like it holds a secret, so it is never passed to commands (SEC-1)"
    return None


def sandbox_environment(
    environ: Mapping[str, str],
    *,
    home: str | os.PathLike[str],
    named: Sequence[str] = (),
    proxies: bool = False,
) -> dict[str, str]:
    """The allow-list a sandboxed process gets (SBX-1): PATH, locale, TERM, the private HOME, the
    variables the person named for the line, and with ``proxies`` the proxy settings. ``XWORKMATE_*``
    and anything that looks like a secret never pass, named or not."""
    env: dict[str, str] = {}
    wanted = set(_ALLOWED_NAMES) | set(named)
    for name, value in environ.items():
        upper = name.upper()
        allowed = name in wanted or upper.startswith("LC_") or (proxies and upper in _PROXY_NAMES)
        if allowed and not looks_secret(name) and "\0" not in value:
            env[name] = value
    env.setdefault("PATH", os.defpath)
    env["HOME"] = os.fspath(home)
    return env


@dataclass(frozen=True)
class SandboxStatus:
    """Which backend runs sandboxes here, or why none can (one line either way)."""

    backend: str | None
    executable: str | None
    detail: str

    @property
    def available(self) -> bool:
        return self.backend is not None

    def describe(self) -> str:
        if self.available:
            return f"{self.backend} ({self.executable}): {self.detail}"
        return f"no sandbox: {self.detail}"


@functools.lru_cache(maxsize=8)
def _probe(path_env: str) -> SandboxStatus:
    if not sys.platform.startswith("linux"):
        return SandboxStatus(None, None, f"no sandbox backend for {sys.platform} yet")
    bwrap = shutil.which("bwrap", path=path_env)
    if bwrap is None:
        return SandboxStatus(None, None, f"bwrap is not on PATH; {INSTALL_HINT}")
    policy = SandboxPolicy(working_directory=Path("/"), home=None)
    try:
        done = subprocess.run(
            bubblewrap_argv(policy, ["/bin/true"], bwrap=bwrap),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxStatus(None, bwrap, f"bwrap at {bwrap} cannot run ({exc}); {INSTALL_HINT}")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = said[-1] if said else f"exit code {done.returncode}"
        return SandboxStatus(
            None,
            bwrap,
            f"bwrap at {bwrap} fails ({why}); user namespaces may be disabled "
            "(sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap)",
        )
    version = subprocess.run([bwrap, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    return SandboxStatus("bubblewrap", bwrap, f"{version or 'bwrap'} runs: commands are contained (SBX-1)")


def detect_sandbox(path_env: str | None = None) -> SandboxStatus:
    """The sandbox backend for a PATH (ours by default); probed once per PATH by running it."""
    return _probe(os.environ.get("PATH", os.defpath) if path_env is None else path_env)


@dataclass(frozen=True)
class Sandbox:
    """A policy with the backend that runs it. ``wrap`` refuses when the backend cannot run."""

    policy: SandboxPolicy
    status: SandboxStatus = field(default_factory=detect_sandbox)

    @property
    def available(self) -> bool:
        return self.status.available

    def wrap(self, command: Sequence[str]) -> list[str]:
        """The argv that runs ``command`` here; refused when the backend cannot run, or when the working
        folder is no longer the one pinned (SBX-3): a parent swapped for a link during a turn would have
        the mount follow it to any host folder, and the turn's gate checked only once, before it began."""
        if not self.status.available or self.status.executable is None:
            raise SandboxUnavailable(
                f"cannot run {command[0] if command else 'the command'} in a sandbox: {self.status.detail}"
            )
        if self.policy.pin is not None:
            problem = folder_problem(os.fspath(self.policy.working_directory), self.policy.pin, thorough=True)
            if problem is not None:
                raise SandboxUnavailable(f"cannot run {command[0] if command else 'the command'}: {problem}")
        return bubblewrap_argv(self.policy, command, bwrap=self.status.executable)

    def routed(self, route: ProxyRoute) -> Sandbox:
        """SBX-4: this allow-list sandbox, its processes reaching the network through ``route``."""
        return Sandbox(replace(self.policy, proxy=route), self.status)
