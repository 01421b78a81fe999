"""The native tools live in one table, ``domain/tools.py`` (issue 33 item 3; SPEC §5, SBX-1, Q-1, WR-1).

Every tool the native agent can be offered has exactly one ``ToolSpec``; its permission kind, its trust, its
approval summary and its card title all come from that spec, and no other module of the package spells a
native tool's name as a string literal.
"""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

import pytest

import xworkmate
from xworkmate.agents.native import describe_call
from xworkmate.agents.tools import TOOL_NAMES, tool_schemas
from xworkmate.dispatch.tools import dispatch_tool_schemas
from xworkmate.domain.permissions import action_kind, needs_approval
from xworkmate.domain.threads import PermissionLevel
from xworkmate.domain.tool_trust import tool_trust
from xworkmate.domain.tools import TOOL_SPECS, TOOLS, ActionKind, NativeTool, ToolHome, ToolSpec, tool_names
from xworkmate.llm.events import ToolCall
from xworkmate.presentation.cards import tool_card

_ARGS = {"path": "src/a.py", "pattern": "TODO", "name": "release", "command": "make test", "content": "x"}


def _offered() -> list[str]:
    schemas = [*tool_schemas(skills=True), *dispatch_tool_schemas()]
    return [schema["function"]["name"] for schema in schemas]


def test_every_tool_the_agent_can_call_has_exactly_one_spec() -> None:
    offered = _offered()
    assert Counter(offered) == Counter(spec.name.value for spec in TOOL_SPECS)
    assert len(TOOLS) == len(TOOL_SPECS) == len(NativeTool)
    # the workspace tools are offered in the table's order; read_skill only on a turn with skills (SKL-2)
    assert [s["function"]["name"] for s in tool_schemas(skills=True)] == list(TOOL_NAMES)
    assert list(TOOL_NAMES) == list(tool_names(ToolHome.WORKSPACE))
    assert NativeTool.READ_SKILL not in [s["function"]["name"] for s in tool_schemas(skills=False)]


@pytest.mark.parametrize("spec", TOOL_SPECS, ids=lambda spec: spec.name.value)
def test_permission_trust_and_summary_of_each_tool_come_from_its_spec(spec: ToolSpec) -> None:
    name = spec.name.value
    assert action_kind(name) is spec.kind
    assert tool_trust(name) is spec.trust
    # SBX-1: only a read never waits, at the strictest level
    assert needs_approval(name, PermissionLevel.ASK) is (spec.kind is not ActionKind.READ)
    summary = describe_call(ToolCall("c1", name, json.dumps(_ARGS)))
    if spec.summary:
        assert summary == spec.summary.format(**{arg: _ARGS[arg] for arg, _ in spec.summary_args})
    else:
        assert summary == name


@pytest.mark.parametrize("spec", [s for s in TOOL_SPECS if s.card_title], ids=lambda spec: spec.name.value)
def test_a_finished_calls_card_title_is_its_specs_wording(spec: ToolSpec) -> None:
    payload = {"name": spec.name.value, "arguments": _ARGS, "ok": True}
    card = tool_card(payload, "created src/a.py (1 bytes written)" if spec.kind is ActionKind.EDIT else "line")
    head = spec.card_title.split("{", 1)[0]
    assert card.title.startswith(head), (card.title, spec.card_title)
    assert card.title != spec.name.value


def test_a_command_card_and_an_unknown_tool_fail_closed() -> None:
    card = tool_card({"name": NativeTool.RUN_COMMAND.value, "arguments": _ARGS, "ok": True}, "[exit code 0 after 1 s]")
    assert card.title == "$ make test"
    # Q-1 and SBX-1: a name the table does not know is untrusted and a command
    assert tool_trust("fetch_url").value == "untrusted"
    assert action_kind("fetch_url") is ActionKind.COMMAND


def test_no_other_module_spells_a_native_tool_name() -> None:
    """The names are written once, in domain/tools.py; everyone else uses ``NativeTool`` or the table."""
    names = {tool.value for tool in NativeTool}
    package = Path(xworkmate.__file__).parent
    home = package / "domain" / "tools.py"
    offenders: list[str] = []
    for path in sorted(package.rglob("*.py")):
        if path == home or "testing" in path.relative_to(package).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        exported = {  # ``__all__`` names Python functions (``agents.tools.read_file``), not tools
            id(constant)
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets)
            for constant in ast.walk(node.value)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in names and id(node) not in exported:
                offenders.append(f"{path.relative_to(package)}:{node.lineno}: {node.value!r}")
    assert offenders == []
