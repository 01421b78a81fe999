"""The native agent's tools in one table (issue 33 item 3; SPEC §5 native mode, SBX-1, Q-1, WR-1).

Each tool the native agent can call has exactly one ``ToolSpec``: its name, the kind of action it is
(``domain.permissions`` decides from the kind whether it waits for the person), how far its output may be
trusted (``domain.tool_trust``, Q-1), and its wording: the one-line summary an approval and a running card
show (``agents.native.describe_call``) and the title of its finished card (``presentation.cards``). The
tools' schemas and code live with the code that runs them (``agents/tools`` for the workspace tools,
``dispatch/tools`` for the dispatch tools); both take their names from here, and a test pins that the
two sets are exactly this table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from xworkmate.domain.translatable import QT_TRANSLATE_NOOP


class ActionKind(StrEnum):
    READ = "read"
    EDIT = "edit"
    COMMAND = "command"
    QUESTION = "question"
    """The agent asks the person something (Qwen's ``ask_user_question`` arrives as a ``think`` permission
    request): never answered for them, at any level (issue 32, item 5)."""


class ToolTrust(StrEnum):
    TRUSTED = "trusted"
    """Output the product builds itself (listings, file reads inside the line's folder, dispatch receipts)."""
    UNTRUSTED = "untrusted"
    """Output that carries text from outside: quarantined on a line that asks for it."""


class ToolHome(StrEnum):
    """Which code runs the tool: the confined workspace tools, or the dispatch tools (CAT-5, CAT-9)."""

    WORKSPACE = "workspace"
    DISPATCH = "dispatch"


class NativeTool(StrEnum):
    """The native agent's tool names, as the model calls them and as tool messages store them."""

    LIST_DIR = "list_dir"
    READ_FILE = "read_file"
    SEARCH_FILES = "search_files"
    WRITE_FILE = "write_file"
    EDIT_FILE = "edit_file"
    READ_SKILL = "read_skill"
    RUN_COMMAND = "run_command"
    TASK_START = "task_start"
    TASK_SEND = "task_send"


@dataclass(frozen=True)
class ToolSpec:
    """One native tool.

    ``summary`` is a ``CoreText`` template formatted with the call's arguments named in ``summary_args``
    (argument, default when absent); "" means the call is summed up by its name. ``card_title`` is a
    ``RenderingText`` template for a finished call's card ("" = the card uses the summary or, for a
    command, ``$ command``).
    """

    name: NativeTool
    kind: ActionKind
    trust: ToolTrust
    home: ToolHome
    summary: str = ""
    summary_args: tuple[tuple[str, str], ...] = ()
    card_title: str = ""

    def describe(self, args: Mapping[str, Any]) -> str:
        """The call summed up in one line (English; the window translates it, issue 20)."""
        if not self.summary:
            return self.name.value
        return self.summary.format(**{arg: args.get(arg, default) for arg, default in self.summary_args})


_W, _D = ToolHome.WORKSPACE, ToolHome.DISPATCH
_T, _U = ToolTrust.TRUSTED, ToolTrust.UNTRUSTED

# The order is the order the model is offered the workspace tools in.
TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        NativeTool.LIST_DIR,
        ActionKind.READ,
        _T,
        _W,
        QT_TRANSLATE_NOOP("CoreText", "list dir {path}"),
        (("path", "."),),
        QT_TRANSLATE_NOOP("RenderingText", "Listed {where}"),
    ),
    ToolSpec(
        NativeTool.READ_FILE,
        ActionKind.READ,
        _T,
        _W,
        QT_TRANSLATE_NOOP("CoreText", "read file {path}"),
        (("path", "."),),
        QT_TRANSLATE_NOOP("RenderingText", "Read {where}"),
    ),
    ToolSpec(
        NativeTool.SEARCH_FILES,
        ActionKind.READ,
        _T,
        _W,
        QT_TRANSLATE_NOOP("CoreText", "search for {pattern!r} in {path}"),
        (("pattern", ""), ("path", ".")),
        QT_TRANSLATE_NOOP("RenderingText", "Searched for {where}"),
    ),
    ToolSpec(
        NativeTool.WRITE_FILE,
        ActionKind.EDIT,
        _T,
        _W,
        QT_TRANSLATE_NOOP("CoreText", "write {path}"),
        (("path", "?"),),
        QT_TRANSLATE_NOOP("RenderingText", "Wrote {path}"),
    ),
    ToolSpec(
        NativeTool.EDIT_FILE,
        ActionKind.EDIT,
        _T,
        _W,
        QT_TRANSLATE_NOOP("CoreText", "edit {path}"),
        (("path", "?"),),
        QT_TRANSLATE_NOOP("RenderingText", "Edited {path}"),
    ),
    # SKL-2: a selected skill, confined to its folder, read-only
    ToolSpec(
        NativeTool.READ_SKILL,
        ActionKind.READ,
        _T,
        _W,
        QT_TRANSLATE_NOOP("CoreText", "read skill {name}"),
        (("name", "?"),),
        QT_TRANSLATE_NOOP("RenderingText", "Read skill {where}"),
    ),
    # its output is whatever the command printed, from the network or the disk
    ToolSpec(
        NativeTool.RUN_COMMAND,
        ActionKind.COMMAND,
        _U,
        _W,
        QT_TRANSLATE_NOOP("CoreText", "run `{command}`"),
        (("command", ""),),
    ),
    # Dispatching is the agent's own bookkeeping: the task it starts asks for its own actions; the results
    # are the framework's own sentences (the CAT-9 reminder), shown in the person's language.
    ToolSpec(NativeTool.TASK_START, ActionKind.READ, _T, _D),
    ToolSpec(NativeTool.TASK_SEND, ActionKind.READ, _T, _D),
)

TOOLS: Mapping[str, ToolSpec] = MappingProxyType({spec.name.value: spec for spec in TOOL_SPECS})


def tool_spec(name: str) -> ToolSpec | None:
    """The native tool called ``name``; None for an ACP tool kind or a name the agent cannot call."""
    return TOOLS.get(name)


def tool_names(home: ToolHome) -> tuple[str, ...]:
    """The names of the tools one part of the code runs, in the table's order."""
    return tuple(spec.name.value for spec in TOOL_SPECS if spec.home is home)


def is_native_edit(name: str) -> bool:
    """A native ``write_file``/``edit_file`` call (WR-1): its target is a path XWorkmate can see."""
    spec = TOOLS.get(name)
    return spec is not None and spec.kind is ActionKind.EDIT
