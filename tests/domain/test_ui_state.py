"""Typed ui_state keys, one codec each (issue 33 item 3): the forms older builds wrote read back, one is written."""

from __future__ import annotations

import pytest

from xworkmate.controllers import SessionController
from xworkmate.domain import ui_state
from xworkmate.domain.ui_state import ENTER_SENDS, NOTIFICATIONS, PANES, SPLITTER_SIZES, THEME


@pytest.mark.parametrize(
    ("key", "stored", "value"),
    [
        (NOTIFICATIONS, "1", True),  # how notifications were stored before issue 33
        (NOTIFICATIONS, "0", False),
        (NOTIFICATIONS, "true", True),
        (NOTIFICATIONS, "false", False),
        (ENTER_SENDS, "true", True),  # how Enter-sends was stored before issue 33
        (ENTER_SENDS, "false", False),
        (ENTER_SENDS, "0", False),
        (ENTER_SENDS, "1", True),
    ],
)
def test_booleans_stored_in_either_old_form_read_back_from_a_real_store(
    controller: SessionController, key: ui_state.UiStateKey[bool], stored: str, value: bool
) -> None:
    controller.lines.set_ui_state(key.name, stored)  # as the old build wrote it, straight into the store
    assert key.decode(controller.lines.ui_state(key.name)) is value


def test_a_boolean_is_written_in_one_form_and_reads_back(controller: SessionController) -> None:
    for key in (NOTIFICATIONS, ENTER_SENDS):
        for value in (True, False):
            controller.lines.set_ui_state(key.name, key.encode(value))
            assert controller.lines.ui_state(key.name) == ("true" if value else "false")
            assert key.decode(controller.lines.ui_state(key.name)) is value


def test_missing_or_unreadable_values_are_the_default_not_an_error() -> None:
    assert NOTIFICATIONS.decode(None) is True and ENTER_SENDS.decode("") is True
    assert NOTIFICATIONS.decode("maybe") is True
    assert PANES.decode("{not json") == {} and PANES.decode("[1, 2]") == {}
    assert SPLITTER_SIZES.decode('{"a": 1}') == [] and SPLITTER_SIZES.decode("[260, 620, 320]") == [260, 620, 320]
    assert THEME.decode(None) == "" and THEME.decode("dark") == "dark"
