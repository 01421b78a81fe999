"""SBX-4, issue 29: the allow-list proxy's holder. The bridge starts once per proxy, in a sandbox of its
own; each command's sandbox joins that sandbox's network (``nsenter``) instead of starting a bridge.
Real bwrap, real nsenter, real sockets; the unprivileged case runs as ``nobody`` when we are root."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from tests.support.sandboxing import needs_bwrap
from tests.support.sessions import GROUP_AGENTS, GROUP_OWN, group_nice, group_nice_soon, needs_autogroups
from xworkmate.agents.net_proxy import NetProxy, ProxyConnection, proxied
from xworkmate.agents.sandbox import PROXY_PORT, Sandbox, SandboxPolicy

pytestmark = needs_bwrap

# Run inside the sandbox: its network namespace, then one line per probe (each says what it reached).
_PROBES = """
import os, socket, sys
print("netns", os.readlink("/proc/self/ns/net"))
def ask(target):
    try:
        s = socket.create_connection(("127.0.0.1", PROXY_PORT), timeout=5)
        s.sendall(b"CONNECT %s HTTP/1.1\\r\\n\\r\\n" % target.encode())
        return s.recv(100).split(b"\\r\\n")[0].decode()
    except OSError as exc:
        return "failed %s" % exc
def direct(address):
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    s = socket.socket(family)
    s.settimeout(3)
    try:
        s.connect(address)
        return "open"
    except OSError as exc:
        return "closed %s" % exc.strerror
for target in sys.argv[1:]:
    print("proxied", target, ask(target))
