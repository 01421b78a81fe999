"""The sandbox policy (SBX-1, SBX-2): the mounts, the pure access rule, the argv, the environment.

The property tests check the rule the file tools and the sandbox share: over generated
paths (``..``, symbolic links, absolute paths, case variants, Unicode normalisation forms),
the sandbox lets a process write exactly where the path really is inside the line's
folder, and the file tools never accept a path the sandbox would not let it write.
A sample of the same paths is written for real through bubblewrap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.sandboxing import needs_bwrap
from xworkmate.agents.confinement import ToolError, resolve_inside
from xworkmate.agents.sandbox import (
    ALWAYS_HIDDEN,
    Access,
    Sandbox,
    SandboxPolicy,
    SandboxStatus,
    SandboxUnavailable,
    always_hidden,
    bubblewrap_argv,
    command_env_name_problem,
    detect_sandbox,
    python_module_files,
    sandbox_environment,
    toolchain_dirs,
)


def test_a_deeper_mount_decides_and_the_folder_is_the_only_writable_place(tmp_path: Path) -> None:
    data = tmp_path / "data"
    folder = data / "workspace" / "line"
    other = tmp_path / "other-line"
    for path in (folder, other):
        path.mkdir(parents=True)
    home = tmp_path / "home"
    (home / ".pyenv").mkdir(parents=True)
    # The test's folders are under /tmp, which the sandbox makes private: shown here, as a disk of the person's.
    policy = SandboxPolicy(
        working_directory=folder, hidden=(data, other), readable=(tmp_path, home / ".pyenv"), home=home, network=False
    )
    assert policy.access(folder / "a" / "b.txt") is Access.WRITE
    assert policy.access(data / "xworkmate.sqlite3") is Access.HIDDEN
    assert policy.access(other / "secret") is Access.HIDDEN
    assert policy.access(home / ".ssh" / "id_rsa") is Access.PRIVATE
    assert policy.access(home / ".pyenv" / "bin" / "python") is Access.READ
    assert policy.access("/usr/bin/env") is Access.READ
    assert policy.access("/run/postgresql/.s.PGSQL.5432") is Access.PRIVATE  # network off: local sockets hidden
    # SBX-4: the network on shares no local service's socket (issue 29 red team)
    assert SandboxPolicy(working_directory=folder, network=True).access("/run/user/1000/bus") is Access.PRIVATE


def test_the_argv_hides_before_it_shows_and_drops_every_capability(tmp_path: Path) -> None:
    data, folder = tmp_path / "data", tmp_path / "data" / "line"
    folder.mkdir(parents=True)
    db = tmp_path / "elsewhere.sqlite3"
    db.write_text("x")
    policy = SandboxPolicy(working_directory=folder, hidden=(data, db, tmp_path / "gone"), readable=(tmp_path,))
    argv = bubblewrap_argv(policy, ["true"], bwrap="/usr/bin/bwrap")  # tmp_path shown: /tmp is private
    assert argv[:2] == ["/usr/bin/bwrap", "--ro-bind"]
    assert "--unshare-all" in argv and "--share-net" not in argv and "--die-with-parent" in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL" and "--new-session" in argv
    assert argv.index(str(data)) < argv.index(str(folder))  # the folder is shown again over the hidden data
    assert argv[argv.index(str(db)) - 1] == os.devnull  # a hidden file is covered by an empty one
    assert str(tmp_path / "gone") not in argv  # nothing to hide
    assert argv[-4:] == ["--chdir", str(folder), "--", "true"]


def test_toolchains_under_the_home_are_shown_by_their_bin_folders_and_what_those_resolve_into(
    tmp_path: Path,
) -> None:
    """SBX-3: a PATH entry under the home is shown, never its whole parent; a link in it shows the install
    folder it resolves into (a pipx virtualenv), an extra executable its own (a pyenv Python, an npm prefix);
    a version manager's shims show the manager's root, which they run from."""
    home = tmp_path / "home"
    for folder in (".cargo/bin", ".local/bin", ".local/pipx/venvs/black/bin", ".pyenv/shims"):
        (home / folder).mkdir(parents=True)
    (home / ".local/pipx/venvs/black/bin/black").write_text("#!/bin/sh\n")
    (home / ".local/bin/black").symlink_to(home / ".local/pipx/venvs/black/bin/black")
    (home / ".local/bin/plain").write_text("#!/bin/sh\n")
    python = home / ".pyenv/versions/3.11.7/bin/python3.11"
    agent = home / ".cache/npm/node_modules/agent-cli/bin/agent.js"
    path_env = os.pathsep.join(
        [str(home / ".cargo/bin"), str(home / ".local/bin"), str(home / ".pyenv/shims"), "/usr/bin", "relative/bin", ""]
    )
    found = toolchain_dirs(path_env, (home,), extra=[str(python), str(agent)])
    assert set(found) == {
        home / ".cargo/bin",
        home / ".local/bin",
        home / ".local/pipx/venvs/black",
        home / ".pyenv/shims",
        home / ".pyenv",
        home / ".pyenv/versions/3.11.7",
        home / ".cache/npm",
    }
    assert home / ".local" not in found and home / ".cargo" not in found


def test_an_agent_run_as_python_m_shows_its_package_folder_and_nothing_more(tmp_path: Path) -> None:
    """Issue 33: the scripted agent runs as ``python -m xworkmate.testing.acp_agent``; from an editable
    checkout under ``/tmp`` its package folder must be shown read-only, or it cannot start in bubblewrap.
    Only the package's folder is shown (not the checkout), and only for this interpreter's ``-m``."""
    import xworkmate

    init = Path(xworkmate.__file__)
    files = python_module_files([sys.executable, "-m", "xworkmate.testing.acp_agent", "script.json"])
    assert files == [str(init)]
    private = init.parent.parent.parent
    assert set(toolchain_dirs("", (private,), extra=files)) == {init.parent}
    other = tmp_path / "python"
    other.write_text("#!/bin/sh\n")
    other.chmod(0o755)
    assert python_module_files([str(other), "-m", "xworkmate.testing.acp_agent"]) == []
    assert python_module_files([sys.executable, str(tmp_path / "agent.py")]) == []
    assert python_module_files([sys.executable, "-m", "no_such_package_here.x"]) == []


def test_a_denied_path_stays_hidden_whatever_binding_shows_it(tmp_path: Path) -> None:
    """SBX-3: the deny-list wins over a shallower binding (the whole home shown), a deeper one (a folder
    inside ``~/.ssh`` shown writable) and the line's own folder; what is not denied stays as bound."""
    home = tmp_path / "home"
    (home / ".ssh" / "keys").mkdir(parents=True)
    (home / ".config" / "gh").mkdir(parents=True)
    folder = home / ".config"
    policy = SandboxPolicy(
        working_directory=folder,
        readable=(home,),
        writable=(home / ".ssh" / "keys", home / ".local" / "share" / "opencode"),
        home=home,
        denied=always_hidden(home),
    )
    assert policy.access(home / ".ssh" / "id_ed25519") is Access.HIDDEN
    assert policy.access(home / ".ssh" / "keys" / "k") is Access.HIDDEN
    assert policy.access(home / ".config" / "gh" / "hosts.yml") is Access.HIDDEN
    assert policy.access(home / ".cargo" / "credentials.toml") is Access.HIDDEN
    assert policy.access(home / ".local" / "share" / "python_keyring" / "keyring_pass.cfg") is Access.HIDDEN
    assert policy.access(home / ".config" / "ghost.txt") is Access.WRITE  # a prefix of a name is not the name
    assert policy.access(home / ".local" / "share" / "opencode" / "x") is Access.WRITE  # an agent's state folder
    assert policy.access(home / ".cargo" / "bin" / "cargo") is Access.READ
    # bubblewrap makes the denied mounts last, over everything else.
    last = policy.mounts()[-len(ALWAYS_HIDDEN) :]
    assert {m.path for m in last} == set(always_hidden(home)) and {m.access for m in last} == {Access.HIDDEN}


