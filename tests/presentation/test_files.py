"""A file's preview, read without Qt (issue 19, item 3): this file runs in the core's install."""

from __future__ import annotations

import os
from pathlib import Path

from xworkmate.presentation.files import PREVIEW_LIMIT, human_size, read_preview


def test_preview_says_binary_and_too_large_honestly(tmp_path: Path) -> None:
    """The preview never pretends: binary files are not shown, large ones are cut and say so."""
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    result = read_preview(binary)
    assert result.text == "" and "binary file" in result.note

    big = tmp_path / "big.txt"
    big.write_text("é" * PREVIEW_LIMIT, encoding="utf-8")  # two bytes a character: twice the limit
    result = read_preview(big)
    assert "too large" in result.note and "first 256.0 KiB" in result.note
    assert len(result.text.encode("utf-8")) <= PREVIEW_LIMIT
    assert "\ufffd" not in result.text  # the cut did not split a character

    assert "no longer exists" in read_preview(tmp_path / "gone.txt").note
    assert "is a folder" in read_preview(tmp_path).note


def test_a_fifo_is_never_opened_and_sizes_read_as_a_person_reads_them(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "not a regular file" in read_preview(fifo).note  # opening it would block the window
    assert human_size(10) == "10 bytes"
    assert human_size(3 * 1024 * 1024) == "3.0 MiB"
    small = tmp_path / "notes.txt"
    small.write_text("hello\n", encoding="utf-8")
    assert read_preview(small).text == "hello\n" and read_preview(small).note == "notes.txt — 6 bytes"