print("direct 5432", direct(("127.0.0.1", 5432)))
print("abstract", direct("\\0" + os.environ.get("XWM_ABSTRACT", "none")))
""".replace("PROXY_PORT", str(PROXY_PORT))


async def _listed_server() -> tuple[asyncio.AbstractServer, int]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _run(sandbox: Sandbox, env: dict[str, str], command: list[str]) -> str:
    process = await asyncio.create_subprocess_exec(
        *sandbox.wrap(command),
        env={"PATH": os.defpath, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    return out.decode()


def _bridges(socket_path: Path) -> list[int]:
    """The pids of the processes, anywhere on the host, that run a bridge for this proxy's socket."""
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path("/proc", entry, "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if os.fsencode(socket_path) in argv:
            found.append(int(entry))
    return found


def _python() -> str:
    return os.path.realpath(sys.executable)


def _policy(folder: Path, port: int) -> SandboxPolicy:
    python_home = Path(os.path.realpath(sys.base_prefix))
    return SandboxPolicy(
        working_directory=folder,
        home=Path.home(),
        readable=(python_home, Path(_python()).parent),
        allowed_hosts=(f"127.0.0.1:{port}", "example.com:443"),
    )


def test_commands_of_one_proxy_share_its_holder_and_start_no_bridge(tmp_path: Path) -> None:
    """The second command starts no bridge of its own: both join the holder's network, not the host's."""

    bwrap = Sandbox(SandboxPolicy(working_directory=tmp_path)).status.executable

    async def main() -> tuple[list[str], list[int], list[int], str, str]:
        server, port = await _listed_server()
        async with server, NetProxy((f"127.0.0.1:{port}",), bwrap=bwrap) as proxy:
            sandbox = Sandbox(_policy(tmp_path, port)).routed(proxy.route)
            argv = sandbox.wrap(["true"])
            before = _bridges(proxy.route.socket)
            first = await _run(sandbox, {}, [_python(), "-I", "-c", _PROBES, f"127.0.0.1:{port}"])
            waiting = await asyncio.create_subprocess_exec(*sandbox.wrap(["sleep", "30"]))
            await asyncio.sleep(0.3)
            during = _bridges(proxy.route.socket)
            waiting.kill()
            await waiting.wait()
            second = await _run(sandbox, {}, [_python(), "-I", "-c", _PROBES, f"127.0.0.1:{port}"])
            return argv, before, during, first, second

    argv, before, during, first, second = asyncio.run(main())
    assert Path(argv[0]).name == "nsenter" and not any("bridge" in part for part in argv), argv
    assert before and during == before  # the holder's processes only, while a command runs
    first_ns, second_ns = (out.splitlines()[0] for out in (first, second))
    assert first_ns == second_ns != f"netns {os.readlink('/proc/self/ns/net')}", (first, second)
    assert "HTTP/1.1 200" in first and "HTTP/1.1 200" in second, (first, second)


@needs_autogroups
def test_the_holder_relays_for_agents_below_the_window(tmp_path: Path) -> None:
    """Issue 34 item 1: the holder's sandbox is a session of its own (``bwrap --new-session``); where the kernel
    shares the cores by session, its bridge runs at the agents' nice value, not at the window's weight."""
    bwrap = Sandbox(SandboxPolicy(working_directory=tmp_path)).status.executable

    async def main() -> list[int | None]:
        server, port = await _listed_server()
        async with server, NetProxy((f"127.0.0.1:{port}",), bwrap=bwrap) as proxy:
            # The bridge itself (its bwrap's outer process, which only waits, is in the window's session).
            bridges = [
                pid for pid in _bridges(proxy.route.socket) if Path(f"/proc/{pid}/comm").read_text() != "bwrap\n"
            ]
            assert bridges
            return [await asyncio.to_thread(group_nice_soon, pid) for pid in bridges]

    assert set(asyncio.run(main())) == {GROUP_AGENTS}
    assert group_nice() == GROUP_OWN


def test_a_held_command_reaches_a_listed_host_and_nothing_else(tmp_path: Path) -> None:
    """Through the holder: the listed server yes; an unlisted host and PostgreSQL's port through the proxy
    no (403); PostgreSQL directly and the host's abstract Unix sockets not at all (a network of its own);
    and it cannot reconfigure the holder's network (no capabilities there): loopback stays up."""
    seen: list[ProxyConnection] = []
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(f"\0xwm-holder-test-{os.getpid()}")
    abstract.listen()

    async def main() -> tuple[str, str, str]:
        server, port = await _listed_server()
        async with server, proxied(Sandbox(_policy(tmp_path, port)), seen.append) as (sandbox, env):
            assert sandbox is not None and sandbox.policy.proxy is not None and sandbox.policy.proxy.enter
            env = {**env, "XWM_ABSTRACT": f"xwm-holder-test-{os.getpid()}"}
            probes = [_python(), "-I", "-c", _PROBES, f"127.0.0.1:{port}", "127.0.0.1:5432", "example.org:443"]
            out = await _run(sandbox, env, probes)
            ip = shutil.which("ip") or "/sbin/ip"
            changed = await _run(sandbox, env, ["sh", "-c", f"{ip} link set lo down; {ip} addr flush dev lo; echo $?"])
            after = await _run(sandbox, env, probes[:5])
            return out, changed, after

    try:
        out, changed, after = asyncio.run(main())
    finally:
        abstract.close()
    assert "HTTP/1.1 200" in out.splitlines()[1], out
    assert "proxied 127.0.0.1:5432 HTTP/1.1 403 Forbidden" in out, out
    assert "proxied example.org:443 HTTP/1.1 403 Forbidden" in out, out
    assert "direct 5432 closed Connection refused" in out, out
    assert "abstract closed Connection refused" in out, out
    assert "not permitted" in changed.lower() or "not found" in changed, changed
    assert "HTTP/1.1 200" in after.splitlines()[1], after
    assert [(c.port == 5432, c.allowed) for c in seen[:3]] == [(False, True), (True, False), (False, False)]


def test_the_holder_is_gone_when_the_proxy_closes(tmp_path: Path) -> None:
    """SBX-4: once the proxy's block has ended, its holder's bwrap, PID 1 and bridge are gone. They die of the
    bwrap's end (--die-with-parent, then the PID namespace's), which the kernel carries out a moment after the
    bwrap is reaped; closing waits for the namespace's PID 1 to have exited, which it does only after every
    other process in it. Looked at the moment the block ends, before the loop does anything else."""

    async def main() -> tuple[int | None, list[int], list[int]]:
        server, port = await _listed_server()
        async with server:
            async with proxied(Sandbox(_policy(tmp_path, port))) as (sandbox, _):
                assert sandbox is not None and sandbox.policy.proxy is not None
                route = sandbox.policy.proxy
                held = _bridges(route.socket)
            return int(route.enter[2].rsplit("/", 3)[1]) if route.enter else None, held, _bridges(route.socket)

    owner, held, left = asyncio.run(main())
    assert owner == os.getpid() and held  # our descriptors, a running holder
    assert left == []


def test_without_nsenter_each_command_starts_its_own_bridge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """util-linux missing: the bridge starts per command as before, said once in one line; still works."""
    status = Sandbox(SandboxPolicy(working_directory=tmp_path)).status  # bwrap found on the real PATH
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    caplog.set_level(logging.WARNING, "xworkmate.agents.net_proxy")

    async def main() -> tuple[list[str], str]:
        server, port = await _listed_server()
        async with server, proxied(Sandbox(_policy(tmp_path, port), status)) as (sandbox, env):
            assert sandbox is not None
            argv = sandbox.wrap(["true"])
            return argv, await _run(sandbox, env, [_python(), "-I", "-c", _PROBES, f"127.0.0.1:{port}"])

    argv, out = asyncio.run(main())
    assert Path(argv[0]).name == "bwrap" and any(part.endswith("bridge.pyc") for part in argv), argv
    assert "HTTP/1.1 200" in out.splitlines()[1], out
    said = [r.getMessage() for r in caplog.records if "nsenter" in r.getMessage()]
    assert len(said) <= 1 and all("\n" not in line for line in said)


_AS_NOBODY = """
import asyncio, os, sys
from pathlib import Path
from xworkmate.agents.net_proxy import proxied
from xworkmate.agents.sandbox import Sandbox, SandboxPolicy

async def main():
    async def answer(reader, writer):
        await reader.read()
        writer.close()
    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    python = Path(os.path.realpath(sys.executable))
    policy = SandboxPolicy(
        working_directory=Path(sys.argv[1]),
        readable=(Path(os.path.realpath(sys.base_prefix)), python.parent),
        allowed_hosts=(f"127.0.0.1:{port}",),
    )
    async with server, proxied(Sandbox(policy)) as (sandbox, env):
        print("argv0", os.path.basename(sandbox.wrap(["true"])[0]))
        process = await asyncio.create_subprocess_exec(
            *sandbox.wrap([str(python), "-I", "-c", sys.argv[2], f"127.0.0.1:{port}", "127.0.0.1:5432"]),
            env={"PATH": os.defpath, **env}, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )
        print((await process.communicate())[0].decode())
        print("uid", os.getuid())

asyncio.run(main())
"""


def test_a_held_network_works_for_an_unprivileged_user_too() -> None:
    """A person's desktop: no root. ``nsenter`` joins the holder's user namespace (ours, so allowed) and
    its network; the command still reaches only what is listed."""
    base = Path(tempfile.mkdtemp(prefix="xwm-holder-", dir="/var/tmp"))
    try:
        folder = base / "line"
        folder.mkdir()
        prefix: list[str] = []
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("running as root without setpriv to drop to an unprivileged user")
            os.chown(base, 65534, 65534)
            os.chown(folder, 65534, 65534)
            prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        script = textwrap.dedent(_AS_NOBODY)
        repo = Path(__file__).resolve().parents[2]
        # The user's own Python, as on a desktop: ours may live under root's home (pyenv in CI), which the
        # unprivileged user cannot reach inside a sandbox. The system's runs these modules (standard library).
        python = shutil.which("python3", path="/usr/bin:/bin") if prefix else sys.executable
        env = {"PATH": os.environ.get("PATH", os.defpath), "XDG_RUNTIME_DIR": "", "PYTHONPATH": str(repo)}
        if python is None:
            pytest.skip("no system python3 for the unprivileged user")
        probe = [*prefix, python, "-c", "import xworkmate.agents.net_proxy"]
        if subprocess.run(probe, capture_output=True, cwd=base, env=env, timeout=60, check=False).returncode:
            pytest.skip(f"the unprivileged user cannot import XWorkmate from {repo} with {python}")
        done = subprocess.run(
            [*prefix, python, "-c", script, str(folder), _PROBES],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=repo,
            env=env,
        )
        out = done.stdout + done.stderr
        assert "argv0 nsenter" in out, out
        assert "HTTP/1.1 200" in out and "proxied 127.0.0.1:5432 HTTP/1.1 403 Forbidden" in out, out
        assert "direct 5432 closed Connection refused" in out, out
        if prefix:
            assert "uid 65534" in out, out
    finally:
        shutil.rmtree(base, ignore_errors=True)
