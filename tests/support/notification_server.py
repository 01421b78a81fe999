"""A real ``org.freedesktop.Notifications`` server on a D-Bus session bus, for the notifier's tests.

Run as ``python -m tests.support.notification_server LOG`` with ``DBUS_SESSION_BUS_ADDRESS`` set to a
private bus. Each ``Notify`` call is appended to LOG as one JSON line; ``NOTIFY_CLICK_AFTER_MS`` makes
the server answer each one with ``ActionInvoked(id, "default")`` that long after, as a click does. A
``replaces_id`` that names a notification it showed is answered with that id, as the specification says.
While the file ``NOTIFY_HOLD`` names exists, a ``Notify`` call is not answered (a busy or stuck server).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time

from PySide6.QtCore import ClassInfo, QCoreApplication, QObject, QTimer, Signal, Slot
from PySide6.QtDBus import QDBusAbstractAdaptor, QDBusConnection


@ClassInfo({"D-Bus Interface": "org.freedesktop.Notifications"})
class NotificationsAdaptor(QDBusAbstractAdaptor):
    """The methods and signals keep their D-Bus names (``Notify``, ``ActionInvoked``)."""

    ActionInvoked = Signal("uint", str)
    NotificationClosed = Signal("uint", "uint")

    def __init__(self, parent: QObject, log_path: str, click_after_ms: int | None, hold: str | None) -> None:
        super().__init__(parent)
        self._log_path = log_path
        self._click_after_ms = click_after_ms
        self._hold = hold
        self._ids = itertools.count(1)
        self._given: set[int] = set()

    @Slot(str, "uint", str, str, str, "QStringList", "QVariantMap", int, result="uint")
    def Notify(
        self, app: str, replaces: int, icon: str, summary: str, body: str, actions: list[str], hints: dict, timeout: int
    ) -> int:
        while self._hold and os.path.exists(self._hold):
            time.sleep(0.01)
        notification_id = replaces if replaces in self._given else next(self._ids)
        self._given.add(notification_id)
        entry = {"id": notification_id, "replaces": replaces, "app": app, "summary": summary, "body": body}
        entry["actions"] = list(actions)
        with open(self._log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")
        if self._click_after_ms is not None and "default" in actions:
            QTimer.singleShot(self._click_after_ms, lambda: self.ActionInvoked.emit(notification_id, "default"))
        return notification_id

    @Slot(result="QStringList")
    def GetCapabilities(self) -> list[str]:
        return ["actions", "body"]


def main() -> int:
    app = QCoreApplication(sys.argv)
    click = os.environ.get("NOTIFY_CLICK_AFTER_MS")
    service = QObject()
    NotificationsAdaptor(service, sys.argv[1], int(click) if click else None, os.environ.get("NOTIFY_HOLD"))
    bus = QDBusConnection.sessionBus()
    if not bus.registerObject("/org/freedesktop/Notifications", service):
        print("cannot register the object", file=sys.stderr)
        return 1
    if not bus.registerService("org.freedesktop.Notifications"):
        print("cannot own org.freedesktop.Notifications", file=sys.stderr)
        return 1
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
