"""SBX-4 in the window: a host the line's proxy refused during a turn, and the way to allow it."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from xworkmate.domain.messages import Message


def denied_destination(message: Message) -> str | None:
    """The ``host:port`` a network-log notice says was refused, or None (the recorder's payload)."""
    network = (message.payload or {}).get("network")
    if not isinstance(network, dict) or network.get("allowed") is not False:
        return None
    host, port = str(network.get("host", "")), network.get("port")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class NetworkDeniedBar(QFrame):
    """Shown under the conversation while the shown line has a refused host not yet on its list."""

    allow_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("networkDeniedBar")
        self.destination: str | None = None
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.allow_button = QPushButton(self.tr("Allow this host for this line"))
        self.allow_button.setObjectName("allowHostButton")
        self.allow_button.clicked.connect(self._allow)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.allow_button)
        self.setVisible(False)

    def show_denied(self, destination: str | None) -> None:
        self.destination = destination
        if destination is not None:
            self.label.setText(
                self.tr("The agent tried to reach {host}, which is not on this line's network allow-list.").format(
                    host=destination
                )
            )
        self.setVisible(destination is not None)

    @Slot()
    def _allow(self) -> None:
        if self.destination is not None:
            self.allow_requested.emit(self.destination)
