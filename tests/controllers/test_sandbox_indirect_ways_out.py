"""Issue 29, rows 3, 6 and 7: what an agent leaves or reaches indirectly (SBX-2, SBX-3).

A scripted model (the real OpenAI-compatible server) drives the native agent on a ``full`` line,
with real bubblewrap and real git:

* row 3: the repository's hooks, config and info are read-only in the sandbox (and for the file
  tools), a commit inside still works; when a turn changed them anyway (here: no sandbox, the
  person allowed the command), the line says so in a notice;
* row 6: a line bound to ``projects/`` cannot read, write, list or search the folder of the line
  bound to ``projects/app``: the file tools refuse what the sandbox hides (one list);
* row 7: toolchains under the home are shown by their ``bin`` folders only, and the credentials of
  the deny-list never reach the model, while the tools on PATH still run.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.controllers.conftest import scripted_controller
from tests.support.sandboxing import answer_approvals, needs_bwrap, path_without_bwrap
from xworkmate.agents.tools import ToolContext, run_command
from xworkmate.controllers import SessionController
from xworkmate.controllers.containment import line_sandbox, sandbox_env
from xworkmate.domain.messages import MessageRole
from xworkmate.settings import Settings
from xworkmate.store import Store
from xworkmate.testing.openai_server import OpenAIServer, ScriptedToolCall, TextReply, ToolCallReply


@pytest.fixture
def person_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "person"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def agent(sqlite_store: Store, settings: Settings, openai_server: OpenAIServer, person_home: Path) -> SessionController:
    return scripted_controller(sqlite_store, settings, openai_server)


def call(name: str, call_id: str, **arguments: object) -> ScriptedToolCall:
    return ScriptedToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


def tool_outputs(controller: SessionController, key: str) -> dict[str, str]:
    return {
        (m.payload or {})["tool_call_id"]: m.content
        for m in controller.lines.messages(key)
        if m.role is MessageRole.TOOL and m.payload
    }


def notices(controller: SessionController, key: str) -> list[str]:
    return [m.content for m in controller.lines.messages(key) if m.role is MessageRole.SYSTEM]


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def repository_line(agent: SessionController, tmp_path: Path) -> tuple[str, Path]:
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "-q")
    (folder / "a.txt").write_text("a\n")
    git(folder, "add", "a.txt")
    git(folder, "commit", "-qm", "first")
    line = agent.lines.create_line("repo", workspace=folder)
    agent.line_settings.set_permission(line.thread_id, "full")
    return line.thread_id, folder


# -- row 3 ---------------------------------------------------------------------------------------------


@needs_bwrap
def test_the_repositorys_hooks_and_config_are_read_only_in_the_sandbox_and_a_commit_still_works(
    agent: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """SBX-3: as Codex keeps ``.git`` out of its writable roots. A missing ``hooks`` folder is made first,
    so it is read-only too; the file tools refuse what the sandbox keeps read-only."""
    key, folder = repository_line(agent, tmp_path)
    for hook in (folder / ".git" / "hooks").iterdir():
        hook.unlink()
    (folder / ".git" / "hooks").rmdir()
    config_before = (folder / ".git" / "config").read_text()
    commit = "echo b > b.txt && git add b.txt && git -c user.name=t -c user.email=t@x commit -qm second && echo DONE"
    openai_server.script(
        ToolCallReply(
            [
                call("run_command", "commit", command=commit),
                call("run_command", "hook", command="echo 'id > /tmp/mark' > .git/hooks/pre-commit; echo rc=$?"),
                call("run_command", "fsmonitor", command="git config core.fsmonitor 'id > /tmp/mark'; echo rc=$?"),
                call("run_command", "move", command="mv .git .git-moved; echo rc=$?"),
                call("run_command", "info", command="echo '* filter=evil' > .git/info/attributes; echo rc=$?"),
                call("write_file", "tool_hook", path=".git/hooks/post-checkout", content="x", quote=QUOTE),
                call("write_file", "tool_config", path=".git/config", content="[core]\n", quote=QUOTE),
            ]
        ),
        TextReply(["done"]),
    )
    outcome = asyncio.run(agent.turns.run_turn(key, f"please {QUOTE} now", headless=True))
    assert outcome.status == "finished", outcome.error

    out = tool_outputs(agent, key)
    assert "DONE" in out["commit"] and git(folder, "log", "--format=%s").split() == ["second", "first"]
    assert "rc=0" not in out["hook"] and "rc=0" not in out["fsmonitor"] and "rc=0" not in out["move"]
    assert "rc=0" not in out["info"]
    assert "read-only for this line" in out["tool_hook"] and "read-only for this line" in out["tool_config"]
    assert (folder / ".git" / "hooks").is_dir() and not any((folder / ".git" / "hooks").iterdir())
    assert (folder / ".git" / "config").read_text() == config_before
    assert not (folder / ".git" / "info" / "attributes").exists()
    assert not any("During this turn" in n for n in notices(agent, key))  # nothing changed: nothing said


QUOTE = "write the hooks and config of the repository"


def test_a_turn_that_changed_hooks_or_config_outside_the_sandbox_leaves_a_notice_on_the_line(
    agent: SessionController, openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SBX-3: with no sandbox (the person allowed the command at the window), the agent wrote a hook and
    ``core.fsmonitor``; git would run both as the person, so the line names them after the turn."""
    key, folder = repository_line(agent, tmp_path)
    monkeypatch.setenv("PATH", path_without_bwrap(tmp_path))
    evil = "echo 'id > /tmp/mark' > .git/hooks/pre-commit && git config core.fsmonitor 'id > /tmp/mark'"
    openai_server.script(ToolCallReply([call("run_command", "evil", command=evil)]), TextReply(["done"]))
    answer_approvals(agent, allowed=True)
    outcome = asyncio.run(agent.turns.run_turn(key, "set things up"))
    assert outcome.status == "finished", outcome.error
    assert (folder / ".git" / "hooks" / "pre-commit").exists()

    [notice] = [n for n in notices(agent, key) if "During this turn" in n]
    assert ".git/hooks/pre-commit was added" in notice and ".git/config was changed" in notice
    assert "outside the sandbox" in notice and "\n" not in notice


