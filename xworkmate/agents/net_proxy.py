"""The allow-list proxy a line's sandbox reaches the network through (SPEC SBX-4). No Qt, no store.

The sandbox has no network of its own (``--unshare-net``). For an ``allow-list`` process XWorkmate
runs this proxy on a Unix socket in a private folder bound into the sandbox; ``net_bridge`` (compiled
beside the socket, or the frozen app itself in its bridge mode: ``bridge_launch``) turns it into
``127.0.0.1:PROXY_PORT`` inside, where ``HTTPS_PROXY`` and friends point. As Claude Code's
sandbox-runtime and Codex's network proxy do, the decision is made outside the sandbox, on the
target as the client gave it: ``CONNECT host:port`` and plain ``http://`` requests are admitted only
when ``host:port`` is on the list (nothing is resolved to decide; an IP literal must itself be
listed). Each connection is reported (host, port, allowed or denied); anything that ignores the
proxy finds no network at all, but for listed loopback services, which the bridge forwards through
the proxy at their own address and port.

Given bubblewrap, the proxy starts the bridge once, in a holder: a sandbox of its own with a network
namespace of its own (``sandbox.holder_argv``), in which the bridge only serves. Each command's sandbox
then joins that network with ``nsenter`` (its user namespace, which owns the network, and the network;
never the holder's mounts or processes) instead of starting a bridge: a command's start costs an
``nsenter`` instead of a Python. The namespaces are held by file descriptors of ours (``/proc/OUR
PID/fd/N``), not by the holder's pid, which could be reused by a host process. The holder dies with the
proxy (and with us: ``--die-with-parent``). Without ``nsenter`` (util-linux), the bridge starts in each
command's sandbox as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import json
import logging
import os
import py_compile
import select
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from xworkmate.agents import net_bridge
from xworkmate.agents.priority import watch_sessions
from xworkmate.agents.sandbox import PROXY_PORT, ProxyRoute, Sandbox, holder_argv, proxy_environment
from xworkmate.domain.network import host_port, parse_host_port

__all__ = ["NetProxy", "ProxyConnection", "bridge_launch", "proxied"]

log = logging.getLogger(__name__)

_BRIDGE = Path(__file__).with_name("net_bridge.py")
_SOCKET_PARENTS = ("XDG_RUNTIME_DIR",)  # else /tmp: a Unix socket's path has at most 107 bytes
_NS_GET_USERNS = 0xB701  # ioctl: the user namespace that owns a namespace (linux/nsfs.h)
_HOLDER_START_S = 10.0
_HOLDER_END_S = 5.0  # how long the holder's sandbox may take to end once its bwrap is reaped


def _readable(fd: int, timeout: float) -> bool:
    """Whether ``fd`` turns readable within ``timeout`` seconds (a pidfd: its process has exited). ``poll``, not
    ``select``: a window with many files open has descriptors past select's 1,024."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(timeout * 1000))


def bridge_launch(
    folder: Path, *, frozen: bool | None = None, executable: str | None = None
) -> tuple[tuple[str, ...], tuple[Path, ...]]:
    """SBX-4: how the sandbox starts the bridge (its argv before ``SOCKET``) and what it must see for that.

    From a checkout or a wheel: the host's Python on ``net_bridge``, compiled once into ``folder`` (each
    command's start then skips parsing it, about 1 ms). Frozen (PyInstaller), there is no Python to run
    a file with: the app's executable in its bridge mode, its bundle folder shown (read-only) in case it
    lies under a folder the sandbox hides (a bundle unpacked in the home).
    """
    frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    program = Path(os.path.realpath(sys.executable if executable is None else executable))
    if frozen:
        return (os.fspath(program), net_bridge.MODE), (program.parent,)
    compiled = folder / "bridge.pyc"
    py_compile.compile(os.fspath(_BRIDGE), cfile=os.fspath(compiled), doraise=True)
    bridge = (os.fspath(program), "-I", "-S", os.fspath(compiled))
    return bridge, (Path(os.path.realpath(sys.base_prefix)), program.parent)


@dataclass(frozen=True)
class ProxyConnection:
    """One connection the sandbox asked for: where to, and whether the line's list let it through."""

    host: str
    port: int
    allowed: bool

    @property
    def destination(self) -> str:
        return host_port(self.host, self.port)


Reporter = Callable[[ProxyConnection], None]


