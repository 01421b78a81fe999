"""Which line needs you, in the window (SPEC LOOP-2, issue 17 items 1, 2 and 6).

``NeedsYou`` connects the controller's attention state to the window: the task
list's badges (one row repainted per ``AttentionChanged``), the "Needs you"
filter (``needsYouFilter``), Ctrl+J, the count in the window title and the
tray tooltip, the desktop notifications (through the one ``Notifier``) and the
mute per line and the global switch. It also tells the controller which line
the person is looking at (the shown line while the window is active), which is
what marks a line's messages seen.

``DraftKeeper`` keeps the composer's text per line through the controller,
written a moment after the last keystroke (``DRAFT_SAVE_MS``) and on closing,
so a draft survives switching lines and a restart.
"""

from __future__ import annotations

import logging
from typing import Protocol

from PySide6.QtCore import QObject, QTimer, Slot
from PySide6.QtGui import QAction, QIcon, QKeySequence, QShortcut

from xworkmate.controllers import AttentionChanged, SessionController
from xworkmate.domain import ui_state
from xworkmate.domain.attention import Attention, next_needing
from xworkmate.presentation.shortcuts import shortcut_keys
from xworkmate.presentation.wording import line_title
from xworkmate.ui.conversation.pane import MessagePane
from xworkmate.ui.lines.notifier import Notifier, choose_backend, count_title, make_tray, window_title
from xworkmate.ui.lines.task_lines import TaskLineModel, TaskLinePane
from xworkmate.ui.operations import StoreOperations
from xworkmate.ui.ops.settings import mute_line, set_ui_state

log = logging.getLogger(__name__)

NOTIFICATIONS_STATE = ui_state.NOTIFICATIONS.name
DRAFT_SAVE_MS = 600


class NeedsYouList(Protocol):
    """The task list's part, as ``NeedsYou`` uses it: the "Needs you" filter."""

    def set_needs_you_filter(self, on: bool) -> None: ...


class NeedsYouWindow(Protocol):
    """What ``NeedsYou`` needs of its window (issue 33 item 3: a narrow protocol, not ``MainWindow``, so this
    module does not import the window back). ``open_line`` is the window's one way to open a line."""

    operations: StoreOperations
    task_model: TaskLineModel
    task_pane: TaskLinePane
    message_pane: MessagePane

    @property
    def task_list(self) -> NeedsYouList: ...

    @property
    def shown_key(self) -> str | None: ...

    def open_line(self, key: str) -> None: ...

    def show_error(self, text: str) -> None: ...

    def isActiveWindow(self) -> bool: ...

    def windowIcon(self) -> QIcon: ...

    def setWindowTitle(self, title: str) -> None: ...

    def show(self) -> None: ...

    def raise_(self) -> None: ...

    def activateWindow(self) -> None: ...


