"""The sandbox a line's agent processes run in, built from the line and the app's folders (SBX-1).

``agents.sandbox`` holds the rule (a policy in, an argv out); this module only
knows where things are: the line's folder, the data folder, the other lines'
folders, the database file, the person's home and the toolchains on PATH.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from xworkmate.agents.agent_config import (
    AGENT_STATE_DIRS,
    ConfigPath,
    config_paths,
    prepare_config_paths,
    read_only_paths,
)
from xworkmate.agents.confinement import binding_refusal
from xworkmate.agents.repo_guard import control_paths, prepare_control_paths
from xworkmate.agents.sandbox import (
    Sandbox,
    SandboxPolicy,
    always_hidden,
    detect_sandbox,
    folders_above,
    real_path,
    sandbox_environment,
    toolchain_dirs,
)
from xworkmate.domain.lines import pin_folder
from xworkmate.domain.threads import NetworkAccess, TaskThread
from xworkmate.settings import Settings
from xworkmate.store import Store

__all__ = [
    "AGENT_STATE_DIRS",
    "agent_config_paths",
    "agent_state_dirs",
    "line_sandbox",
    "sandbox_env",
    "state_dir_problem",
]


def agent_state_dirs(command: Sequence[str], configured: Sequence[str] | None) -> tuple[str, ...]:
    """The person's list when there is one, else the defaults for a known agent (by its executable's name)."""
    if configured is not None:
        return tuple(configured)
    name = os.path.basename(command[0]) if command else ""
    return AGENT_STATE_DIRS.get(name, ())


def state_dir_problem(entry: str, *, data_folder: Path) -> str | None:
    """Why ``entry`` cannot be an agent's writable folder, or None: it must name a folder of the
    agent's own (absolute, or under ``~/``), never the root, the home itself or the data folder."""
    if not entry.strip() or "\0" in entry:
        return "it is empty"
    if not (entry.startswith("~/") or os.path.isabs(entry)):
        return "use an absolute path or one under ~/"
    reason = binding_refusal(_expand(entry, Path.home()), user_home=Path.home(), data_folder=data_folder)
    return reason.replace("the line's folder", "the agent's writable folder") if reason else None


def agent_config_paths(writable: Iterable[str], *, sandboxed: bool) -> tuple[ConfigPath, ...]:
    """SBX-3: the code-running config (``agents.agent_config``) an agent with these writable folders can
    change: inside them in its sandbox; anywhere under the home without one."""
    home = Path(os.path.realpath(Path.home()))
    folders = [_expand(entry, home) for entry in writable] if sandboxed else [home]
    return config_paths(folders, home)


def _expand(entry: str, home: Path) -> Path:
    return home / entry[2:] if entry == "~" or entry.startswith("~/") else Path(entry)