def test_a_denied_path_nothing_shows_gets_no_mount(tmp_path: Path) -> None:
    """The private home already hides ``~/.ssh``: no mount is made for it (an empty one would appear)."""
    home = tmp_path / "home"
    policy = SandboxPolicy(working_directory=tmp_path / "line", home=home, denied=always_hidden(home))
    assert all(m.path != home / ".ssh" for m in policy.mounts())
    assert policy.access(home / ".ssh" / "id_rsa") is Access.PRIVATE


@needs_bwrap
def test_a_sandboxed_cat_of_every_denied_file_fails_even_with_the_whole_home_shown(tmp_path: Path) -> None:
    """SBX-3 with real bubblewrap: every deny-list entry stays hidden though a binding shows the home."""
    base = Path(tempfile.mkdtemp(prefix="xwm-deny-", dir="/var/tmp"))
    try:
        home, folder = base / "home", base / "line"
        folder.mkdir()
        (home / "notes.txt").parent.mkdir(parents=True)
        (home / "notes.txt").write_text("NOT-SECRET\n")
        secrets = []
        for name in ALWAYS_HIDDEN:
            path = home / name
            target = path if name in _FILE_ENTRIES else path / "secret"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"SECRET {name}\n")
            secrets.append(target)
        policy = SandboxPolicy(working_directory=folder, readable=(home,), home=home, denied=always_hidden(home))
        argv = Sandbox(policy).wrap(
            ["/bin/sh", "-c", f'cat {home}/notes.txt; for f in "$@"; do cat "$f"; done', "sh", *map(str, secrets)]
        )
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        assert "NOT-SECRET" in done.stdout, done.stderr
        assert "SECRET " not in done.stdout.replace("NOT-SECRET", ""), done.stdout
    finally:
        shutil.rmtree(base, ignore_errors=True)


