"""The window's layout kept in ui_state: its size and place, the panes' widths and which side panes show
(issue 18), restored as the window is built and written on the store worker (issue 33 item 2)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from PySide6.QtWidgets import QSplitter

from xworkmate.controllers import SessionController
from xworkmate.domain import ui_state
from xworkmate.ui.layout import PaneLayout
from xworkmate.ui.lines.needs_you import DraftKeeper
from xworkmate.ui.operations import StoreOperations
from xworkmate.ui.ops.settings import save_ui_states
from xworkmate.ui.shell import DEFAULT_SPLITTER_SIZES, GEOMETRY_STATE, SPLITTER_STATE, WindowShell, parse_sizes

log = logging.getLogger(__name__)


class UiStates(Protocol):
    def ui_state(self, name: str) -> str | None: ...


class WindowLayout:
    """Reads and writes the layout of ``window``: its geometry, ``splitter``'s sizes, ``panes``' state."""

    def __init__(self, window: WindowShell, splitter: QSplitter, panes: PaneLayout) -> None:
        self._window = window
        self._splitter = splitter
        self._panes = panes

    def restore(self, states: UiStates) -> None:
        self._window.restore_geometry(states.ui_state(GEOMETRY_STATE))  # the default size if none; on screen
        sizes = parse_sizes(states.ui_state(SPLITTER_STATE), self._splitter.count())
        self._splitter.setSizes(sizes or list(DEFAULT_SPLITTER_SIZES))
        self._panes.restore()

    def to_save(self) -> dict[str, str]:
        """The layout as the ui_state it keeps (read from the widgets, on the GUI thread)."""
        geometry = bytes(self._window.saveGeometry().toBase64().data()).decode("ascii")
        return {
            GEOMETRY_STATE: geometry,
            SPLITTER_STATE: ui_state.SPLITTER_SIZES.encode(self._splitter.sizes()),
            **self._panes.saved_state(),
        }

    def save(
        self, controller: SessionController, operations: StoreOperations, *, failed: Callable[[str], None]
    ) -> None:
        """The layout, as a named operation on the store worker."""
        save_ui_states(controller, self.to_save()).run(operations, failed=failed)

    @staticmethod
    def write_on_close(
        controller: SessionController, layout: dict[str, str] | None, drafts: dict[str, str], keeper: DraftKeeper
    ) -> None:
        """On the store worker as the window closes: the layout, the drafts, what was seen. Each part is a
        convenience, so one failing spares the rest."""
        if layout is not None:
            try:
                controller.lines.set_ui_states(layout)  # one transaction: one round trip, not three
            except Exception as exc:
                log.warning("could not save the window layout: %s", exc)
        keeper.save_now(drafts)
        try:
            controller.attention.flush()
        except Exception as exc:
            log.warning("could not save what was seen: %s", exc)
