"""Inside a line's sandbox (SPEC SBX-4): a loopback port that leads to XWorkmate's proxy, then the command.

Run by the host's Python with ``-I -S`` (standard library only; this file is copied next to the
proxy's socket, so it is visible wherever XWorkmate is installed). It listens on
``127.0.0.1:PORT`` in the sandbox's own network namespace, forks a relay that forwards each
connection to the proxy's Unix socket, and execs the command in its own place: the command keeps
its pid, stdin, stdout, signals and exit code. The relay dies with the sandbox's PID namespace.

Usage: python -I -S net_bridge.py SOCKET PORT -- COMMAND [ARGS...]
"""

import os
import socket
import sys


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


def _serve(listener: socket.socket, path: str) -> None:
    import threading

    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            upstream.close()
            continue
        for source, target in ((client, upstream), (upstream, client)):
            threading.Thread(target=_pipe, args=(source, target), daemon=True).start()


def main() -> None:
    path, port, dashes, command = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    if dashes != "--" or not command:
        sys.exit("usage: net_bridge.py SOCKET PORT -- COMMAND [ARGS...]")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    if os.fork() == 0:
        quiet = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(quiet, fd)  # the command's pipes are its own: the relay holds none of them open
        try:
            _serve(listener, path)
        finally:
            os._exit(0)
    listener.close()
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"cannot run {command[0]}: {exc.strerror or exc}\n")
        os._exit(127)


if __name__ == "__main__":
    main()
