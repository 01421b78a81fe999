"""The language preference (issue 20): a small file beside the data, readable before the store opens."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from xworkmate.preferences import (
    LANGUAGE_ENV,
    Language,
    Preferences,
    chosen_language,
    load_preferences,
    preferences_path,
    save_preferences,
)


def test_no_file_means_follow_the_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    assert load_preferences(tmp_path) == Preferences()
    assert chosen_language(tmp_path) is Language.SYSTEM


def test_a_saved_language_is_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    home = tmp_path / "not-yet-created"
    save_preferences(home, Preferences(language=Language.CHINESE))
    assert chosen_language(home) is Language.CHINESE
    assert [p.name for p in home.iterdir()] == ["preferences.json"]  # no temporary file left behind


@pytest.mark.parametrize("content", ["{not json", '{"language": "klingon"}', "[1, 2]", "\udcff"])
def test_a_bad_file_logs_one_line_and_gives_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, content: str
) -> None:
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    preferences_path(tmp_path).write_bytes(content.encode("utf-8", "surrogateescape"))
    with caplog.at_level(logging.WARNING, logger="xworkmate.preferences"):
        assert load_preferences(tmp_path) == Preferences()
    assert len(caplog.records) == 1 and str(preferences_path(tmp_path)) in caplog.records[0].getMessage()


def test_unknown_keys_of_a_newer_version_are_ignored(tmp_path: Path) -> None:
    preferences_path(tmp_path).write_text('{"language": "en", "later": true}', encoding="utf-8")
    assert load_preferences(tmp_path).language is Language.ENGLISH


def test_the_environment_overrides_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    save_preferences(tmp_path, Preferences(language=Language.CHINESE))
    monkeypatch.setenv(LANGUAGE_ENV, "en")
    assert chosen_language(tmp_path) is Language.ENGLISH
    monkeypatch.setenv(LANGUAGE_ENV, "tlh")  # not a language we speak: the file's choice, and one line
    with caplog.at_level(logging.WARNING, logger="xworkmate.preferences"):
        assert chosen_language(tmp_path) is Language.CHINESE
    assert len(caplog.records) == 1 and LANGUAGE_ENV in caplog.records[0].getMessage()
