"""What is refused before any process starts: category lines (CAT-3), missing commands, missing folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acp import AgentHarness
from xworkmate.agents.acp import (
    AcpCategoryError,
    AcpCommandNotFound,
    AcpEnvironmentError,
    AcpWorkingDirectoryError,
    check_acp_allowed,
    resolve_env_refs,
)


@pytest.fixture
def harness(tmp_path: Path) -> AgentHarness:
    return AgentHarness(tmp_path)


def test_a_category_line_is_refused_before_anything_starts(harness: AgentHarness, tmp_path: Path) -> None:
    spawned = tmp_path / "spawned"
    command = ("/bin/sh", "-c", f"touch {spawned}")
    out = harness.run(harness.script(), request=harness.request(category="medical"), command=command)

    assert isinstance(out.error, AcpCategoryError)
    assert str(out.error) == (
        "this line carries category medical: its content may only reach providers tagged medical,"
        " and external agent CLIs do not go through the router"
    )
    assert out.events == [] and out.approvals == []
    assert not spawned.exists()
    assert not harness.pid_path.exists() and harness.report() == []


def test_check_acp_allowed() -> None:
    check_acp_allowed(None)
    with pytest.raises(AcpCategoryError, match="category legal"):
        check_acp_allowed("legal")


def test_a_missing_command_is_named(harness: AgentHarness) -> None:
    out = harness.run(harness.script(), command=("xwm-no-such-agent-cli", "--acp"))
    assert isinstance(out.error, AcpCommandNotFound)
    assert str(out.error) == (
        "ACP agent command `xwm-no-such-agent-cli --acp` not found: no executable 'xwm-no-such-agent-cli' on PATH"
    )
    assert out.events == []

    empty = harness.run(harness.script(), command=("",))
    assert isinstance(empty.error, AcpCommandNotFound)
    assert "no command configured" in str(empty.error)


def test_a_missing_working_directory_is_refused(harness: AgentHarness) -> None:
    harness.workspace.rmdir()
    out = harness.run(harness.script())
    assert isinstance(out.error, AcpWorkingDirectoryError)
    assert str(harness.workspace) in str(out.error)
    assert not harness.pid_path.exists()


def test_env_references_resolve_from_the_environment_only() -> None:
    environ = {"QWEN_KEY": "sk-1"}
    assert resolve_env_refs((("OPENAI_API_KEY", "env:QWEN_KEY"),), environ) == {"OPENAI_API_KEY": "sk-1"}
    with pytest.raises(AcpEnvironmentError, match=r"\$MISSING, which is not set"):
        resolve_env_refs((("OPENAI_API_KEY", "env:MISSING"),), environ)
    with pytest.raises(AcpEnvironmentError, match="neither env:NAME nor keyring:ENTRY") as refused:
        resolve_env_refs((("OPENAI_API_KEY", "sk-literal-secret"),), environ)
    assert "sk-literal-secret" not in str(refused.value)
