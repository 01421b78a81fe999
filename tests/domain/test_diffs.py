"""How the changes view reads a unified diff (issue 16, LOOP-1): line kinds and hunk numbering."""

from __future__ import annotations

from xworkmate.agents.checkpoints import split_hunks
from xworkmate.domain.diffs import DiffLineKind, diff_line_kind, hunk_at, hunk_starts

PATCH = """diff --git a/notes.txt b/notes.txt
index 1111111..2222222 100644
--- a/notes.txt
+++ b/notes.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
@@ -8,3 +8,4 @@ eight
 nine
-ten
+TEN
+eleven
\\ No newline at end of file
"""


def kinds(patch: str) -> list[DiffLineKind]:
    found, in_hunk = [], False
    for line in patch.splitlines():
        kind = diff_line_kind(line, in_hunk=in_hunk)
        in_hunk = kind is not DiffLineKind.FILE and (in_hunk or kind is DiffLineKind.HUNK)
        found.append(kind)
    return found


def test_line_kinds_tell_file_headers_from_removed_and_added_lines() -> None:
    F, H, A, R, C, N = (DiffLineKind.FILE, DiffLineKind.HUNK, DiffLineKind.ADDED, DiffLineKind.REMOVED,
                        DiffLineKind.CONTEXT, DiffLineKind.NOTE)  # fmt: skip
    assert kinds(PATCH) == [F, F, F, F, H, C, R, A, C, H, C, R, A, A, N]
    assert diff_line_kind("--- a/x", in_hunk=False) is DiffLineKind.FILE
    assert diff_line_kind("--- a/x", in_hunk=True) is DiffLineKind.REMOVED  # a removed line "-- a/x"


def test_hunks_are_numbered_as_the_checkpoint_controller_numbers_them() -> None:
    lines = PATCH.splitlines()
    starts = hunk_starts(lines)
    _header, hunks = split_hunks(PATCH)
    assert len(starts) == len(hunks) == 2
    assert [lines[s] for s in starts] == [h.splitlines()[0] for h in hunks]
    assert [hunk_at(starts, n) for n in (0, 3, 4, 8, 9, 14)] == [None, None, 0, 0, 1, 1]
