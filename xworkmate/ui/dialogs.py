"""Small dialogs behind replaceable ``ask`` classmethods (STYLE lesson 6).

The window keeps each ``ask`` as an attribute (``window.choose_folder``,
``window.ask_title``), so tests and scripts replace the hook instead of
driving a native dialog.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QLineEdit, QMessageBox, QWidget

import xworkmate
from xworkmate.controllers import SessionController
from xworkmate.presentation.wording import plain_words

FolderChooser = Callable[[QWidget | None, str], str | None]
TitleChooser = Callable[[QWidget | None, str], str | None]
CategoryChooser = Callable[[QWidget | None, str], str | None]
"""Returns the label typed (``""`` clears the category), or None when the person cancelled."""


class FolderDialog:
    """Asks for an existing folder."""

    @classmethod
    def ask(cls, parent: QWidget | None, start_dir: str) -> str | None:
        chosen = QFileDialog.getExistingDirectory(
            parent, QCoreApplication.translate("Dialogs", "Choose the folder for this task line"), start_dir
        )
        return chosen or None


class TitleDialog:
    """Asks for a task line's new title."""

    @classmethod
    def ask(cls, parent: QWidget | None, current: str) -> str | None:
        text, accepted = QInputDialog.getText(
            parent,
            QCoreApplication.translate("Dialogs", "Rename task line"),
            QCoreApplication.translate("Dialogs", "Title:"),
            QLineEdit.EchoMode.Normal,
            current,
        )
        return text if accepted else None


class CategoryDialog:
    """Asks for a line's content category (CAT-1, CAT-10); empty means normal content."""

    @classmethod
    def ask(cls, parent: QWidget | None, current: str) -> str | None:
        text, accepted = QInputDialog.getText(
            parent,
            QCoreApplication.translate("Dialogs", "Set category"),
            QCoreApplication.translate(
                "Dialogs", "Category for this line and everything it dispatched (e.g. medical; empty = normal content):"
            ),
            QLineEdit.EchoMode.Normal,
            current,
        )
        return text if accepted else None


class StartupErrorDialog:
    """ERR-1: the window could not open (a bad database, a full disk…): say why and where, once."""

    @classmethod
    def build(cls, parent: QWidget | None, reason: str, database: str) -> QMessageBox:
        """``database`` says where it is, as a person reads it (the store's description)."""
        box = QMessageBox(
            QMessageBox.Icon.Critical,
            QCoreApplication.translate("Dialogs", "XWorkmate could not start"),
            plain_words(reason),
            parent=parent,
        )
        box.setObjectName("startupErrorDialog")
        box.setInformativeText(startup_error_help(database))
        box.setStandardButtons(QMessageBox.StandardButton.Close)
        return box

    @classmethod
    def ask(cls, parent: QWidget | None, reason: str, database: str) -> None:
        _app = QApplication.instance() or QApplication([])
        cls.build(parent, reason, database).exec()


def startup_error_help(database: str) -> str:
    """Under a failure to start: which database it was and how to use another one (the dialog, and the
    window whose store did not open, issue 19 item 7)."""
    return QCoreApplication.translate(
        "Dialogs",
        "Database: {database}\n"
        "Set XWORKMATE_DATABASE_URL or XWORKMATE_HOME to use another one; "
        "`xworkmate doctor` shows what XWorkmate can see.",
    ).format(database=database)


def about_text(controller: SessionController) -> str:
    """The About box: version, data folder and database (rich text)."""
    rows = [
        (QCoreApplication.translate("Dialogs", "Version"), xworkmate.__version__),
        (QCoreApplication.translate("Dialogs", "Data folder"), str(controller.settings.home)),
        (QCoreApplication.translate("Dialogs", "Database"), controller.store_description),
    ]
    body = "".join(
        f"<tr><td><b>{html.escape(name)}</b>&nbsp;&nbsp;</td><td>{html.escape(value)}</td></tr>" for name, value in rows
    )
    return (
        "<h3>XWorkmate</h3><p>"
        + html.escape(
            QCoreApplication.translate(
                "Dialogs",
                "A desktop workbench for AI agent tasks: task lines side by side, "
                "each with its own session key, folder and conversation.",
            )
        )
        + f"</p><table>{body}</table>"
    )