_FILE_ENTRIES = {".netrc", ".npmrc", ".pypirc", ".docker/config.json", ".cargo/credentials", ".cargo/credentials.toml"}


def test_the_environment_is_an_allow_list_and_secrets_never_pass() -> None:
    environ = {
        "PATH": "/usr/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TERM": "xterm",
        "XWORKMATE_HOME": "/data",
        "OPENAI_API_KEY": "sk-x",
        "GITHUB_TOKEN": "ghp",
        "PROJECT_STAGE": "dev",
        "HTTPS_PROXY": "http://proxy",
        "SSH_AUTH_SOCK": "/run/agent",
        "HOME": "/home/real",
    }
    env = sandbox_environment(environ, home="/home/real", named=["PROJECT_STAGE", "GITHUB_TOKEN"])
    assert env == {
        "PATH": "/usr/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TERM": "xterm",
        "PROJECT_STAGE": "dev",
        "HOME": "/home/real",
    }
    assert sandbox_environment(environ, home="/h", proxies=True)["HTTPS_PROXY"] == "http://proxy"
    assert command_env_name_problem("PROJECT_STAGE") is None
    for bad in ("XWORKMATE_HOME", "MY_SECRET", "A-B", ""):
        assert command_env_name_problem(bad) is not None


def test_a_sandbox_that_cannot_run_refuses_to_wrap(tmp_path: Path) -> None:
    status = SandboxStatus(None, None, "bwrap is not on PATH; install bubblewrap")
    with pytest.raises(SandboxUnavailable, match="install bubblewrap"):
        Sandbox(SandboxPolicy(working_directory=tmp_path), status).wrap(["true"])


def test_detection_names_the_package_when_bwrap_is_missing(tmp_path: Path) -> None:
    status = detect_sandbox(str(tmp_path))  # an empty PATH folder
    assert not status.available and "install bubblewrap" in status.detail and "\n" not in status.detail


# -- SBX-2: one rule for the file tools and the sandbox ---------------------------------------

_NAMES = st.sampled_from(["a", "A", "sub", "SUB", "café", "out", "up", "loop", "..", ".", "new", "x"])


def _variant(name: str, form: str) -> str:
    return unicodedata.normalize(form, name)  # type: ignore[arg-type]


