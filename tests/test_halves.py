"""Issue 33 item 5: the suite's two halves (tests/support/halves.py) hold each test once.

The real check collects both venvs (``make test`` runs ``python -m tests.support.halves check``); here,
cheaply, its arithmetic and its path list.
"""

from __future__ import annotations

from tests.support.halves import CORE, CORE_IGNORES, QT, QT_PATHS, ROOT, Split, is_qt_path


def test_a_test_in_neither_half_or_in_both_is_named() -> None:
    found = Split(["a::x", "b::y", "c::z"], qt={"a::x", "b::y"}, core={"b::y", "d::w"})
    assert found.in_neither == ["c::z"]
    assert found.in_both == ["b::y"]
    assert found.unknown == ["d::w"]
    whole = Split(["a::x", "b::y"], qt={"a::x"}, core={"b::y"})
    assert (whole.in_neither, whole.in_both, whole.unknown) == ([], [], [])


def test_every_qt_path_exists_and_the_core_venv_skips_only_qt_paths() -> None:
    assert [path for path in QT_PATHS if not (ROOT / path).exists()] == []
    assert all(is_qt_path(path) for path in CORE_IGNORES)
    assert is_qt_path("tests/ui/test_app.py") and not is_qt_path("tests/uix/test_a.py")
    assert not is_qt_path("tests/store/test_search.py")


def test_the_halves_select_by_the_qt_marker_in_their_own_venvs() -> None:
    assert QT.venv == ".venv" and QT.args == ("-m", "qt")
    assert CORE.venv == ".venv-core" and CORE.args[4:6] == ("-m", "not qt")
    assert "no:pytest-qt" in CORE.args
