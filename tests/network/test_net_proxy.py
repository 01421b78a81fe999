"""The allow-list proxy (SPEC SBX-4): real sockets, a real TCP server, real bwrap for the sandbox."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tests.support.sandboxing import needs_bwrap
from xworkmate.agents.net_proxy import NetProxy, ProxyConnection, proxied
from xworkmate.agents.sandbox import Sandbox, SandboxPolicy
from xworkmate.domain.network import is_loopback, parse_host_port


async def _echo_server() -> tuple[asyncio.AbstractServer, int]:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(b"echo:" + data)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _ask(proxy: NetProxy, head: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    reader, writer = await asyncio.open_unix_connection(os.fspath(proxy.route.socket))
    writer.write(head)
    await writer.drain()
    answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    return reader, writer, answer


def _with_proxy(
    allowed: Callable[[int], list[str]], body: Callable[[NetProxy, int, list[ProxyConnection]], Awaitable[None]]
) -> list[ProxyConnection]:
    seen: list[ProxyConnection] = []

    async def main() -> None:
        server, port = await _echo_server()
        async with server, NetProxy(allowed(port), seen.append) as proxy:
            await body(proxy, port, seen)

    asyncio.run(main())
    return seen


def test_an_allowed_connect_relays_bytes_to_the_listed_server() -> None:
    async def body(proxy: NetProxy, port: int, seen: list[ProxyConnection]) -> None:
        reader, writer, answer = await _ask(proxy, f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 200")
        writer.write(b"ping")
        assert await asyncio.wait_for(reader.readexactly(9), 5) == b"echo:ping"
        writer.close()

    seen = _with_proxy(lambda port: [f"127.0.0.1:{port}"], body)
    assert [(c.host, c.allowed) for c in seen] == [("127.0.0.1", True)]


def test_a_connect_to_an_unlisted_host_gets_403_and_is_reported() -> None:
    async def body(proxy: NetProxy, port: int, seen: list[ProxyConnection]) -> None:
        reader, writer, answer = await _ask(proxy, b"CONNECT 127.0.0.1:5432 HTTP/1.1\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 403")
        assert b"127.0.0.1:5432 is not on this line's network allow-list" in await reader.read()
        writer.close()

    seen = _with_proxy(lambda port: [f"127.0.0.1:{port}"], body)
    assert seen == [ProxyConnection(host="127.0.0.1", port=5432, allowed=False)]


def test_an_ip_literal_is_refused_even_when_a_listed_name_resolves_to_it() -> None:
    """Nothing is resolved to decide: ``localhost:PORT`` listed does not admit ``127.0.0.1:PORT``."""

    async def body(proxy: NetProxy, port: int, seen: list[ProxyConnection]) -> None:
        _, writer, answer = await _ask(proxy, f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 403")
        writer.close()
        _, writer, answer = await _ask(proxy, f"CONNECT LocalHost.:{port} HTTP/1.1\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 200")
        writer.close()

    seen = _with_proxy(lambda port: [f"localhost:{port}"], body)
    assert [c.allowed for c in seen] == [False, True]


def test_a_plain_http_request_is_forwarded_in_origin_form_only_to_a_listed_host() -> None:
    async def body(proxy: NetProxy, port: int, seen: list[ProxyConnection]) -> None:
        head = f"GET http://127.0.0.1:{port}/v1/models?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nProxy-Connection: x\r\n\r\n"
        reader, writer = await asyncio.open_unix_connection(os.fspath(proxy.route.socket))
        writer.write(head.encode())
        writer.write_eof()
        relayed = await asyncio.wait_for(reader.read(), 5)
        assert relayed == b"echo:GET /v1/models?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        writer.close()
        _, writer, answer = await _ask(proxy, b"GET http://127.0.0.1:5432/ HTTP/1.1\r\nHost: x\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 403")
        writer.close()

    seen = _with_proxy(lambda port: [f"127.0.0.1:{port}"], body)
    assert [c.allowed for c in seen] == [True, False]


def test_the_proxys_socket_path_stays_short_and_goes_with_the_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/" + "x" * 200)  # too long (CI's paths): not used
    monkeypatch.setenv("TMPDIR", "/" + "y" * 200)

    async def main() -> Path:
        async with NetProxy([]) as proxy:
            socket_path = proxy.route.socket
            assert socket_path.exists() and len(os.fsencode(socket_path)) < 108
        return socket_path

    assert not asyncio.run(main()).parent.exists()


def test_allow_list_entries_are_canonical_and_loopback_is_recognised() -> None:
    assert parse_host_port(" API.Example.com.:443 ") == "api.example.com:443"
    assert parse_host_port("[::1]:8080") == "[::1]:8080" and is_loopback("[::1]:8080")
    assert is_loopback("localhost:5432") and is_loopback("127.1.2.3:80") and not is_loopback("10.0.0.1:80")
    for bad in ("example.com", "example.com:0", "example.com:99999", "exa mple.com:80", ":80", "a/b:80"):
        with pytest.raises(ValueError, match="HOST:PORT"):
            parse_host_port(bad)


# -- through the sandbox (real bwrap)

_CLIENT = """
import os, socket, sys, urllib.parse, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())
try:
    socket.create_connection(("127.0.0.1", 5432), timeout=3)
    print("direct 5432: connected")
except OSError as exc:
    print("direct 5432: refused", exc.errno)
