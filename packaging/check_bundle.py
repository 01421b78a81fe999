"""Check a built bundle holds what XWorkmate needs at run time, before running it.

    python packaging/check_bundle.py dist/xworkmate            # Linux/Windows one-folder
    python packaging/check_bundle.py dist/XWorkmate.app --platform darwin

Prints ``bundle ok: N files checked`` and exits 0, or names every missing or
empty file and exits 1. The list is ``bundle_manifest.required_bundle_files``:
the resources, the Alembic migrations (env.py, script.py.mako,
versions/*.py), the native Qt platform plugin and the SVG plugins, and the
executables. Then the bundle's bridge mode (SPEC SBX-4: an allow-list sandbox has no Python to run
the bridge script with, so it runs ``xworkmate --net-bridge``): a bad argument gets its one-line
usage, and with bubblewrap a connection made inside a real sandbox reaches a local TCP server
through the real proxy. Run with the project's Python (it imports ``xworkmate``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import bundle_manifest

from xworkmate.agents import net_bridge, scope_exec


def data_root(bundle: Path) -> Path:
    """``sys._MEIPASS`` of the bundle: ``_internal`` (one-folder) or ``Contents/Frameworks`` (.app)."""
    for candidate in (bundle / "_internal", bundle / "Contents" / "Frameworks"):
        if candidate.is_dir():
            return candidate
    return bundle


def problems(bundle: Path, platform: str, root: Path = bundle_manifest.REPO_ROOT) -> list[str]:
    """One line per missing or empty file; empty when the bundle is complete."""
    if not bundle.is_dir():
        return [f"not a folder: {bundle}"]
    found: list[str] = []
    meipass = data_root(bundle)
    for name in bundle_manifest.required_bundle_files(root, platform):
        path = meipass / name
        if not path.is_file():
            found.append(f"missing: {path}")
        elif path.stat().st_size == 0:
            found.append(f"empty: {path}")
    for name in bundle_manifest.EXECUTABLES[bundle_manifest.platform_key(platform)]:
        if not (bundle / name).is_file():
            found.append(f"missing executable: {bundle / name}")
    return found


# Inside the sandbox: connect to the listed server at its own address (the bridge's loopback forward),
# and show whether the bundle's library path leaked into the command the bridge exec'd.
_CLIENT = 'exec 3<>/dev/tcp/127.0.0.1/{port} && printf ping >&3 && head -c 9 <&3 && echo " ${{LD_LIBRARY_PATH-unset}}"'


def bridge_problems(executable: Path) -> list[str]:
    """SBX-4: ``executable --net-bridge`` as a sandbox starts it; one line per problem."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": tempfile.gettempdir()}
    try:
        bad = subprocess.run(
            [executable, net_bridge.MODE, "no-port"], capture_output=True, text=True, env=env, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [f"{executable} {net_bridge.MODE} cannot run: {exc}"]
    if bad.returncode != 1 or bad.stderr.strip() != net_bridge.USAGE:
        return [f"{executable} {net_bridge.MODE} no-port: exit {bad.returncode}, said {bad.stderr.strip()!r}"]
    if shutil.which("bwrap") is None:
        return []
    out = asyncio.run(_forwarded(executable, env))
    return [] if out == "echo:ping unset" else [f"no connection through {executable} {net_bridge.MODE}: {out!r}"]


def scope_problems(executable: Path) -> list[str]:
    """SBX-4: ``executable --scope-exec`` as a network-``on`` sandbox starts it; one line per problem. Where
    the kernel can scope (Landlock ABI 6), the command runs in the scope and keeps its exit code."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": tempfile.gettempdir()}
    runs: list[tuple[list[str], int, str]] = [([], 1, scope_exec.USAGE)]
    if scope_exec.landlock_abi() >= scope_exec.SCOPED_ABI:
        runs.append((["--", "sh", "-c", "echo scoped >&2; exit 7"], 7, "scoped"))
    for args, code, said in runs:
        try:
            done = subprocess.run(
                [executable, scope_exec.MODE, *args], capture_output=True, text=True, env=env, timeout=60, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return [f"{executable} {scope_exec.MODE} cannot run: {exc}"]
        if done.returncode != code or done.stderr.strip() != said:
            return [f"{executable} {scope_exec.MODE} {' '.join(args)}: exit {done.returncode}, said {done.stderr!r}"]
    return []


async def _forwarded(executable: Path, env: dict[str, str]) -> str:
    """What a command in a real allow-list sandbox, behind the bundle's bridge, gets from a listed server."""
    from dataclasses import replace

    from xworkmate.agents.net_proxy import NetProxy, bridge_launch
    from xworkmate.agents.sandbox import Sandbox, SandboxPolicy

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"echo:" + await reader.readexactly(4))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    listed = (f"127.0.0.1:{port}",)
    with tempfile.TemporaryDirectory() as work:
        async with server, NetProxy(listed) as proxy:
            bridge, shown = bridge_launch(Path(work), frozen=True, executable=os.fspath(executable))
            route = replace(proxy.route, bridge=bridge, shown=(*proxy.route.shown, *shown))
            sandbox = Sandbox(SandboxPolicy(working_directory=Path(work), allowed_hosts=listed)).routed(route)
            process = await asyncio.create_subprocess_exec(
                *sandbox.wrap(["bash", "-c", _CLIENT.format(port=port)]),
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            out, _ = await asyncio.wait_for(process.communicate(), 60)
    return out.decode(errors="replace").strip()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path, help="dist/xworkmate (one-folder) or dist/XWorkmate.app")
    parser.add_argument("--platform", default=sys.platform, help="linux, darwin or win32 (default: this OS)")
    args = parser.parse_args(argv)
    try:
        found = problems(args.bundle, args.platform)
        if not found and args.platform.startswith("linux") and args.platform == sys.platform:
            found = bridge_problems(args.bundle / "xworkmate") + scope_problems(args.bundle / "xworkmate")
    except (FileNotFoundError, ValueError) as exc:
        print(f"check_bundle: {exc}", file=sys.stderr)
        return 1
    if found:
        for line in found:
            print(f"check_bundle: {line}", file=sys.stderr)
        print(f"check_bundle: {args.bundle} is incomplete ({len(found)} problem(s))", file=sys.stderr)
        return 1
    checked = len(bundle_manifest.required_bundle_files(platform=args.platform))
    print(f"bundle ok: {checked} files checked in {data_root(args.bundle)}; bridge and scope modes ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
