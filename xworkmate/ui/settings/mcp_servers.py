"""Settings → MCP servers, and the line's MCP picker (issue 15, item 3).

``McpServersDialog`` lists the configured servers and adds or removes one (the
same checks as ``xworkmate mcp add``: the controller's, run as named operations
on the window's store worker, ``ui/ops``); environment entries
are references ``NAME=env:VAR``, never values (SEC-1). ``McpPicker`` is a
button in the composer's agent row whose menu ticks the servers the shown
line gets.

Signals:
    McpPicker.chosen(list): the names ticked now.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import SessionController
from xworkmate.domain.mcp import McpServerRecord, parse_env_ref, parse_header_ref
from xworkmate.presentation.wording import plain_words
from xworkmate.ui.ops import StoreOp, failure_line, operations_of
from xworkmate.ui.ops.settings import add_mcp_server, read_mcp_servers, remove_mcp_server

__all__ = ["McpPicker", "McpServersDialog"]


class McpServersDialog(QDialog):
    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpServersDialog")
        self.setWindowTitle(self.tr("MCP servers"))
        self._controller = controller
        self._ops_running = 0
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("mcpServerTable")
        self.table.setHorizontalHeaderLabels(
            [self.tr("Name"), self.tr("Transport"), self.tr("Command or URL"), self.tr("Tags")]
        )
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("mcpNameEdit")
        self.command_edit = QLineEdit()
        self.command_edit.setObjectName("mcpCommandEdit")
        self.command_edit.setPlaceholderText(self.tr("stdio: mcp-files --root ."))
        self.url_edit = QLineEdit()
        self.url_edit.setObjectName("mcpUrlEdit")
        self.url_edit.setPlaceholderText(self.tr("http: https://example.org/mcp (only agents that take http)"))
        # Issue 32, item 6: a URL server speaks http or sse; its references are headers, not environment.
        self.transport_picker = QComboBox()
        self.transport_picker.setObjectName("mcpTransportPicker")
        self.transport_picker.addItem("http", "http")
        self.transport_picker.addItem("sse", "sse")
        self.env_edit = QLineEdit()
        self.env_edit.setObjectName("mcpEnvEdit")
        self.env_edit.setPlaceholderText(
            self.tr("TOKEN=env:MY_TOKEN (references, read when the agent starts; headers for a URL)")
        )
        self.tags_edit = QLineEdit()
        self.tags_edit.setObjectName("mcpTagsEdit")
        self.tags_edit.setPlaceholderText(self.tr("medical, legal (a category line only gets tagged servers)"))
        self.add_button = QPushButton(self.tr("Add"))
        self.add_button.setObjectName("mcpAddButton")
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.setObjectName("mcpRemoveButton")
        self.error_label = QLabel()
        self.error_label.setObjectName("mcpErrorLabel")
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow(self.tr("Name"), self.name_edit)
        form.addRow(self.tr("Command"), self.command_edit)
        url_row = QHBoxLayout()
        url_row.addWidget(self.url_edit, 1)
        url_row.addWidget(self.transport_picker)
        form.addRow(self.tr("URL"), url_row)
        form.addRow(self.tr("Environment / headers"), self.env_edit)
        form.addRow(self.tr("Tags"), self.tags_edit)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.error_label)
        layout.addWidget(close)
        self.add_button.clicked.connect(self.on_add_requested)
        self.remove_button.clicked.connect(self.on_remove_requested)
        self.resize(640, 420)
        self.reload()

    def _run(self, op: StoreOp[list[McpServerRecord]], done: Callable[[list[McpServerRecord]], None]) -> None:
        """A named operation on the window's store worker (issue 33 item 2, LOOP-4); a failure is one line
        under the form, whose fields keep what was typed."""
        self._ops_running += 1

        def finished(servers: list[McpServerRecord]) -> None:
            self._ops_running -= 1
            done(servers)

        def failed(line: str) -> None:
            self._ops_running -= 1
            self.error_label.setText(line)

        op.run(operations_of(self), done=finished, failed=failed, expected=(LookupError,))

    @property
    def busy(self) -> bool:
        """Whether a read or a write is still on its way."""
        return self._ops_running > 0

    def reload(self) -> None:
        """Re-read the servers on the store worker; the table is redrawn when they arrive."""
        self._run(read_mcp_servers(self._controller), self.show_servers)

    def show_servers(self, servers: list[McpServerRecord]) -> None:
        self.table.setRowCount(len(servers))
        for row, server in enumerate(servers):
            target = shlex.join(server.command) if server.transport == "stdio" else server.url or ""
            for column, text in enumerate((server.name, server.transport, target, ", ".join(server.tags))):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, server.name)
                self.table.setItem(row, column, item)

    def server_names(self) -> list[str]:
        items = (self.table.item(r, 0) for r in range(self.table.rowCount()))
        return [item.text() for item in items if item is not None]

    def on_add_requested(self) -> None:
        try:
            command = tuple(shlex.split(self.command_edit.text()))
            url = self.url_edit.text().strip() or None
            if bool(command) == bool(url):
                raise ValueError(self.tr("give a command (stdio) or a URL (http or sse), one of them"))
            refs = self.env_edit.text().split()
            record = McpServerRecord(
                name=self.name_edit.text().strip(),
                transport=self.transport_picker.currentData() if url else "stdio",
                command=command,
                url=url,
                env_refs=() if url else tuple(parse_env_ref(item) for item in refs),
                header_refs=tuple(parse_header_ref(item) for item in refs) if url else (),
                tags=tuple(t.strip() for t in self.tags_edit.text().split(",") if t.strip()),
            )
        except ValueError as exc:
            self._not_added(exc)
            return

        def added(servers: list[McpServerRecord]) -> None:
            self.error_label.clear()
            for edit in (self.name_edit, self.command_edit, self.url_edit, self.env_edit, self.tags_edit):
                edit.clear()
            self.show_servers(servers)

        op = add_mcp_server(self._controller, record)
        self._ops_running += 1

        def done(servers: list[McpServerRecord]) -> None:
            self._ops_running -= 1
            added(servers)

        def refused(error: BaseException) -> None:  # the controller's checks say why; the fields are kept
            self._ops_running -= 1
            if isinstance(error, ValueError):
                self._not_added(error)
            else:
                self.error_label.setText(failure_line(error, op.what))

        operations_of(self).run(op.work, done=done, failed=refused)

    def _not_added(self, exc: ValueError) -> None:
        first = str(exc).splitlines()[-1] if "validation error" in str(exc) else str(exc)
        self.error_label.setText(self.tr("Not added — {reason}").format(reason=plain_words(first)))

    def on_remove_requested(self) -> None:
        row = self.table.currentRow()
        item = self.table.item(row, 0) if row >= 0 else None
        if item is None:
            self.error_label.setText(self.tr("Choose a server to remove."))
            return
        self._run(remove_mcp_server(self._controller, item.text()), self.show_servers)


class McpPicker(QToolButton):
    """``MCP (2)``: a menu of the configured servers; ticked ones go to the shown line's agent."""

    chosen = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("acpMcpPicker")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setToolTip(self.tr("The MCP servers this line's agent gets (Settings → MCP servers)"))
        self._menu = QMenu(self)
        self._menu.setObjectName("acpMcpMenu")
        self.setMenu(self._menu)
        self._shown: tuple[object, ...] | None = None
        self.show_servers([], [])

    def show_servers(self, configured: list[McpServerRecord], given: list[str]) -> None:
        shown = (tuple(configured), tuple(given))
        if shown == self._shown:
            return  # the window re-shows the line often; an open menu is not rebuilt under the cursor
        self._shown = shown
        self._menu.clear()
        for server in configured:
            action = QAction(server.name, self._menu)
            action.setObjectName(f"mcpServer:{server.name}")
            action.setCheckable(True)
            action.setChecked(server.name in given)
            action.setToolTip(plain_words(server.describe()))
            action.toggled.connect(self._on_toggled)
            self._menu.addAction(action)
        if not configured:
            empty = QAction(self.tr("No MCP servers — add one in Settings → MCP servers"), self._menu)
            empty.setEnabled(False)
            self._menu.addAction(empty)
        self.setText(f"MCP ({len(given)})")

    def actions_by_name(self) -> dict[str, QAction]:
        return {a.text(): a for a in self._menu.actions() if a.isCheckable()}

    def _on_toggled(self, _checked: bool) -> None:
        self.chosen.emit([a.text() for a in self._menu.actions() if a.isCheckable() and a.isChecked()])
