"""Refusals name the real reason, in the order of the one gate (issue 13, ISO-4, ISO-7, CAT-3, CAT-6).

The controller's gate checks, in this order: the key is known, the line is
runnable (and says its status), the category rules, then the provider. The
command line and the window both go through it, so a line that fails two
checks is refused for the first. Nothing is stored on a refusal.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from tests.cli.test_cli import assert_one_line_error, ok_json, run_cli
from xworkmate.controllers import SessionController
from xworkmate.controllers.session import NoAgentProviderError, RunRefused
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.domain.runs import NotRunnable
from xworkmate.domain.threads import ThreadStatus
from xworkmate.testing.openai_server import OpenAIServer


def _new_line(home: Path) -> str:
    return str(ok_json(home, "thread", "new")["session_key"])


def _add_acp_agent(home: Path, name: str = "qwen") -> None:
    assert run_cli(home, "provider", "add", name, "--acp-command", f"{name} --acp").returncode == 0


def _assert_refused(
    home: Path, key: str, *args: str, says: tuple[str, ...], never: tuple[str, ...] = (), line_exists: bool = True
) -> None:
    proc = run_cli(home, "run", key, "hi", *args)
    assert_one_line_error(proc, *says)
    for wrong in never:
        assert wrong not in proc.stderr, proc.stderr
    if line_exists:
        assert ok_json(home, "messages", key) == []  # refused before anything was stored


def test_an_unknown_key_is_refused_for_the_key_before_the_provider(home: Path) -> None:
    """`run nosuch "hi"` with no provider: the key is the reason, not the missing provider."""
    _assert_refused(
        home, "nosuch", says=("no task line has the session key 'nosuch'",), never=("provider",), line_exists=False
    )
    _assert_refused(
        home,
        "draft:01ARZ3NDEKTSV4RRFFQ69G5FAV",
        says=("not runnable (needs_binding)", "no task line has the session key"),
        never=("provider",),
        line_exists=False,
    )


def test_a_line_whose_folder_is_gone_is_refused_for_the_folder_before_the_provider(home: Path) -> None:
    line = ok_json(home, "thread", "new")
    shutil.rmtree(line["workspace_path"])
    _assert_refused(
        home, line["session_key"], says=("not runnable (needs_workspace)", "folder is missing"), never=("provider",)
    )


def test_an_archived_line_is_refused_as_archived_before_the_provider(home: Path) -> None:
    key = _new_line(home)
    ok_json(home, "thread", "archive", key)
    _assert_refused(home, key, says=("not runnable (archived)",), never=("provider",))


def test_an_acp_agent_chosen_on_a_native_line_says_to_switch_the_line_to_acp(home: Path) -> None:
    """`run KEY … --provider qwen` on a native line: the fix is `thread set KEY --mode acp --provider qwen`."""
    _add_acp_agent(home)
    key = _new_line(home)
    _assert_refused(
        home,
        key,
        "--provider",
        "qwen",
        says=("'qwen' is an ACP agent", f"xworkmate thread set {key} --mode acp --provider qwen"),
        never=("no agent provider",),
    )


def test_a_provider_that_does_not_exist_is_named(home: Path, openai_server: OpenAIServer) -> None:
    ok_json(home, "provider", "add", "local", "--base-url", openai_server.base_url, "--model", "m")
    _assert_refused(home, _new_line(home), "--provider", "nope", says=("no provider named 'nope'",))
    assert openai_server.chat_requests == []


def test_category_rules_come_before_the_provider(home: Path, openai_server: OpenAIServer) -> None:
    """CAT-3 before the ACP-mode hint; CAT-6 for an untagged pinned provider; a category line in ACP mode."""
    _add_acp_agent(home)
    ok_json(home, "provider", "add", "plain", "--base-url", openai_server.base_url, "--model", "m")
    key = _new_line(home)
    ok_json(home, "thread", "category", key, "--set", "medical")
    _assert_refused(home, key, "--provider", "qwen", says=("CAT-3", "'medical'"), never=("--mode acp",))
    _assert_refused(home, key, "--provider", "plain", says=("'plain' is not tagged 'medical'", "CAT-6"))

    acp_key = _new_line(home)
    ok_json(home, "thread", "set", acp_key, "--mode", "acp", "--provider", "qwen")
    ok_json(home, "thread", "category", acp_key, "--set", "medical")
    _assert_refused(home, acp_key, says=("cannot run in ACP mode", "CAT-3"))
    assert openai_server.chat_requests == []


def test_the_folder_comes_before_the_category_rules(home: Path) -> None:
    _add_acp_agent(home)
    line = ok_json(home, "thread", "new")
    ok_json(home, "thread", "category", line["session_key"], "--set", "medical")
    shutil.rmtree(line["workspace_path"])
    _assert_refused(home, line["session_key"], "--provider", "qwen", says=("needs_workspace",), never=("CAT-3",))


def test_an_acp_line_whose_agent_is_gone_is_refused_before_anything_is_stored(home: Path) -> None:
    _add_acp_agent(home)
    key = _new_line(home)
    ok_json(home, "thread", "set", key, "--mode", "acp", "--provider", "qwen")
    assert run_cli(home, "provider", "remove", "qwen").returncode == 0
    _assert_refused(home, key, says=("set to run an ACP agent", "no provider named 'qwen'"))


def test_no_provider_at_all_is_the_last_reason(home: Path) -> None:
    _assert_refused(home, _new_line(home), says=("no agent provider is configured",))


def test_the_window_goes_through_the_same_gate(controller: SessionController) -> None:
    """send() refuses in the same order; only a missing provider keeps the message (and says nothing ran)."""
    with pytest.raises(NotRunnable) as unknown:
        controller.send("draft:01ARZ3NDEKTSV4RRFFQ69G5FAV", "hi")
    assert unknown.value.status is ThreadStatus.NEEDS_BINDING

    controller.providers.add_provider(ProviderRecord(name="qwen", kind=ProviderKind.ACP, acp_command=("qwen", "--acp")))
    line = controller.lines.create_line("A")
    with pytest.raises(RunRefused, match="--mode acp --provider qwen"):
        controller.send(line.thread_id, "hi", provider="qwen")
    assert controller.lines.messages(line.thread_id) == []

    controller.tasks.set_category(line.thread_id, "medical")
    with pytest.raises(RunRefused, match="CAT-3"):
        controller.send(line.thread_id, "hi", provider="qwen")

    outcome = controller.send(line.thread_id, "hi")
    assert not outcome.ran and controller.lines.messages(line.thread_id)[0].content == "hi"
    with pytest.raises(NoAgentProviderError):
        asyncio.run(controller.turns.run_turn(line.thread_id, "again", headless=True))
    assert len(controller.lines.messages(line.thread_id)) == 2  # the first "hi" and its notice; "again" was refused
