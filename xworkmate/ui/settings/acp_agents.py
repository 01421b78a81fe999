"""Settings → Providers → ACP agents: agent CLIs found on PATH, or added by hand (SPEC §5, §7).

``AcpAgentsSection`` is a view inside the providers dialog: a "Find agent CLIs
on PATH" button with what it found (name, version, command), and a small form
to add an agent by hand — a name, the command line that starts it in ACP mode
(split like a shell would, ``shlex``) and environment references
(``NAME=env:VAR`` or ``NAME=keyring:ENTRY``; never a secret itself, SPEC §7).
``agent_record`` turns the form into a provider record or says which field is
wrong; the dialog does the saving.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from xworkmate.domain.providers import InvalidProviderError, ProviderKind, ProviderRecord, parse_env_ref
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.marks import QT_TRANSLATE_NOOP

ACP_FIELDS = ("name", "command", "env", "state_dirs", "auth")
NONE_FOUND_TEXT = QT_TRANSLATE_NOOP(
    "AcpAgentsSection",
    "No agent CLI found on PATH (looked for qwen, gemini, codex-acp, claude-code-acp, opencode and goose). "
    "Add one by hand below: a name and the command that starts it in ACP mode, e.g. “qwen --acp” or "
    "“gemini --experimental-acp”.",
)
# The record's fields, as the form's fields (the record's own rules say what is wrong: domain/providers.py).
_FORM_FIELDS = {"name": "name", "acp_command": "command", "acp_env_refs": "env", "acp_state_dirs": "state_dirs",
                "acp_auth_method": "auth"}  # fmt: skip


class AcpFormError(ValueError):
    """A form field that cannot be saved; ``field`` is one of ``ACP_FIELDS``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def parse_env_refs(text: str) -> tuple[tuple[str, str], ...]:
    """``NAME=env:VAR`` / ``NAME=keyring:ENTRY`` items, separated by spaces, commas or new lines."""
    refs: list[tuple[str, str]] = []
    for item in re.split(r"[\s,]+", text.strip()):
        if not item:
            continue
        try:
            refs.append(parse_env_ref(item))
        except ValueError as exc:  # the value is not echoed back: someone may have pasted the secret itself
            raise AcpFormError("env", plain_words(str(exc))) from None
    return tuple(refs)


def parse_state_dirs(text: str) -> tuple[str, ...] | None:
    """Writable folders, separated by commas or new lines; blank means the known agent's defaults."""
    entries = tuple(item.strip() for item in re.split(r"[,\n]+", text) if item.strip())
    return entries or None


def agent_record(
    name: str, command_line: str, env_text: str = "", state_dirs_text: str = "", auth_method: str = ""
) -> ProviderRecord:
    """The form as an ACP provider record, or ``AcpFormError`` naming the field."""
    clean = name.strip()
    if not clean:
        raise AcpFormError("name", QCoreApplication.translate("AcpAgentsSection", "give the agent a name, e.g. qwen"))
    try:
        command = tuple(shlex.split(command_line))
    except ValueError as exc:
        raise AcpFormError(
            "command",
            QCoreApplication.translate("AcpAgentsSection", "cannot read the command line ({reason})").format(
                reason=exc
            ),
        ) from exc
    if not command:
        raise AcpFormError(
            "command",
            QCoreApplication.translate(
                "AcpAgentsSection", "type the command that starts the agent in ACP mode, e.g. qwen --acp"
            ),
        )
    try:
        return ProviderRecord.checked(
            name=clean,
            kind=ProviderKind.ACP,
            acp_command=command,
            acp_env_refs=parse_env_refs(env_text),
            acp_state_dirs=parse_state_dirs(state_dirs_text),
            acp_auth_method=auth_method.strip() or None,
        )
    except InvalidProviderError as exc:
        message = str(exc).split(f"{exc.field}: ", 1)[-1]
        raise AcpFormError(_FORM_FIELDS.get(exc.field, "name"), plain_words(message)) from None


def discovered_label(record: ProviderRecord, configured: Sequence[ProviderRecord]) -> str:
    version = record.model or QCoreApplication.translate("AcpAgentsSection", "version unknown")
    label = f"{record.name} {version} — {' '.join(record.acp_command)}"
    if any(p.kind is ProviderKind.ACP and p.acp_command == record.acp_command for p in configured):
        label = QCoreApplication.translate("AcpAgentsSection", "{label} (already added)").format(label=label)
    return label