# -- row 6 ---------------------------------------------------------------------------------------------


@needs_bwrap
def test_a_parent_lines_file_tools_refuse_the_nested_lines_folder_as_its_sandbox_hides_it(
    agent: SessionController, openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """SBX-2: line B is bound to ``projects/``, line A to ``projects/app``. B's shell sees an empty
    ``app/``; its read_file, write_file, edit_file, list_dir and search_files refuse or skip it."""
    projects = tmp_path / "projects"
    app = projects / "app"
    app.mkdir(parents=True)
    (app / "secret.txt").write_text("A-SECRET-MARKER\n")
    (projects / "mine.txt").write_text("B-OWN-MARKER\n")
    agent.lines.create_line("A", workspace=app)
    b = agent.lines.create_line("B", workspace=projects).thread_id
    agent.line_settings.set_permission(b, "full")
    quote = "write planted.txt into the app folder"
    openai_server.script(
        ToolCallReply(
            [
                call("read_file", "read", path="app/secret.txt"),
                call("read_file", "read_abs", path=str(app / "secret.txt")),
                call("write_file", "write", path="app/planted.txt", content="planted", quote=quote),
                call("edit_file", "edit", path="app/secret.txt", old="A-SECRET", new="B", quote=quote),
                call("list_dir", "list_root", path="."),
                call("list_dir", "list_app", path="app"),
                call("search_files", "search", pattern="MARKER"),
                call("search_files", "search_app", pattern="MARKER", path="app"),
                call("run_command", "shell", command="ls -a app; cat app/secret.txt"),
            ]
        ),
        TextReply(["done"]),
    )
    outcome = asyncio.run(agent.turns.run_turn(b, f"please {quote}", headless=True))
    assert outcome.status == "finished", outcome.error

    out = tool_outputs(agent, b)
    assert all("A-SECRET-MARKER" not in text for text in out.values()), out
    for refused in ("read", "read_abs", "write", "edit", "list_app", "search_app"):
        assert "hidden from this line" in out[refused], (refused, out[refused])
        assert "\n" not in out[refused]
    assert not (app / "planted.txt").exists() and (app / "secret.txt").read_text() == "A-SECRET-MARKER\n"
    assert "mine.txt" in out["list_root"] and "app" not in out["list_root"]
    assert "B-OWN-MARKER" in out["search"]
    sent = json.dumps([r.body for r in openai_server.chat_requests])
    assert "A-SECRET-MARKER" not in sent


# -- row 7 ---------------------------------------------------------------------------------------------


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


@needs_bwrap
def test_toolchains_on_path_run_but_their_parents_and_the_credentials_stay_hidden(
    agent: SessionController,
    openai_server: OpenAIServer,
    person_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SBX-3: ``~/.local/bin`` and ``~/.cargo/bin`` on PATH show those folders (and a pipx tool's
    virtualenv they link into), not ``~/.local`` and ``~/.cargo``; the keyring file and the cargo
    token are never shown."""
    home = person_home
    _script(home / ".local/bin/hello", "echo HELLO-LOCAL")
    _script(home / ".cargo/bin/cargo-hello", "echo HELLO-CARGO")
    venv = home / ".local/pipx/venvs/tool"
    _script(venv / "bin/pipxtool", 'cat "$(dirname "$(readlink -f "$0")")/../lib/data.txt"')
    (venv / "lib").mkdir()
    (venv / "lib/data.txt").write_text("HELLO-PIPX\n")
    (home / ".local/bin/pipxtool").symlink_to(venv / "bin/pipxtool")
    secrets = {
        ".local/share/python_keyring/keyring_pass.cfg": "[xworkmate]\nlocal = SECRET-KEYRING\n",
        ".cargo/credentials.toml": '[registry]\ntoken = "SECRET-CARGO"\n',
        ".cargo/credentials": "SECRET-CARGO-OLD\n",
        ".local/share/keyrings/login.keyring": "SECRET-GNOME\n",
        ".local/share/notes.txt": "SECRET-NOT-A-TOOLCHAIN\n",
    }
    for name, text in secrets.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    monkeypatch.setenv("PATH", f"{home}/.local/bin:{home}/.cargo/bin:{os.environ['PATH']}")
    folder = tmp_path / "project"
    folder.mkdir()
    key = agent.lines.create_line("tools", workspace=folder).thread_id
    agent.line_settings.set_permission(key, "full")
    cat = "cat " + " ".join(f"~/{name}" for name in secrets)
    openai_server.script(
        ToolCallReply(
            [
                call("run_command", "cat", command=cat),
                call("run_command", "ls", command="ls -A ~/.local; echo --; ls -A ~/.cargo"),
                call("run_command", "tools", command="hello; cargo-hello; pipxtool"),
            ]
        ),
        TextReply(["done"]),
    )
    outcome = asyncio.run(agent.turns.run_turn(key, "show me", headless=True))
    assert outcome.status == "finished", outcome.error

    out = tool_outputs(agent, key)
    assert "SECRET" not in out["cat"], out["cat"]
    assert out["ls"].split("\n", 1)[1].split() == ["bin", "pipx", "--", "bin"]  # the parents are not shown
    assert all(marker in out["tools"] for marker in ("HELLO-LOCAL", "HELLO-CARGO", "HELLO-PIPX")), out["tools"]


@needs_bwrap
def test_a_parent_lines_agent_cannot_carry_the_nested_lines_folder_out_from_under_what_hides_it(
    sqlite_store: Store, settings: Settings, tmp_path: Path, person_home: Path
) -> None:
    """SBX-1: line A is bound to ``projects/vendor/app``, line B to ``projects/``. B's command renames the
    folder that holds A's (``mv vendor moved``): a mount point cannot be renamed, but ``vendor`` was none,
    and B's next command found nothing at A's path to hide and read A's files at ``moved/app``. Now every
    folder between B's and A's is mounted on itself: the renames fail, A's files stay where A's line has
    them and hidden, and B still writes in ``vendor``."""
    controller = SessionController(sqlite_store, settings)
    projects = tmp_path / "projects"
    app = projects / "vendor" / "app"
    app.mkdir(parents=True)
    (app / "secret.txt").write_text("A-SECRET-MARKER\n")
    controller.lines.create_line("A", workspace=app)
    b = controller.lines.create_line("B", workspace=projects)

    def in_b(command: str) -> str:
        base = ToolContext.for_working_directory(projects, lambda: ())
        sandbox = line_sandbox(settings, sqlite_store, b)  # as each turn of B's builds it
        return run_command(
            ToolContext(write_gate=base.write_gate, command_env=sandbox_env(b), sandbox=sandbox), command
        ).output

    moved = in_b("mv vendor moved; mv vendor/app vendor/gone; mv moved/app moved/gone; touch vendor/mine.txt; ls")
    assert "busy" in moved.lower(), moved
    assert (app / "secret.txt").read_text() == "A-SECRET-MARKER\n"
    assert (projects / "vendor" / "mine.txt").exists()
    read = in_b("cat vendor/app/secret.txt moved/app/secret.txt vendor/gone/secret.txt 2>&1; ls -a vendor/app")
    assert "A-SECRET-MARKER" not in read, read


@needs_bwrap
def test_a_lines_sandbox_does_not_name_the_other_lines_folders_in_its_empty_home(
    sqlite_store: Store, settings: Settings, person_home: Path
) -> None:
    """SBX-1: the sandbox's home is empty. Each other line's folder under the home was mounted over
    anyway, and bubblewrap made its path in the empty home to mount on: the agent listed an empty folder
    named after every other project of the person's. Now what the home hides already is not mounted again;
    the file tools still refuse it, and a line nested in this line's folder is still hidden below it."""
    controller = SessionController(sqlite_store, settings)
    mine = person_home / "work" / "mine"
    nested = mine / "vendor"
    for folder in (person_home / "projects" / "acme-merger", person_home / "clients" / "zenith-audit", nested):
        folder.mkdir(parents=True)
        (folder / "notes.txt").write_text("OTHER-LINE-MARKER\n")
        controller.lines.create_line(folder.name, workspace=folder)
    b = controller.lines.create_line("mine", workspace=mine)
    sandbox = line_sandbox(settings, sqlite_store, b)
    base = ToolContext.for_working_directory(mine, lambda: ())
    ctx = ToolContext(write_gate=base.write_gate, command_env=sandbox_env(b), sandbox=sandbox)

    listed = run_command(ctx, f"find {person_home}; cat vendor/notes.txt 2>&1").output

    assert "acme-merger" not in listed and "zenith-audit" not in listed, listed
    assert str(mine) in listed and "OTHER-LINE-MARKER" not in listed
    assert sandbox.policy.access(person_home / "projects" / "acme-merger" / "notes.txt").hides
    assert sandbox.policy.access(nested / "notes.txt").hides
