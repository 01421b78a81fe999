"""Tool error kinds and turn endings are ``StrEnum``s in one domain module each, and what the databases and the
``--json`` output hold is the same strings as before (issue 33 item 3; ERR-1, ERR-2, LOOP-2).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from tests.store.test_stored_text import column_values
from xworkmate.controllers import SessionController
from xworkmate.controllers.outcomes import TurnOutcome
from xworkmate.domain.messages import MessageRole, MessageSource
from xworkmate.domain.tool_errors import OUR_OWN_RESULTS, ToolErrorKind
from xworkmate.domain.turn_endings import LEAVES_AN_ANSWER, TURN_ENDINGS, TurnEnding
from xworkmate.presentation.cards import ERROR_WORDS, error_words
from xworkmate.store import Store
from xworkmate.terminal_text import json_text

# The strings stored before the enums existed (tool messages' payloads, line_marks.last_outcome, runs).
STORED_ERROR_KINDS = {
    "not_approved", "write_refused", "path_escape", "hidden_path", "hard_link", "invalid_path", "skill_refused",
    "working_directory", "cancelled", "timeout", "invalid_arguments", "unknown_tool", "internal_error",
    "dispatch_refused", "agent_failed", "unfinished", "interrupted", "failed",
}  # fmt: skip
STORED_ENDINGS = {"finished", "step_limit", "failed", "stopped"}


def test_the_enums_hold_exactly_the_stored_strings() -> None:
    assert {kind.value for kind in ToolErrorKind} == STORED_ERROR_KINDS
    assert {ending.value for ending in TurnEnding} == STORED_ENDINGS == TURN_ENDINGS
    assert {"finished", "step_limit", "stopped"} == LEAVES_AN_ANSWER
    assert {"not_approved", "invalid_arguments", "cancelled"} == OUR_OWN_RESULTS


def test_every_error_kind_has_words_on_its_card_but_the_generic_failure() -> None:
    """A failed card shows the kind in words, never the code (issue 30 item 3)."""
    assert set(ERROR_WORDS) | {"failed", "interrupted"} == STORED_ERROR_KINDS
    assert error_words(ToolErrorKind.NOT_APPROVED) == error_words("not_approved") == "you rejected this"


def test_a_turn_outcome_prints_the_same_json_as_a_plain_string_did() -> None:
    outcome = TurnOutcome(key="draft:1", status=TurnEnding.STEP_LIMIT)
    assert outcome.model_dump(mode="json")["status"] == "step_limit"
    assert json.loads(json_text(outcome.model_dump(mode="json")))["status"] == "step_limit"
    assert TurnOutcome.model_validate_json(outcome.model_dump_json()).status is TurnEnding.STEP_LIMIT
    assert TurnOutcome(key="draft:1", status="stopped").status is TurnEnding.STOPPED  # type: ignore[arg-type]


def test_both_databases_store_the_plain_strings(controller: SessionController, store: Store) -> None:
    key = controller.lines.create_line("Rules").thread_id
    store.line_marks.set_outcome(key, TurnEnding.STOPPED, datetime(2026, 12, 4, tzinfo=UTC), None)
    assert column_values(store, "SELECT last_outcome FROM line_marks WHERE thread_id = :k", k=key) == ["stopped"]
    message = store.messages.append(
        key,
        role=MessageRole.TOOL,
        source=MessageSource.TOOL,
        content="run_command was not approved",
        payload={"name": "run_command", "ok": False, "error_kind": ToolErrorKind.NOT_APPROVED},
    )
    (raw,) = column_values(store, "SELECT payload FROM messages WHERE id = :i", i=message.id)
    stored = raw if isinstance(raw, dict) else json.loads(raw)
    assert stored["error_kind"] == "not_approved" and type(stored["error_kind"]) is str
