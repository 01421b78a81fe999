"""The compiled code of dataclasses and forward references, kept between starts (issue 34, item 4): what is
made from the kept code is what the source makes, and a file that is not ours to trust is not used."""

from __future__ import annotations
import __future__

import dataclasses
import importlib.util
import json
import types
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fresh_python import fresh_python
from xworkmate import code_cache
from xworkmate.code_cache import CodeCache


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[CodeCache]:
    code_cache.uninstall()
    try:
        yield code_cache.install(tmp_path)
    finally:
        code_cache.uninstall()


def _point() -> type:
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 0

    return Point


def test_a_dataclass_made_from_kept_code_is_the_one_its_source_makes(installed: CodeCache, tmp_path: Path) -> None:
    """Made once (compiled, kept), written, then made again in a cache read from the file (nothing compiled):
    the same ``__init__``, ``__eq__``, ``__repr__``, ``__hash__`` and frozen ``__setattr__``."""
    first = _point()
    assert len(installed.codes) >= 5  # __init__, __repr__, __eq__, __setattr__, __delattr__ (and __hash__)
    installed.write()
    code_cache.uninstall()
    again = code_cache.install(tmp_path)
    assert again.codes.keys() == installed.codes.keys()
    compiled: list[str] = []
    real = code_cache._compile
    code_cache._compile = lambda *args: compiled.append(args[0]) or real(*args)  # type: ignore[assignment]
    try:
        second = _point()
    finally:
        code_cache._compile = real
    assert compiled == []
    for kind in (first, second):
        point = kind(1, y=2)
        assert point == kind(1, 2) and point != kind(2, 2)
        assert repr(point).endswith("Point(x=1, y=2)") and hash(point) == hash(kind(1, 2))
        with pytest.raises(dataclasses.FrozenInstanceError):
            point.x = 3  # type: ignore[misc]


def test_kept_code_gets_the_future_features_of_the_module_that_compiles_it(installed: CodeCache) -> None:
    """Compiled in ``code_cache`` (which has ``from __future__ import annotations``), a dataclass's ``__init__``
    would inherit that module's features: its annotations would turn into strings naming the generator's
    locals. It gets those of ``dataclasses`` (none), as without the cache; SQLAlchemy's generated code those of
    its module."""
    with_cache = _point()
    code_cache.uninstall()
    without = _point()
    assert with_cache.__init__.__code__.co_flags == without.__init__.__code__.co_flags  # type: ignore[misc]
    assert typing.get_type_hints(with_cache.__init__) == {"x": int, "y": int, "return": type(None)}  # type: ignore[misc]
    source = "def f(a: int) -> None: pass"

    def function(code: types.CodeType) -> types.CodeType:
        return next(const for const in code.co_consts if isinstance(const, types.CodeType))

    plain = function(installed.compile_for({})(source, "<generated>", "exec"))
    postponed = function(installed.compile_for({"annotations": __future__.annotations})(source, "<generated>", "exec"))
    assert not plain.co_flags & __future__.annotations.compiler_flag
    assert postponed.co_flags & __future__.annotations.compiler_flag


def test_a_forward_reference_from_kept_code_evaluates_as_its_source(installed: CodeCache) -> None:
    reference = typing.ForwardRef("dict[str, int] | None")
    assert ("dict[str, int] | None", "<string>", "eval", 0) in installed.codes
    assert typing.ForwardRef("dict[str, int] | None").__forward_code__ is reference.__forward_code__
    assert reference._evaluate(globals(), None, recursive_guard=frozenset()) == (dict[str, int] | None)
    with pytest.raises(SyntaxError):
        typing.ForwardRef("not an expression (")


def test_a_file_of_another_python_or_that_others_could_write_is_not_used(installed: CodeCache, tmp_path: Path) -> None:
    _point()
    installed.write()
    path = installed.path
    assert path.stat().st_mode & 0o777 == 0o600
    assert code_cache._read(path)
    path.chmod(0o620)  # another member of the group could have written it
    assert code_cache._read(path) == {}
    path.chmod(0o600)
    data = path.read_bytes()
    path.write_bytes(b"\0\0\0\0" + data[len(importlib.util.MAGIC_NUMBER) :])  # another Python's
    assert code_cache._read(path) == {}
    path.write_bytes(importlib.util.MAGIC_NUMBER + b"not marshal")
    assert code_cache._read(path) == {}


