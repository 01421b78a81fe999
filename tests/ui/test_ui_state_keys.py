"""The window's ui_state names come from the one table of typed keys (issue 33 item 3)."""

from __future__ import annotations

from xworkmate.domain.ui_state import UI_STATE_KEYS


def test_every_key_has_one_entry_in_the_table_and_the_window_modules_use_its_names() -> None:
    from xworkmate.ui.keyboard import ENTER_SENDS_STATE
    from xworkmate.ui.layout import PANES_STATE
    from xworkmate.ui.lines.needs_you import NOTIFICATIONS_STATE
    from xworkmate.ui.shell import GEOMETRY_STATE, SPLITTER_STATE
    from xworkmate.ui.theme import THEME_STATE

    used = {ENTER_SENDS_STATE, PANES_STATE, NOTIFICATIONS_STATE, GEOMETRY_STATE, SPLITTER_STATE, THEME_STATE}
    assert used == set(UI_STATE_KEYS)
