"""LOOP-1 for ACP lines: an agent's own edits (through the client and by its own shell) are checkpointed.

The agent is the scripted ACP agent process (xworkmate/testing/acp_agent.py), sandboxed as any agent.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.checkpoints.support import tree_state
from tests.support.sandboxing import needs_bwrap
from xworkmate.controllers import SessionController
from xworkmate.domain.checkpoints import FileChange, FileChangeKind
from xworkmate.testing.acp_scripts import scripted_agent

pytestmark = needs_bwrap


def test_an_acp_agents_edits_are_each_turns_changes(sqlite_controller: SessionController, tmp_path: Path) -> None:
    controller = sqlite_controller
    scripted_agent(
        controller,
        tmp_path,
        turn=[
            {"write": {"path": "notes.txt", "content": "one\nTWO\nthree\n"}},
            {"write": {"path": "docs/new.md", "content": "# new\n"}},
            {"shell": "rm old.txt && chmod +x run.sh && printf '\\000\\001' > data.bin"},
            {"say": "edited"},
        ],
    )
    line = controller.lines.create_line("acp")
    controller.line_settings.set_permission(line.thread_id, "full")
    controller.line_settings.set_execution(line.thread_id, "acp", "scripted")
    folder = Path(line.workspace_binding.path or "")
    (folder / "notes.txt").write_text("one\ntwo\nthree\n")
    (folder / "old.txt").write_text("old\n")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    before = tree_state(folder)
    outcome = asyncio.run(controller.turns.run_turn(line.thread_id, "edit the notes"))
    assert outcome.status == "finished", outcome.error
    changes = controller.checkpoints.changes(line.thread_id)
    assert changes.files == (
        FileChange(path="data.bin", kind=FileChangeKind.ADDED, additions=0, deletions=0, binary=True),
        FileChange(path="docs/new.md", kind=FileChangeKind.ADDED, additions=1, deletions=0),
        FileChange(path="notes.txt", kind=FileChangeKind.MODIFIED, additions=1, deletions=1),
        FileChange(path="old.txt", kind=FileChangeKind.DELETED, additions=0, deletions=1),
        FileChange(path="run.sh", kind=FileChangeKind.MODIFIED, additions=0, deletions=0, mode_changed=True),
    )
    assert changes.message_id == controller.lines.messages(line.thread_id)[-1].id
    after = tree_state(folder)
    controller.checkpoints.restore(line.thread_id, 1)
    assert tree_state(folder) == before
    controller.checkpoints.undo_restore(line.thread_id)
    assert tree_state(folder) == after
