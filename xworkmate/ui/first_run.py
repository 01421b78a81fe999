"""First run: the empty conversation says what to do, and the status agrees with the banner (issue 18, item 8).

With no agent provider configured, an empty line shows two buttons — add a
provider, or use an agent CLI found on PATH — instead of only "type below";
and a runnable line's status says that nothing will run rather than a green
"ready".
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from xworkmate.ui.marks import QT_TRANSLATE_NOOP

NO_PROVIDER_EMPTY_TEXT = QT_TRANSLATE_NOOP(
    "EmptyConversation",
    "No messages yet. To get answers, add an agent provider (an OpenAI-compatible endpoint) or use an "
    "agent CLI found on your PATH. Until then, what you send is saved but nothing runs.",
)
NO_PROVIDER_STATUS = QT_TRANSLATE_NOOP(
    "EmptyConversation",
    "Runnable — no provider yet, so a message is only saved",
)


def status_without_provider(text: str, severity: str, provider_missing: bool) -> tuple[str, str]:
    """The status line's text: a "ready" line with no provider says that nothing will run."""
    if provider_missing and severity == "ok":
        return QCoreApplication.translate("EmptyConversation", NO_PROVIDER_STATUS), "warning"
    return text, severity


class EmptyConversation(QWidget):
    """The empty conversation page (``messageEmptyState``): its text, and the first-run buttons.

    Signals: ``add_provider_requested()``, ``find_agents_requested()``.
    """

    add_provider_requested = Signal()
    find_agents_requested = Signal()

    def __init__(self, label: QLabel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageEmptyState")
        self.label = label
        self._default_text = label.text()
        self.add_provider_button = QPushButton(self.tr("Add a provider…"))
        self.add_provider_button.setObjectName("firstRunAddProviderButton")
        self.add_provider_button.setAccessibleName(self.tr("Add an agent provider"))
        self.find_agents_button = QPushButton(self.tr("Use an agent found on PATH…"))
        self.find_agents_button.setObjectName("firstRunFindAgentsButton")
        self.find_agents_button.setAccessibleName(self.tr("Look for agent CLIs on PATH"))
        self.add_provider_button.clicked.connect(self.add_provider_requested)
        self.find_agents_button.clicked.connect(self.find_agents_requested)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.add_provider_button)
        buttons.addWidget(self.find_agents_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(label)
        layout.addLayout(buttons)
        layout.addStretch(2)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.show_provider_missing(False)

    def show_provider_missing(self, missing: bool) -> None:
        self.label.setText(
            QCoreApplication.translate("EmptyConversation", NO_PROVIDER_EMPTY_TEXT) if missing else self._default_text
        )
        self.add_provider_button.setVisible(missing)
        self.find_agents_button.setVisible(missing)