class AcpAgentsSection(QGroupBox):
    """Find agent CLIs on PATH, add one found, or add one by hand (view only).

    Signals: none of its own; the providers dialog connects to its child widgets.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("ACP agents (external agent CLIs)"), parent)
        self.setObjectName("acpAgentsSection")

        self.find_button = QPushButton(self.tr("Find agent CLIs on PATH"))
        self.find_button.setObjectName("findAgentsButton")
        self.find_button.setToolTip(
            self.tr("Look for qwen, gemini, codex-acp, claude-code-acp, opencode and goose; ask each for its version")
        )
        self.found_list = QListWidget()
        self.found_list.setObjectName("discoveredAgentsList")
        self.found_list.hide()
        self.add_found_button = QPushButton(self.tr("Add this agent"))
        self.add_found_button.setObjectName("addDiscoveredAgentButton")
        self.add_found_button.hide()
        self.status_label = QLabel()
        self.status_label.setObjectName("acpStatusLabel")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)

        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("acpNameEdit")
        self.name_edit.setPlaceholderText(self.tr("qwen, gemini, my-agent … (no spaces)"))
        self.command_edit = QLineEdit()
        self.command_edit.setObjectName("acpCommandEdit")
        self.command_edit.setPlaceholderText(self.tr("the command that starts it in ACP mode, e.g. qwen --acp"))
        self.env_edit = QLineEdit()
        self.env_edit.setObjectName("acpEnvEdit")
        self.env_edit.setPlaceholderText(self.tr("optional: NAME=env:VAR or NAME=keyring:ENTRY, separated by spaces"))
        # SBX-1: the agent runs sandboxed; these are the folders of its own it may write.
        self.state_dirs_edit = QLineEdit()
        self.state_dirs_edit.setObjectName("acpStateDirsEdit")
        self.state_dirs_edit.setPlaceholderText(
            self.tr("default: the agent's own folders (e.g. ~/.qwen); comma-separated")
        )
        self.state_dirs_edit.setToolTip(
            self.tr(
                "The agent runs in a sandbox: its line's folder and these folders are the only places it may write. "
                "Leave empty for the defaults of a known agent."
            )
        )
        # Issue 15: how the agent signs in, when it offers several ways (its initialize lists them).
        self.auth_edit = QLineEdit()
        self.auth_edit.setObjectName("acpAuthMethodEdit")
        self.auth_edit.setPlaceholderText(self.tr("optional: the sign-in method id to use (e.g. openai)"))
        self.auth_edit.setToolTip(
            self.tr(
                "Leave empty: the only method the agent offers is used, or the window asks which one when there are "
                "several"
            )
        )
        self.error_label = QLabel()
        self.error_label.setObjectName("acpErrorLabel")
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.hide()
        self.add_button = QPushButton(self.tr("Add agent"))
        self.add_button.setObjectName("addAcpAgentButton")

        found_row = QHBoxLayout()
        found_row.addWidget(self.found_list, 1)
        found_row.addWidget(self.add_found_button, 0, Qt.AlignmentFlag.AlignTop)
        find_row = QHBoxLayout()
        find_row.addWidget(self.find_button)
        find_row.addStretch(1)
        form = QFormLayout()
        form.addRow(self.tr("Name:"), self.name_edit)
        form.addRow(self.tr("Command:"), self.command_edit)
        form.addRow(self.tr("Environment:"), self.env_edit)
        form.addRow(self.tr("Writable folders:"), self.state_dirs_edit)
        form.addRow(self.tr("Sign-in method:"), self.auth_edit)
        add_row = QHBoxLayout()
        add_row.addStretch(1)
        add_row.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.addLayout(find_row)
        layout.addLayout(found_row)
        layout.addWidget(self.status_label)
        layout.addWidget(QLabel(self.tr("Add an agent by hand:")))
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addLayout(add_row)

    # -- showing ------------------------------------------------------------

    def show_found(self, found: Sequence[ProviderRecord], configured: Sequence[ProviderRecord]) -> None:
        self.found_list.clear()
        for record in found:
            item = QListWidgetItem(discovered_label(record, configured))
            item.setData(Qt.ItemDataRole.UserRole, record)
            self.found_list.addItem(item)
        self.found_list.setVisible(bool(found))
        self.add_found_button.setVisible(bool(found))
        if found:
            self.found_list.setCurrentRow(0)
            count = len(found)
            self.show_status(self.tr("%n agent CLI(s) found on PATH; add the ones you want.", "", count))
        else:
            self.show_status(QCoreApplication.translate("AcpAgentsSection", NONE_FOUND_TEXT))

    def found_texts(self) -> list[str]:
        return [self.found_list.item(row).text() for row in range(self.found_list.count())]

    def chosen_found(self) -> ProviderRecord | None:
        item = self.found_list.currentItem()
        record = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return record if isinstance(record, ProviderRecord) else None

    def show_status(self, text: str) -> None:
        self.status_label.setText(text)

    def show_error(self, text: str, field: str | None = None) -> None:
        """Shown under the form; the field it names is marked."""
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))
        widgets = {
            "name": self.name_edit,
            "command": self.command_edit,
            "env": self.env_edit,
            "state_dirs": self.state_dirs_edit,
            "auth": self.auth_edit,
        }
        for name, widget in widgets.items():
            invalid = name == field
            if widget.property("invalid") != invalid:
                widget.setProperty("invalid", invalid)
                widget.style().unpolish(widget)
                widget.style().polish(widget)

    def clear_form(self) -> None:
        for edit in (self.name_edit, self.command_edit, self.env_edit, self.state_dirs_edit, self.auth_edit):
            edit.clear()
        self.show_error("")