@st.composite
def generated_paths(draw: st.DrawFn) -> tuple[str, bool]:
    parts = draw(st.lists(_NAMES, min_size=1, max_size=5))
    form = draw(st.sampled_from(["NFC", "NFD"]))
    relative = "/".join(_variant(p, form) for p in parts)
    absolute = draw(st.booleans())
    return relative, absolute


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A line folder with links leading out and back, beside an outside folder and another line's."""
    root = tmp_path_factory.mktemp("sbx2")
    folder, outside, other = root / "line", root / "outside", root / "other"
    for path in (folder / "sub" / "café", outside, other):
        path.mkdir(parents=True)
    (folder / "out").symlink_to(outside)
    (folder / "sub" / "up").symlink_to("../..")
    (folder / "loop").symlink_to("loop")
    (folder / "a").write_text("a")
    (folder / "x").symlink_to(other)
    return folder, other


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(generated=generated_paths())
def test_tools_and_sandbox_agree_nothing_outside_is_writable(
    tree: tuple[Path, Path], generated: tuple[str, bool]
) -> None:
    folder, other = tree
    relative, absolute = generated
    given_path = str(folder / relative) if absolute else relative
    real = Path(os.path.realpath(folder / relative))
    inside = real == folder or folder in real.parents
    policy = SandboxPolicy(working_directory=folder, hidden=(other,), home=None)
    access = policy.access(folder / relative)
    assert (access is Access.WRITE) == inside
    try:
        resolved = resolve_inside(folder, given_path)
    except ToolError:
        return
    assert policy.access(resolved) is Access.WRITE  # what a tool accepts, the sandbox lets be written


@needs_bwrap
@pytest.mark.parametrize(
    "relative", ["new.txt", "sub/café/n.txt", "out/escaped.txt", "sub/up/outside/up.txt", "x/other.txt", "../sib.txt"]
)
def test_a_real_write_through_bubblewrap_lands_only_where_the_rule_says(tree: tuple[Path, Path], relative: str) -> None:
    folder, other = tree
    policy = SandboxPolicy(working_directory=folder, hidden=(other,), home=None)
    target = folder / relative
    done = subprocess.run(
        Sandbox(policy).wrap(["/bin/sh", "-c", f"echo written > '{target}'"]),
        capture_output=True,
        text=True,
        check=False,
    )
    landed = Path(os.path.realpath(target))
    wrote = landed.exists() and landed.read_text() == "written\n"
    assert wrote == (policy.access(target) is Access.WRITE), done.stderr
    if wrote:
        landed.unlink()


@needs_bwrap
def test_the_sandbox_contains_an_unprivileged_user_too() -> None:
    """A person's desktop runs bwrap without root (user namespaces); run as `nobody` when we are root."""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="xwm-nobody-", dir="/var/tmp"))
    try:
        folder, outside = base / "line", base / "outside"
        folder.mkdir()
        outside.mkdir()
        prefix: list[str] = []
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("running as root without setpriv to drop to an unprivileged user")
            for path in (base, folder, outside):
                os.chown(path, 65534, 65534)
            prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        policy = SandboxPolicy(working_directory=folder, home=None)
        done = subprocess.run(
            [*prefix, *Sandbox(policy).wrap(["/bin/sh", "-c", f"echo in > in.txt; echo out > {outside}/out.txt"])],
            capture_output=True,
            text=True,
            check=False,
        )
        assert (folder / "in.txt").read_text() == "in\n", done.stderr
        assert not (outside / "out.txt").exists()
        assert "Read-only file system" in done.stdout + done.stderr
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_what_the_private_home_hides_already_is_not_mounted_again_nor_named_there(tmp_path: Path) -> None:
    """SBX-1: another line's folder in the person's home is hidden by the empty home itself; mounted again,
    bubblewrap would make its path in that empty home (an empty folder named after the project). Inside a
    folder the sandbox shows (this line's), a hidden folder is still mounted over."""
    home = tmp_path / "home"
    folder, nested, other = home / "work" / "mine", home / "work" / "mine" / "vendor", home / "projects" / "acme"
    for path in (nested, other):
        path.mkdir(parents=True)
    policy = SandboxPolicy(working_directory=folder, hidden=(other, nested), home=home, readable=(tmp_path,))
    mounted = {m.path: m.access for m in policy.mounts()}
    assert other not in mounted and nested in mounted and mounted[nested] is Access.HIDDEN
    assert policy.access(other / "notes.txt").hides and policy.access(nested / "notes.txt").hides
    assert str(other) not in bubblewrap_argv(policy, ["true"])
