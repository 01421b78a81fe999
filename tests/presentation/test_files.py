"""A file's preview, read without Qt (issue 19, item 3): this file runs in the core's install."""

from __future__ import annotations

import os
from pathlib import Path

from xworkmate.presentation.files import (
    LONG_LINE_CHARS,
    PREVIEW_LIMIT,
    LineCutter,
    human_size,
    line_cut_note,
    read_preview,
)


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


def test_a_minified_files_long_line_is_previewed_cut_and_says_how_much_is_not_shown(tmp_path: Path) -> None:
    """Issue 34 (LOOP-1): the preview lays a line out whole on the GUI thread; a bundle's one line of
    200,000 characters is shown up to ``LONG_LINE_CHARS`` and says how many more it has."""
    bundle = tmp_path / "app.min.js"
    bundle.write_text("// built\n" + "x" * 200_000 + "\nend\n")
    result = read_preview(bundle)
    first, long, last, after = result.text.split("\n")
    assert (first, last, after) == ("// built", "end", "")
    assert long == "x" * LONG_LINE_CHARS + " … 199000 more characters on this line, not shown"
    assert result.note.startswith("app.min.js — ")  # the file was read whole: no "too large"

    plain = tmp_path / "plain.txt"
    plain.write_text("a line\n" * 1_000)
    assert read_preview(plain).text == "a line\n" * 1_000  # nothing cut, nothing added


def test_a_line_cutter_cuts_a_line_that_passes_its_limit_across_pieces_once_and_starts_again_at_a_newline() -> None:
    cutter = LineCutter(10)
    note = line_cut_note(10)
    pieces = ["abc", "defgh", "ijklmnop", "qrs\nshort\n", "0123456789", "X\nend"]
    assert [cutter.feed(piece) for piece in pieces] == [
        "abc",
        "defgh",
        "ij" + note,
        "\nshort\n",
        "0123456789",
        note + "\nend",
    ]
    assert note == " … the rest of this line (longer than 10 characters) is not shown"
