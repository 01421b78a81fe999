"""SessionController: keys, switching, binding and run gating (SPEC §2, seed 002 §9)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import event

from xworkmate.controllers import (
    Change,
    CurrentLineChanged,
    LineUpdated,
    SessionController,
    UnknownSessionKeyError,
    WorkspaceBindingError,
)
from xworkmate.domain.keys import MAIN_KEY, key_to_dir_name
from xworkmate.domain.messages import MessageSource
from xworkmate.domain.runs import ExecutionResult, NotRunnable
from xworkmate.domain.threads import BoundBy, ThreadStatus
from xworkmate.settings import Settings
from xworkmate.store import Store, open_store


def test_two_new_lines_get_two_keys_and_two_folders(controller: SessionController, settings: Settings) -> None:
    """Seed 002 §9.1–2, ISO-2, ISO-3."""
    a = controller.lines.create_line("A")
    b = controller.lines.create_line("B")
    assert a.thread_id != b.thread_id
    assert a.thread_id.startswith("draft:") and b.thread_id.startswith("draft:")
    path_a, path_b = Path(a.workspace_binding.path or ""), Path(b.workspace_binding.path or "")
    assert path_a != path_b
    assert path_a == settings.threads_root / key_to_dir_name(a.thread_id)
    assert path_b == settings.threads_root / key_to_dir_name(b.thread_id)
    assert path_a.is_dir() and path_b.is_dir()
    assert path_a.parent == path_b.parent == settings.threads_root
    assert path_a.name != "main" and path_b.name != "main"


def test_main_thread_exists_with_its_own_folder(controller: SessionController, settings: Settings) -> None:
    """ISO-2, ISO-10: the one main thread lives in threads/main and is the initial current line."""
    main = controller.get_thread(MAIN_KEY)
    assert main.workspace_binding.path == str(settings.threads_root / "main")
    assert controller.lines.current_key == MAIN_KEY


def test_switching_moves_the_current_key_and_the_folder_together(controller: SessionController) -> None:
    """Seed 002 §9.3, ISO-5."""
    a = controller.lines.create_line("A")
    b = controller.lines.create_line("B")
    changes: list[Change] = []
    controller.subscribe(changes.append)
    view = controller.lines.switch_session(b.thread_id)
    assert controller.lines.current_key == b.thread_id
    assert view.thread.workspace_binding.path == b.workspace_binding.path
    assert controller.lines.current_view().thread.workspace_binding.path == b.workspace_binding.path
    assert changes == [CurrentLineChanged(key=b.thread_id)]
    controller.lines.switch_session(a.thread_id)
    assert controller.lines.current_view().thread.workspace_binding.path == a.workspace_binding.path


def test_unknown_key_names_the_key_and_leaves_the_current_line(controller: SessionController) -> None:
    a = controller.lines.create_line("A")
    controller.lines.switch_session(a.thread_id)
    for bad in ("draft:01ARZ3NDEKTSV4RRFFQ69G5FAV", "no such thing"):
        with pytest.raises(UnknownSessionKeyError, match=repr(bad)):
            controller.lines.switch_session(bad)
        assert controller.lines.current_key == a.thread_id


def test_every_request_carries_the_lines_own_session_and_folder(controller: SessionController) -> None:
    """Seed 002 §9.4, ISO-6: session_id == thread_id == key; working_directory from that thread."""
    lines = [controller.lines.create_line(f"L{i}") for i in range(3)]
    for line in lines:
        controller.lines.switch_session(line.thread_id)
        request = controller.turns.prepare_run(controller.lines.current_key, "do the thing")
        assert request.session_id == request.thread_id == line.thread_id
        assert request.working_directory == line.workspace_binding.path


@pytest.mark.parametrize("key", ["", "   ", None])
def test_a_line_without_a_key_is_blocked_not_run_in_main(controller: SessionController, key: str | None) -> None:
    """Seed 002 §9.5, ISO-7."""
    with pytest.raises(NotRunnable) as info:
        controller.turns.prepare_run(key, "hello")
    assert info.value.status is ThreadStatus.NEEDS_BINDING
    assert "main" in info.value.reason


def test_a_key_without_a_thread_record_is_blocked(controller: SessionController) -> None:
    """ISO-1, ISO-4: a key with no row is needs_binding, never a fallback."""
    with pytest.raises(NotRunnable) as info:
        controller.turns.prepare_run("draft:01ARZ3NDEKTSV4RRFFQ69G5FAV", "hello")
    assert info.value.status is ThreadStatus.NEEDS_BINDING


def test_a_line_whose_folder_is_gone_is_not_runnable(controller: SessionController) -> None:
    """ISO-4, ISO-7: the folder is not silently recreated, nor replaced by main's."""
    line = controller.lines.create_line("A")
    shutil.rmtree(line.workspace_binding.path or "")
    assert controller.lines.line_view(line.thread_id).status is ThreadStatus.NEEDS_WORKSPACE
    with pytest.raises(NotRunnable) as info:
        controller.turns.prepare_run(line.thread_id, "hello")
    assert info.value.status is ThreadStatus.NEEDS_WORKSPACE
    with pytest.raises(NotRunnable):
        controller.send(line.thread_id, "hello")
    assert controller.lines.messages(line.thread_id) == []
    restored = controller.lines.restore_default_folder(line.thread_id)
    assert Path(restored.workspace_binding.path or "").is_dir()
    assert controller.turns.prepare_run(line.thread_id, "hello").working_directory == line.workspace_binding.path


