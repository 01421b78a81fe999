"""Desktop notifications when a line needs the person (SPEC LOOP-2, issue 17 item 2).

One ``Notifier`` decides; a backend shows. The decision: a line has just come
to need approval, failed or finished (``domain.attention.worth_notifying``),
notifications are on, the line is not muted, and the person is not already
looking at it (the window is unfocused or shows another line). Backends, in
the order ``choose_backend`` tries them:

* ``FreedesktopNotifications``: ``org.freedesktop.Notifications`` over the
  session D-Bus (QtDBus, part of PySide6-Essentials) with a "default" action;
  ``ActionInvoked`` for that action opens the line. The call goes through the
  introspected interface's meta-object so ``replaces_id`` is sent as the
  ``uint32`` the specification asks for (a plain call would send an ``int32``,
  which servers refuse).
* ``TrayNotifications``: ``QSystemTrayIcon.showMessage``; ``messageClicked``
  opens the line of the last message.
* none: the task list's badges say it in the window only.

The tray icon, when the desktop has a tray, also carries the count in its
tooltip, like the window title ("XWorkmate (2)").
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import (
    Q_ARG,
    Q_RETURN_ARG,
    QCoreApplication,
    QMetaObject,
    QObject,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QSystemTrayIcon

from xworkmate.domain.attention import Attention, worth_notifying
from xworkmate.domain.secrets import redact
from xworkmate.presentation.wording import english_plural
from xworkmate.ui.background import run_off_thread
from xworkmate.ui.marks import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)

APP_NAME = "XWorkmate"
NOTIFICATIONS_SERVICE = "org.freedesktop.Notifications"
NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
DBUS_TIMEOUT_MS = 1500
"""A notification server that does not answer in this time is treated as absent for that notification (the
notifications' own worker waits on it, never the GUI thread)."""

WHAT_HAPPENED: dict[Attention, str] = {
    Attention.NEEDS_APPROVAL: QT_TRANSLATE_NOOP("Notifier", "“{title}” waits for your approval."),
    Attention.FAILED: QT_TRANSLATE_NOOP("Notifier", "“{title}” failed — its run stopped with an error."),
    Attention.FINISHED_UNREAD: QT_TRANSLATE_NOOP("Notifier", "“{title}” finished — a new answer to read."),
}
"""What the notification says happened to the line (``str.format`` templates with the line's title)."""


def count_title(base: str, count: int) -> str:
    """``XWorkmate (2)``: how many lines need the person, in a title or a tooltip."""
    return (
        QCoreApplication.translate("Notifier", "{title} ({count})").format(title=base, count=count) if count else base
    )


def window_title(line: str | None, count: int) -> str:
    """``(2) Main — XWorkmate``: the shown line, the app once, and how many lines need the person in front.
    It ends with the app's name, so Qt does not append its display name again (it appends it to a title
    that does not end with it)."""
    title = (
        QCoreApplication.translate("Notifier", "{title} — {app}").format(title=line, app=APP_NAME) if line else APP_NAME
    )
    return (
        QCoreApplication.translate("Notifier", "({count}) {title}").format(count=count, title=title) if count else title
    )


class NotificationBackend(Protocol):
    """Shows one notification; calls ``clicked`` with the line's key when the person clicks it."""

    name: str
    clicked: Callable[[str], None] | None

    def show(self, key: str, title: str, body: str) -> None: ...


class FreedesktopNotifications(QObject):
    """``org.freedesktop.Notifications`` over D-Bus (the desktop's own notification bubbles)."""

    name = "freedesktop"

    def __init__(self, connection: object, parent: QObject | None = None) -> None:
        from PySide6.QtDBus import QDBusConnection, QDBusInterface

        super().__init__(parent)
        assert isinstance(connection, QDBusConnection)
        self.clicked: Callable[[str], None] | None = None
        self._connection = connection
        self._interface = QDBusInterface(
            NOTIFICATIONS_SERVICE, NOTIFICATIONS_PATH, NOTIFICATIONS_SERVICE, connection, self
        )
        self.timeout_ms = DBUS_TIMEOUT_MS  # each call's, on the worker's own interface (``_NotifyCall``)
        self._shown: dict[int, str] = {}  # notification id → line key
        self._open: int | None = None  # the id of this app's bubble on the desktop, until it is closed
        self._pending: tuple[str, str, str] | None = None  # the newest notification not sent yet
        self._sending = False
        for signal, slot in (
            ("ActionInvoked", "on_action_invoked(uint,QString)"),
            ("NotificationClosed", "on_notification_closed(uint,uint)"),
        ):
            # The slot is a str at run time; PySide6's stubs say bytes, which it refuses (ValueError).
            connection.connect(  # type: ignore[call-overload]
                NOTIFICATIONS_SERVICE, NOTIFICATIONS_PATH, NOTIFICATIONS_SERVICE, signal, self, f"1{slot}"
            )

    @classmethod
    def connect_to(cls, connection: object, parent: QObject | None = None) -> FreedesktopNotifications | None:
        """A backend on ``connection`` when a notification server is there (registered or activatable)."""
        from PySide6.QtDBus import QDBusConnection

        if not isinstance(connection, QDBusConnection) or not connection.isConnected():
            return None
        bus = connection.interface()
        registered = bus.isServiceRegistered(NOTIFICATIONS_SERVICE)
        if not (registered.isValid() and registered.value()):
            names = bus.call("ListActivatableNames")
            activatable = names.arguments()[0] if names.arguments() else []
            if NOTIFICATIONS_SERVICE not in activatable:
                return None
        backend = cls(connection, parent)
        if not backend._interface.isValid():
            backend.deleteLater()
            return None
        return backend

    def show(self, key: str, title: str, body: str) -> None:
        """Send the notification from the notifications' worker: the call waits for the server's answer (up
        to ``DBUS_TIMEOUT_MS``), which the GUI thread must not. One call at a time: notifications asked for
        while one is on its way make one, the newest, which replaces this app's bubble still on the desktop
        (``replaces_id``): twenty lines that finish in the same second show one bubble, not twenty."""
        self._pending = (key, title, body)
        if not self._sending:
            self._send_pending()

    @property
    def waiting(self) -> bool:
        """A notification is on its way to the server, or waits to be sent."""
        return self._sending or self._pending is not None

    def _send_pending(self) -> None:
        if self._pending is None:
            return
        key, title, body = self._pending
        self._pending, self._sending = None, True
        call = _NotifyCall(
            self._connection,
            self._open or 0,
            title,
            body,
            ["default", QCoreApplication.translate("Notifier", "Open the line")],
            self.timeout_ms,
        )
        run_off_thread(
            call.send,
            lambda notification_id: self._sent(key, notification_id),
            self._not_sent,
            parent=self,
            executor=_notify_worker(),
        )

    def _sent(self, key: str, notification_id: int) -> None:
        self._sending = False
        if notification_id:
            self._shown[notification_id] = key  # a replaced bubble keeps its id: its click is for the newest line
            self._open = notification_id
        self._send_pending()

    def _not_sent(self, exc: BaseException) -> None:  # the server went away, or did not answer in time
        log.warning("desktop notification not shown: %s", exc)
        self._sending = False
        self._send_pending()

    @Slot("uint", str)
    def on_action_invoked(self, notification_id: int, action: str) -> None:
        key = self._shown.get(int(notification_id))
        if key is not None and action == "default" and self.clicked is not None:
            self.clicked(key)

    @Slot("uint", "uint")
    def on_notification_closed(self, notification_id: int, _reason: int) -> None:
        self._shown.pop(int(notification_id), None)
        if self._open == int(notification_id):
            self._open = None


@functools.cache
def _notify_worker() -> ThreadPoolExecutor:
    """The one thread that talks to the notification server: its calls wait for answers, one at a time, and
    never hold a worker that the window's other background work needs."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="xworkmate-notifications")


_WORKER_INTERFACES: dict[str, Any] = {}
"""The notifications' worker's own interface to the server, by bus connection: made and used on that thread
only and kept for the process, so no window closing can delete it while a call waits on it."""


@dataclass(frozen=True)
class _NotifyCall:
    """One ``Notify``, made on the notifications' worker (``send``)."""

    connection: Any  # a QDBusConnection: a handle any thread may use
    replaces: int
    title: str
    body: str
    actions: list[str]
    timeout_ms: int

    def send(self) -> int:
        """``Notify`` (``replaces_id`` a uint32, as the specification asks: a plain call would send an int32,
        which servers refuse), through the interface's meta-object; the bubble's id."""
        interface = self._interface()
        interface.setTimeout(self.timeout_ms)
        notification_id = QMetaObject.invokeMethod(
            interface,
            "Notify",
            Qt.ConnectionType.DirectConnection,
            Q_RETURN_ARG("uint"),
            Q_ARG(str, APP_NAME),
            Q_ARG("uint", self.replaces),
            Q_ARG(str, "xworkmate"),
            Q_ARG(str, self.title),
            Q_ARG(str, self.body),
            Q_ARG("QStringList", self.actions),
            Q_ARG("QVariantMap", {"desktop-entry": "xworkmate"}),
            Q_ARG(int, -1),
        )
        error = interface.lastError()
        if error.isValid():
            raise RuntimeError(error.message())
        return int(notification_id) if isinstance(notification_id, int) else 0

    def _interface(self) -> Any:
        from PySide6.QtDBus import QDBusInterface

        name = f"{self.connection.name()} {self.connection.baseService()}"
        interface = _WORKER_INTERFACES.get(name)
        if interface is None or not interface.connection().isConnected():
            service, path = NOTIFICATIONS_SERVICE, NOTIFICATIONS_PATH
            interface = QDBusInterface(service, path, service, self.connection)
            _WORKER_INTERFACES[name] = interface
        return interface


class TrayNotifications(QObject):
    """``QSystemTrayIcon.showMessage``: a balloon from the tray icon; clicking it opens the line."""

    name = "tray"

    def __init__(self, tray: QSystemTrayIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.clicked: Callable[[str], None] | None = None
        self.tray = tray
        self._last_key: str | None = None
        tray.messageClicked.connect(self.on_message_clicked)

    def show(self, key: str, title: str, body: str) -> None:
        self._last_key = key  # a tray shows one message at a time: a click is for the newest
        self.tray.showMessage(title, body, QSystemTrayIcon.MessageIcon.Information, 10_000)

    @Slot()
    def on_message_clicked(self) -> None:
        if self._last_key is not None and self.clicked is not None:
            self.clicked(self._last_key)


def make_tray(icon: QIcon, parent: QObject | None = None) -> QSystemTrayIcon | None:
    """The tray icon, when the desktop has a tray (it carries the count and, without D-Bus, the messages)."""
    if not QSystemTrayIcon.isSystemTrayAvailable():
        return None
    tray = QSystemTrayIcon(icon, parent)
    tray.setObjectName("xworkmateTray")
    tray.setToolTip(APP_NAME)
    tray.show()
    return tray


HEADLESS_PLATFORMS = frozenset({"offscreen", "minimal"})
"""Qt platforms with no desktop to show a notification on (the tests' offscreen windows among them)."""


def choose_backend(tray: QSystemTrayIcon | None, parent: QObject | None = None) -> NotificationBackend | None:
    """Freedesktop notifications on the session bus, else the tray's messages, else none (badges only)."""
    if QGuiApplication.platformName() in HEADLESS_PLATFORMS:
        return None  # nobody sees a headless window: no bubbles on the desktop of whoever runs it
    try:
        from PySide6.QtDBus import QDBusConnection

        backend = FreedesktopNotifications.connect_to(QDBusConnection.sessionBus(), parent)
    except ImportError:  # a PySide6 build without QtDBus (not Linux)
        backend = None
    if backend is not None:
        return backend
    if tray is not None and QSystemTrayIcon.supportsMessages():
        return TrayNotifications(tray, parent)
    return None


class Notifier(QObject):
    """The one place that decides whether a change in a line's attention becomes a desktop notification.

    Signals:
        line_requested(str): the person clicked the notification of this line.
    """

    line_requested = Signal(str)

    def __init__(
        self,
        backend: NotificationBackend | None,
        *,
        tray: QSystemTrayIcon | None = None,
        enabled: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.backend = backend
        self.tray = tray
        self.enabled = enabled
        self._count = 0
        self.use_backend(backend)

    def use_backend(self, backend: NotificationBackend | None) -> None:
        """Show notifications through ``backend`` (tests plug theirs in here); its clicks open lines."""
        self.backend = backend
        if backend is not None:
            backend.clicked = self.line_requested.emit

    @property
    def backend_name(self) -> str:
        return self.backend.name if self.backend is not None else "in-app"

    def consider(
        self,
        key: str,
        before: Attention,
        after: Attention,
        *,
        title: str,
        shown_key: str | None,
        window_active: bool,
        muted: bool,
    ) -> bool:
        """Notify when the line has just come to need the person and they are not looking at it.

        Returns whether a notification was shown.
        """
        if not self.enabled or self.backend is None or muted or not worth_notifying(before, after):
            return False
        if key == shown_key and window_active:
            return False  # the person is looking at it: the pane says it
        title = redact(title)  # SEC-1: a notification is derived text, shown outside the window
        body = QCoreApplication.translate("Notifier", WHAT_HAPPENED[after]).format(title=title)
        if self._count > 1:  # the bubble replaces the one before (one at a time): say how many others wait
            count = english_plural(self.tr("%n lines need you.", "", self._count), self._count)
            body = f"{body}\n{count}"
        self.backend.show(key, self.tr("{app}: {title}").format(app=APP_NAME, title=title), body)
        return True

    def show_count(self, count: int) -> None:
        """How many lines need the person (the window's title says it too)."""
        self._count = count
        if self.tray is not None:
            self.tray.setToolTip(count_title(APP_NAME, count))
