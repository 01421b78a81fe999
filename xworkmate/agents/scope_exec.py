"""Inside a network-``on`` sandbox (SPEC SBX-3, SBX-4): the host's abstract Unix sockets out of reach.

With the network ``on`` the sandbox shares the host's network namespace, and with it the host's
*abstract* Unix sockets (an X11 display's ``@/tmp/.X11-unix/X0``, some D-Bus buses): no mount hides
them. Landlock's scoping (Linux 6.12+, ABI 6: ``LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET``) forbids a
process to connect to an abstract socket made outside its domain (``EPERM``), while the sockets made
inside still work. This launcher enters such a domain and execs the command in its place: the command
keeps its pid, stdin, stdout, signals and exit code. When the domain cannot be made, the command does
not run (exit 126): the host asked for it only after seeing the kernel can (``launch``).

Run as ``net_bridge`` is: the host's Python with ``-I -S`` on this file compiled into a private folder
shown read-only to the sandbox, or the frozen app's own executable in ``--scope-exec`` mode
(``run_if_asked``, called by ``packaging/pyi_rth_xworkmate.py``). Only C modules are imported at the
top (``_ctypes``, not ``ctypes``, whose Python part costs each command about 2 ms more); the host's
helpers import what they need when called.

Usage: python -I -S scope_exec.py -- COMMAND [ARGS...]
       xworkmate --scope-exec -- COMMAND [ARGS...]
"""

import os
import sys

try:
    import _ctypes
except ImportError:  # a Python built without libffi: no scoping here (``landlock_abi`` is 0, doctor says so)
    _ctypes = None  # type: ignore[assignment]

MODE = "--scope-exec"  # the frozen app's first argument for the launcher (SBX-4)
USAGE = "usage: scope_exec -- COMMAND [ARGS...]"
SCOPED_ABI = 6  # the first Landlock ABI with LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET

# <linux/landlock.h>, <asm-generic/unistd.h> (the same numbers on x86_64 and aarch64), <linux/prctl.h>.
_CREATE_RULESET = 444
_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1 << 0
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
_PR_SET_NO_NEW_PRIVS = 38


def _call(name: str, *args: int | bytes | None) -> tuple[int, int]:
    """``name(*args)`` from libc, integers passed as C longs: its result, and errno when it is -1. The
    types are ``ctypes.c_long`` and a ``CDLL`` function's, made from ``_ctypes`` alone."""

    class Long(_ctypes._SimpleCData):  # type: ignore[type-arg]
        _type_ = "l"

    class Function(_ctypes.CFuncPtr):
        _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
        _restype_ = Long

    function = Function(_ctypes.dlsym(_ctypes.dlopen(None), name))  # type: ignore[arg-type]  # None: the program
    result: int = function(*(Long(a) if isinstance(a, int) else a for a in args))
    return result, (_ctypes.get_errno() if result == -1 else 0)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 without Landlock (too old, disabled, not Linux)."""
    if _ctypes is None or not sys.platform.startswith("linux"):
        return 0
    try:
        version, _ = _call("syscall", _CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    except (AttributeError, OSError):  # no syscall() in this libc
        return 0
    return max(version, 0)


def scope_abstract_sockets() -> str | None:
    """Put this process (and what it execs) in a Landlock domain that reaches no abstract Unix socket
    made outside it. None when done, else why not."""
    # struct landlock_ruleset_attr {__u64 handled_access_fs; __u64 handled_access_net; __u64 scoped;}
    attr = b"".join(n.to_bytes(8, sys.byteorder) for n in (0, 0, _SCOPE_ABSTRACT_UNIX_SOCKET))
    ruleset, errno = _call("syscall", _CREATE_RULESET, attr, len(attr), 0)
    if ruleset < 0:
        return f"landlock_create_ruleset: {os.strerror(errno)}"
    try:
        done, errno = _call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if done != 0:
            return f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(errno)}"
        done, errno = _call("syscall", _RESTRICT_SELF, ruleset, 0)
        if done != 0:
            return f"landlock_restrict_self: {os.strerror(errno)}"
    finally:
        os.close(ruleset)
    return None


def run_if_asked(argv: list[str]) -> None:
    """``PROGRAM --scope-exec ...`` is the launcher (SBX-4): it execs the command or exits, never returns."""
    if argv[1:2] == [MODE]:
        main(argv[2:])


def main(args: list[str] | None = None) -> None:
    args = sys.argv[1:] if args is None else args
    if args[:1] != ["--"] or len(args) < 2:
        sys.exit(USAGE)
    command = args[1:]
    why = scope_abstract_sockets()
    if why is not None:
        sys.stderr.write(f"cannot keep the host's abstract sockets out of reach ({why}): {command[0]} not run\n")
        os._exit(126)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"cannot run {command[0]}: {exc.strerror or exc}\n")
        os._exit(127)


def launch(
    folder: str | None = None, *, frozen: bool | None = None, executable: str | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """SBX-4, on the host: how a network-``on`` sandbox starts the launcher (its argv before ``--``) and the
    folders it must show read-only for that; None when the kernel cannot scope (Landlock ABI < 6: the
    command then runs as it is, and ``xworkmate doctor`` says the host's abstract sockets are reachable).

    As ``net_proxy.bridge_launch``: from a checkout or a wheel, the host's Python on this file compiled
    into a private folder (``folder``, else one made once for this process and removed at exit), with
    Python's prefix shown; frozen (PyInstaller), the app's executable in its ``--scope-exec`` mode, its
    bundle shown."""
    if landlock_abi() < SCOPED_ABI:
        return None
    frozen = bool(getattr(sys, "frozen", False)) if frozen is None else frozen
    program = os.path.realpath(sys.executable if executable is None else executable)
    if frozen:
        return (program, MODE), (os.path.dirname(program),)
    import py_compile

    folder = _private_folder() if folder is None else folder
    compiled = os.path.join(folder, "scope_exec.pyc")
    py_compile.compile(__file__, cfile=compiled, doraise=True)
    shown = (folder, os.path.realpath(sys.base_prefix), os.path.dirname(program))
    return (program, "-I", "-S", compiled), shown


_made: list[str] = []


def _private_folder() -> str:
    """A folder only this user reads (in ``tempfile``'s place), made again if a cleaner took it, removed at exit."""
    if not _made or not os.path.isdir(_made[-1]):
        import atexit
        import shutil
        import tempfile

        _made.append(tempfile.mkdtemp(prefix="xworkmate-scope-"))
        atexit.register(shutil.rmtree, _made[-1], True)
    return _made[-1]


if __name__ == "__main__":
    main()
