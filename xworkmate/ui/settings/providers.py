"""Settings → Providers: the OpenAI-compatible endpoints the native agent may use, and the ACP
agent CLIs a line may run instead (SPEC §5, §7, CAT-1).

Lists the configured providers and adds, edits and removes them through the
controller, each read and write (database and keyring) a named operation on the
window's store worker (``ui/ops``, issue 33 item 2, LOOP-4). API keys are
either the name of an environment variable or typed into a password field that goes straight to the OS keyring
(``set_provider_api_key``); they never reach the database. "Fetch models"
and "Detect local servers" ask the endpoints over HTTP through the
controller; those calls are scheduled on the running asyncio loop (qasync,
``background.run_on_loop``) and their results applied in a done-callback — the
dialog never spins an event loop of its own (STYLE lesson 6). "Find agent CLIs
on PATH" runs the controller's blocking discovery in a worker thread
(``asyncio.to_thread``). Closing the dialog cancels them all and drops their
answers (``run_on_loop``'s ``cancel_on``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar
from urllib.parse import urlsplit

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import SessionController
from xworkmate.domain.providers import ProviderKind, ProviderRecord
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.background import LoopJob, jobs_waiting, run_on_loop
from xworkmate.ui.marks import QT_TRANSLATE_NOOP
from xworkmate.ui.ops import StoreOp, operations_of
from xworkmate.ui.ops.settings import ProviderSaved, ProviderTable, read_providers, remove_provider, save_provider
from xworkmate.ui.settings.acp_agents import AcpAgentsSection, AcpFormError, agent_record

log = logging.getLogger(__name__)

T = TypeVar("T")
Confirm = Callable[[QWidget | None, str], bool]

COLUMNS = (
    QT_TRANSLATE_NOOP("ProviderSettingsDialog", "Name"),
    QT_TRANSLATE_NOOP("ProviderSettingsDialog", "Model"),
    QT_TRANSLATE_NOOP("ProviderSettingsDialog", "Base URL"),
    QT_TRANSLATE_NOOP("ProviderSettingsDialog", "Tags"),
    QT_TRANSLATE_NOOP("ProviderSettingsDialog", "Default"),
)
FIELDS = ("name", "base_url", "model", "tags", "api_key_env")
KNOWN_LOCAL_PORTS = {11434: "ollama", 1234: "lmstudio", 8000: "vllm"}


def ask_confirmation(parent: QWidget | None, text: str) -> bool:
    answer = QMessageBox.question(parent, QCoreApplication.translate("ProviderSettingsDialog", "Remove provider"), text)
    return answer == QMessageBox.StandardButton.Yes


def suggested_name(base_url: str, taken: set[str]) -> str:
    """``ollama`` for 127.0.0.1:11434, ``lmstudio`` for :1234, else ``local``; made unique."""
    port = urlsplit(base_url).port
    base = KNOWN_LOCAL_PORTS.get(port or 0, "local")
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def error_field(text: str) -> str | None:
    """The form field an error names: the controller says ``provider 'x': base_url: …``."""
    if not text:
        return None
    if "already exists" in text:
        return "name"
    for field in FIELDS:
        if text.startswith(f"{field}:") or f": {field}:" in text:
            return field
    return None


class ProviderSettingsDialog(QDialog):
    """The providers list and the form to add or edit one.

    Signals:
        providers_changed(): a provider was added, changed or removed.
    """

    providers_changed = Signal()

    def __init__(
        self,
        controller: SessionController,
        parent: QWidget | None = None,
        *,
        detect_candidates: tuple[str, ...] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("providerSettingsDialog")
        self.setWindowTitle(self.tr("Providers — XWorkmate"))
        self._controller = controller
        self.detect_candidates = detect_candidates
        self.confirm: Confirm = ask_confirmation
        self._editing: ProviderRecord | None = None
        self._editing_agent: str | None = None  # the ACP agent whose settings the agents form shows
        self._table = ProviderTable([], {})  # what the list shows, as the store worker last read it
        self._ops_running = 0  # named operations on their way (issue 33 item 2): ``busy`` until they are back
        self._build()
        self._connect_signals()
        self.reload()

    @classmethod
    def open_for(
        cls,
        parent: QWidget | None,
        controller: SessionController,
        *,
        detect_candidates: tuple[str, ...] | None = None,
    ) -> ProviderSettingsDialog:
        """Show the dialog window-modal, without a nested event loop (``open``, not ``exec``)."""
        dialog = cls(controller, parent, detect_candidates=detect_candidates)
        dialog.open()
        return dialog

    # -- construction -----------------------------------------------------------------

    def _build(self) -> None:
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("providerTable")
        self.table.setHorizontalHeaderLabels([QCoreApplication.translate("ProviderSettingsDialog", c) for c in COLUMNS])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        # Issue 30: the open form squeezed the list to one row; it keeps four in view (the dialog grows).
        rows = 4 * self.table.verticalHeader().defaultSectionSize()
        self.table.setMinimumHeight(
            rows + self.table.horizontalHeader().sizeHint().height() + 2 * self.table.frameWidth()
        )
        self.empty_label = QLabel(self.tr("No provider yet. Add one, or detect a local server (Ollama, LM Studio)."))
        self.empty_label.setObjectName("providerEmptyLabel")
        self.empty_label.setWordWrap(True)

        self.add_button = QPushButton(self.tr("Add…"))
        self.add_button.setObjectName("addProviderButton")
        self.edit_button = QPushButton(self.tr("Edit…"))
        self.edit_button.setObjectName("editProviderButton")
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.setObjectName("removeProviderButton")
        self.detect_button = QPushButton(self.tr("Detect local servers"))
        self.detect_button.setObjectName("detectLocalButton")
        self.detect_button.setToolTip(
            self.tr("Ask 127.0.0.1:11434 (Ollama) and 127.0.0.1:1234 (LM Studio) for their models")
        )
        self.detected_list = QListWidget()
        self.detected_list.setObjectName("detectedServersList")
        self.detected_list.hide()
        self.use_detected_button = QPushButton(self.tr("Use this server…"))
        self.use_detected_button.setObjectName("useDetectedButton")
        self.use_detected_button.hide()
        self.status_label = QLabel()
        self.status_label.setObjectName("providerStatusLabel")
        self.status_label.setWordWrap(True)
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)

        self.form = QGroupBox(self.tr("Provider"))
        self.form.setObjectName("providerForm")
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("providerNameEdit")
        self.name_edit.setPlaceholderText(self.tr("openrouter, ollama, work-vllm … (no spaces)"))
        self.base_url_edit = QLineEdit()
        self.base_url_edit.setObjectName("providerBaseUrlEdit")
        self.base_url_edit.setPlaceholderText("http://127.0.0.1:11434/v1")
        self.model_combo = QComboBox()
        self.model_combo.setObjectName("providerModelCombo")
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setSizePolicy(self.base_url_edit.sizePolicy())
        self.fetch_models_button = QPushButton(self.tr("Fetch models"))
        self.fetch_models_button.setObjectName("fetchModelsButton")
        self.fetch_models_button.setToolTip(self.tr("Ask the base URL which models it offers (GET /models)"))
        self.tags_edit = QLineEdit()
        self.tags_edit.setObjectName("providerTagsEdit")
        self.tags_edit.setPlaceholderText(self.tr("categories this provider may serve, comma-separated (e.g. medical)"))
        self.default_check = QCheckBox(self.tr("Use when no provider is picked"))
        self.default_check.setObjectName("providerDefaultCheck")
        # ATT-1: the model takes images: pasted images are sent to it as image_url parts.
        self.vision_check = QCheckBox(self.tr("The model takes images (vision)"))
        self.vision_check.setObjectName("providerVisionCheck")
        self.key_env_edit = QLineEdit()
        self.key_env_edit.setObjectName("providerKeyEnvEdit")
        self.key_env_edit.setPlaceholderText(self.tr("environment variable holding the key, e.g. OPENROUTER_API_KEY"))
        self.key_edit = QLineEdit()
        self.key_edit.setObjectName("providerKeyEdit")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText(self.tr("or type the key: it goes to the OS keyring, never the database"))
        self.form_error_label = QLabel()
        self.form_error_label.setObjectName("providerErrorLabel")
        self.form_error_label.setWordWrap(True)
        self.form_error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.form_error_label.hide()
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setObjectName("saveProviderButton")
        self.save_button.setDefault(True)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("cancelProviderButton")

        model_row = QHBoxLayout()
        model_row.addWidget(self.model_combo, 1)
        model_row.addWidget(self.fetch_models_button)
        form_layout = QFormLayout()
        form_layout.addRow(self.tr("Name:"), self.name_edit)
        form_layout.addRow(self.tr("Base URL:"), self.base_url_edit)
        form_layout.addRow(self.tr("Model:"), model_row)
        form_layout.addRow(self.tr("Tags:"), self.tags_edit)
        form_layout.addRow("", self.default_check)
        form_layout.addRow("", self.vision_check)
        form_layout.addRow(self.tr("API key variable:"), self.key_env_edit)
        form_layout.addRow(self.tr("API key:"), self.key_edit)
        form_buttons = QHBoxLayout()
        form_buttons.addStretch(1)
        form_buttons.addWidget(self.cancel_button)
        form_buttons.addWidget(self.save_button)
        form_box = QVBoxLayout(self.form)
        form_box.addLayout(form_layout)
        form_box.addWidget(self.form_error_label)
        form_box.addLayout(form_buttons)
        self.form.hide()

        list_buttons = QHBoxLayout()
        for button in (self.add_button, self.edit_button, self.remove_button):
            list_buttons.addWidget(button)
        list_buttons.addStretch(1)
        list_buttons.addWidget(self.detect_button)
        detected_row = QHBoxLayout()
        detected_row.addWidget(self.detected_list, 1)
        detected_row.addWidget(self.use_detected_button, 0, Qt.AlignmentFlag.AlignTop)
        self.close_buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.acp_section = AcpAgentsSection()

        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty_label)
        layout.addLayout(list_buttons)
        layout.addLayout(detected_row)
        layout.addWidget(self.status_label)
        layout.addWidget(self.form)
        layout.addWidget(self.acp_section)
        layout.addWidget(self.close_buttons)
        self.resize(760, 680)

    def _connect_signals(self) -> None:
        self.add_button.clicked.connect(self.on_add_requested)
        self.edit_button.clicked.connect(self.on_edit_requested)
        self.remove_button.clicked.connect(self.on_remove_requested)
        self.detect_button.clicked.connect(self.on_detect_requested)
        self.use_detected_button.clicked.connect(self.on_use_detected_requested)
        self.detected_list.itemDoubleClicked.connect(lambda _item: self.on_use_detected_requested())
        self.fetch_models_button.clicked.connect(self.on_fetch_models_requested)
        self.save_button.clicked.connect(self.on_save_requested)
        # Issue 30: an editable combo box keeps Enter to itself (the dialog's default button never sees it):
        # Enter in the Model field saves, as in every other field of the form.
        model_edit = self.model_combo.lineEdit()
        if model_edit is not None:
            model_edit.returnPressed.connect(self.save_button.click)
        # In a dialog every push button is "auto default": Enter the form did not take would press the
        # one last focused (Add…, which opened an empty form again). Only Save answers Enter.
        for button in self.findChildren(QPushButton):
            button.setAutoDefault(button is self.save_button)
        self.cancel_button.clicked.connect(self.close_form)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.itemDoubleClicked.connect(lambda _item: self.on_edit_requested())
        self.close_buttons.rejected.connect(self.reject)
        self.acp_section.find_button.clicked.connect(self.on_find_agents_requested)
        self.acp_section.add_found_button.clicked.connect(self.on_add_found_agent_requested)
        self.acp_section.found_list.itemDoubleClicked.connect(lambda _item: self.on_add_found_agent_requested())
        self.acp_section.add_button.clicked.connect(self.on_add_acp_agent_requested)

    # -- the list ---------------------------------------------------------------------

    def _run(self, op: StoreOp[T], done: Callable[[T], None], failed: Callable[[str], None]) -> None:
        """A named operation on the window's store worker (issue 33 item 2, LOOP-4); ``busy`` meanwhile."""
        self._ops_running += 1

        def finished(result: T) -> None:
            self._ops_running -= 1
            done(result)

        def not_done(line: str) -> None:
            self._ops_running -= 1
            failed(line)

        op.run(operations_of(self), done=finished, failed=not_done, expected=(ValueError, LookupError))

    def reload(self) -> None:
        """Re-read the providers on the store worker; the list is redrawn when they arrive."""
        self._run(read_providers(self._controller), self.show_table, self.show_status)

    def show_table(self, table: ProviderTable) -> None:
        self._table = table
        providers = table.providers
        selected = self.selected_name()
        self.table.setRowCount(len(providers))
        for row, record in enumerate(providers):
            cells = (
                record.name,
                record.model or (self._agent_label(record.name) if record.kind is ProviderKind.ACP else ""),
                record.base_url or " ".join(record.acp_command),
                ", ".join(record.tags),
                "✓" if record.is_default else "",
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, record.name)
                self.table.setItem(row, column, item)
            if record.name == selected:
                self.table.selectRow(row)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.empty_label.setVisible(not providers)
        self._update_buttons()

    def _agent_label(self, name: str) -> str:
        """Issue 15, item 8: the name and version the agent reported in ``agentInfo``, once it ran."""
        info = self._table.agent_info.get(name)
        return self.tr("{agent} (ACP agent)").format(agent=info.label) if info is not None else self.tr("(ACP agent)")

    def provider_names(self) -> list[str]:
        names: list[str] = []
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None:
                names.append(item.text())
        return names

    def selected_name(self) -> str | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return str(rows[0].data(Qt.ItemDataRole.UserRole)) if rows else None

    def select(self, name: str) -> None:
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None and item.text() == name:
                self.table.selectRow(row)
                return

    def _selected_record(self) -> ProviderRecord | None:
        name = self.selected_name()
        return next((r for r in self._table.providers if r.name == name), None) if name else None

    def _update_buttons(self) -> None:
        record = self._selected_record()
        self.edit_button.setEnabled(record is not None)
        self.remove_button.setEnabled(record is not None)

    # -- slots: list --------------------------------------------------------------------

    def on_add_requested(self) -> None:
        self.open_form(None)

    def on_edit_requested(self) -> None:
        record = self._selected_record()
        if record is not None and record.kind is ProviderKind.OPENAI:
            self.open_form(record)
        elif record is not None:
            self.edit_agent(record)

    def edit_agent(self, record: ProviderRecord) -> None:
        """Fill the agents form from a stored ACP agent; saving replaces it (its writable folders, SBX-1)."""
        import shlex

        from xworkmate.controllers.containment import agent_state_dirs

        section = self.acp_section
        self._editing_agent = record.name
        section.name_edit.setText(record.name)
        section.name_edit.setReadOnly(True)  # renaming is remove + add
        section.command_edit.setText(shlex.join(record.acp_command))
        section.env_edit.setText(" ".join(f"{name}={ref}" for name, ref in record.acp_env_refs))
        defaults = agent_state_dirs(record.acp_command, None)
        section.state_dirs_edit.setText(", ".join(record.acp_state_dirs) if record.acp_state_dirs is not None else "")
        section.auth_edit.setText(record.acp_auth_method or "")
        section.state_dirs_edit.setPlaceholderText(
            self.tr("default: {folders}").format(folders=", ".join(defaults))
            if defaults
            else self.tr("none: only the line's folder is writable")
        )
        section.add_button.setText(self.tr("Save agent"))
        section.show_error("")
        section.state_dirs_edit.setFocus()

    def _end_agent_edit(self) -> None:
        section = self.acp_section
        self._editing_agent = None
        section.name_edit.setReadOnly(False)
        section.add_button.setText(self.tr("Add agent"))

    def on_remove_requested(self) -> None:
        name = self.selected_name()
        if name is None or not self.confirm(
            self,
            self.tr("Remove the provider {name}? Lines that used it fall back to the default provider.").format(
                name=repr(name)
            ),
        ):
            return

        def removed(table: ProviderTable) -> None:
            if self._editing is not None and self._editing.name == name:
                self.close_form()
            self.show_table(table)
            self.show_status(self.tr("Removed {name}.").format(name=name))
            self.providers_changed.emit()

        self._run(remove_provider(self._controller, name), removed, self.show_status)

    # -- the form -----------------------------------------------------------------------

    def open_form(self, record: ProviderRecord | None, *, models: list[str] | None = None) -> None:
        """Show the form empty (add), filled from ``record`` (edit), or prefilled from a detected server."""
        self._editing = record if record is not None and record.name in self.provider_names() else None
        self.form.setTitle(
            self.tr("Edit {name}").format(name=self._editing.name)
            if self._editing is not None
            else self.tr("Add a provider")
        )
        self.name_edit.setText(record.name if record else "")
        self.name_edit.setReadOnly(self._editing is not None)  # renaming is remove + add
        self.base_url_edit.setText((record.base_url or "") if record else "")
        self.model_combo.clear()
        self.model_combo.addItems(models or [])
        self.model_combo.setEditText((record.model or "") if record else (models[0] if models else ""))
        self.tags_edit.setText(", ".join(record.tags) if record else "")
        self.default_check.setChecked(record.is_default if record else not self._table.providers)
        self.vision_check.setChecked(record.vision if record else False)
        self.key_env_edit.setText((record.api_key_env or "") if record else "")
        self.key_edit.clear()
        if self._editing is not None and self._editing.api_key_keyring:
            self.key_edit.setPlaceholderText(self.tr("a key is in the OS keyring; type a new one to replace it"))
        self.show_form_error("")
        self.form.show()
        (self.base_url_edit if self._editing else self.name_edit).setFocus()

    def close_form(self) -> None:
        self._editing = None
        self.key_edit.clear()
        self.show_form_error("")
        self.form.hide()

    def form_record(self) -> ProviderRecord:
        """The form as a record; the record's own rules refuse a bad field, naming it (domain/providers.py)."""
        return ProviderRecord.checked(
            name=self.name_edit.text().strip(),
            base_url=self.base_url_edit.text().strip(),
            model=self.model_combo.currentText().strip(),
            tags=tuple(self.tags_edit.text().split(",")),
            api_key_env=self.key_env_edit.text().strip() or None,
            api_key_keyring=self._editing.api_key_keyring if self._editing is not None else False,
            is_default=self.default_check.isChecked(),
            vision=self.vision_check.isChecked(),
        )

    def show_form_error(self, text: str) -> None:
        """Shown inside the form, under the fields; the field it names is marked."""
        self.form_error_label.setText(text)
        self.form_error_label.setVisible(bool(text))
        widgets = {
            "name": self.name_edit,
            "base_url": self.base_url_edit,
            "model": self.model_combo,
            "tags": self.tags_edit,
            "api_key_env": self.key_env_edit,
        }
        named = error_field(text)
        for field, widget in widgets.items():
            invalid = field == named
            if widget.property("invalid") != invalid:
                widget.setProperty("invalid", invalid)
                widget.style().unpolish(widget)
                widget.style().polish(widget)

    def on_save_requested(self) -> None:
        """Validate, then save as an operation on the store worker (the key to the keyring there too); on an
        error nothing is saved and the form stays open with what was typed (issue 33 item 2)."""
        try:
            record = self.form_record()
            if not record.name:
                raise ValueError("provider '': name: " + self.tr("the name must not be empty"))
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            self.show_form_error(plain_words(str(exc)))
            return
        self.save_button.setEnabled(False)

        def failed(line: str) -> None:  # "already exists", the controller's own checks, a store failure
            self.save_button.setEnabled(True)
            self.show_form_error(line)

        op = save_provider(self._controller, record, replace=self._editing is not None, api_key=self.key_edit.text())
        self._run(op, self._on_saved, failed)

    def _on_saved(self, result: ProviderSaved) -> None:
        self.save_button.setEnabled(True)
        saved = result.saved
        self.key_edit.clear()
        self.show_table(result.table)
        self.select(saved.name)
        self.providers_changed.emit()
        if result.key_problem:
            self._editing = saved
            self.show_form_error(
                self.tr("Saved {name}, but the API key was not stored: {reason}").format(
                    name=saved.name, reason=result.key_problem
                )
            )
            return
        self.close_form()
        self.show_status(
            self.tr("Saved {name} ({model} at {base_url}).").format(
                name=saved.name, model=saved.model, base_url=saved.base_url
            )
        )

    # -- slots: asking endpoints ----------------------------------------------------------

    def on_fetch_models_requested(self) -> None:
        base_url = self.base_url_edit.text().strip()
        if not base_url:
            self.show_form_error("base_url: " + self.tr("type the base URL first, e.g. http://127.0.0.1:11434/v1"))
            return
        self.show_form_error("")
        self.show_status(self.tr("Asking {base_url} for its models…").format(base_url=base_url))
        self._schedule(
            self._controller.providers.list_provider_models(base_url),
            self._on_models_fetched,
            self.fetch_models_button,
            failure=lambda exc: self.show_form_error(
                "base_url: "
                + self.tr("could not list models at {base_url}: {reason}").format(
                    base_url=base_url, reason=plain_words(str(exc))
                )
            ),
        )

    def _on_models_fetched(self, models: list[str]) -> None:
        typed = self.model_combo.currentText().strip()
        self.model_combo.clear()
        self.model_combo.addItems(models)
        self.model_combo.setEditText(typed if typed in models or not models else models[0])
        self.show_status(
            self.tr("%n model(s) offered.", "", len(models))
            if models
            else self.tr("The server answered but offers no models.")
        )

    def on_detect_requested(self) -> None:
        self.show_status(self.tr("Looking for local servers…"))
        coro = (
            self._controller.providers.detect_local_endpoints(self.detect_candidates)
            if self.detect_candidates is not None
            else self._controller.providers.detect_local_endpoints()
        )
        self._schedule(coro, self._on_detected, self.detect_button)

    def _on_detected(self, found: dict[str, list[str]]) -> None:
        self.detected_list.clear()
        for url, models in found.items():
            label = self.tr("{name} at {url} — %n model(s)", "", len(models)).format(
                name=suggested_name(url, set()), url=url
            )
            if models:
                label += f" ({', '.join(models[:3])}{', …' if len(models) > 3 else ''})"
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, (url, list(models)))
            self.detected_list.addItem(item)
        self.detected_list.setVisible(bool(found))
        self.use_detected_button.setVisible(bool(found))
        if found:
            self.detected_list.setCurrentRow(0)
            self.show_status(self.tr("%n local server(s) answered.", "", len(found)))
        else:
            self.show_status(self.tr("No local server answered (Ollama on 127.0.0.1:11434, LM Studio on :1234)."))

    def on_use_detected_requested(self) -> None:
        item = self.detected_list.currentItem()
        if item is None:
            return
        url, models = item.data(Qt.ItemDataRole.UserRole)
        name = suggested_name(url, set(self.provider_names()))
        self.open_form(ProviderRecord(name=name, base_url=url, model=models[0] if models else None), models=models)

    # -- ACP agents ---------------------------------------------------------------------

    def on_find_agents_requested(self) -> None:
        """Look on PATH for agent CLIs (blocking probes, so in a worker thread)."""
        self.acp_section.show_status(self.tr("Looking for agent CLIs on PATH…"))
        self._schedule(
            asyncio.to_thread(self._controller.providers.discover_acp_agents),
            self._on_agents_found,
            self.acp_section.find_button,
            failure=lambda exc: self.acp_section.show_status(
                self.tr("Could not look for agent CLIs: {reason}").format(reason=plain_words(str(exc)))
            ),
        )

    def _on_agents_found(self, found: list[ProviderRecord]) -> None:
        self.acp_section.show_found(found, self._table.providers)

    def on_add_found_agent_requested(self) -> None:
        record = self.acp_section.chosen_found()
        if record is not None:
            # The version was shown; the stored agent needs only its name and command.
            self._add_acp_agent(record.model_copy(update={"model": None}), from_form=False)

    def on_add_acp_agent_requested(self) -> None:
        """The hand-written form; on an error nothing is saved and the field is marked."""
        section = self.acp_section
        try:
            record = agent_record(
                section.name_edit.text(),
                section.command_edit.text(),
                section.env_edit.text(),
                section.state_dirs_edit.text(),
                section.auth_edit.text(),
            )
        except AcpFormError as exc:
            section.show_error(str(exc), exc.field)
            return
        self._add_acp_agent(record, from_form=True)

    def _add_acp_agent(self, record: ProviderRecord, *, from_form: bool) -> None:
        section = self.acp_section
        replace = from_form and self._editing_agent == record.name

        def failed(text: str) -> None:  # "already exists", the controller's own check, a store failure
            if from_form:
                field = "state_dirs" if "writable folder" in text else "auth" if "sign-in" in text else "command"
                section.show_error(text, "name" if "already exists" in text else field)
            else:
                section.show_status(self.tr("{name} was not added: {reason}").format(name=record.name, reason=text))

        self._run(
            save_provider(self._controller, record, replace=replace),
            lambda result: self._on_agent_saved(result, replace=replace, from_form=from_form),
            failed,
        )

    def _on_agent_saved(self, result: ProviderSaved, *, replace: bool, from_form: bool) -> None:
        section = self.acp_section
        saved = result.saved
        if from_form:
            section.clear_form()
            self._end_agent_edit()
        self.show_table(result.table)
        self.select(saved.name)
        done = (
            self.tr("Saved {name}: {command}. Pick “{name} (ACP)” in a line's mode picker.")
            if replace
            else self.tr("Added {name}: {command}. Pick “{name} (ACP)” in a line's mode picker.")
        )
        section.show_status(done.format(name=saved.name, command=" ".join(saved.acp_command)))
        self.providers_changed.emit()

    # -- async plumbing -----------------------------------------------------------------

    def _schedule(
        self,
        coro: Coroutine[Any, Any, T],
        on_result: Callable[[T], None],
        button: QPushButton,
        *,
        failure: Callable[[BaseException], None] | None = None,
    ) -> LoopJob[T]:
        """Run ``coro`` on the qasync loop; apply its result when it is done (no nested loop). Closing the
        dialog (``finished``) cancels it and drops its answer."""
        button.setEnabled(False)

        def succeeded(result: T) -> None:
            button.setEnabled(True)
            on_result(result)

        def failed(exc: BaseException) -> None:
            button.setEnabled(True)
            log.info("provider settings: %s", exc)
            self.show_status(self.tr("That did not work: {reason}").format(reason=plain_words(str(exc))))
            if failure is not None:
                failure(exc)

        return run_on_loop(coro, succeeded, failed, parent=self, cancel_on=self.finished)

    @property
    def busy(self) -> bool:
        """Whether a fetch, a detection or a store operation is still on its way."""
        return jobs_waiting(self) > 0 or self._ops_running > 0

    def show_status(self, text: str) -> None:
        self.status_label.setText(text)
