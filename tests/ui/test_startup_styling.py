"""How often Qt styles the window's widgets while the window builds its panes (issue 34 item 4).

With the app's stylesheet on, Qt styles a widget again each time it, or an ancestor, is moved under a new
parent (``QWidgetPrivate::inheritStyle``: one ``StyleChange`` for every widget of the moved subtree, and a
whole unpolish and polish by the stylesheet style for every one already polished). Built from the bottom up
(a row filled, styled by a size asked of it, then put in its pane; the panes put in the splitter; the
splitter in the window), each widget was styled about four times and polished again about twice. Built from
the top down, each container in its place before its children go in, each widget is styled about once where
it stays. Counts, not times: events seen by an application-wide filter while the window is built."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from xworkmate.controllers import SessionController
from xworkmate.ui import MainWindow, build_main_window


class _Restyles(QObject):
    """Counts ``StyleChange`` events, and those that reach a widget already polished (a full restyle), by
    the pane (``messagePane``, ``workspacePane``, ``taskLinePane``…) the widget is in once the window is built."""

    def __init__(self) -> None:
        super().__init__()
        self.styled = 0
        self.repolished: list[QWidget] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.StyleChange and isinstance(watched, QWidget):
            self.styled += 1
            if watched.testAttribute(Qt.WidgetAttribute.WA_WState_Polished):
                self.repolished.append(watched)
        return False

    def by_pane(self, window: MainWindow) -> Counter[str]:
        panes = {window.task_pane: "task list", window.message_pane: "conversation", window.workspace_pane: "folder"}
        counts: Counter[str] = Counter()
        for widget in self.repolished:
            holder: QWidget | None = widget
            while holder is not None and holder not in panes:
                holder = holder.parentWidget()
            counts[panes[holder] if holder is not None else "window"] += 1
        return counts


def _built(qtbot: QtBot, qapp: QApplication, controller: SessionController) -> tuple[MainWindow, _Restyles]:
    restyles = _Restyles()
    qapp.installEventFilter(restyles)
    try:
        window = build_main_window(controller)
    finally:
        qapp.removeEventFilter(restyles)
    qtbot.addWidget(window)
    return window, restyles


def test_building_the_window_styles_each_widget_about_once_where_it_stays(
    qtbot: QtBot, qapp: QApplication, sqlite_controller: SessionController, app_style: None
) -> None:
    window, restyles = _built(qtbot, qapp, sqlite_controller)
    widgets = len(window.findChildren(QWidget))
    assert widgets > 150  # the whole window: the counts below are per widget of it
    # Bottom up: 871 StyleChange events and 446 restyles of polished widgets for 217 widgets (4.0 and 2.1 each).
    assert restyles.styled <= 1.6 * widgets, f"{restyles.styled} style changes for {widgets} widgets"
    assert len(restyles.repolished) <= widgets // 4, f"{len(restyles.repolished)} restyles for {widgets} widgets"


def test_the_folder_pane_and_the_conversation_rows_are_styled_once_where_they_stay(
    qtbot: QtBot, qapp: QApplication, sqlite_controller: SessionController, app_style: None
) -> None:
    """The panes built top down: none of the folder pane's widgets is polished before it is in its place, and
    in the conversation pane only the parts built elsewhere (the agent's bar and the pickers' own popups, made
    as they fill) are; bottom up, the restyles were 145 and 263 (the splitter's and the window's moves, and
    each pane's own)."""
    window, restyles = _built(qtbot, qapp, sqlite_controller)
    counts = restyles.by_pane(window)
    assert counts["folder"] == 0, [type(w).__name__ + ":" + w.objectName() for w in restyles.repolished]
    assert counts["conversation"] <= 32, counts
