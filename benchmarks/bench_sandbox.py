"""6. Sandbox overhead per command (SBX-1, issue 12) and of the allow-list proxy (SBX-4, issue 29).

The first figure is the median wall time of ``run_command("true")`` in a line's real
bubblewrap sandbox (the policy a line gets: data folder and other lines hidden,
private home and /tmp, toolchains shown again) minus the median of the same
call unsandboxed, measured alternately in the same run. Target: at most 15 ms.
The reference is the unsandboxed median itself.

The second is what an ``allow-list`` line adds to the same command, which makes no
connection: the sandbox routed through a running proxy (it joins the network of the
proxy's holder, where the bridge already runs, then runs ``true``) minus the plain
sandbox, alternately. Target: at most 5 ms.

The third is one proxied connection's set-up on loopback, from inside the sandbox: connect
to the bridge, ``CONNECT`` a listed local TCP server, read the ``200``, minus a direct
connect to the same server from the host. Target: at most 2 ms.

The fourth is what a turn's sandbox set-up (``line_sandbox``: every other line's folder is hidden,
SBX-1) costs for each line bound to a folder of its own, with ``MANY_FOLDERS`` of them outside the
data folder, against resolving that folder's links once (each must be; issue 34: scale). It was
quadratic: 14 s at each turn's start with a thousand such lines. Target: at most 3x.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from benchmarks.common import Figure, median, seed, temp_home
from xworkmate.agents.net_proxy import NetProxy
from xworkmate.agents.sandbox import PROXY_PORT, Sandbox, proxy_environment
from xworkmate.agents.tools import ToolContext, run_command
from xworkmate.controllers import SessionController
from xworkmate.controllers.containment import line_sandbox, sandbox_env
from xworkmate.domain.threads import TaskThread
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store

REPEATS = 60
CONNECTIONS = 200
MANY_FOLDERS = 2000
SETUP_REPEATS = 7


def _time(ctx: ToolContext) -> float:
    started = time.perf_counter()
    outcome = run_command(ctx, "true")
    elapsed = (time.perf_counter() - started) * 1000
    if outcome.exit_code != 0:
        raise RuntimeError(f"`true` failed: {outcome.output}")
    return elapsed


def _alternate(first: ToolContext, second: ToolContext) -> tuple[list[float], list[float]]:
    """``true`` timed ``REPEATS`` times in each context, alternately, after one warm-up run of each
    (the page cache, the probe)."""
    for ctx in (first, second):
        _time(ctx)
    first_ms: list[float] = []
    second_ms: list[float] = []
    for _ in range(REPEATS):
        first_ms.append(_time(first))
        second_ms.append(_time(second))
    return first_ms, second_ms


@contextmanager
def _loop_thread() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop in a thread of its own (the window's turn loop stands for it)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read()
    writer.close()


_CONNECTS = """
import json, socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
spent = []
for _ in range(count):
    started = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", {proxy_port}))
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\\r\\n\\r\\n" % port)
    head = b""
    while not head.endswith(b"\\r\\n\\r\\n"):
        head += s.recv(4096)
    spent.append((time.perf_counter() - started) * 1000)
    assert head.startswith(b"HTTP/1.1 200"), head
    s.close()
