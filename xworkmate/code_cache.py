"""The code compiled at run time while the window's modules load, kept between starts (issue 34, item 4).

Every ``@dataclass`` has its ``__init__``, ``__repr__``, ``__eq__`` (and, frozen, ``__setattr__``,
``__delattr__``, ``__hash__``) written as Python source and compiled at import (``dataclasses._create_fn``:
``exec`` of a string), every string annotation pydantic and SQLAlchemy read becomes a
``typing.ForwardRef``, which compiles it, and SQLAlchemy compiles the functions it generates as it loads
(``util.langhelpers.exec_code_in_env``, ~200); every ``namedtuple`` has its ``__new__`` written and
``eval``-ed, SQLAlchemy ``eval``s each string annotation of a mapped class (``util.typing.eval_expression``,
~250 for the store's tables) and ``typing_inspection`` writes its checks as source. Over the window's code that
is some 700 functions and 1,700 expressions, ~10% of a start's CPU, compiled again at every start to the same
code. Like the ``.pyc``
files beside our modules, this keeps what was compiled (``marshal``, keyed by the source text) in
``<home>/cache`` and, at the next start, hands it to ``exec``/``compile``'s callers instead of compiling:
the functions and references made from it are the ones the source would make.

``install(home)`` puts the hooks in place (the names ``exec`` in ``dataclasses``, ``compile`` in ``typing``, and
the names of ``SHADOWED``, which shadow the builtins for those modules only); the
file is read at the first use; what was compiled anew is written when the process ends. A file of another
Python (``importlib.util.MAGIC_NUMBER``), one that cannot be read, or one that another user or group could
have written is ignored and replaced.
"""

from __future__ import annotations
import __future__

import atexit
import builtins
import dataclasses
import importlib.abc
import importlib.machinery
import importlib.util
import marshal
import os
import sys
import tempfile
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

CACHE_FOLDER = "cache"
FILE_NAME = f"compiled-2-{sys.implementation.cache_tag}.marshal"
SHADOWED: dict[str, tuple[str, ...]] = {
    "sqlalchemy.util.langhelpers": ("compile", "exec"),  # the functions SQLAlchemy generates as it loads
    "sqlalchemy.util.typing": ("eval",),  # the string annotations of mapped classes (``Mapped["..."]``)
    "collections": ("eval",),  # each namedtuple's ``__new__``
    "typing_inspection.typing_objects": ("exec",),  # pydantic's checks of typing objects, made at its import
}
"""Modules whose own ``compile``, ``eval`` or ``exec`` of a string goes through the cache (issue 34 item 4)."""
MAX_ENTRIES = 20_000
"""A bound on what one file keeps (the window's code compiles ~2,100 sources); past it nothing is added."""

_exec = builtins.exec
_eval = builtins.eval
_compile = builtins.compile
_FEATURES: tuple[tuple[str, __future__._Feature], ...] = tuple(
    (name, getattr(__future__, name)) for name in __future__.all_feature_names
)


def future_flags(namespace: dict[str, Any]) -> int:
    """The ``__future__`` features the module of ``namespace`` was compiled with: what its own ``compile`` and
    ``exec`` of a string inherit (``from __future__ import annotations`` in SQLAlchemy's modules, in ours)."""
    flags = 0
    for name, feature in _FEATURES:
        if namespace.get(name) is feature:
            flags |= feature.compiler_flag
    return flags


