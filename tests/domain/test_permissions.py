"""One rule for which agent actions wait for the person (issue 19 item 3, SPEC §5, SBX-1)."""

from __future__ import annotations

import pytest

from xworkmate.domain.permissions import ActionKind, action_kind, always_level, needs_approval, raised_level
from xworkmate.domain.threads import PermissionLevel

ASK, AUTO, FULL = PermissionLevel.ASK, PermissionLevel.AUTO_EDIT, PermissionLevel.FULL


@pytest.mark.parametrize(
    ("native", "acp"),
    [("read_file", "read"), ("search_files", "search"), ("write_file", "edit"), ("edit_file", "edit"),
     ("run_command", "execute")],
)  # fmt: skip
def test_a_native_tool_and_its_acp_kind_wait_alike_at_every_level(native: str, acp: str) -> None:
    assert action_kind(native) is action_kind(acp)
    for level in PermissionLevel:
        assert needs_approval(native, level) == needs_approval(acp, level)
    assert always_level(native) is always_level(acp)


def test_reads_never_wait_edits_wait_at_ask_commands_until_full() -> None:
    assert [needs_approval("read_file", level) for level in (ASK, AUTO, FULL)] == [False, False, False]
    assert [needs_approval("write_file", level) for level in (ASK, AUTO, FULL)] == [True, False, False]
    assert [needs_approval("run_command", level) for level in (ASK, AUTO, FULL)] == [True, True, False]


def test_an_unknown_kind_is_a_command_and_always_raises_it_to_full() -> None:
    # ACP "fetch", "other", a kind a newer agent invents: they wait like commands, and "Always" must
    # raise the line far enough for them to stop waiting (the card and the controller once disagreed).
    for tool in ("fetch", "other", "switch_mode", "something_new"):
        assert action_kind(tool) is ActionKind.COMMAND
        assert needs_approval(tool, AUTO)
        assert always_level(tool) is FULL
        assert not needs_approval(tool, always_level(tool))


def test_always_raises_just_enough_and_never_lowers() -> None:
    assert raised_level(ASK, "write_file") is AUTO
    assert raised_level(ASK, "run_command") is FULL
    assert raised_level(FULL, "write_file") is FULL
    assert raised_level(AUTO, "edit") is AUTO
    for tool in ("write_file", "run_command", "delete", "fetch"):
        assert not needs_approval(tool, raised_level(ASK, tool))


def test_an_unsandboxed_command_waits_at_every_level_and_only_commands_do() -> None:
    assert all(needs_approval("run_command", level, sandboxed=False) for level in PermissionLevel)
    assert all(needs_approval("execute", level, sandboxed=False) for level in PermissionLevel)
    assert not needs_approval("write_file", FULL, sandboxed=False)
    assert not needs_approval("read", ASK, sandboxed=False)