class NetProxy:
    """An HTTP CONNECT (and plain absolute-URI HTTP) proxy on a Unix socket, admitting only ``allowed``.

    Runs on the caller's event loop for the life of one process or turn (``async with``); closing it
    ends its connections and its holder and removes its private folder. With ``bwrap`` (the sandbox's
    executable) it runs a holder whose network the commands join (``route.enter``), when it can.
    """

    def __init__(self, allowed: Iterable[str], report: Reporter | None = None, *, bwrap: str | None = None) -> None:
        self.allowed = frozenset(parse_host_port(entry) for entry in allowed)
        self._report = report
        self._bwrap = bwrap
        self._nsenter: str | None = None
        self._folder: Path | None = None
        self._bridge: tuple[tuple[str, ...], tuple[Path, ...]] = ((), ())
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._holder: asyncio.subprocess.Process | None = None
        self._held: tuple[int, ...] = ()  # our descriptors of the holder's network and its user namespace
        self._holder_init: int | None = None  # a pidfd of the holder's PID 1: readable once its sandbox is empty

    @property
    def route(self) -> ProxyRoute:
        assert self._folder is not None, "the proxy is not running"
        bridge, shown = self._bridge
        enter: tuple[str, ...] = ()
        if self._held:
            net, user = (f"/proc/{os.getpid()}/fd/{fd}" for fd in self._held)
            enter = (self._nsenter or "nsenter", "--preserve-credentials", f"--user={user}", f"--net={net}", "--")
        return ProxyRoute(socket=self._folder / "s", bridge=bridge, shown=(self._folder, *shown), enter=enter)

    async def start(self) -> NetProxy:
        # Its folder, the bridge compiled into it and the holder's argv are made on a worker: the loop is the
        # window's, and twenty lines' streams wait behind it (~7 ms of disk work a start, issue 34 item 1).
        preparing = asyncio.ensure_future(asyncio.to_thread(_prepared))
        try:
            folder, self._bridge, self._nsenter = await asyncio.shield(preparing)
        except asyncio.CancelledError:  # stopped meanwhile: the folder it makes is removed once made
            preparing.add_done_callback(_remove_prepared)
            raise
        self._folder = folder
        self._server = await asyncio.start_unix_server(self._accepted, path=os.fspath(folder / "s"))
        if self._bwrap is not None:
            if self._nsenter is None:
                _say_once("nsenter (util-linux) is not installed: each allow-list command starts its own bridge")
            else:
                try:
                    await self._start_holder(self._bwrap)
                except (OSError, ValueError, KeyError, TimeoutError) as exc:
                    await self._stop_holder()
                    _say_once(
                        f"the allow-list proxy's holder did not start ({exc}): each command starts its own bridge"
                    )
        return self

    async def _start_holder(self, bwrap: str) -> None:
        """SBX-4: one bridge for every command of this proxy, in a sandbox of its own; we keep its network."""
        read, write = os.pipe()
        try:
            argv = await asyncio.to_thread(holder_argv, self.route, sorted(self.allowed), bwrap=bwrap, info_fd=write)
            self._holder = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                pass_fds=(write,),
                env={},
            )
        finally:
            os.close(write)
        watch_sessions(self._holder.pid)  # the agents' relay: its session below the window too (agents.priority)
        try:
            async with asyncio.timeout(_HOLDER_START_S):
                info = await asyncio.to_thread(_read_all, read)
                assert self._holder.stdout is not None
                ready = await self._holder.stdout.readline()
        finally:
            os.close(read)
        if ready != net_bridge.READY:
            raise ValueError("its bridge did not start")
        status = json.loads(info)
        with contextlib.suppress(OSError):  # no pidfd (Linux < 5.3): the end is not waited for
            self._holder_init = os.pidfd_open(int(status["child-pid"]))  # before the checks below: same pid
        net = os.open(f"/proc/{int(status['child-pid'])}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        self._held = (net,)
        # Checked on the descriptor: the pid was the holder's (not reused) and its network is not ours.
        if os.fstat(net).st_ino != int(status["net-namespace"]) or os.stat("/proc/self/ns/net").st_ino == int(
            status["net-namespace"]
        ):
            raise ValueError("its network namespace is not its own")
        user = fcntl.ioctl(net, _NS_GET_USERNS)  # the namespace whose members may join this network
        os.set_inheritable(user, False)
        self._held = (net, user)

    async def _stop_holder(self) -> None:
        """Ends the holder and, before returning, its sandbox: the bridge and whatever else ran in it. Killing
        its bwrap ends its PID 1 (``--die-with-parent``), and the kernel then ends every process in that PID
        namespace before PID 1 itself exits, a moment later: its pidfd turns readable only after that."""
        holder, self._holder = self._holder, None
        init, self._holder_init = self._holder_init, None
        try:
            if holder is not None and holder.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    holder.kill()
                await holder.wait()
            if init is not None and not await asyncio.to_thread(_readable, init, _HOLDER_END_S):
                log.warning("the allow-list proxy's sandbox did not end within %.0f s of its holder", _HOLDER_END_S)
        finally:
            if init is not None:
                os.close(init)
            for fd in self._held:
                os.close(fd)
            self._held = ()

    async def close(self) -> None:
        await self._stop_holder()
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    async def __aenter__(self) -> NetProxy:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- one client connection

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self._tasks.discard(task)
            self._writers.discard(writer)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, _, rest = head.partition(b"\r\n")
        parts = request_line.decode("latin-1").split(" ")
        if len(parts) != 3:
            await _answer(writer, 400, "Bad Request", "not an HTTP proxy request")
            return
        method, target, version = parts
        forwarded: bytes | None = None
        if method.upper() == "CONNECT":
            destination = _connect_target(target)
        else:
            destination, forwarded = _absolute_target(method, target, version, rest)
        if destination is None:
            await _answer(writer, 400, "Bad Request", f"cannot tell where {target!r} goes")
            return
        host, port = destination
        entry = host_port(host, port)
        allowed = entry in self.allowed
        log.info("sandbox network: %s %s", entry, "allowed" if allowed else "denied")
        if self._report is not None:
            self._report(ProxyConnection(host=entry.rpartition(":")[0].strip("[]"), port=port, allowed=allowed))
        if not allowed:
            await _answer(writer, 403, "Forbidden", f"{entry} is not on this line's network allow-list (SBX-4)")
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(host, port)
        except OSError as exc:
            await _answer(writer, 502, "Bad Gateway", f"cannot reach {entry}: {exc.strerror or exc}")
            return
        self._writers.add(up_writer)
        try:
            if forwarded is None:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            else:
                up_writer.write(forwarded)
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            self._writers.discard(up_writer)
            up_writer.close()


def _connect_target(target: str) -> tuple[str, int] | None:
    try:
        entry = parse_host_port(target)
    except ValueError:
        return None
    host, _, port = entry.rpartition(":")
    return host.strip("[]"), int(port)


def _absolute_target(method: str, target: str, version: str, rest: bytes) -> tuple[tuple[str, int] | None, bytes]:
    """A plain-HTTP proxy request (``GET http://host:port/path``): where it goes, and the request in origin form."""
    try:
        url = urlsplit(target)
        port = url.port or 80
    except ValueError:
        return None, b""
    if url.scheme != "http" or not url.hostname:
        return None, b""
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    headers = [
        line
        for line in rest.split(b"\r\n")
        if line and not line.lower().startswith((b"proxy-authorization:", b"proxy-connection:"))
    ]
    request = f"{method} {path} {version}\r\n".encode("latin-1") + b"".join(h + b"\r\n" for h in headers) + b"\r\n"
    return (url.hostname, port), request


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.close()


async def _answer(writer: asyncio.StreamWriter, code: int, reason: str, text: str) -> None:
    body = f"XWorkmate: {text}\n".encode()
    writer.write(
        f"HTTP/1.1 {code} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(OSError):
        await writer.drain()


def _read_all(fd: int) -> bytes:
    data = b""
    while chunk := os.read(fd, 4096):
        data += chunk
    return data


@functools.cache
def _say_once(text: str) -> None:
    """SBX-4: a slower fallback is said once, in one line."""
    log.warning("sandbox network: %s", text)


_Prepared = tuple[Path, tuple[tuple[str, ...], tuple[Path, ...]], str | None]


def _prepared() -> _Prepared:
    """A proxy's private folder, its bridge's launch (``bridge_launch``) and where ``nsenter`` is."""
    folder = Path(tempfile.mkdtemp(prefix="xwm-", dir=_socket_parent()))
    try:
        return folder, bridge_launch(folder), shutil.which("nsenter")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _remove_prepared(preparing: asyncio.Future[_Prepared]) -> None:
    if not preparing.cancelled() and preparing.exception() is None:
        shutil.rmtree(preparing.result()[0], ignore_errors=True)


def _socket_parent() -> str | None:
    """A short private place for the socket: ``$XDG_RUNTIME_DIR`` when short, else ``/tmp``."""
    for name in _SOCKET_PARENTS:
        folder = os.environ.get(name)
        if folder and len(folder) <= 60 and os.path.isdir(folder) and os.access(folder, os.W_OK):
            return folder
    return "/tmp" if os.path.isdir("/tmp") else None


@contextlib.asynccontextmanager
async def proxied(
    sandbox: Sandbox | None, report: Reporter | None = None
) -> AsyncIterator[tuple[Sandbox | None, dict[str, str]]]:
    """SBX-4 for one process (or one turn's commands): when ``sandbox`` is an allow-list one, a running
    proxy for its list, the sandbox routed through it, and the environment that points there; else
    the sandbox as it is and no variables. The proxy closes when the block ends."""
    if sandbox is None or not sandbox.available or sandbox.policy.allowed_hosts is None:
        yield sandbox, {}
        return
    async with NetProxy(sandbox.policy.allowed_hosts, report, bwrap=sandbox.status.executable) as proxy:
        yield sandbox.routed(proxy.route), proxy_environment(PROXY_PORT)
