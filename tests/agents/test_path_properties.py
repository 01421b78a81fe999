"""The file tools over generated paths: inside and single-linked, or refused (SPEC SBX-2, WR-1; issue 12).

For every path built from ``..``, ``.``, symbolic links (to a file, to a
folder, up, to itself, a loop, dangling), absolute prefixes, case variants and
the NFC/NFD forms of a non-ASCII name, a read (``read_file``,
``search_files``) or a write (``write_file``, ``edit_file``) through the tools
either succeeds on a file whose real location is inside the folder and which
has one hard link, or is refused with a ``ToolError``; nothing outside the
folder is ever read or changed. Real files, real links, a fresh tree for every
example. (The sandbox policy's half of this property is
``tests/agents/test_sandbox_policy.py``.)
"""

from __future__ import annotations

import os
import tempfile
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xworkmate.agents.confinement import ToolError
from xworkmate.agents.tools import ToolContext, edit_file, read_file, search_files, write_file
from xworkmate.agents.write_gate import EvidenceMessage
from xworkmate.domain.messages import MessageSource

ASK = "Please tidy up the project files and fix the greeting in app.py."
QUOTE = "tidy up the project files"
OUTSIDE = "MARK-OUTSIDE"  # in every file outside the folder
LINKED = "MARK-LINKED"  # in the inside files that have a second name
WRITTEN = "written by the property test\n"

CAFE_NFC = unicodedata.normalize("NFC", "café.txt")
CAFE_NFD = unicodedata.normalize("NFD", "café.txt")

# Folder-like steps, then a last component: most paths name something, many of them inside.
_STEPS = st.sampled_from(["..", ".", "", "ws", "WS", "Ws", "sub", "SUB", "self", "up", "out", "outside", "loop", "etc"])
_LAST = st.sampled_from(
    [
        "notes.txt",
        "NOTES.TXT",
        CAFE_NFC,
        CAFE_NFD,
        "deep.txt",
        "new.txt",
        "secret-link.txt",
        "hard.txt",
        "pair-a.txt",
        "pair-b.txt",
        "secret.txt",
        "hard-secret.txt",
        "dangling",
        "loop",
        "passwd",
        ".",
        "..",
    ]
)
_PREFIXES = st.sampled_from(["", "", "", "/", "{root}/", "{ws}/", "{alias}/"])
_FORMS = st.sampled_from([None, "NFC", "NFD", "NFKC"])
_OPERATIONS = st.sampled_from(["read", "search", "write", "edit"])


@dataclass(frozen=True)
class Tree:
    root: Path
    ws: Path
    alias: Path  # a symbolic link to ws, used as the working directory half the time


def _build(root: Path) -> Tree:
    ws = root / "ws"
    (ws / "sub").mkdir(parents=True)
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{OUTSIDE} secret\n")
    (outside / "hard-secret.txt").write_text(f"{OUTSIDE} {LINKED} hard\n")
    other = root / "WS"  # a case variant of the folder's name: another folder on a case-sensitive disk
    other.mkdir(exist_ok=True)
    if not (other / "notes.txt").exists():
        (other / "notes.txt").write_text(f"{OUTSIDE} look-alike\n")

    (ws / "notes.txt").write_text("MARK-INSIDE notes\n")
    (ws / CAFE_NFC).write_text("MARK-INSIDE café\n")
    (ws / "sub" / "deep.txt").write_text("MARK-INSIDE deep\n")
    (ws / "pair-a.txt").write_text(f"{LINKED} pair\n")
    os.link(ws / "pair-a.txt", ws / "pair-b.txt")
    os.link(outside / "hard-secret.txt", ws / "hard.txt")
    (ws / "out").symlink_to(outside, target_is_directory=True)
    (ws / "secret-link.txt").symlink_to(outside / "secret.txt")
    (ws / "up").symlink_to(root, target_is_directory=True)
    (ws / "self").symlink_to(ws, target_is_directory=True)
    (ws / "loop").symlink_to(ws / "loop")
    (ws / "dangling").symlink_to(outside / "planted.txt")
    alias = root / "alias"
    alias.symlink_to(ws, target_is_directory=True)
    return Tree(root=root, ws=ws, alias=alias)


