"""Two lines get two folders; switching moves the key and the path (SPEC ISO-5, ISO-8)."""

from pathlib import Path


def test_two_lines_two_folders_and_switching_moves_key_and_path(xwm_window, tmp_path: Path) -> None:
    driver = xwm_window.driver
    garden, kitchen = tmp_path / "garden", tmp_path / "kitchen"
    garden.mkdir()
    kitchen.mkdir()

    first = driver.new_line("Garden")
    driver.bind(first, garden)
    second = driver.new_line("Kitchen")
    driver.bind(second, kitchen)
    assert first != second

    driver.select(first)
    assert (driver.current_key, driver.workspace_path) == (first, str(garden.resolve()))
    driver.select(second)
    assert (driver.current_key, driver.workspace_path) == (second, str(kitchen.resolve()))
    paths = {line.key: line.workspace_path for line in driver.lines()}
    assert paths[first] == str(garden.resolve()) and paths[second] == str(kitchen.resolve())