def test_workspace_root_in_a_prompt_changes_nothing(controller: SessionController, tmp_path: Path) -> None:
    """Seed 002 §9.6, ISO-6: prompt text never moves the working directory."""
    line = controller.lines.create_line("A")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    prompt = f"workspace_root: {elsewhere}\nworking_directory={elsewhere}\nplease cd {elsewhere}"
    request = controller.turns.prepare_run(line.thread_id, prompt)
    assert request.working_directory == line.workspace_binding.path
    assert request.prompt == prompt
    controller.send(line.thread_id, prompt)
    after = controller.get_thread(line.thread_id)
    assert after.workspace_binding == line.workspace_binding


def test_explicit_bind_changes_the_binding(controller: SessionController, tmp_path: Path) -> None:
    """ISO-8: an explicit bind is one of the two ways a binding changes."""
    line = controller.lines.create_line("A")
    target = tmp_path / "project"
    target.mkdir()
    bound = controller.lines.bind_workspace(line.thread_id, target)
    assert bound.workspace_binding.path == str(target.resolve())
    assert bound.workspace_binding.bound_by is BoundBy.EXPLICIT
    assert controller.turns.prepare_run(line.thread_id, "x").working_directory == str(target.resolve())


@pytest.mark.parametrize("kind", ["missing", "file", "empty"])
def test_binding_to_a_missing_path_or_a_file_is_refused_with_the_reason(
    controller: SessionController, tmp_path: Path, kind: str
) -> None:
    line = controller.lines.create_line("A")
    if kind == "missing":
        target, reason = str(tmp_path / "nope"), "does not exist"
    elif kind == "file":
        (tmp_path / "f.txt").write_text("x")
        target, reason = str(tmp_path / "f.txt"), "is a file"
    else:
        target, reason = "  ", "no folder"
    with pytest.raises(WorkspaceBindingError, match=reason):
        controller.lines.bind_workspace(line.thread_id, target)
    assert controller.get_thread(line.thread_id).workspace_binding == line.workspace_binding


def test_creating_a_line_on_a_missing_folder_creates_nothing(controller: SessionController, tmp_path: Path) -> None:
    before = len(controller.lines.list_lines())
    with pytest.raises(WorkspaceBindingError):
        controller.lines.create_line("A", workspace=tmp_path / "missing")
    assert len(controller.lines.list_lines()) == before


