"""SBX-4, issue 29: with the network ``on`` the host's abstract Unix sockets are out of reach.

Real bubblewrap, real processes: a host process listens on an abstract socket (as X11's
``@/tmp/.X11-unix/X0`` does); a network-``on`` sandbox shares the host's network namespace, so only
the Landlock scope that ``scope_exec`` puts the command in keeps it from connecting.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.sandboxing import needs_bwrap
from xworkmate.agents import scope_exec
from xworkmate.agents.sandbox import Sandbox, SandboxPolicy, bubblewrap_argv
from xworkmate.controllers.doctor import abstract_sockets

needs_scoping = pytest.mark.skipif(
    scope_exec.landlock_abi() < scope_exec.SCOPED_ABI,
    reason=f"Landlock ABI {scope_exec.landlock_abi()} cannot scope abstract sockets (Linux 6.12+)",
)

# Run inside the sandbox by the system's Python: connect to the abstract socket named in argv[1].
CONNECT = """
import socket, sys
c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    c.connect("\\0" + sys.argv[1])
    print("CONNECTED", c.recv(16).decode())
except OSError as exc:
    print("REFUSED", exc.errno)
"""


@pytest.fixture
def host_abstract_socket() -> Iterator[str]:
    """A host process's abstract Unix socket that greets each connection; its name (without the NUL)."""
    name = f"xworkmate-test-{uuid.uuid4().hex}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("\0" + name)
    server.listen(8)
    server.settimeout(0.2)
    stop = False

    def serve() -> None:
        while not stop:
            try:
                client, _ = server.accept()
            except OSError:
                continue
            client.sendall(b"hello")
            client.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield name
    stop = True
    thread.join(5)
    server.close()


def _policy(tmp_path: Path) -> SandboxPolicy:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return SandboxPolicy(working_directory=tmp_path, home=home, network=True)


def _run(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=30, check=False)


def _python() -> str:
    """A Python the sandbox can see: the system's, else the one running the tests."""
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


@needs_bwrap
@needs_scoping
def test_a_network_on_command_cannot_connect_to_a_host_abstract_socket(
    tmp_path: Path, host_abstract_socket: str
) -> None:
    sandbox = Sandbox(_policy(tmp_path))
    done = _run(sandbox.wrap([_python(), "-c", CONNECT, host_abstract_socket]))
    assert done.stdout.split() == ["REFUSED", "1"], done  # EPERM
    # The same sandbox without the launcher (the code before issue 29) reached it: the test means something.
    bare = bubblewrap_argv(
        _policy(tmp_path), [_python(), "-c", CONNECT, host_abstract_socket], bwrap="bwrap", abstract_scope=False
    )
    assert _run(bare).stdout.split() == ["CONNECTED", "hello"]


@needs_bwrap
@needs_scoping
def test_an_abstract_socket_made_inside_the_sandbox_still_connects(tmp_path: Path) -> None:
    both = """
import socket
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind("\\0inside-" + str(__import__("os").getpid()))
server.listen(1)
client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
client.connect(server.getsockname())
peer, _ = server.accept()
peer.sendall(b"inside")
print(client.recv(16).decode())
"""
    done = _run(Sandbox(_policy(tmp_path)).wrap([_python(), "-c", both]))
    assert (done.returncode, done.stdout.strip()) == (0, "inside"), done


@needs_bwrap
@needs_scoping
def test_network_on_still_reaches_a_host_loopback_tcp_listener(tmp_path: Path) -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        reach = f"import socket; socket.create_connection(('127.0.0.1', {port}), 5).sendall(b'tcp'); print('SENT')"
        process = subprocess.Popen(
            Sandbox(_policy(tmp_path)).wrap([_python(), "-c", reach]), stdout=subprocess.PIPE, text=True
        )
        listener.settimeout(20)
        peer, _ = listener.accept()
        assert peer.recv(16) == b"tcp"
        peer.close()
        out, _ = process.communicate(timeout=20)
        assert (process.returncode, out.strip()) == (0, "SENT")
    finally:
        listener.close()


@needs_bwrap
@needs_scoping
def test_the_scoped_command_keeps_its_exit_code_stdin_stdout_and_signals(tmp_path: Path) -> None:
    sandbox = Sandbox(_policy(tmp_path))
    done = _run(sandbox.wrap(["sh", "-c", "read line; echo got:$line; exit 7"]), stdin="ping\n")
    assert (done.returncode, done.stdout) == (7, "got:ping\n")
    # The launcher execs: the command is the sandbox's first process after bwrap's own (pid 2, as before),
    # so a signal reaches the command itself, and one that kills it is reported as before (128 + 15).
    done = _run(sandbox.wrap(["sh", "-c", "trap 'echo TERM $$; exit 3' TERM; kill -TERM $$; sleep 5"]))
    assert (done.returncode, done.stdout) == (3, "TERM 2\n"), done
    assert _run(sandbox.wrap(["sh", "-c", "kill -TERM $$"])).returncode == 128 + signal.SIGTERM


@needs_bwrap
@needs_scoping
def test_a_launcher_removed_by_a_tmp_cleaner_is_made_again(tmp_path: Path, host_abstract_socket: str) -> None:
    sandbox = Sandbox(_policy(tmp_path))
    first = sandbox.wrap(["true"])
    compiled = next(arg for arg in first if arg.endswith("scope_exec.pyc"))
    shutil.rmtree(os.path.dirname(compiled))  # as systemd-tmpfiles does under an app that runs for days
    done = _run(sandbox.wrap([_python(), "-c", CONNECT, host_abstract_socket]))
    assert done.stdout.split() == ["REFUSED", "1"], done


@needs_bwrap
def test_a_command_that_cannot_be_found_still_says_so(tmp_path: Path) -> None:
    done = _run(Sandbox(_policy(tmp_path)).wrap(["no-such-command-xworkmate"]))
    assert done.returncode != 0
    assert "no-such-command-xworkmate" in done.stderr


def test_the_launcher_refuses_without_a_command() -> None:
    done = _run([sys.executable, "-I", "-S", scope_exec.__file__, "--"])
    assert (done.returncode, done.stderr.strip()) == (1, scope_exec.USAGE)


def test_frozen_the_app_itself_is_the_launcher() -> None:
    launch = scope_exec.launch(frozen=True, executable="/opt/xworkmate/xworkmate")
    if scope_exec.landlock_abi() < scope_exec.SCOPED_ABI:
        assert launch is None
    else:
        assert launch == (("/opt/xworkmate/xworkmate", scope_exec.MODE), ("/opt/xworkmate",))


def test_doctor_says_whether_the_host_abstract_sockets_are_reachable() -> None:
    old = abstract_sockets(abi=5)
    assert not old.ok
    assert "with the network on, the host's abstract sockets (X11, D-Bus) are reachable on this kernel" in old.detail
    assert "\n" not in old.detail
    new = abstract_sockets(abi=6)
    assert new.ok and "out of reach" in new.detail
    assert abstract_sockets().ok is (scope_exec.landlock_abi() >= scope_exec.SCOPED_ABI)
