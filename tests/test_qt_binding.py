"""Guard against a Qt binding that mis-counts references to None/True/False.

PySide6 6.12.0 on Python 3.11 decrements None's reference count on every call
to QTextLine setters (and similar), and the process aborts with
"deallocating None" after a few thousand calls: a crash a person would hit
after minutes of scrolling. pyproject pins below it; this test fails if an
upgrade brings such a build back.
"""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import sys
from PySide6.QtCore import QModelIndex, QPointF, QSortFilterProxyModel, QStringListModel
from PySide6.QtGui import QFont, QTextLayout
from PySide6.QtWidgets import QApplication

app = QApplication([])
before = {name: sys.getrefcount(value) for name, value in (("None", None), ("True", True), ("False", False))}

layout = QTextLayout("a few words that wrap " * 20, QFont())
for _ in range(3000):
    layout.beginLayout()
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(80.0)
        line.setPosition(QPointF(0.0, 0.0))
    layout.endLayout()


class EveryOther(QSortFilterProxyModel):
    def filterAcceptsRow(self, row, parent):
        return row % 2 == 0


source = QStringListModel([str(n) for n in range(5000)])
proxy = EveryOther()
proxy.setSourceModel(source)
for _ in range(10):
    proxy.invalidate()
    proxy.rowCount(QModelIndex())

after = {name: sys.getrefcount(value) for name, value in (("None", None), ("True", True), ("False", False))}
drops = {name: before[name] - after[name] for name in before if after[name] < before[name] - 50}
print(drops or "ok")
"""


def test_qt_binding_keeps_reference_counts_of_singletons() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "ok", proc.stdout
