"""Window layout: the conversation gets space first, the side panes collapse, long text elides (issue 18, item 3).

``PaneLayout`` gives the splitter's spare room (and its shortage) to the
conversation, lets the person hide the task lines (Ctrl+B) and the workspace
(Ctrl+Alt+B) from View or the buttons at the menu bar's corner, remembers
each pane's width and whether it is hidden (ui_state ``PANES_STATE``), and
hides a side pane on its own while the window is narrower than its
threshold (it comes back when the window widens, unless the person hid it).

``Elider`` paints a label's or a picker's text elided with "…" when it does
not fit, and shows the full text as its tooltip then; ``shown_text`` is what
it paints (tests check nothing is cut without the ellipsis).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt
from PySide6.QtGui import QAction, QHelpEvent, QKeySequence, QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QSplitter,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QToolButton,
    QToolTip,
    QWidget,
)

from xworkmate.controllers import SessionController
from xworkmate.domain import ui_state
from xworkmate.presentation.shortcuts import shortcut_keys
from xworkmate.ui.shell import AUTO_HIDE_BELOW as AUTO_HIDE_BELOW
from xworkmate.ui.shell import CENTRE as CENTRE
from xworkmate.ui.shell import LEFT as LEFT
from xworkmate.ui.shell import RIGHT as RIGHT

ELLIPSIS = "…"
PANES_STATE = ui_state.PANES.name
"""ui_state: ``{"hidden": [left, right], "widths": [left, right]}``."""
REOPEN_MARGIN = 40
DEFAULT_WIDTHS = {LEFT: 260, RIGHT: 320}
WINDOW_MINIMUM = (480, 360)


# -- eliding ---------------------------------------------------------------------------


def _combo_option(combo: QComboBox) -> QStyleOptionComboBox:
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return option


def text_room(widget: QWidget) -> QRect:
    """Where the widget's text goes: a label's contents, a picker's edit field."""
    if isinstance(widget, QComboBox):
        option = _combo_option(widget)
        return widget.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, widget
        )
    return widget.contentsRect()


def full_text(widget: QWidget) -> str:
    if isinstance(widget, QComboBox):
        return widget.currentText()
    if isinstance(widget, QLabel):
        return widget.text()
    return ""


def shown_text(widget: QWidget) -> str:
    """The text as painted: whole when it fits, else cut with "…" to the room there is (in the middle for a
    widget whose ``elideMode`` property is ``"middle"``: a path or a key, whose ends say the most)."""
    text = full_text(widget)
    room = text_room(widget).width()
    metrics = widget.fontMetrics()
    if metrics.horizontalAdvance(text) <= room:
        return text
    mode = Qt.TextElideMode.ElideMiddle if widget.property("elideMode") == "middle" else Qt.TextElideMode.ElideRight
    return metrics.elidedText(text, mode, max(room, 0))


def is_elided(widget: QWidget) -> bool:
    return shown_text(widget) != full_text(widget)


def grow_to_whole_text(combo: QComboBox) -> None:
    """A picker that shrinks with its row (elided, ``Elider``) grows no wider than its whole current text needs,
    so that a row's trailing stretch takes only what no picker can use: none is cut while the row has room
    (``"Ask before ed…"`` beside empty space, at the default window size). Follows the current text, the font
    and the style (a theme's style sheet pads the picker after it was built)."""
    _WholeText(combo)


class _WholeText(QObject):
    """``grow_to_whole_text``'s watch on one picker (its child: it goes with the picker)."""

    def __init__(self, combo: QComboBox) -> None:
        super().__init__(combo)
        self._combo = combo
        combo.currentTextChanged.connect(self.fit)
        combo.installEventFilter(self)
        self.fit()

    def fit(self) -> None:
        combo = self._combo
        option = _combo_option(combo)
        metrics = combo.fontMetrics()
        text = QSize(metrics.horizontalAdvance(combo.currentText()) + 1, metrics.height())
        if not combo.itemIcon(combo.currentIndex()).isNull():
            text.setWidth(text.width() + combo.iconSize().width() + 4)
        whole = combo.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, option, text, combo).width()
        combo.setMaximumWidth(max(combo.minimumWidth(), whole))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange, QEvent.Type.Polish):
            self.fit()
        return False


