"""The Changes tab and the "n files changed" chips (issue 16, items 2 and 3; LOOP-1).

Turns are made by the scripted OpenAI-compatible server: the agent's ``run_command`` writes, edits and
deletes files in the line's folder, checkpointed by the real shadow git repository. The tab is driven
with real clicks on ``changesView``, ``changesFileList``, ``diffView``, ``revertHunkButton``,
``revertFileButton``, ``restoreTurnButton`` and ``undoRestoreButton``; the conversation's chip is
clicked where the delegate paints it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QPoint, Qt
from PySide6.QtGui import QAction, QTextCursor
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from tests.support.git_repos import make_repo
from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import ChangeScope, FileChange, FileChangeKind
from xworkmate.presentation.files import LONG_LINE_CHARS
from xworkmate.testing.openai_server import OpenAIServer, TextReply, ToolCallReply
from xworkmate.ui import MainWindow
from xworkmate.ui.changes.changes_view import ChangedFilesModel, ChangesView, DiffView, FileListing, RestoreChoice
from xworkmate.ui.conversation import CHIP_ROLE, MESSAGE_ID_ROLE
from xworkmate.ui.message_text import MessageTextView

from .conftest import open_window
from .support import click_line, finished, message_texts, open_new_line, send
from .support_runs import call, run, send_and_finish, wait_until

TURN_1 = (
    "printf 'one\\ntwo\\nthree\\nfour\\nfive\\nsix\\nseven\\neight\\nnine\\nten\\n' > notes.txt;"
    " printf 'old\\n' > old.txt"
)
TURN_2 = (
    "printf 'one\\nTWO\\nthree\\nfour\\nfive\\nsix\\nseven\\neight\\nnine\\nTEN\\neleven\\n' > notes.txt;"
    " rm old.txt; printf 'new\\n' > new.txt"
)


def idle(loop: asyncio.AbstractEventLoop, view: ChangesView) -> None:
    run(loop, wait_until(lambda: not view.busy, what="the changes view's answers"))


def turn(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, window: MainWindow, server: OpenAIServer, command: str, words: str
) -> None:
    """A turn on the shown line whose agent runs ``command`` in the line's folder, sent as a person does."""
    server.script(ToolCallReply([call("run_command", command=command)]), TextReply([f"Done: {words}."]))
    send_and_finish(qtbot, loop, window, words)


def chip_rows(window: MainWindow) -> dict[int, str]:
    model = window.message_model
    rows = {}
    for row in range(model.stored_count):
        chip = model.index(row, 0).data(CHIP_ROLE)
        if chip:
            rows[row] = str(chip)
    return rows


def click_chip(qtbot: QtBot, window: MainWindow, row: int) -> None:
    view = window.message_list
    index = window.message_model.index(row, 0)
    QApplication.processEvents()  # a pane just hidden or shown: the conversation gets its new width
    view.viewport().repaint()  # the rows as a person sees them: laid out again at that width, painted
    view.scrollTo(index)
    rect = view.visualRect(index)
    chip = view.message_delegate.chip_rect(rect, str(index.data(CHIP_ROLE)), view.font())
    # As a person does: the mouse comes over the row first, which opens its text for selecting (issue 30:
    # the click then went to that text, a caret in the message, and the tab never opened).
    qtbot.mouseMove(view.viewport(), pos=rect.center())
    qtbot.mouseMove(view.viewport(), pos=chip.center().toPoint())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=chip.center().toPoint())


def shown_paths(view: ChangesView) -> list[str]:
    model = view.file_model
    return [str(model.index(r, 1).data()) for r in range(model.rowCount())]


def click_file(qtbot: QtBot, view: ChangesView, path: str) -> None:
    row = view.file_model.row_of(path)
    assert row is not None, f"{path} is not in the list"
    rect = view.file_list.visualRect(view.file_model.index(row, 1))
    qtbot.mouseClick(view.file_list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def click_diff_line(qtbot: QtBot, view: ChangesView, starts_with: str) -> None:
    """Click in ``diffView`` on the first line starting with ``starts_with``."""
    diff = view.diff_view
    block = diff.document().begin()
    while block.isValid() and not block.text().startswith(starts_with):
        block = block.next()
    assert block.isValid(), f"no diff line starts with {starts_with!r}"
    cursor = QTextCursor(block)
    diff.setTextCursor(cursor)
    diff.centerCursor()
    rect = diff.cursorRect(cursor)
    qtbot.mouseClick(diff.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.left() + 30, rect.center().y()))