# A process that loads the window's controllers and store (``cli/run``, ``controllers.session``: Qt-free, so the
# core half runs it too) with the cache of ``home`` installed, as ``ui/start.prepared_application`` installs it,
# and says how many sources it compiled.
_LOAD = """
import json, sys
from pathlib import Path
from xworkmate import code_cache
cache = code_cache.install(Path(sys.argv[1]))
compiled = []
real = code_cache._compile
code_cache._compile = lambda *args: compiled.append(args[0]) or real(*args)
import xworkmate.cli.run, xworkmate.controllers.session
generated = sum(1 for _source, filename, _mode, _flags in cache.codes if filename.startswith("<sqlalchemy generated"))
print(json.dumps({"compiled": len(compiled), "kept": len(cache.codes), "sqlalchemy": generated}))
"""


def _started(script: str, home: Path) -> dict[str, int]:
    """What ``script``, run in a fresh interpreter with the cache of ``home``, printed last (counts)."""
    proc = fresh_python(script, str(home))
    assert proc.returncode == 0, proc.stderr
    counts: dict[str, int] = json.loads(proc.stdout.strip().splitlines()[-1])
    return counts


def test_the_second_start_compiles_none_of_the_window_codes_dataclasses_and_references(tmp_path: Path) -> None:
    """The first load of the controllers' code compiles its dataclasses' functions, its annotations and the
    functions SQLAlchemy generates (hundreds) and keeps them; the next compiles none of them."""
    first = _started(_LOAD, tmp_path)
    assert first["compiled"] > 300 and first["kept"] == first["compiled"] and first["sqlalchemy"] > 100
    assert _started(_LOAD, tmp_path) == {"compiled": 0, "kept": first["kept"], "sqlalchemy": first["sqlalchemy"]}


# The same load, counting the sources that still reach the builtins' compiler, by the module that asks: a
# namedtuple's ``__new__`` (``collections``), the annotations of the store's mapped classes
# (``sqlalchemy.util.typing``), SQLAlchemy's generated functions and pydantic's checks (``typing_inspection``).
_TO_THE_COMPILER = """
import builtins, collections, json, sys
from pathlib import Path
asked = collections.Counter()

def counted(builtin):
    def call(source, *args, **kwargs):
        if isinstance(source, str):
            asked[sys._getframe(1).f_globals.get("__name__", "?")] += 1
        return builtin(source, *args, **kwargs)
    return call

builtins.compile, builtins.eval, builtins.exec = map(counted, (builtins.compile, builtins.eval, builtins.exec))
from xworkmate import code_cache
code_cache.install(Path(sys.argv[1]))
asked.clear()  # what loaded before the cache was there (this script's own imports) is not its to keep
import xworkmate.cli.run, xworkmate.controllers.session
collections.namedtuple("Kept", "a b")
print(json.dumps(asked))
"""


def test_the_second_start_evaluates_namedtuples_and_mapped_annotations_from_kept_code(tmp_path: Path) -> None:
    """What ``collections``, SQLAlchemy's annotation reader and ``typing_inspection`` compile from strings goes
    through the cache too (issue 34 item 4: ~300 sources a start, the store's ~250 ``Mapped`` annotations among
    them): the next start compiles none of them; before, each start evaluated them all again."""
    first = _started(_TO_THE_COMPILER, tmp_path)
    assert first.get("xworkmate.code_cache", 0) > 250  # compiled once, through the cache
    again = _started(_TO_THE_COMPILER, tmp_path)
    shadowed = (
        "collections",
        "sqlalchemy.util.typing",
        "sqlalchemy.util.langhelpers",
        "typing_inspection.typing_objects",
        "xworkmate.code_cache",
    )
    assert {name: count for name, count in again.items() if name in shadowed} == {}, again
