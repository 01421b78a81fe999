"""Inside a line's sandbox (SPEC SBX-4): loopback ports that lead to XWorkmate's proxy, then the command.

Run by the host's Python with ``-I -S`` (standard library only; this file is compiled next to the
proxy's socket, so it is visible wherever XWorkmate is installed); the frozen app has no Python to run
it with, so there it is the app's own executable in ``--net-bridge`` mode (``run_if_asked``, called by
the bundle's first run-time hook, ``packaging/pyi_rth_xworkmate.py``). In the sandbox's own network
namespace it listens on ``127.0.0.1:PORT`` (where ``HTTPS_PROXY`` points) and relays each connection
to the proxy's Unix socket. Each ``FORWARD`` (``ADDRESS,PORT,TARGET``: a loopback service the person
listed) is listened on at that address and port and reached by ``CONNECT TARGET`` through the proxy,
so a client that ignores proxies still reaches it, and the proxy still decides and logs. Anything
else on loopback stays inside the sandbox (an agent's own local server). Then the command is exec'd in
the bridge's place: it keeps its pid, stdin, stdout, signals and exit code. The relay, forked before,
dies with the sandbox's PID namespace.

With no command after ``--`` the bridge only serves, in the foreground: it is the proxy's holder, a
sandbox started once per proxy whose network namespace each command then joins (``net_proxy``), so a
command's start costs no Python. It writes ``ready`` on stdout once it listens, then closes its stdio.

Only C modules are imported (``_socket``, ``_thread``): ``socket`` and ``threading`` would add
their imports (``enum``, ``selectors``…) to every command's start on an allow-list line.

Usage: python -I -S net_bridge.py SOCKET PORT [FORWARD...] -- [COMMAND [ARGS...]]
       xworkmate --net-bridge SOCKET PORT [FORWARD...] -- [COMMAND [ARGS...]]
"""

import _socket as socket
import _thread
import os
import sys

MODE = "--net-bridge"  # the frozen app's first argument for the bridge (SBX-4)
USAGE = "usage: net_bridge SOCKET PORT [ADDRESS,PORT,TARGET...] -- [COMMAND [ARGS...]]"
READY = b"ready\n"  # what the holder (no command) writes once it listens


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:  # noqa: SIM105 - contextlib would cost the bridge's start-up an import
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        _close_when_both_done(source, target)


_halves: dict[int, int] = {}
_lock = _thread.allocate_lock()


def _close_when_both_done(source: socket.socket, target: socket.socket) -> None:
    """Each pair is piped both ways: the second direction to end closes both sockets."""
    key = min(id(source), id(target))
    with _lock:
        done = _halves.pop(key, None)
        if done is None:
            _halves[key] = 1
            return
    source.close()
    target.close()


def _upstream(path: str, target: str | None) -> socket.socket | None:
    """A connection to the proxy; for a forward, already through its ``CONNECT`` (None when refused)."""
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
        if target is None:
            return upstream
        upstream.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head and len(head) < 65536:
            data = upstream.recv(4096)
            if not data:
                break
            head += data
        if head.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")) and head.endswith(b"\r\n\r\n"):
            return upstream
    except OSError:
        pass
    upstream.close()
    return None


def _serve(listener: socket.socket, path: str, target: str | None) -> None:
    while True:
        fd, _ = listener._accept()  # type: ignore[attr-defined]  # _socket's accept: a bare fd
        client = socket.socket(fileno=fd)
        upstream = _upstream(path, target)
        if upstream is None:
            client.close()
            continue
        for source, sink in ((client, upstream), (upstream, client)):
            _thread.start_new_thread(_pipe, (source, sink))


def _listen(address: str, port: int) -> socket.socket | None:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((address, port))
    except OSError:
        listener.close()
        return None  # no ::1 in this namespace, or a port taken twice: the proxy's own listener comes first
    listener.listen(128)
    return listener


def _relay(listeners: list[tuple[socket.socket | None, str | None]], path: str) -> None:
    """Serve every listener until the process ends; never returns."""
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)  # the command's pipes are its own: the relay holds none of them open
    try:
        for listener, target in listeners[1:]:
            if listener is not None:
                _thread.start_new_thread(_serve, (listener, path, target))
        if listeners[0][0] is not None:
            _serve(listeners[0][0], path, None)
    finally:
        os._exit(0)


def run_if_asked(argv: list[str]) -> None:
    """``PROGRAM --net-bridge ...`` is the bridge (SBX-4): it execs the command or exits, never returns."""
    if argv[1:2] == [MODE]:
        main(argv[2:])


def main(args: list[str] | None = None) -> None:
    args = sys.argv[1:] if args is None else args
    split = args.index("--") if "--" in args else -1
    if split < 2:
        sys.exit(USAGE)
    (path, port), forwards, command = args[:2], args[2:split], args[split + 1 :]
    try:
        listeners: list[tuple[socket.socket | None, str | None]] = [(_listen("127.0.0.1", int(port)), None)]
        for forward in forwards:
            address, forward_port, target = forward.split(",", 2)
            listeners.append((_listen(address, int(forward_port)), target))
    except (ValueError, OverflowError):
        sys.exit(USAGE)
    if not command:  # the holder: serve here until the sandbox ends
        if listeners[0][0] is None:
            sys.exit(f"net_bridge: cannot listen on 127.0.0.1:{port}")
        os.write(1, READY)
        _relay(listeners, path)
    if os.fork() == 0:
        _relay(listeners, path)
    for listener, _ in listeners:
        if listener is not None:
            listener.close()
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"cannot run {command[0]}: {exc.strerror or exc}\n")
        os._exit(127)


if __name__ == "__main__":
    main()