def listed(view: ChangesView) -> dict[str, tuple[str, str, str]]:
    model = view.file_model
    return {
        str(model.index(r, 1).data(ChangedFilesModel.PATH_ROLE)): tuple(  # type: ignore[misc]
            str(model.index(r, c).data()) for c in (0, 2, 3)
        )
        for r in range(model.rowCount())
    }


def test_chip_opens_the_turn_and_its_hunk_file_and_folder_are_reverted_restored_and_undone(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    view = window.workspace.changes_view
    line = open_new_line(qtbot, window, "Edits", permission="full")
    folder = Path(line.workspace_binding.path or "")

    turn(qtbot, loop, window, openai_server, TURN_1, "write the notes")
    turn(qtbot, loop, window, openai_server, TURN_2, "edit the notes")
    run(loop, wait_until(lambda: len(chip_rows(window)) == 2, what="a chip on each turn"))
    chips = chip_rows(window)
    assert list(chips.values()) == ["2 files changed", "3 files changed"]
    last_row = max(chips)
    turns = agent_controller.checkpoints.turns(line.thread_id)
    assert window.message_model.index(last_row, 0).data(MESSAGE_ID_ROLE) == turns[-1].message_id

    # The chip opens turn 2 in the Changes tab.
    assert window.workspace_pane.tabs.currentWidget() is not view
    click_chip(qtbot, window, last_row)
    assert window.workspace_pane.tabs.currentWidget() is view
    text = window.message_list.text_view()
    assert text is None or not text.hasFocus()  # no caret put into the message
    assert window.findChild(QWidget, "changesView") is view
    idle(loop, view)
    assert view.scope is ChangeScope.TURN and view.shown_turn == 2
    assert listed(view) == {"new.txt": ("A", "+1", "−0"), "notes.txt": ("M", "+3", "−2"), "old.txt": ("D", "+0", "−1")}
    assert view.summary_label.text() == "Turn 2 changed 3 files (+4 −3)."

    click_file(qtbot, view, "notes.txt")
    idle(loop, view)
    diff = view.diff_view.toPlainText()
    assert "-two\n+TWO" in diff and "-ten\n+TEN\n+eleven" in diff
    assert view.diff_view.hunk_count == 2 and view.diff_view.isReadOnly()
    view.grab().save("/tmp/i16b_changes_diff.png")
    assert not view.revert_hunk_button.isEnabled()  # the cursor is on the file header, in no hunk

    # Revert the second hunk (TEN, eleven): the first stays.
    click_diff_line(qtbot, view, "+eleven")
    assert view.revert_hunk_button.isEnabled() and view.revert_hunk_button.text() == "Revert hunk 2"
    qtbot.mouseClick(view.revert_hunk_button, Qt.MouseButton.LeftButton)
    idle(loop, view)
    assert (folder / "notes.txt").read_text().splitlines()[-2:] == ["nine", "ten"]
    assert (folder / "notes.txt").read_text().splitlines()[1] == "TWO"
    assert "Hunk 2 of notes.txt" in view.status_label.text()
    assert view.undo_button.isVisible()

    # Revert the whole of new.txt: turn 2 added it, so it goes.
    click_file(qtbot, view, "new.txt")
    idle(loop, view)
    qtbot.mouseClick(view.revert_file_button, Qt.MouseButton.LeftButton)
    idle(loop, view)
    assert not (folder / "new.txt").exists()
    # Issue 30: the list says so (it still read "A +1" as if the file were there), the file cannot be
    # reverted twice, and the conversation records it; notes.txt, only partly taken back, is unmarked.
    assert listed(view)["new.txt"] == ("↶", "+1", "−0")
    assert listed(view)["notes.txt"] == ("M", "+3", "−2")
    assert "new.txt (reverted)" in shown_paths(view)
    assert not view.revert_file_button.isEnabled()
    notes = [m.content for m in agent_controller.lines.messages(line.thread_id) if m.source.value == "framework_event"]
    assert "Reverted new.txt to how it was before turn 2." in notes
    assert "Took back hunk 2 of notes.txt from turn 2." in notes
    qtbot.waitUntil(lambda: "Reverted new.txt to how it was before turn 2." in message_texts(window))

    # Restore the folder to before turn 2, asked first (no fork), then undo it.
    asked: list[int] = []
    view.ask_restore = lambda _parent, number: asked.append(number) or RestoreChoice(fork=False)
    before_restore = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    assert view.restore_button.text() == "Restore files to before this turn"
    qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    idle(loop, view)
    assert asked == [2]
    assert (folder / "notes.txt").read_text().splitlines()[1] == "two"
    assert (folder / "old.txt").read_text() == "old\n" and not (folder / "new.txt").exists()
    assert "before turn 2" in view.status_label.text()
    assert view.undo_button.isVisible() and view.undo_button.isEnabled()
    window.grab().save("/tmp/i16b_changes_window.png")
    window.workspace_pane.grab().save("/tmp/i16b_changes_tab.png")

    qtbot.mouseClick(view.undo_button, Qt.MouseButton.LeftButton)
    idle(loop, view)
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before_restore
    assert "undone" in view.status_label.text()

    # The whole line: every file its turns touched, turn pickers off, revert only per turn.
    view.scope_picker.setCurrentIndex(view.scope_picker.findData(ChangeScope.LINE.value))
    idle(loop, view)
    assert view.scope is ChangeScope.LINE and not view.turn_picker.isEnabled()
    # From before the first turn to after the last: old.txt came and went, so it is not listed.
    assert {path: kind for path, (kind, _a, _d) in listed(view).items()} == {"new.txt": "A", "notes.txt": "A"}
    assert not view.revert_file_button.isEnabled() and not view.restore_button.isEnabled()


def test_restore_can_fork_the_line_and_is_refused_while_a_turn_runs(
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    agent_controller: SessionController,
    openai_server: OpenAIServer,
) -> None:
    window = agent_window
    view = window.workspace.changes_view
    line = open_new_line(qtbot, window, "Fork me", permission="full")
    folder = Path(line.workspace_binding.path or "")
    turn(qtbot, loop, window, openai_server, TURN_1, "write the notes")
    window.workspace_pane.show_changes_tab()
    idle(loop, view)
    assert view.shown_turn == 1

    # While a turn runs on the line, a restore is refused in one line and nothing changes (LOOP-1).
    openai_server.script(ToolCallReply([call("run_command", command="sleep 3")]), TextReply(["Slept."]))
    send(qtbot, window, "sleep a little")
    running = lambda: any(row.kind == "tool" for row in window.message_model.live_rows)  # noqa: E731
    run(loop, wait_until(running, what="the command to run"))
    view.ask_restore = lambda _parent, _number: RestoreChoice(fork=False)

    async def click_restore() -> None:
        # Clicked with the loop running, as in the app: the Qt events the click processes may include the
        # command's end, and the turn steps on its loop (outside it: "no running event loop").
        qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
        await wait_until(lambda: not view.busy, what="the changes view's answers")

    run(loop, click_restore())
    assert "running a turn" in view.status_label.text() and "\n" not in view.status_label.text()
    assert (folder / "notes.txt").exists()
    run(loop, wait_until(finished(agent_controller, line.thread_id), what="the turn to finish"), timeout=30)

    # A folder changed by hand since its last checkpoint: refused, unless the person says "even over" them.
    (folder / "by-hand.txt").write_text("mine\n")
    qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    idle(loop, view)
    assert "since its last checkpoint" in view.status_label.text() and (folder / "notes.txt").exists()

    lines_before = {s.thread_id for s in agent_controller.lines.list_lines()}
    view.ask_restore = lambda _parent, _number: RestoreChoice(fork=True, force=True)
    view.turn_picker.setCurrentIndex(view.turn_picker.findData(1))
    idle(loop, view)
    qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    idle(loop, view)
    assert not (folder / "notes.txt").exists() and not (folder / "old.txt").exists()
    forks = {s.thread_id for s in agent_controller.lines.list_lines()} - lines_before
    assert len(forks) == 1
    assert f"forked there as {next(iter(forks))}" in view.status_label.text()
    qtbot.mouseClick(view.undo_button, Qt.MouseButton.LeftButton)
    idle(loop, view)
    assert (folder / "by-hand.txt").read_text() == "mine\n"  # the hand-made change came back with the undo


def test_uncommitted_scope_is_offered_only_for_a_repository_folder(
    qtbot: QtBot, sqlite_controller: SessionController, tmp_path: Path
) -> None:
    window = open_window(qtbot, sqlite_controller)
    view = window.workspace.changes_view
    window.workspace_pane.show_changes_tab()
    scopes = [view.scope_picker.itemData(i) for i in range(view.scope_picker.count())]
    assert scopes == ["turn", "line"]  # main's folder is not a repository
    qtbot.waitUntil(lambda: not view.busy)
    assert view.summary_label.text() == "No turn on this line has changed files yet."

    repo = make_repo(tmp_path / "project", {"a.txt": "one\n"})
    line = sqlite_controller.lines.create_line("In a repo", workspace=repo)
    (repo / "a.txt").write_text("one\ntwo\n")
    click_line(qtbot, window, line.thread_id)
    scopes = [view.scope_picker.itemData(i) for i in range(view.scope_picker.count())]
    assert scopes == ["turn", "line", "uncommitted"]
    view.scope_picker.setCurrentIndex(2)
    qtbot.waitUntil(lambda: not view.busy and view.file_model.rowCount() == 1)
    assert listed(view) == {"a.txt": ("M", "+1", "−0")}
    qtbot.waitUntil(lambda: "+two" in view.diff_view.toPlainText())
    assert not view.revert_hunk_button.isEnabled() and not view.restore_button.isEnabled()


def test_the_file_model_passes_the_model_tester(qtmodeltester: ModelTester) -> None:
    model = ChangedFilesModel()
    model.set_files(
        [
            FileChange(path="a.py", kind=FileChangeKind.ADDED, additions=3, deletions=0),
            FileChange(path="img.png", kind=FileChangeKind.MODIFIED, additions=0, deletions=0, binary=True),
            FileChange(path="big.bin", kind=FileChangeKind.DELETED, additions=0, deletions=0, too_large=True),
        ]
    )
    qtmodeltester.check(model)
    assert [model.index(r, 2).data() for r in range(3)] == ["+3", "binary", "large"]


@pytest.mark.parametrize("lines", [200, 2000])
def test_a_long_diff_is_coloured_in_runs_not_per_line(qtbot: QtBot, lines: int) -> None:
    """The diff goes in as one run per stretch of same-kind lines: blocks carry their kind's tint."""
    diff = DiffView()
    qtbot.addWidget(diff)
    body = ["diff --git a/f b/f", "--- a/f", "+++ b/f", "@@ -1,3 +1,3 @@"]
    body += [("+" if i % 3 == 0 else "-" if i % 3 == 1 else " ") + f"line {i}" for i in range(lines)]
    diff.set_patch("\n".join(body) + "\n")
    assert diff.loading is (len(body) > DiffView.FIRST_LINES)  # a long patch: the first screenfuls at once
    qtbot.waitUntil(lambda: not diff.loading)
    assert diff.document().blockCount() == len(body)
    assert diff.toPlainText() == "\n".join(body)
    added = diff.document().findBlockByNumber(4)
    removed = diff.document().findBlockByNumber(5)
    context = diff.document().findBlockByNumber(6)
    assert added.blockFormat().background().color().green() > added.blockFormat().background().color().red()
    assert removed.blockFormat().background().color().red() > removed.blockFormat().background().color().green()
    assert context.blockFormat().background().style() == Qt.BrushStyle.NoBrush


def test_a_minified_files_line_of_a_megabyte_is_shown_cut_and_the_patch_stays_whole(qtbot: QtBot) -> None:
    """Issue 34 (LOOP-1): Qt lays a line out whole at each paint and sideways scroll (1 MB: ~0.2 s to go in,
    ~0.13 s a scroll step). The diff shows it up to ``LONG_LINE_CHARS`` and says how many more it has;
    the lines, their colours, the hunks and the patch a revert takes are as before."""
    diff = DiffView()
    qtbot.addWidget(diff)
    before, after = "var a=" + "x" * 999_994, "var a=" + "y" * 1_000_000
    patch = f"--- a/app.min.js\n+++ b/app.min.js\n@@ -1,2 +1,2 @@\n {'k' * 40}\n-{before}\n+{after}\n"
    diff.set_patch(patch)
    qtbot.waitUntil(lambda: not diff.loading)
    document = diff.document()
    assert document.blockCount() == 6 and diff.hunk_count == 1 and diff.patch == patch
    assert document.characterCount() < 3 * LONG_LINE_CHARS + 200  # was 2 MB
    removed, added = document.findBlockByNumber(4), document.findBlockByNumber(5)
    assert removed.text() == "-" + before[: LONG_LINE_CHARS - 1] + " … 999001 more characters on this line, not shown"
    assert added.text() == "+" + after[: LONG_LINE_CHARS - 1] + " … 999007 more characters on this line, not shown"
    assert added.blockFormat().background().color().green() > added.blockFormat().background().color().red()
    assert document.findBlockByNumber(3).text() == " " + "k" * 40  # a short line whole


def test_a_long_diff_of_long_lines_goes_in_by_characters_as_well_as_by_lines(qtbot: QtBot) -> None:
    """The first chunk stops at ``CHUNK_CHARS`` characters (a new file of 1,200 lines of 900 characters
    went in whole at once: a run is no longer added whole); every line is there once loaded."""
    diff = DiffView()
    qtbot.addWidget(diff)
    body = ["--- /dev/null", "+++ b/data.csv", "@@ -0,0 +1,1200 @@"] + [f"+{i:04} " + "z" * 895 for i in range(1200)]
    diff.set_patch("\n".join(body) + "\n")
    assert diff.loading and diff.document().characterCount() <= DiffView.CHUNK_CHARS + 2 * LONG_LINE_CHARS
    qtbot.waitUntil(lambda: not diff.loading)
    assert diff.toPlainText() == "\n".join(body)


def test_the_restore_dialog_asks_and_offers_the_fork(qtbot: QtBot) -> None:
    """The real dialog behind ``ask_restore``: cancel means no restore; the fork box is off unless ticked."""
    from xworkmate.ui.changes.changes_view import RestoreDialog

    dialog = RestoreDialog(None, 3)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.windowTitle() == "Restore files to before turn 3"
    assert dialog.choice() == RestoreChoice(fork=False, force=False)
    qtbot.mouseClick(dialog.fork_check, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert dialog.result() == RestoreDialog.DialogCode.Accepted
    assert dialog.choice() == RestoreChoice(fork=True, force=False)


def test_a_chip_brings_back_the_hidden_workspace_pane_on_the_changes_tab(
    qtbot: QtBot, loop: asyncio.AbstractEventLoop, agent_window: MainWindow, openai_server: OpenAIServer
) -> None:
    """Issue 30 (the newcomer flow): with the workspace pane hidden, the click switched a tab nobody saw."""
    window = agent_window
    open_new_line(qtbot, window, "Edits", permission="full")
    turn(qtbot, loop, window, openai_server, TURN_1, "write the notes")
    run(loop, wait_until(lambda: len(chip_rows(window)) == 1, what="the turn's chip"))
    toggle = window.findChild(QAction, "toggleWorkspacePaneAction")  # Ctrl+Alt+B
    if toggle.isChecked():  # shown (a wide window): the person hides it; a narrow window hid it already
        toggle.trigger()
    assert not window.workspace_pane.isVisible()
    # The rows wrap again at the wider width. The mouse over the conversation meanwhile opens a row's
    # selectable text; it must stand over its row's body when the rows settle, not over the chip's header.
    view = window.message_list
    QApplication.processEvents()
    qtbot.mouseMove(view.viewport(), pos=QPoint(1, 1))
    index = window.message_model.index(max(chip_rows(window)), 0)
    qtbot.mouseMove(view.viewport(), pos=view.visualRect(index).center() + QPoint(0, 12))
    qtbot.wait(250)  # the list's delayed re-layout after a resize has run
    chip = view.message_delegate.chip_rect(view.visualRect(index), str(index.data(CHIP_ROLE)), view.font())
    covering = view.viewport().childAt(chip.center().toPoint())
    assert not isinstance(covering, MessageTextView), (covering.geometry(), chip)
    editor = view.text_view()
    if editor is not None:
        row = view.text_view_index()  # the row it stands over
        body = view.message_delegate.body_rect(view.visualRect(row), view.font(), row).toAlignedRect()
        assert editor.geometry() == body
    click_chip(qtbot, window, max(chip_rows(window)))
    assert window.workspace_pane.isVisible() and window.workspace.changes_view.isVisible()
    assert window.workspace_pane.tabs.currentWidget() is window.workspace.changes_view


def _many_files(folder: str, count: int, last_lines: int) -> str:
    """A command that adds ``count`` one-line files under ``folder`` (as an ``npm install`` does, in folders of
    100) and, sorted after every other file, ``zz-<folder>.txt`` of ``last_lines`` lines."""
    return (
        f"mkdir {folder} && cd {folder} && seq {count // 100} | xargs mkdir"
        f" && for d in $(seq {count // 100}); do (cd $d && seq 100 | sed 's/$/.js/' | xargs -n 500 sh -c"
        " 'for f; do echo x > $f; done' _); done"
        f" && cd .. && seq {last_lines} > zz-{folder}.txt"
    )


def test_a_listing_names_the_rows_whose_text_may_be_the_widest_of_each_narrow_column() -> None:
    """``FileListing.of`` (made on the tab's worker): the first row of each mark and word, the row of the largest
    count (the first of equals), each file's row by its path, and the lines gained and lost in all."""
    files = [
        FileChange(path="a.py", kind=FileChangeKind.ADDED, additions=3, deletions=0),
        FileChange(path="b.py", kind=FileChangeKind.MODIFIED, additions=7, deletions=2, reverted=True),
        FileChange(path="c.png", kind=FileChangeKind.MODIFIED, additions=0, deletions=0, binary=True),
        FileChange(path="d.py", kind=FileChangeKind.MODIFIED, additions=12, deletions=40),
        FileChange(path="e.bin", kind=FileChangeKind.DELETED, additions=0, deletions=0, too_large=True),
        FileChange(path="f.py", kind=FileChangeKind.ADDED, additions=12, deletions=40),
    ]
    listing = FileListing.of(files)
    assert listing.widest == {0: (0, 1, 2, 4), 2: (3, 2, 4), 3: (3,)}  # A, ↶, M, D; +12, binary, large; −40
    assert listing.rows == {"a.py": 0, "b.py": 1, "c.png": 2, "d.py": 3, "e.bin": 4, "f.py": 5}
    assert (listing.additions, listing.deletions) == (34, 82)
    assert FileListing.of([]).widest == {0: (), 2: (), 3: ()}
    model = ChangedFilesModel()
    model.set_files(listing)
    assert model.row_of("d.py") == 3 and model.change("f.py") is files[5] and model.row_of("nope") is None


@pytest.fixture
def file_model_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times Qt has read a ``ChangedFilesModel`` (``data``); set up before the window is (PySide
    keeps a model's first lookup of the method)."""
    reads = [0]
    model_data = ChangedFilesModel.data

    def counted(model: ChangedFilesModel, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        reads[0] += 1
        return model_data(model, index, role)

    monkeypatch.setattr(ChangedFilesModel, "data", counted)
    return reads


def test_a_turn_of_thousands_of_files_is_listed_from_the_rows_on_screen_and_its_widest_count_fits(
    file_model_reads: list[int],
    qtbot: QtBot,
    loop: asyncio.AbstractEventLoop,
    agent_window: MainWindow,
    openai_server: OpenAIServer,
) -> None:
    """Issue 34 (scale): a turn that adds thousands of files (an ``npm install``) opens in the Changes tab with
    as many reads of the file model as a turn of a few hundred: the rows on screen, not every row (Qt's fit
    to contents read up to 1,000 rows a column, ~300 ms on the GUI thread); the widest count, on the last
    row, is shown whole (that fit never read it)."""
    window = agent_window
    view = window.workspace.changes_view
    open_new_line(qtbot, window, "Install", permission="full")
    turn(qtbot, loop, window, openai_server, _many_files("few", 300, 5), "install a few")
    turn(qtbot, loop, window, openai_server, _many_files("many", 3_000, 123_456), "install")
    window.workspace_pane.show_changes_tab()
    idle(loop, view)

    def reads_to_show(turn_number: int) -> int:
        file_model_reads[0] = 0
        view.turn_picker.setCurrentIndex(view.turn_picker.findData(turn_number))
        idle(loop, view)
        view.file_list.viewport().repaint()
        return file_model_reads[0]

    few = reads_to_show(1)
    assert view.file_model.rowCount() == 301 and few > 0
    many = reads_to_show(2)
    assert view.file_model.rowCount() == 3_001
    assert many < 1.5 * few, (few, many)  # before: ~3x (1,000 rows read against 300)

    last = view.file_model.row_of("zz-many.txt")
    assert last == 3_000 and view.file_model.index(last, 2).data() == "+123456"
    first, widest = (view.file_list.sizeHintForIndex(view.file_model.index(row, 2)).width() for row in (0, last))
    assert view.file_list.columnWidth(2) >= widest > first
