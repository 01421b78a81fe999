"""Why a tool call failed, as one ``StrEnum`` (issue 33 item 3; ERR-1, WR-1, SBX-2, Q-1).

A failed call's ``error_kind`` is stored in its tool message's payload and printed in ``--json`` output, so
the values are the stored strings and never change; the card shows each in words
(``presentation.cards.ERROR_WORDS``), never the code.
"""

from __future__ import annotations

from enum import StrEnum


class ToolErrorKind(StrEnum):
    NOT_APPROVED = "not_approved"
    WRITE_REFUSED = "write_refused"  # WR-1
    PATH_ESCAPE = "path_escape"  # SBX-2
    HIDDEN_PATH = "hidden_path"  # SBX-3
    HARD_LINK = "hard_link"  # SBX-2
    INVALID_PATH = "invalid_path"
    SKILL_REFUSED = "skill_refused"  # SKL-2
    WORKING_DIRECTORY = "working_directory"
    CANCELLED = "cancelled"
    TIMEOUT = "timeout"
    INVALID_ARGUMENTS = "invalid_arguments"
    UNKNOWN_TOOL = "unknown_tool"
    INTERNAL_ERROR = "internal_error"
    DISPATCH_REFUSED = "dispatch_refused"
    AGENT_FAILED = "agent_failed"
    UNFINISHED = "unfinished"
    INTERRUPTED = "interrupted"
    """The process running the turn died before the call answered (issue 31 item 4, ERR-2)."""
    FAILED = "failed"
    """An ACP agent reported the call failed, without saying why."""


OUR_OWN_RESULTS: frozenset[ToolErrorKind] = frozenset(
    {ToolErrorKind.NOT_APPROVED, ToolErrorKind.INVALID_ARGUMENTS, ToolErrorKind.CANCELLED}
)
"""Results the product writes itself when the tool did not run: nothing from outside is in them (Q-1)."""
