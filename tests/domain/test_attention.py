"""LOOP-2: which line needs the person, decided from facts alone (no Qt, no database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from xworkmate.domain.attention import (
    ATTENTION_LABELS,
    Attention,
    LineFacts,
    Needing,
    attention_of,
    inbox_order,
    needs_you,
    next_needing,
    worth_notifying,
)


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        (LineFacts(), Attention.NONE),
        (LineFacts(running=True), Attention.RUNNING),
        (LineFacts(running=True, pending_approvals=1), Attention.NEEDS_APPROVAL),
        (LineFacts(running=True, waiting_for_sign_in=True), Attention.NEEDS_SIGN_IN),
        (LineFacts(running=True, pending_approvals=2, waiting_for_sign_in=True), Attention.NEEDS_APPROVAL),
        (LineFacts(last_outcome="failed", newest_message_id=5, last_seen_message_id=4), Attention.FAILED),
        (LineFacts(last_outcome="failed", newest_message_id=5, last_seen_message_id=5), Attention.NONE),
        (LineFacts(last_outcome="finished", newest_message_id=5), Attention.FINISHED_UNREAD),
        (LineFacts(last_outcome="step_limit", newest_message_id=9, last_seen_message_id=3), Attention.FINISHED_UNREAD),
        (LineFacts(last_outcome="stopped", newest_message_id=9, last_seen_message_id=3), Attention.FINISHED_UNREAD),
        (LineFacts(last_outcome="finished", newest_message_id=5, last_seen_message_id=7), Attention.NONE),
        # No turn recorded (an upgraded database, a message stored with no provider): nothing to announce.
        (LineFacts(newest_message_id=5), Attention.NONE),
        # A new turn runs: the old unread ending no longer counts.
        (LineFacts(running=True, last_outcome="failed", newest_message_id=5), Attention.RUNNING),
        (LineFacts(last_outcome="finished"), Attention.NONE),
    ],
)
def test_attention_is_decided_from_the_facts(facts: LineFacts, expected: Attention) -> None:
    assert attention_of(facts) is expected


def test_every_state_has_its_badge_and_only_waiting_states_need_you() -> None:
    assert ATTENTION_LABELS[Attention.NEEDS_APPROVAL] == "needs approval"
    assert ATTENTION_LABELS[Attention.NEEDS_SIGN_IN] == "needs sign-in"
    assert ATTENTION_LABELS[Attention.FINISHED_UNREAD] == "new"
    assert set(ATTENTION_LABELS) == set(Attention)
    assert {s for s in Attention if needs_you(s)} == {
        Attention.NEEDS_APPROVAL,
        Attention.NEEDS_SIGN_IN,
        Attention.FAILED,
        Attention.FINISHED_UNREAD,
    }


def test_a_notification_is_worth_it_only_on_coming_to_need_approval_failure_or_finish() -> None:
    assert worth_notifying(Attention.RUNNING, Attention.NEEDS_APPROVAL)
    assert worth_notifying(Attention.RUNNING, Attention.FAILED)
    assert worth_notifying(Attention.RUNNING, Attention.FINISHED_UNREAD)
    assert worth_notifying(Attention.NEEDS_APPROVAL, Attention.FINISHED_UNREAD)
    assert not worth_notifying(Attention.FINISHED_UNREAD, Attention.FINISHED_UNREAD)  # already said
    assert not worth_notifying(Attention.NONE, Attention.RUNNING)
    assert not worth_notifying(Attention.RUNNING, Attention.NEEDS_SIGN_IN)  # the card says it in the window
    assert not worth_notifying(Attention.FINISHED_UNREAD, Attention.NONE)


def test_the_inbox_lists_the_longest_waiting_first_and_ctrl_j_walks_it_round() -> None:
    t0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    lines = [
        Needing("b", Attention.FAILED, t0 + timedelta(minutes=2)),
        Needing("c", Attention.RUNNING, t0),  # running does not need the person
        Needing("a", Attention.NEEDS_APPROVAL, t0 + timedelta(minutes=5)),
        Needing("d", Attention.FINISHED_UNREAD, t0 + timedelta(minutes=1)),
        Needing("e", Attention.NONE, t0),
    ]
    order = inbox_order(lines)
    assert order == ["d", "b", "a"]
    assert next_needing(order, None) == "d"
    assert next_needing(order, "c") == "d"  # from a line that does not need you: the oldest
    assert next_needing(order, "d") == "b"
    assert next_needing(order, "a") == "d"  # round again
    assert next_needing(["x"], "x") == "x"
    assert next_needing([], "x") is None
