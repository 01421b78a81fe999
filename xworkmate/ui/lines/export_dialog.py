"""File → Export…: where to write a line's export, and a confirmation for a category line
(SPEC LOOP-3, CAT-4). Both behind ``ask`` classmethods (STYLE lesson 6)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from xworkmate.domain.export import ExportFormat

ExportChooser = Callable[[QWidget | None, str], tuple[Path, ExportFormat] | None]
CategoryExportConfirm = Callable[[QWidget | None, str, str], bool]

_FILTERS = {ExportFormat.MARKDOWN: "Markdown (*.md)", ExportFormat.JSON: "JSON (*.json)"}


def category_export_question(title: str, category: str) -> str:
    return QCoreApplication.translate(
        "ExportDialog",
        "This line carries category {category}: “{title}” and its tasks hold {category} content."
        " The exported file leaves XWorkmate's category rules behind; whoever can read the file can read it."
        " Export anyway?",
    ).format(category=category, title=title)


def format_for(path: Path, chosen_filter: str) -> ExportFormat:
    """The format a chosen file asks for: its suffix, else the filter picked in the dialog."""
    for fmt in ExportFormat:
        if path.suffix.lower() == f".{fmt.value}":
            return fmt
    return ExportFormat.JSON if chosen_filter == _FILTERS[ExportFormat.JSON] else ExportFormat.MARKDOWN


class ExportDialog:
    """Asks where to write the export; the suffix (or the filter) picks Markdown or JSON."""

    @classmethod
    def ask(cls, parent: QWidget | None, suggested: str) -> tuple[Path, ExportFormat] | None:
        chosen, chosen_filter = QFileDialog.getSaveFileName(
            parent, QCoreApplication.translate("ExportDialog", "Export line"), suggested, ";;".join(_FILTERS.values())
        )
        if not chosen:
            return None
        path = Path(chosen)
        return path, format_for(path, chosen_filter)


class CategoryExportConfirmation:
    """CAT-4: the person confirms before a category line's content leaves in a file."""

    @classmethod
    def ask(cls, parent: QWidget | None, title: str, category: str) -> bool:
        answer = QMessageBox.question(
            parent,
            QCoreApplication.translate("ExportDialog", "Export a category line"),
            category_export_question(title, category),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Yes