class NeedsYou(QObject):
    """The window's side of LOOP-2 (see the module docstring).

    Signals: none of its own; ``notifier.line_requested`` opens a line.
    """

    def __init__(self, window: NeedsYouWindow, controller: SessionController, notifier: Notifier | None = None) -> None:
        super().__init__(window if isinstance(window, QObject) else None)
        self._window = window
        self._controller = controller
        self.tracker = controller.attention
        if notifier is None:
            tray = make_tray(window.windowIcon(), self)
            notifier = Notifier(choose_backend(tray, self), tray=tray, parent=self)
        self.notifier = notifier
        self.notifier.enabled = ui_state.NOTIFICATIONS.decode(controller.lines.ui_state(NOTIFICATIONS_STATE))

        # The window's shortcut and menu action belong to the window widget (a QWidget beside the protocol).
        host = window if isinstance(window, QObject) else self
        self.next_shortcut = QShortcut(QKeySequence(shortcut_keys("nextNeedingShortcut")[0]), host)  # issue 33
        self.next_shortcut.setObjectName("nextNeedingShortcut")
        self.notifications_action = QAction(self.tr("Desktop &notifications"), host)
        self.notifications_action.setObjectName("desktopNotificationsAction")
        self.notifications_action.setCheckable(True)
        self.notifications_action.setChecked(self.notifier.enabled)
        self.notifications_action.setToolTip(
            self.tr(
                "Tell me on the desktop when a line needs approval, fails or finishes while I look elsewhere"
                " (shown through: {backend})"
            ).format(backend=self.notifier.backend_name)
        )

        self.next_shortcut.activated.connect(self.on_next_requested)
        self.notifications_action.toggled.connect(self.on_notifications_toggled)
        self.notifier.line_requested.connect(self.on_notification_clicked)
        window.task_pane.needs_you_button.toggled.connect(self.on_filter_toggled)
        if self.notifier.tray is not None:
            self.notifier.tray.activated.connect(self.on_tray_activated)

    # -- the window tells us -----------------------------------------------

    def watch(self) -> None:
        """The shown line is seen while the window is active (LOOP-2: "the current line marks it seen")."""
        key = self._window.shown_key if self._window.isActiveWindow() else None

        def failed(exc: BaseException) -> None:  # a mark is a convenience; never break showing a line on it
            log.warning("could not store what was seen on %s: %s", key, exc)

        # Issue 19: the mark is written on the store worker, after the switch that showed the line.
        self._window.operations.run(lambda: self.tracker.watch(key), failed=failed)

    def show_title(self) -> None:
        """``(2) <line> — XWorkmate``: how many lines need the person; the tray tooltip says the same."""
        count = self.tracker.count()
        key = self._window.shown_key
        summary = self._window.task_model.summary(key) if key else None
        self._window.setWindowTitle(
            window_title(line_title(summary.thread_id, summary.title) if summary is not None else None, count)
        )
        self._window.task_pane.needs_you_button.setText(count_title(self.tr("Needs you"), count))
        self.notifier.show_count(count)

    def on_attention_changed(self, change: AttentionChanged) -> None:
        self._window.task_model.attention_changed(change.key)
        self.show_title()
        summary = self._window.task_model.summary(change.key)
        self.notifier.consider(
            change.key,
            Attention(change.before),
            Attention(change.after),
            title=line_title(summary.thread_id, summary.title) if summary is not None else change.key,
            shown_key=self._window.shown_key,
            window_active=self._window.isActiveWindow(),
            muted=self.tracker.muted(change.key),
        )

    # -- the person asks ------------------------------------------------------

    def open_line(self, key: str) -> None:
        """Ctrl+J and a notification's click open a line the one way every other does (issue 33 item 3)."""
        self._window.open_line(key)

    @Slot()
    def on_next_requested(self) -> None:
        """Ctrl+J: the next line that needs the person, longest waiting first, round again."""
        key = next_needing(self.tracker.inbox(), self._window.shown_key)
        if key is None:
            self._window.message_pane.show_status(
                self.tr("Nothing needs you right now (Ctrl+J finds the next line that does)."), "ok"
            )
            return
        self.open_line(key)

    @Slot(str)
    def on_notification_clicked(self, key: str) -> None:
        self.open_line(key)
        self._window.show()
        self._window.raise_()
        self._window.activateWindow()

    @Slot(object)
    def on_tray_activated(self, _reason: object) -> None:
        """A click on the tray icon brings the window back (on the line it shows)."""
        self._window.show()
        self._window.raise_()
        self._window.activateWindow()

    @Slot(bool)
    def on_filter_toggled(self, on: bool) -> None:
        self._window.task_list.set_needs_you_filter(on)

    @Slot(bool)
    def on_notifications_toggled(self, on: bool) -> None:
        self.notifier.enabled = on
        set_ui_state(self._controller, ui_state.NOTIFICATIONS, on).run(
            self._window.operations, failed=self._window.show_error
        )

    def mute_action(self, key: str, parent: QObject) -> QAction:
        """ "Mute notifications" for one line (its row's context menu)."""
        action = QAction(self.tr("Mute notifications"), parent)
        action.setObjectName("muteNotificationsAction")
        action.setCheckable(True)
        action.setChecked(self.tracker.muted(key))
        action.setToolTip(self.tr("No desktop notifications from this line; its badge still shows in the list"))
        action.toggled.connect(lambda muted: self.set_muted(key, muted))
        return action

    def set_muted(self, key: str, muted: bool) -> None:
        """The line's mute, as a named operation on the store worker (issue 33 item 2, LOOP-4)."""
        mute_line(self.tracker, key, muted).run(self._window.operations, failed=self._window.show_error)


class DraftKeeper(QObject):
    """The composer's unsent text per line, saved through the controller a moment after typing stops."""

    def __init__(self, controller: SessionController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._controller = controller
        self._pending: dict[str, str] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DRAFT_SAVE_MS)
        self._timer.timeout.connect(self._save_typed)
        self._saving: dict[str, str] = {}

    def typed(self, key: str, text: str) -> None:
        if self._pending.get(key, self._controller.attention.draft(key)) == text:
            return
        self._pending[key] = text
        self._timer.start()  # restarted by every keystroke: one write once typing pauses

    def text_for(self, key: str) -> str:
        if key in self._pending:
            return self._pending[key]
        return self._saving.get(key, self._controller.attention.draft(key))

    def take(self) -> dict[str, str]:
        """What was typed and not saved yet, handed over to be saved (the window closing: on its store worker)."""
        self._timer.stop()
        pending, self._pending = self._pending, {}
        return pending

    def save_now(self, pending: dict[str, str]) -> None:
        """Store these drafts on this thread; what could not be stored stays in memory."""
        for key, text in self._save(pending).items():
            self._pending.setdefault(key, text)

    @Slot()
    def flush(self) -> None:
        """Save what was typed now, on this thread (the window closing)."""
        self._timer.stop()
        pending, self._pending = self._pending, {}
        for key, text in self._save(pending).items():
            self._pending.setdefault(key, text)

    @Slot()
    def _save_typed(self) -> None:
        """Once typing pauses: save on the store worker (issue 19), the text kept in memory meanwhile."""
        operations = getattr(self.parent(), "operations", None)
        if operations is None:
            self.flush()
            return
        pending, self._pending = self._pending, {}
        self._saving.update(pending)

        def saved(failed: dict[str, str]) -> None:
            for key, text in pending.items():
                if self._saving.get(key) == text:
                    del self._saving[key]
            for key, text in failed.items():
                self._pending.setdefault(key, text)

        operations.run(lambda: self._save(pending), done=saved, failed=lambda _exc: saved(pending))

    def _save(self, pending: dict[str, str]) -> dict[str, str]:
        """Store these drafts; returns the ones that could not be stored (still in memory and the composer)."""
        failed: dict[str, str] = {}
        for key, text in pending.items():
            try:
                self._controller.attention.save_draft(key, text)
            except Exception as exc:
                log.warning("could not save the draft of %s: %s", key, exc)
                failed[key] = text
        return failed
