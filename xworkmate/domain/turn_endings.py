"""How a turn ends, as one ``StrEnum`` (issue 33 item 3; ERR-1, LOOP-2).

The value is stored (``line_marks.last_outcome``, a run's status) and printed in ``--json`` output, so the
values are the stored strings and never change. ``TurnOutcome``, ``RunFinished``, the attention rule, the
other-process watcher and the CLI all compare against these members.
"""

from __future__ import annotations

from enum import StrEnum


class TurnEnding(StrEnum):
    FINISHED = "finished"
    STEP_LIMIT = "step_limit"
    FAILED = "failed"
    STOPPED = "stopped"


LEAVES_AN_ANSWER: frozenset[TurnEnding] = frozenset({TurnEnding.FINISHED, TurnEnding.STEP_LIMIT, TurnEnding.STOPPED})
"""Turn endings that leave an answer to read (the agent finished, hit its step limit or was stopped)."""

TURN_ENDINGS: frozenset[str] = frozenset(ending.value for ending in TurnEnding)
"""The stored strings, for testing a status read from the database (``in`` on the enum itself needs 3.12)."""

WINDOW_CLOSED = "xworkmate: the window closed"
"""What a turn still running when the window closes is cancelled with (``ui/start.run_event_loop``): it stops as
Stop stops it, what streamed kept, and its notice says why (not a crash: nothing is left for recovery)."""
