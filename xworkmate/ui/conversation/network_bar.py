"""SBX-4 in the window: a host the line's proxy refused during a turn, and the way to allow it.

``NetworkDeniedBar`` under the conversation; ``CardNetworkActions`` on the card of the tool call that
made the connection (the card's texts are ``presentation.cards``'). Both ask for the same thing:
``allow_requested(host:port)``, which the window answers with the line's ``set_allowed_hosts``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from xworkmate.domain.messages import Message
from xworkmate.presentation.cards import CardConnection


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


class CardNetworkActions(QWidget):
    """The buttons under a tool card's refused connections: one per refused host (``cardAllowHostButton``).

    A host already on the line's list (``set_allowed``) has its button disabled.
    """

    allow_requested = Signal(str)

    def __init__(self, refused: Sequence[CardConnection], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("cardNetworkActions")
        self.buttons: list[QPushButton] = []
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for connection in refused:
            button = QPushButton(connection.action)
            button.setObjectName("cardAllowHostButton")
            button.setProperty("destination", connection.destination)
            button.setToolTip(connection.destination)
            button.clicked.connect(lambda _=False, host=connection.destination: self.allow_requested.emit(host))
            layout.addWidget(button)
            self.buttons.append(button)
        layout.addStretch(1)

    def set_allowed(self, hosts: Collection[str]) -> None:
        for button in self.buttons:
            button.setEnabled(button.property("destination") not in hosts)