@contextmanager
def _fresh_tree(factory: pytest.TempPathFactory) -> Iterator[Tree]:
    with tempfile.TemporaryDirectory(dir=factory.getbasetemp()) as raw:
        yield _build(Path(os.path.realpath(raw)))


def _outside_state(tree: Tree) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under the tree's root except the folder itself: files by content, links by target."""
    state: dict[str, tuple[str, bytes | str]] = {}
    for directory, dirnames, filenames in os.walk(tree.root):
        if Path(directory) == tree.root:
            dirnames[:] = [d for d in dirnames if d != "ws"]
        for name in [*dirnames, *filenames]:
            path = Path(directory, name)
            if path == tree.ws:
                continue
            key = str(path.relative_to(tree.root))
            if path.is_symlink():
                state[key] = ("link", os.readlink(path))
            elif path.is_file():
                state[key] = ("file", path.read_bytes())
            else:
                state[key] = ("dir", "")
    return state


def _is_inside(path: Path, ws: Path) -> bool:
    """Inside by identity: some ancestor of the real path *is* the folder."""
    real = Path(os.path.realpath(path))
    for candidate in (real, *real.parents):
        try:
            if os.path.samefile(candidate, ws):
                return True
        except OSError:
            continue
    return False


def _user_path(tree: Tree, prefix: str, parts: list[str], form: str | None) -> str:
    text = prefix.format(root=tree.root, ws=tree.ws, alias=tree.alias) + "/".join(parts)
    return unicodedata.normalize(form, text) if form else text  # type: ignore[arg-type]


@settings(
    max_examples=400,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    prefix=_PREFIXES,
    steps=st.lists(_STEPS, max_size=4),
    last=_LAST,
    form=_FORMS,
    operation=_OPERATIONS,
    through_alias=st.booleans(),
)
def test_a_file_tool_touches_only_single_linked_files_inside_the_folder(
    tmp_path_factory: pytest.TempPathFactory,
    prefix: str,
    steps: list[str],
    last: str,
    form: str | None,
    operation: str,
    through_alias: bool,
) -> None:
    """SBX-2 / WR-1 as a property: success means inside and one link; otherwise a ToolError; outside unchanged."""
    with _fresh_tree(tmp_path_factory) as tree:
        user_path = _user_path(tree, prefix, [*steps, last], form)
        evidence = [EvidenceMessage(message_id=1, text=ASK, source=MessageSource.HUMAN)]
        ctx = ToolContext.for_working_directory(tree.alias if through_alias else tree.ws, lambda: evidence)
        before = _outside_state(tree)

        try:
            if operation == "read":
                text = read_file(ctx, user_path)
                assert OUTSIDE not in text and LINKED not in text, (user_path, text)
                target = Path(os.path.realpath(os.path.join(tree.ws, user_path)))
                assert _is_inside(target, tree.ws), (user_path, target)
                assert os.stat(target).st_nlink == 1
            elif operation == "search":
                text = search_files(ctx, "MARK", path=user_path, literal=True)
                assert OUTSIDE not in text and LINKED not in text, (user_path, text)
                assert _is_inside(Path(os.path.join(tree.ws, user_path)), tree.ws), user_path
            elif operation == "write":
                outcome = write_file(ctx, user_path, WRITTEN, quote=QUOTE)
                assert _is_inside(outcome.path, tree.ws), (user_path, outcome.path)
                assert os.stat(outcome.path).st_nlink == 1
                assert outcome.path.read_text() == WRITTEN
            else:
                outcome = edit_file(ctx, user_path, "MARK-INSIDE", "EDITED", quote=QUOTE)
                assert _is_inside(outcome.path, tree.ws), (user_path, outcome.path)
                assert os.stat(outcome.path).st_nlink == 1
                assert outcome.path.read_text().startswith("EDITED")
        except ToolError:
            pass  # refused: the message is for the model; what matters is what did not happen

        assert _outside_state(tree) == before, user_path
        assert (tree.ws / "pair-a.txt").read_text() == f"{LINKED} pair\n"  # a multi-link file is never written
