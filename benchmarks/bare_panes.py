"""The reference for start-up: a bare PySide6 script that builds the same three empty panes."""

from __future__ import annotations

import time

STARTED = time.time()  # python is up (issue 34, item 4)

import sys  # noqa: E402

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QApplication,
    QLabel,
    QListView,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)


def _named(widget: QWidget, name: str) -> QWidget:
    widget.setObjectName(name)
    return widget


def main(started: float = STARTED) -> int:
    note_qt = time.time()
    app = QApplication(sys.argv[:1])
    from startup_marks import LIST_NAME, install, note  # after QApplication: the app installs its marks there too

    note("python_started", started)
    note("qt_imported", note_qt)
    install(app)
    window = QMainWindow()
    splitter = QSplitter(Qt.Orientation.Horizontal)
    for build in (
        lambda: [QPushButton("New task line"), _named(QListView(), LIST_NAME)],
        lambda: [QLabel("key"), QListView(), QPlainTextEdit(), QPushButton("Send")],
        lambda: [QLabel("path"), QPushButton("Change folder…"), QTreeView(), QPlainTextEdit()],
    ):
        pane = QWidget()
        layout = QVBoxLayout(pane)
        for widget in build():
            layout.addWidget(widget)
        splitter.addWidget(pane)
    window.setCentralWidget(splitter)
    window.resize(1200, 800)
    window.show()
    for _ in range(5):
        app.processEvents()
    window.close()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