def line_sandbox(
    settings: Settings,
    store: Store,
    thread: TaskThread,
    *,
    network: NetworkAccess | None = None,
    allow_hosts: Sequence[str] = (),
    writable: Iterable[str] = (),
    executable: Sequence[str] = (),
    path_env: str | None = None,
) -> Sandbox:
    """The sandbox for a process started for ``thread``: its folder writable, the rest as SBX-1 says.

    ``network`` overrides the line's setting (an ACP agent must reach its model) and ``allow_hosts`` adds
    to the line's allow-list (its model hosts; SBX-4); ``writable`` adds
    folders (an agent's state, ``~`` for the home), created when missing so they can be mounted;
    ``executable`` (an agent's executable and the files its command names) is shown read-only when it
    lives where the sandbox puts an empty folder (the home, ``/tmp``). The repository's hooks and
    config, and the config in those folders that an agent CLI runs outside the sandbox
    (``agents.agent_config``), stay read-only; the credentials ``always_hidden`` names stay hidden (SBX-3). The file
    tools refuse what this policy hides (``policy.access``), so there is one list (SBX-2).
    """
    assert thread.workspace_binding.path is not None
    folder = Path(os.path.realpath(thread.workspace_binding.path))
    home = Path(os.path.realpath(Path.home()))
    path_env = os.environ.get("PATH", os.defpath) if path_env is None else path_env
    hidden: list[str | Path] = [settings.home, settings.threads_root]
    hidden += store.threads.workspace_paths()  # this line's too: ``_outermost`` keeps it out
    hidden += _database_files(settings)
    extra_writable = []
    for entry in writable:
        target = _expand(entry, home)
        if not os.path.lexists(target) and target.suffix:  # a file such as ~/.claude.json
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
        elif not os.path.lexists(target):
            target.mkdir(parents=True, exist_ok=True)
        extra_writable.append(target)
    prepare_control_paths(folder)
    agent_config = config_paths(extra_writable, home)
    prepare_config_paths(agent_config)
    policy = SandboxPolicy(
        working_directory=folder,
        hidden=tuple(_outermost(hidden, keep=folder)),
        writable=tuple(extra_writable),
        readable=toolchain_dirs(path_env, (home, Path("/tmp")), extra=executable),
        home=home,
        read_only=(*control_paths(folder), *read_only_paths(agent_config)),
        denied=always_hidden(home),
        # SBX-3: each process checks the folder again; an unpinned line is pinned as the folder is now.
        pin=thread.workspace_binding.pin or pin_folder(os.fspath(folder)),
        **_network_policy(thread, network, allow_hosts),
    )
    return Sandbox(policy, detect_sandbox(path_env))


def _network_policy(thread: TaskThread, network: NetworkAccess | None, allow_hosts: Sequence[str]) -> dict[str, Any]:
    """SBX-4: ``on`` shares the host's network; ``allow-list`` asks for the proxy with the line's entries
    (plus ``allow_hosts``); ``off``: none."""
    chosen = thread.context_state.network if network is None else network
    if chosen is NetworkAccess.ON:
        return {"network": True}
    if chosen is NetworkAccess.ALLOW_LIST:
        return {"allowed_hosts": tuple(dict.fromkeys([*thread.context_state.allowed_hosts, *allow_hosts]))}
    return {}


def sandbox_env(
    thread: TaskThread, *, environ: Mapping[str, str] | None = None, proxies: bool = False
) -> dict[str, str]:
    """The environment a line's sandboxed process gets: the allow-list plus the line's named variables."""
    return sandbox_environment(
        os.environ if environ is None else environ,
        home=Path.home(),
        named=thread.context_state.command_env_names,
        proxies=proxies,
    )


def _database_files(settings: Settings) -> list[Path]:
    """A SQLite database kept outside the data folder is hidden by its files."""
    url = make_url(settings.effective_database_url)
    if not url.get_backend_name().startswith("sqlite") or not url.database or url.database == ":memory:":
        return []
    base = Path(url.database)
    return [Path(f"{base}{suffix}") for suffix in ("", "-wal", "-shm", "-journal")]


def _outermost(paths: Iterable[str | Path], *, keep: Path) -> list[Path]:
    """Real paths, without those a shallower hidden one already hides (one mount hides them all).

    A path inside ``keep`` (the line's folder, shown again over what hides it) stays: another
    line's folder nested in this one must be hidden again below it. ``keep`` itself is never hidden.

    Each path is resolved once and checked against its own ancestors (a set lookup each), so a turn's
    sandbox costs in proportion to the lines' folders, not to their square: with a thousand folders
    bound outside the data folder this took 14 s at every turn's start (issue 34).
    """
    keep_inside = os.path.join(keep, "")
    real = sorted({real_path(p) for p in paths} - {os.fspath(keep)}, key=lambda p: (p.count(os.sep), p))
    chosen: set[str] = set()
    for path in real:  # real paths: absolute, normalised
        inside_keep = path.startswith(keep_inside)
        # A shallower hidden folder hides it (inside the line's folder: one below it).
        if not any(a in chosen and (not inside_keep or a.startswith(keep_inside)) for a in folders_above(path)):
            chosen.add(path)
    return [Path(path) for path in real if path in chosen]
