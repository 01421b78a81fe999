"""A line cannot be bound to a folder that makes "inside the folder" meaningless (SPEC SBX-2, ISO-8).

``/``, the person's home folder (or a folder holding it) and XWorkmate's data
folder (or a folder holding it) are refused by the one check every bind goes
through: ``create_line``, ``bind_workspace`` (the CLI's ``thread new
--workspace`` / ``thread bind`` and the window's "Change folder…") and
execution results. The CLI's one-line error is tested in ``tests/cli/test_cli.py``. Real folders, real symbolic links.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.controllers.conftest import scripted_controller
from xworkmate.agents.confinement import binding_refusal
from xworkmate.code_cache import CACHE_FOLDER
from xworkmate.controllers import SessionController, WorkspaceBindingError
from xworkmate.domain.runs import ExecutionResult
from xworkmate.settings import Settings
from xworkmate.store import Store, turn_owners
from xworkmate.testing.openai_server import OpenAIServer, TextReply


@pytest.fixture
def person_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder of our own: ``Path.home()`` reads ``HOME``."""
    path = tmp_path / "person"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    assert Path.home() == path
    return path


def _refused_bind(controller: SessionController, folder: Path | str, fragment: str) -> None:
    line = controller.lines.create_line("A")
    with pytest.raises(WorkspaceBindingError, match=fragment) as caught:
        controller.lines.bind_workspace(line.thread_id, folder)
    assert "\n" not in str(caught.value)
    assert controller.get_thread(line.thread_id).workspace_binding == line.workspace_binding


def test_binding_to_slash_is_refused(sqlite_controller: SessionController) -> None:
    """SBX-2: with `/` as the folder, the whole disk would count as inside it."""
    _refused_bind(sqlite_controller, "/", "root of the file system")


def test_creating_a_line_on_slash_is_refused_and_creates_nothing(sqlite_controller: SessionController) -> None:
    """SBX-2 through ``create_line`` (``thread new --workspace /``), which then leaves no row (ERR-2)."""
    before = len(sqlite_controller.lines.list_lines())
    with pytest.raises(WorkspaceBindingError, match="root of the file system"):
        sqlite_controller.lines.create_line("A", workspace="/")
    assert len(sqlite_controller.lines.list_lines()) == before


def test_binding_to_slash_through_a_symlink_or_dot_dot_is_refused(
    sqlite_controller: SessionController, tmp_path: Path
) -> None:
    """SBX-2 compares real paths: another spelling of `/` is still `/`."""
    alias = tmp_path / "everything"
    alias.symlink_to("/", target_is_directory=True)
    _refused_bind(sqlite_controller, alias, "root of the file system")
    _refused_bind(sqlite_controller, str(tmp_path) + "/.." * 40, "root of the file system")


def test_binding_to_the_home_folder_is_refused(sqlite_controller: SessionController, person_home: Path) -> None:
    """SBX-2: the home folder itself, also as `~` or through a link."""
    _refused_bind(sqlite_controller, person_home, "it is your home folder")
    _refused_bind(sqlite_controller, "~", "it is your home folder")
    alias = person_home.parent / "home-alias"
    alias.symlink_to(person_home, target_is_directory=True)
    _refused_bind(sqlite_controller, alias, "it is your home folder")


def test_binding_to_a_folder_that_contains_the_home_folder_is_refused(
    sqlite_controller: SessionController, person_home: Path, tmp_path: Path
) -> None:
    """SBX-2: a folder above the home folder makes every personal file "inside" too."""
    project = person_home / "project"
    project.mkdir()
    assert binding_refusal(project, user_home=person_home, data_folder=tmp_path / "data") is None
    _refused_bind(sqlite_controller, person_home.parent.parent, "contains your home folder")


def test_binding_inside_a_credential_folder_the_sandbox_always_hides_is_refused(
    sqlite_controller: SessionController, person_home: Path, tmp_path: Path
) -> None:
    """SBX-3: ``~/.ssh`` stays hidden whatever shows it, so a line there could not run; a folder that only
    contains one (``~/.config`` holding ``~/.config/gh``) is fine: the sandbox hides that part."""
    inside = person_home / ".ssh" / "keys"
    inside.mkdir(parents=True)
    _refused_bind(sqlite_controller, inside, "every line's sandbox keeps hidden")
    (person_home / ".config" / "gh").mkdir(parents=True)
    assert binding_refusal(person_home / ".config", user_home=person_home, data_folder=tmp_path / "data") is None