class CodeCache:
    """Compiled code by its source text: loaded from ``path``, written back there if it grew."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._codes: dict[tuple[str, str, str, int], Any] | None = None
        self._loaded = 0

    @property
    def codes(self) -> dict[tuple[str, str, str, int], Any]:
        """What the file kept and what was compiled since: read at the first use, not at ``install`` (which
        comes before the window's first paint, and the first dataclass after it)."""
        if self._codes is None:
            self._codes = _read(self.path)
            self._loaded = len(self._codes)
        return self._codes

    def compiled(self, source: str, filename: str, mode: str, flags: int) -> Any:
        """``compile(source, filename, mode, flags, dont_inherit=True)``, kept: the caller passes the future
        features its caller's module would have given the code (compiled here, it would inherit this
        module's instead)."""
        key = (source, filename, mode, flags)
        code = self.codes.get(key)
        if code is None:
            code = _compile(source, filename, mode, flags, True)
            if len(self.codes) < MAX_ENTRIES:
                self.codes[key] = code
        return code

    def dataclass_exec(self, source: Any, globals: Any = None, locals: Any = None) -> Any:
        """``exec`` as ``dataclasses`` calls it (``exec(txt, globals, ns)``)."""
        if isinstance(source, str):
            source = self.compiled(source, "<string>", "exec", future_flags(dataclasses.__dict__))
        return _exec(source, globals, locals)

    def compile_for(self, namespace: dict[str, Any]) -> Callable[..., Any]:
        """``compile`` for the module of ``namespace``, as ``typing.ForwardRef`` calls it (``compile(arg,
        '<string>', 'eval')``) and SQLAlchemy's ``exec_code_in_env`` (``compile(code, "<sqlalchemy generated …>",
        "exec")``): the code gets that module's future features, as the builtin would give it."""

        def compile_source(
            source: Any, filename: Any, mode: Any, flags: int = 0, dont_inherit: bool = False, *args: Any, **kwargs: Any
        ) -> Any:
            if not dont_inherit:
                flags |= future_flags(namespace)
            if isinstance(source, str) and not args and not kwargs:
                return self.compiled(source, filename, mode, flags)
            return _compile(source, filename, mode, flags, True, *args, **kwargs)

        return compile_source

    def eval_for(self, namespace: dict[str, Any]) -> Callable[..., Any]:
        """``eval`` for the module of ``namespace``: a string is compiled as the builtin compiles it (its leading
        blanks dropped, the module's future features), through the cache; the code then runs as given."""

        def eval_source(source: Any, globals: Any = None, locals: Any = None) -> Any:
            if globals is None:  # the caller's own namespaces, as the builtin takes them
                caller = sys._getframe(1)
                globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
            if isinstance(source, str):
                source = self.compiled(source.lstrip(" \t"), "<string>", "eval", future_flags(namespace))
            return _eval(source, globals, locals)

        return eval_source

    def exec_for(self, namespace: dict[str, Any]) -> Callable[..., Any]:
        """``exec`` for the module of ``namespace``: a string is compiled through the cache with the module's
        future features, as the builtin would compile it."""

        def exec_source(source: Any, globals: Any = None, locals: Any = None, **kwargs: Any) -> Any:
            if globals is None:
                caller = sys._getframe(1)
                globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
            if isinstance(source, str):
                source = self.compiled(source, "<string>", "exec", future_flags(namespace))
            return _exec(source, globals, locals, **kwargs)

        return exec_source

    def shadow(self, module: ModuleType) -> None:
        """The builtins ``SHADOWED`` names for ``module``, through the cache, as module globals."""
        made = {"compile": self.compile_for, "eval": self.eval_for, "exec": self.exec_for}
        for name in SHADOWED.get(module.__name__, ()):
            setattr(module, name, made[name](module.__dict__))

    def write(self) -> None:
        """Write the file if it grew: a whole new file, replacing the old one at once (another process may
        read it meanwhile); only its owner can read or write it."""
        if self._codes is None or len(self._codes) == self._loaded:
            return
        try:
            self.path.parent.mkdir(mode=0o700, exist_ok=True)  # in the home, which exists (not a removed one)
            data = importlib.util.MAGIC_NUMBER + marshal.dumps(self._codes)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".compiled-")
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(data)
                os.replace(temporary, self.path)
            except BaseException:
                os.unlink(temporary)
                raise
            self._loaded = len(self._codes)
        except (OSError, ValueError):
            pass  # the next start compiles again


def _read(path: Path) -> dict[tuple[str, str, str, int], Any]:
    try:
        with path.open("rb") as file:
            status = os.fstat(file.fileno())
            if os.name == "posix" and (status.st_uid != os.getuid() or status.st_mode & 0o022):
                return {}  # not written by this user alone: not code to run
            data = file.read()
    except OSError:
        return {}
    magic = importlib.util.MAGIC_NUMBER
    if not data.startswith(magic):
        return {}
    try:
        codes = marshal.loads(data[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return {}
    return codes if isinstance(codes, dict) else {}


_installed: list[CodeCache] = []


def install(home: Path) -> CodeCache:
    """Compile through the cache in ``home`` from now on (once a process: later calls return the first)."""
    if _installed:
        return _installed[0]
    cache = CodeCache(home / CACHE_FOLDER / FILE_NAME)
    dataclasses.exec = cache.dataclass_exec  # type: ignore[attr-defined]
    typing.compile = cache.compile_for(typing.__dict__)  # type: ignore[attr-defined]
    for name in SHADOWED:
        module = sys.modules.get(name)
        if module is not None:
            cache.shadow(module)
    sys.meta_path.insert(0, _ShadowCompile(cache))
    atexit.register(cache.write)
    _installed.append(cache)
    return cache


def uninstall() -> None:
    """Put the builtins back for ``dataclasses``, ``typing`` and the modules of ``SHADOWED`` (tests)."""
    for cache in _installed:
        atexit.unregister(cache.write)
    _installed.clear()
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, _ShadowCompile)]
    for module, name in ((dataclasses, "exec"), (typing, "compile")):
        module.__dict__.pop(name, None)
    for shadowed, names in SHADOWED.items():
        if shadowed in sys.modules:
            for name in names:
                sys.modules[shadowed].__dict__.pop(name, None)


def _shadowing(execute: Callable[[ModuleType], None], cache: CodeCache) -> Callable[[ModuleType], None]:
    def exec_module(module: ModuleType) -> None:
        cache.shadow(module)
        execute(module)

    return exec_module


class _ShadowCompile(importlib.abc.MetaPathFinder):
    """Finds nothing itself: gives a module of ``SHADOWED`` the cache's ``compile``, ``eval`` or ``exec`` before its
    body runs (SQLAlchemy's module generates functions as the rest of SQLAlchemy loads, ``typing_inspection`` as
    it loads itself; they are loaded after ``install``, with the window's code)."""

    def __init__(self, cache: CodeCache) -> None:
        self._cache = cache

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in SHADOWED:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: importlib.machinery.ModuleSpec | None = find(fullname, path, target)
            if spec is None:
                continue
            loader = spec.loader
            if loader is not None and hasattr(loader, "exec_module"):
                loader.exec_module = _shadowing(loader.exec_module, self._cache)  # type: ignore[method-assign,assignment]
            return spec
        return None