print(json.dumps(spent))
"""


def _direct_connects(port: int) -> list[float]:
    import socket

    spent = []
    for _ in range(CONNECTIONS):
        started = time.perf_counter()
        sock = socket.create_connection(("127.0.0.1", port))
        spent.append((time.perf_counter() - started) * 1000)
        sock.close()
    return spent


def _proxy_figures(sandbox: Sandbox, base: ToolContext, env: dict[str, str]) -> list[Figure]:
    """SBX-4: an allow-list sandbox with its proxy running, beside the plain one."""
    with _loop_thread() as loop:
        server = asyncio.run_coroutine_threadsafe(asyncio.start_server(_echo, "127.0.0.1", 0), loop).result()
        port = server.sockets[0].getsockname()[1]
        allowed = (f"127.0.0.1:{port}",)
        started = NetProxy(allowed, bwrap=sandbox.status.executable).start()
        proxy = asyncio.run_coroutine_threadsafe(started, loop).result()
        try:
            listed = Sandbox(replace(sandbox.policy, network=False, allowed_hosts=allowed), sandbox.status)
            routed = listed.routed(proxy.route)
            proxied_env = {**env, **proxy_environment()}
            plain = ToolContext(write_gate=base.write_gate, command_env=env, sandbox=sandbox)
            through = ToolContext(write_gate=base.write_gate, command_env=proxied_env, sandbox=routed)
            plain_ms, proxy_ms = _alternate(plain, through)
            python = os.path.realpath(sys.executable)
            script = _CONNECTS.replace("{proxy_port}", str(PROXY_PORT))
            argv = routed.wrap([python, "-I", "-S", "-c", script, str(port), str(CONNECTIONS)])
            done = subprocess.run(argv, env=proxied_env, capture_output=True, text=True, timeout=120, check=True)
            connect_ms = json.loads(done.stdout)
            direct_ms = _direct_connects(port)
        finally:
            asyncio.run_coroutine_threadsafe(proxy.close(), loop).result()
            server.close()
    added = median(proxy_ms) - median(plain_ms)
    per_connection = median(connect_ms) - median(direct_ms)
    return [
        Figure(
            name="sandbox: allow-list proxy added to a command that makes no connection",
            value=added,
            unit="ms",
            target="<= 5 ms",
            met=added <= 5,
            reference=median(plain_ms),
            reference_label="ms median sandboxed `true` without the proxy",
            notes={"with_proxy_median_ms": median(proxy_ms), "repeats": REPEATS},
        ),
        Figure(
            name="sandbox: one proxied connection's set-up on loopback",
            value=per_connection,
            unit="ms",
            target="<= 2 ms",
            met=per_connection <= 2,
            reference=median(direct_ms),
            reference_label="ms median direct connect on the host",
            notes={"proxied_median_ms": median(connect_ms), "connections": CONNECTIONS},
        ),
    ]


def run() -> list[Figure]:
    with temp_home() as settings:
        store = open_store(settings.effective_database_url)
        try:
            controller = SessionController(store, settings)
            for _ in range(20):  # other lines' folders to hide, as on a real day
                controller.lines.create_line()
            thread = controller.lines.create_line("bench")
            sandbox = line_sandbox(settings, store, thread)
            if not sandbox.available:
                raise RuntimeError(f"no sandbox here: {sandbox.status.detail}")
            folder = Path(thread.workspace_binding.path or "")
            base = ToolContext.for_working_directory(folder, lambda: ())
            env = sandbox_env(thread)
            bare = ToolContext(write_gate=base.write_gate, command_env=env)
            boxed = ToolContext(write_gate=base.write_gate, command_env=env, sandbox=sandbox)
            bare_ms, boxed_ms = _alternate(bare, boxed)
            proxy_figures = _proxy_figures(sandbox, base, env)
            setup_figure = _setup_figure(settings, store, thread)
        finally:
            store.close()
    overhead = median(boxed_ms) - median(bare_ms)
    return [
        Figure(
            name="sandbox: overhead of one command (bubblewrap)",
            value=overhead,
            unit="ms",
            target="<= 15 ms",
            met=overhead <= 15,
            reference=median(bare_ms),
            reference_label="ms median unsandboxed `true`",
            notes={"sandboxed_median_ms": median(boxed_ms), "repeats": REPEATS},
        ),
        *proxy_figures,
        setup_figure,
    ]


def _setup_figure(settings: Settings, store: Store, thread: TaskThread) -> Figure:
    """A turn's sandbox set-up per other line's own folder (``MANY_FOLDERS`` of them, outside the data
    folder, over the 20 lines above), against one ``os.path.realpath`` of each folder."""

    def setup_ms() -> float:
        times = []
        for _ in range(SETUP_REPEATS):
            started = time.perf_counter()
            line_sandbox(settings, store, thread)
            times.append((time.perf_counter() - started) * 1000)
        return median(times)

    few_ms = setup_ms()
    with tempfile.TemporaryDirectory(prefix="xw-bench-projects-") as projects:
        folders = [Path(projects, f"client-{n % 20}", f"project-{n}") for n in range(MANY_FOLDERS)]
        for folder in folders:
            folder.mkdir(parents=True)
        seed(store, settings, lines=MANY_FOLDERS, folders=folders)
        many_ms = setup_ms()
        started = time.perf_counter()
        for folder in folders:
            os.path.realpath(folder)
        resolve_ms = (time.perf_counter() - started) * 1000
    per_folder, floor = (many_ms - few_ms) / MANY_FOLDERS, resolve_ms / MANY_FOLDERS
    ratio = per_folder / floor
    return Figure(
        name=f"sandbox: a turn's set-up per line bound to its own folder ({MANY_FOLDERS}) / resolving it",
        value=ratio,
        unit="x",
        target="<= 3x",
        met=ratio <= 3,
        reference=floor * 1000,
        reference_label="us one os.path.realpath of a folder",
        notes={
            "setup_20_lines_ms": few_ms,
            f"setup_{MANY_FOLDERS}_more_ms": many_ms,
            "per_folder_us": per_folder * 1000,
        },
    )
