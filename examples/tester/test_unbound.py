"""A line whose folder is gone cannot send; the text stays and nothing reaches the model (ISO-4, ISO-7)."""

import shutil
from pathlib import Path

import pytest

from xworkmate.testing.driver import SendDisabled


def test_an_unbound_line_cannot_send(xwm_llm, xwm_window, tmp_path: Path) -> None:
    driver = xwm_window.driver
    folder = tmp_path / "project"
    folder.mkdir()
    key = driver.new_line("Doomed")
    driver.bind(key, folder)
    shutil.rmtree(folder)
    driver.select("main")
    driver.select(key)  # coming back, the window sees the folder is gone

    with pytest.raises(SendDisabled):
        driver.send("are you there?")

    assert "folder" in driver.status_text.lower()
    assert driver.composer_text == "are you there?"
    assert xwm_llm.chat_requests == []