def test_binding_to_the_data_folder_is_refused(sqlite_controller: SessionController, settings: Settings) -> None:
    """SBX-2: the data folder holds the database with every line's conversation."""
    _refused_bind(sqlite_controller, settings.home, "it is XWorkmate's data folder")


def test_binding_to_a_folder_that_contains_the_data_folder_is_refused(
    sqlite_controller: SessionController, settings: Settings, tmp_path: Path
) -> None:
    """SBX-2: a folder containing the data folder, also through a symbolic link to it."""
    assert settings.home.parent == tmp_path
    _refused_bind(sqlite_controller, tmp_path, "contains XWorkmate's data folder")
    alias = tmp_path / "elsewhere"
    alias.mkdir()
    (alias / "up").symlink_to(tmp_path, target_is_directory=True)
    _refused_bind(sqlite_controller, alias / "up", "contains XWorkmate's data folder")


def test_binding_inside_the_folder_of_code_xworkmate_runs_at_start_is_refused(
    sqlite_controller: SessionController, settings: Settings
) -> None:
    """SBX-3 (issue 34 item 4's code cache): the agent writes its line's folder, and what the data folder's
    ``cache`` holds is compiled code the window runs at its next start; other folders inside the data folder
    stay bindable, as lines' own folders live there."""
    kept = settings.home / CACHE_FOLDER
    (kept / "inner").mkdir(parents=True)
    _refused_bind(sqlite_controller, kept, "where XWorkmate keeps code it runs at start")
    _refused_bind(sqlite_controller, kept / "inner", "where XWorkmate keeps code it runs at start")
    (settings.home / "projects" / "app").mkdir(parents=True)
    line = sqlite_controller.lines.create_line("Inside the data folder", workspace=settings.home / "projects" / "app")
    assert sqlite_controller.get_thread(line.thread_id).workspace_binding.path == str(
        settings.home / "projects" / "app"
    )


def test_an_execution_result_naming_slash_is_not_applied(sqlite_controller: SessionController) -> None:
    """SBX-2 / ISO-8: a result binding is a binding too."""
    line = sqlite_controller.lines.create_line("A")
    with pytest.raises(WorkspaceBindingError, match="root of the file system"):
        sqlite_controller.lines.apply_execution_result(line.thread_id, ExecutionResult(resolved_working_directory="/"))
    assert sqlite_controller.get_thread(line.thread_id).workspace_binding == line.workspace_binding


def test_a_folder_inside_a_running_turns_folder_is_bound_once_that_turn_has_ended(
    sqlite_store: Store, settings: Settings, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """SBX-1: a turn's sandbox hides the other lines' folders of the moment it started. A line bound inside the
    folder of a line whose turn is running would be seen by that turn's agent until it ended; it is refused in
    one line, nothing stored, and bound once the turn has ended (here a real turn, its reply held)."""
    controller = scripted_controller(sqlite_store, settings, openai_server)
    projects = tmp_path / "projects"
    app = projects / "app"
    app.mkdir(parents=True)
    parent = controller.lines.create_line("parent", workspace=projects).thread_id
    elsewhere = controller.lines.create_line("elsewhere").thread_id
    openai_server.script(TextReply(["slow ", "reply"], delay=1.0))

    async def scenario() -> str:
        turn = asyncio.ensure_future(controller.turns.run_turn(parent, "work", headless=True))
        while not turn_owners.running_turns(sqlite_store):
            await asyncio.sleep(0.02)
        lines_before = sqlite_store.threads.count()
        with pytest.raises(WorkspaceBindingError, match="running") as caught:
            controller.lines.create_line("nested", workspace=app)
        with pytest.raises(WorkspaceBindingError, match="running"):
            controller.lines.bind_workspace(elsewhere, app)
        assert "\n" not in str(caught.value) and "'parent'" in str(caught.value)
        assert sqlite_store.threads.count() == lines_before
        beside = tmp_path / "beside"
        beside.mkdir()
        controller.lines.create_line("beside", workspace=beside)  # not inside it: bound at once
        outcome = await turn
        assert outcome.status == "finished", outcome.error
        return controller.lines.create_line("nested", workspace=app).thread_id

    nested = asyncio.run(scenario())
    bound = sqlite_store.threads.get(nested)
    assert bound is not None and bound.workspace_binding.path == str(app)
