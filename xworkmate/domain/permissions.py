"""What an agent's action is, and whether it waits for the person (SPEC §5, SBX-1; issue 19 item 3).

One home for the rule the native agent, the ACP client, the turns and the
approval cards all apply. Every action an agent asks for falls into one kind:

- ``read``: it only looks (a native read/list/search, an ACP ``read``,
  ``search`` or ``think``). It never waits.
- ``edit``: it changes files inside the line's folder, through a tool whose
  target XWorkmate can see (native ``write_file``/``edit_file``, ACP ``edit``,
  ``delete``, ``move``). It waits at ``ask``.
- ``command``: anything else: a process (native ``run_command``, ACP
  ``execute`` and terminals), a fetch, a kind this table does not know. It
  waits at ``ask`` and ``auto-edit``; one that cannot be sandboxed waits at
  every level (SBX-1).

"Always for this line" raises a native line's level just enough for that kind
to stop waiting: edits to ``auto-edit``, everything else to ``full``. An ACP
agent instead remembers the answer for its session.
"""

from __future__ import annotations

from xworkmate.domain.lines import PermissionLevel
from xworkmate.domain.tools import TOOL_SPECS, ActionKind, NativeTool, ToolHome, tool_names

# Native tool names (from the one tool table, ``domain.tools``) and ACP tool kinds (the ACP schema's
# ToolKind); the two sets of names do not overlap.
_KINDS: dict[str, ActionKind] = {
    **{spec.name.value: spec.kind for spec in TOOL_SPECS},
    # ACP tool kinds
    "read": ActionKind.READ,
    "search": ActionKind.READ,
    "think": ActionKind.QUESTION,
    "edit": ActionKind.EDIT,
    "delete": ActionKind.EDIT,
    "move": ActionKind.EDIT,
    "execute": ActionKind.COMMAND,
}

_ORDER = (PermissionLevel.ASK, PermissionLevel.AUTO_EDIT, PermissionLevel.FULL)


def action_kind(tool: str) -> ActionKind:
    """The kind of a native tool or an ACP tool kind; what this table does not know is a command."""
    return _KINDS.get(tool, ActionKind.COMMAND)


def tools_of_kind(kind: ActionKind) -> frozenset[str]:
    """The names (native tools and ACP kinds) of one kind, for code that lists them."""
    return frozenset(name for name, known in _KINDS.items() if known is kind)


def needs_approval(tool: str, level: PermissionLevel, *, sandboxed: bool = True) -> bool:
    """``ask``: edits and commands wait; ``auto-edit``: commands wait; ``full``: nothing waits; reads never;
    a question to the person always.

    SBX-1: a command that cannot run in a sandbox waits at every level; never a silent unsandboxed run.
    """
    kind = action_kind(tool)
    if kind is ActionKind.READ:
        return False
    if kind is ActionKind.QUESTION:
        return True
    if kind is ActionKind.COMMAND and not sandboxed:
        return True
    if level is PermissionLevel.FULL:
        return False
    if level is PermissionLevel.AUTO_EDIT:
        return kind is ActionKind.COMMAND
    return True


def always_level(tool: str) -> PermissionLevel:
    """The level "Always for this line" raises a native line to, so that this tool stops waiting."""
    return PermissionLevel.AUTO_EDIT if action_kind(tool) is ActionKind.EDIT else PermissionLevel.FULL


def raised_level(current: PermissionLevel, tool: str) -> PermissionLevel:
    """``current`` raised to ``always_level(tool)``; never lowered."""
    wanted = always_level(tool)
    return wanted if _ORDER.index(current) < _ORDER.index(wanted) else current


TASK_START = NativeTool.TASK_START.value
TASK_SEND = NativeTool.TASK_SEND.value
DISPATCH_TOOL_NAMES = frozenset(tool_names(ToolHome.DISPATCH))
"""The dispatch tools (dispatch/tools.py): their results are the framework's own sentences (the CAT-9
reminder), not a program's output, so the window shows them in the person's language."""
