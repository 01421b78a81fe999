"""Small dialogs behind replaceable ``ask`` classmethods (STYLE lesson 6).

The window keeps each ``ask`` as an attribute (``window.choose_folder``,
``window.ask_title``), so tests and scripts replace the hook instead of
driving a native dialog.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QWidget

import xworkmate
from xworkmate.controllers import SessionController

FolderChooser = Callable[[QWidget | None, str], str | None]
TitleChooser = Callable[[QWidget | None, str], str | None]
CategoryChooser = Callable[[QWidget | None, str], str | None]
"""Returns the label typed (``""`` clears the category), or None when the person cancelled."""


class FolderDialog:
    """Asks for an existing folder."""

    @classmethod
    def ask(cls, parent: QWidget | None, start_dir: str) -> str | None:
        chosen = QFileDialog.getExistingDirectory(parent, "Choose the folder for this task line", start_dir)
        return chosen or None


class TitleDialog:
    """Asks for a task line's new title."""

    @classmethod
    def ask(cls, parent: QWidget | None, current: str) -> str | None:
        text, accepted = QInputDialog.getText(parent, "Rename task line", "Title:", QLineEdit.EchoMode.Normal, current)
        return text if accepted else None


class CategoryDialog:
    """Asks for a line's content category (CAT-1, CAT-10); empty means normal content."""

    @classmethod
    def ask(cls, parent: QWidget | None, current: str) -> str | None:
        text, accepted = QInputDialog.getText(
            parent,
            "Set category",
            "Category for this line and everything it dispatched (e.g. medical; empty = normal content):",
            QLineEdit.EchoMode.Normal,
            current,
        )
        return text if accepted else None


def about_text(controller: SessionController) -> str:
    """The About box: version, data folder and database (rich text)."""
    rows = [
        ("Version", xworkmate.__version__),
        ("Data folder", str(controller.settings.home)),
        ("Database", controller.store_description),
    ]
    body = "".join(
        f"<tr><td><b>{html.escape(name)}</b>&nbsp;&nbsp;</td><td>{html.escape(value)}</td></tr>" for name, value in rows
    )
    return (
        "<h3>XWorkmate</h3>"
        "<p>A desktop workbench for AI agent tasks: task lines side by side, "
        "each with its own session key, folder and conversation.</p>"
        f"<table>{body}</table>"
    )