class Elider(QObject):
    """Paints single-line labels and pickers elided, and explains an elided one in its tooltip."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("elider")

    def watch(self, *widgets: QWidget) -> None:
        for widget in widgets:
            widget.installEventFilter(self)
            widget.setProperty("elides", True)

    def watch_pickers(self, root: QWidget) -> None:
        """Every picker under ``root`` elides with "…" and shows its whole text as the tooltip (issue 30 item 4:
        the composer's pickers and the others were cut bare when narrow)."""
        self.watch(*(combo for combo in root.findChildren(QComboBox) if not combo.property("elides")))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not isinstance(watched, QWidget):
            return False
        if event.type() == QEvent.Type.Paint:
            if isinstance(watched, QComboBox):
                self._paint_combo(watched)
                return True
            if isinstance(watched, QLabel) and is_elided(watched):
                self._paint_label(watched)
                return True
        elif event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            tip = self.tooltip_for(watched)
            if tip is not None:
                QToolTip.showText(event.globalPos(), tip, watched)
                return True
        return False

    @staticmethod
    def tooltip_for(widget: QWidget) -> str | None:
        """An elided widget's tooltip: its full text (then its own tooltip, if any); None when it fits."""
        if not is_elided(widget):
            return None
        own, full = widget.toolTip(), full_text(widget)
        return f"{full}\n{own}" if own and own != full else full

    @staticmethod
    def _paint_combo(combo: QComboBox) -> None:
        painter = QStylePainter(combo)
        option = _combo_option(combo)
        option.currentText = shown_text(combo)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
        painter.end()

    @staticmethod
    def _paint_label(label: QLabel) -> None:
        painter = QPainter(label)
        label.style().drawItemText(
            painter,
            label.contentsRect(),
            int(label.alignment()),
            label.palette(),
            label.isEnabled(),
            shown_text(label),
            label.foregroundRole(),
        )
        painter.end()


# -- collapsible side panes ------------------------------------------------------------


class PaneLayout(QObject):
    """The splitter's side panes: shown, hidden by the person, or hidden because the window is narrow."""

    def __init__(self, window: QMainWindow, splitter: QSplitter, controller: SessionController) -> None:
        super().__init__(window)
        self.setObjectName("paneLayout")
        self._window = window
        self._splitter = splitter
        self._controller = controller
        self.widths = dict(DEFAULT_WIDTHS)
        self.user_hidden = {LEFT: False, RIGHT: False}
        self.auto_hidden = {LEFT: False, RIGHT: False}
        splitter.setStretchFactor(LEFT, 0)
        splitter.setStretchFactor(CENTRE, 1)  # the conversation gets space first, and gives it last
        splitter.setStretchFactor(RIGHT, 0)
        self.actions: dict[int, QAction] = {}
        self.buttons: dict[int, QToolButton] = {}
        for pane, (name, label, keys) in {
            LEFT: ("TaskPane", self.tr("task lines"), shortcut_keys("toggleTaskPaneAction")[0]),
            RIGHT: ("WorkspacePane", self.tr("workspace"), shortcut_keys("toggleWorkspacePaneAction")[0]),
        }.items():
            action = QAction(self.tr("Show {pane}").format(pane=label), window)
            action.setObjectName(f"toggle{name}Action")
            action.setCheckable(True)
            action.setChecked(True)
            action.setShortcut(QKeySequence(keys))
            action.setToolTip(self.tr("Show or hide the {pane} pane ({keys})").format(pane=label, keys=keys))
            action.triggered.connect(lambda checked, which=pane: self.set_shown(which, checked, by_person=True))
            window.addAction(action)
            button = QToolButton()
            button.setObjectName(f"toggle{name}Button")
            action.setIconText("◧" if pane == LEFT else "◨")  # the button's face; the menu keeps the words
            button.setDefaultAction(action)
            button.setAccessibleName(self.tr("Show or hide the {pane}").format(pane=label))
            self.actions[pane], self.buttons[pane] = action, button
        corner = self.corner = QWidget(window.menuBar())  # parented: the menu bar does not take ownership
        corner.setObjectName("paneToggles")
        row = QHBoxLayout(corner)
        row.setContentsMargins(0, 0, 4, 0)
        row.addWidget(self.buttons[LEFT])
        row.addWidget(self.buttons[RIGHT])
        window.menuBar().setCornerWidget(corner, Qt.Corner.TopRightCorner)
        # Below the panes' own minimum the side panes hide (fit_to_width): let the window get that narrow.
        window.setMinimumSize(WINDOW_MINIMUM[0], WINDOW_MINIMUM[1])
        window.installEventFilter(self)

    def add_menu(self, menu_bar_menu: QMenu) -> None:
        for action in self.actions.values():
            menu_bar_menu.addAction(action)

    def pane(self, which: int) -> QWidget:
        widget = self._splitter.widget(which)
        assert widget is not None
        return widget

    def is_shown(self, which: int) -> bool:
        return not self.pane(which).isHidden()

    def set_shown(self, which: int, shown: bool, *, by_person: bool = False) -> None:
        """Show or hide a side pane; the person's choice also stops or resumes the automatic hiding."""
        if by_person:
            self.user_hidden[which] = not shown
            self.auto_hidden[which] = False
        pane = self.pane(which)
        if shown == (not pane.isHidden()):
            self.actions[which].setChecked(shown)
            return
        sizes = self._splitter.sizes()
        if not shown:
            if sizes[which] > 0:
                self.widths[which] = sizes[which]
            pane.hide()
        else:
            pane.show()
            sizes = self._splitter.sizes()
            width = min(self.widths[which], max(sizes[CENTRE] - 200, 120))
            sizes[CENTRE] = max(sizes[CENTRE] - width, 1)
            sizes[which] = width
            self._splitter.setSizes(sizes)
        self.actions[which].setChecked(shown)

    def fit_to_width(self, width: int) -> None:
        """Hide a side pane the window is too narrow for; bring back one hidden only for that."""
        for which in (RIGHT, LEFT):
            limit = AUTO_HIDE_BELOW[which]
            if width < limit and self.is_shown(which):
                self.set_shown(which, False)
                self.auto_hidden[which] = True
            elif width >= limit + REOPEN_MARGIN and self.auto_hidden[which] and not self.user_hidden[which]:
                self.auto_hidden[which] = False
                self.set_shown(which, True)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Resize:
            self.fit_to_width(self._window.width())
        return False

    def saved_state(self) -> dict[str, str]:
        """What ``restore`` reads back, by ui-state name (the window saves it with its own, in one write)."""
        sizes = self._splitter.sizes()
        for which in (LEFT, RIGHT):
            if sizes[which] > 0:
                self.widths[which] = sizes[which]
        state = {
            "hidden": [self.user_hidden[LEFT], self.user_hidden[RIGHT]],
            "widths": [self.widths[LEFT], self.widths[RIGHT]],
        }
        return {PANES_STATE: ui_state.PANES.encode(state)}

    def restore(self) -> None:
        state = ui_state.PANES.decode(self._controller.lines.ui_state(PANES_STATE))
        widths = state.get("widths")
        saved = dict(self.widths)
        if isinstance(widths, list) and len(widths) == 2 and all(isinstance(w, int) and w > 0 for w in widths):
            saved = {LEFT: widths[0], RIGHT: widths[1]}
        for which, hidden in zip((LEFT, RIGHT), ui_state.hidden_panes(state), strict=True):
            if hidden:
                self.set_shown(which, False, by_person=True)
        self.widths = saved  # hiding just now measured the restored splitter, not the person's width
        self.fit_to_width(self._window.width())