try:
    proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
    asked = socket.create_connection((proxy.hostname, proxy.port), timeout=3)
    asked.sendall(b"CONNECT 127.0.0.1:5432 HTTP/1.1\\r\\n\\r\\n")
    print("proxied 5432:", asked.recv(100).split(b"\\r\\n")[0].decode())
except (OSError, KeyError) as exc:
    print("proxied 5432: failed", exc)
"""


async def _http_server() -> tuple[asyncio.AbstractServer, int]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\nfrom-the-lab")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _run_in(sandbox: Sandbox, env: dict[str, str], *args: str) -> str:
    python = os.path.realpath(sys.executable)
    argv = sandbox.wrap([python, "-I", "-c", _CLIENT, *args])
    process = await asyncio.create_subprocess_exec(
        *argv, env={"PATH": os.defpath, **env}, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    return out.decode()


@needs_bwrap
def test_an_allow_list_sandbox_reaches_its_listed_server_and_nothing_else(tmp_path: Path) -> None:
    """Row 8 of issue 29: a listed loopback server works through the proxy; PostgreSQL's port does not,
    neither directly (no network in the namespace) nor through the proxy (403)."""
    seen: list[ProxyConnection] = []

    async def main() -> str:
        server, port = await _http_server()
        policy = SandboxPolicy(
            working_directory=tmp_path,
            home=Path.home(),
            readable=(Path(os.path.realpath(sys.base_prefix)),),  # Python itself, wherever it lives
            allowed_hosts=(f"127.0.0.1:{port}",),
        )
        async with server, proxied(Sandbox(policy), seen.append) as (sandbox, env):
            return await _run_in(sandbox, env, f"http://127.0.0.1:{port}/")

    out = asyncio.run(main())
    assert "from-the-lab" in out, out
    assert "direct 5432: refused" in out, out
    assert "proxied 5432: HTTP/1.1 403 Forbidden" in out, out
    assert [(c.port == 5432, c.allowed) for c in seen] == [(False, True), (True, False)]


@needs_bwrap
def test_an_allow_list_sandbox_without_its_proxy_has_no_network(tmp_path: Path) -> None:
    """Fails closed: an allow-list policy that was never routed through a proxy reaches nothing."""

    async def main() -> str:
        server, port = await _http_server()
        policy = SandboxPolicy(
            working_directory=tmp_path,
            home=Path.home(),
            readable=(Path(os.path.realpath(sys.base_prefix)),),  # Python itself, wherever it lives
            allowed_hosts=(f"127.0.0.1:{port}",),
        )
        async with server:
            return await _run_in(Sandbox(policy), {}, f"http://127.0.0.1:{port}/")

    out = asyncio.run(main())
    assert "from-the-lab" not in out and "Connection refused" in out, out


def test_only_a_routed_allow_list_sandbox_runs_behind_the_bridge(tmp_path: Path) -> None:
    """SBX-4 as an argv: never ``--share-net`` unless ``on``; the bridge and the forwards of listed loopback
    services only with a running proxy; an allow-list policy without one has no network at all."""
    from xworkmate.agents.sandbox import PROXY_PORT, ProxyRoute, bubblewrap_argv

    listed = ("api.example.com:443", "127.0.0.1:8080", "localhost:9000")
    policy = SandboxPolicy(working_directory=tmp_path, allowed_hosts=listed)
    route = ProxyRoute(
        socket=tmp_path / "s", bridge=("/py", "-I", "-S", str(tmp_path / "bridge.py")), shown=(tmp_path,)
    )
    unrouted = bubblewrap_argv(policy, ["true"])
    routed = bubblewrap_argv(Sandbox(policy).routed(route).policy, ["true"])
    on = bubblewrap_argv(SandboxPolicy(working_directory=tmp_path, network=True), ["true"])
    assert "--share-net" not in unrouted and "--share-net" not in routed and "--share-net" in on
    assert unrouted[unrouted.index("--") + 1 :] == ["true"]
    command = routed[routed.index("--", routed.index("--chdir")) + 1 :]
    assert command == [
        "/py", "-I", "-S", str(tmp_path / "bridge.py"), str(tmp_path / "s"), str(PROXY_PORT),
        "127.0.0.1,8080,127.0.0.1:8080", "127.0.0.1,9000,localhost:9000", "::1,9000,localhost:9000", "--", "true",
    ]  # fmt: skip


def test_a_frozen_app_starts_the_bridge_as_itself_in_bridge_mode(tmp_path: Path) -> None:
    """SBX-4 in the packaged app: no Python and no bridge file there, so the sandbox starts the app's own
    executable with ``--net-bridge`` and sees its bundle folder; from a checkout, Python on the compiled file."""
    from xworkmate.agents.net_proxy import bridge_launch

    bundle = tmp_path / "opt" / "xworkmate"
    bundle.mkdir(parents=True)
    (bundle / "xworkmate").write_text("")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "xworkmate").symlink_to(bundle / "xworkmate")  # as /usr/bin/xworkmate is
    folder = tmp_path / "proxy"
    folder.mkdir()

    frozen = bridge_launch(folder, frozen=True, executable=str(tmp_path / "bin" / "xworkmate"))
    assert frozen == ((str(bundle / "xworkmate"), "--net-bridge"), (bundle,))
    assert not list(folder.iterdir())  # nothing compiled: there is no file to compile

    python = os.path.realpath(sys.executable)
    bridge, shown = bridge_launch(folder, frozen=False)
    assert bridge == (python, "-I", "-S", str(folder / "bridge.pyc")) and (folder / "bridge.pyc").is_file()
    assert Path(python).parent in shown
