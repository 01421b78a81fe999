"""The gated writes (WR-1): ``write_file`` and ``edit_file`` change nothing on disk before the thread's
``WriteGate`` allows it.
"""

from __future__ import annotations

import logging
import os

from xworkmate.agents.confinement import (
    ToolError,
    open_confined_file,
    refuse_hidden,
)
from xworkmate.agents.tools.context import ToolContext, WriteOutcome
from xworkmate.agents.tools.files import (
    _diff,
    _existing_text_for_diff,
    _occurrences,
    _os_errors,
    _require_regular_file,
    _write_bytes,
)

logger = logging.getLogger(__name__)


def write_file(ctx: ToolContext, path: str, content: str, quote: str) -> WriteOutcome:
    """Create or replace a text file, after the write gate allowed it (WR-1).

    Missing parent directories are created; a refusal leaves the file system untouched.
    """
    data = content.encode("utf-8")
    if len(data) > ctx.limits.write_max_bytes:
        raise ToolError(f"content is {len(data):,} bytes; write_file accepts at most {ctx.limits.write_max_bytes:,}")
    decision = ctx.write_gate.check(path, quote)
    target, shown = decision.path, decision.display_path
    refuse_hidden(ctx.policy, target, shown, write=True)  # SBX-2, SBX-3: as the sandbox would
    old = _existing_text_for_diff(target, ctx.limits)
    created = not os.path.lexists(target)
    if not created:
        _require_regular_file(target, shown)
    _write_bytes(target, shown, data, within=ctx.working_directory)
    logger.info("wrote %s (%d bytes, evidence message %s)", target, len(data), decision.message_id)
    return WriteOutcome(
        path=target,
        display_path=shown,
        created=created,
        bytes_written=len(data),
        evidence_message_id=decision.message_id,
        diff=_diff(shown, old if old is not None else "", content, ctx.limits) if created or old is not None else None,
    )


def edit_file(ctx: ToolContext, path: str, old: str, new: str, quote: str) -> WriteOutcome:
    """Replace the one occurrence of ``old`` with ``new`` in a text file, after the write gate (WR-1).

    ``old`` must occur exactly once (overlapping occurrences count); otherwise
    nothing is written and the error says how many matches there were.
    """
    if not old:
        raise ToolError("old is empty; pass the exact text to replace (use write_file to create a file)")
    if old == new:
        raise ToolError("old and new are identical; nothing to change")
    decision = ctx.write_gate.check(path, quote)
    target, shown = decision.path, decision.display_path
    refuse_hidden(ctx.policy, target, shown, write=True)  # SBX-2, SBX-3: as the sandbox would
    if not os.path.lexists(target):
        raise ToolError(f"{shown} does not exist; use write_file to create it")
    _require_regular_file(target, shown)
    with (
        _os_errors("read", shown),
        os.fdopen(open_confined_file(target, shown, within=ctx.working_directory), "rb") as handle,
    ):
        if os.fstat(handle.fileno()).st_size > ctx.limits.write_max_bytes:
            raise ToolError(
                f"{shown} is larger than {ctx.limits.write_max_bytes:,} bytes; edit_file will not rewrite it"
            )
        raw = handle.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{shown} is not UTF-8 text; edit_file only edits UTF-8 text files") from exc

    positions = _occurrences(text, old)
    if not positions:
        hint = ""
        if "\r\n" in text and "\r\n" not in old and text.replace("\r\n", "\n").count(old.replace("\r\n", "\n")):
            hint = " The file uses CRLF line endings; include '\\r\\n' in old."
        raise ToolError(
            f"old text not found in {shown} (0 matches). Read the file again and copy the text exactly, "
            f"including whitespace and indentation.{hint}"
        )
    if len(positions) > 1:
        line_numbers = ", ".join(str(text.count("\n", 0, pos) + 1) for pos in positions[:10])
        raise ToolError(
            f"old text occurs {len(positions)} times in {shown} (at lines {line_numbers}); it must occur "
            "exactly once. Include more surrounding lines in old so it matches one place."
        )
    start = positions[0]
    updated = text[:start] + new + text[start + len(old) :]
    data = updated.encode("utf-8")
    if len(data) > ctx.limits.write_max_bytes:
        raise ToolError(f"the edited file would be {len(data):,} bytes; the cap is {ctx.limits.write_max_bytes:,}")
    _write_bytes(target, shown, data, within=ctx.working_directory)
    logger.info("edited %s (%d bytes, evidence message %s)", target, len(data), decision.message_id)
    return WriteOutcome(
        path=target,
        display_path=shown,
        created=False,
        bytes_written=len(data),
        evidence_message_id=decision.message_id,
        diff=_diff(shown, text, updated, ctx.limits) if len(raw) <= ctx.limits.diff_max_file_bytes else None,
    )