def test_execution_result_updates_the_line_that_started_the_run(controller: SessionController, tmp_path: Path) -> None:
    """ISO-8: a result arriving after a switch updates its own line, not the current one."""
    a = controller.lines.create_line("A")
    b = controller.lines.create_line("B")
    controller.lines.switch_session(a.thread_id)
    request = controller.turns.prepare_run(a.thread_id, "build")
    controller.lines.switch_session(b.thread_id)
    resolved = tmp_path / "resolved"
    resolved.mkdir()
    changes: list[Change] = []
    controller.subscribe(changes.append)
    controller.lines.apply_execution_result(
        request.thread_id, ExecutionResult(resolved_working_directory=str(resolved), acp_session_id="s-1")
    )
    updated_a = controller.get_thread(a.thread_id)
    assert updated_a.workspace_binding.path == str(resolved)
    assert updated_a.workspace_binding.bound_by is BoundBy.EXECUTION_RESULT
    assert updated_a.execution_binding.acp_session_id == "s-1"
    assert controller.get_thread(b.thread_id).workspace_binding == b.workspace_binding
    assert controller.lines.current_key == b.thread_id
    assert changes == [LineUpdated(key=a.thread_id)]


def test_relative_folder_in_a_result_is_refused(controller: SessionController) -> None:
    line = controller.lines.create_line("A")
    with pytest.raises(WorkspaceBindingError, match="relative"):
        controller.lines.apply_execution_result(line.thread_id, ExecutionResult(resolved_working_directory="x/y"))
    assert controller.get_thread(line.thread_id).workspace_binding == line.workspace_binding


def test_sending_without_a_provider_keeps_the_message_and_says_nothing_ran(
    controller: SessionController,
) -> None:
    """Until a runner exists, Send says plainly that no provider is configured; it does not pretend."""
    line = controller.lines.create_line("A")
    outcome = controller.send(line.thread_id, "summarise the notes")
    assert outcome.ran is False
    assert "No agent provider is configured" in outcome.notice
    messages = controller.lines.messages(line.thread_id)
    assert [m.content for m in messages] == ["summarise the notes", outcome.notice]
    assert [m.source for m in messages] == [MessageSource.HUMAN, MessageSource.FRAMEWORK_EVENT]
    assert controller.lines.messages(MAIN_KEY) == []


def test_empty_message_is_refused(controller: SessionController) -> None:
    line = controller.lines.create_line("A")
    with pytest.raises(ValueError, match="empty"):
        controller.send(line.thread_id, "  \n")
    assert controller.lines.messages(line.thread_id) == []


def test_archiving_hides_the_line_and_blocks_it(controller: SessionController) -> None:
    line = controller.lines.create_line("A")
    controller.lines.switch_session(line.thread_id)
    controller.lines.archive_line(line.thread_id)
    assert line.thread_id not in {s.thread_id for s in controller.lines.list_lines()}
    assert controller.lines.current_key == MAIN_KEY
    with pytest.raises(NotRunnable) as info:
        controller.turns.prepare_run(line.thread_id, "x")
    assert info.value.status is ThreadStatus.ARCHIVED


def test_main_line_cannot_be_archived(controller: SessionController) -> None:
    with pytest.raises(ValueError, match="main"):
        controller.lines.archive_line(MAIN_KEY)


def test_current_line_survives_a_restart(database_url: str, settings: Settings) -> None:
    store = open_store(database_url)
    first = SessionController(store, settings)
    line = first.lines.create_line("keep me")
    first.lines.switch_session(line.thread_id)
    store.close()
    store = open_store(database_url)
    try:
        second = SessionController(store, settings)
        assert second.lines.current_key == line.thread_id
        assert [s.title for s in second.lines.list_lines()] == ["Main", "keep me"]
    finally:
        store.close()


def _count_statements(store: Store) -> list[str]:
    statements: list[str] = []

    def _record(_conn, _cursor, statement, _params, _context, _many):  # type: ignore[no-untyped-def]
        statements.append(statement)

    for engine in store.engines:  # writes and reads have a pool each
        event.listen(engine, "before_cursor_execute", _record)
    return statements


def test_switching_reads_one_thread_not_all(sqlite_store: Store, settings: Settings) -> None:
    """Switching cost does not grow with the number of lines: the same statements, each keyed by id."""
    controller = SessionController(sqlite_store, settings)
    keys = [controller.lines.create_line(f"L{i}").thread_id for i in range(300)]
    statements = _count_statements(sqlite_store)
    controller.lines.switch_session(keys[0])
    few = list(statements)
    for key in keys[1:]:
        statements.clear()
        controller.lines.switch_session(key)
        assert len(statements) == len(few)
    selects = [s for s in few if s.lstrip().upper().startswith("SELECT") and "threads" in s]
    assert selects and all("WHERE" in s for s in selects)
