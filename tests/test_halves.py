"""Issue 33 item 5: the suite's two halves (tests/support/halves.py) hold each test once.

The real check collects both venvs (``make test`` runs ``python -m tests.support.halves check``); here,
cheaply, its arithmetic and its path list.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.halves import CORE, CORE_IGNORES, QT, QT_PATHS, ROOT, Half, Split, is_qt_path, run_together


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


def test_halves_run_side_by_side_print_each_log_whole_and_fail_if_either_fails(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """``make test`` runs both halves at once: each half's log is printed in one piece when it ends (the
    quick one first), and the status is non-zero when one half fails."""
    (tmp_path / "test_quick.py").write_text("def test_quick_one():\n    pass\n")
    (tmp_path / "test_slow.py").write_text(
        "import time\n\ndef test_slow_one():\n    time.sleep(1.5)\n    assert False, 'the slow half fails'\n"
    )

    def half(name: str) -> Half:
        # The core half's venv and plugin flags (no pytest-qt), on one small file of its own.
        return Half(name, CORE.venv, (*CORE.args[:4], "--rootdir", str(tmp_path), str(tmp_path / f"test_{name}.py")))

    assert run_together([half("slow"), half("quick")]) == 1
    out = capfd.readouterr().out
    quick_log = out.index("test_quick.py"), out.index("1 passed")
    slow_log = out.index("test_slow.py"), out.index("1 failed")
    assert quick_log[0] < quick_log[1] < slow_log[0] < slow_log[1]  # whole, one after the other
    assert "the slow half fails" in out[slow_log[0] :]
    assert "quick half (.venv-core): wall time" in out and "slow half (.venv-core): wall time" in out
    assert run_together([half("quick")]) == 0
