"""Which command lines start the window before the stack loads (``cli/gui``, issue 19 item 7)."""

from __future__ import annotations

import argparse

import pytest

from xworkmate.cli import build_parser
from xworkmate.cli import gui as cli_gui


@pytest.fixture(autouse=True)
def _window_libraries_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in the full install; the Qt-free core job runs these too."""
    monkeypatch.setattr(cli_gui, "missing_gui_modules", lambda: [])


@pytest.mark.parametrize(("argv", "smoke_test"), [([], False), (["gui"], False), (["gui", "--smoke-test"], True)])
def test_a_command_line_that_only_starts_the_window_is_read_without_the_full_parser(
    argv: list[str], smoke_test: bool
) -> None:
    assert cli_gui.gui_arguments(argv) == argparse.Namespace(smoke_test=smoke_test)


@pytest.mark.parametrize(
    "argv", [["gui", "--help"], ["gui", "-h"], ["gui", "--bogus"], ["gui", "extra"], ["thread", "list"], ["--version"]]
)
def test_any_other_command_line_goes_to_the_full_parser(argv: list[str]) -> None:
    assert cli_gui.gui_arguments(argv) is None


def test_without_the_window_libraries_the_full_parser_says_how_to_install_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli_gui, "missing_gui_modules", lambda: ["PySide6"])
    assert cli_gui.gui_arguments(["gui"]) is None


def test_the_full_parser_reads_the_gui_command_with_the_same_options() -> None:
    args = build_parser().parse_args(["gui", "--smoke-test"])
    assert args.smoke_test is True and args.command == "gui"
