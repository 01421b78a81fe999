"""Filling a picker (``QComboBox``) only when what it offers changed (issue 34 item 1).

A switch between lines shows each line's pickers; refilling one that already offers the same items clears and
rebuilds its items (and its size hint) for nothing, on the switching path.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

PickerItem = tuple[str, object, str]
"""(label, data, tooltip; "" for none)."""


def offers(picker: QComboBox, items: Sequence[PickerItem]) -> bool:
    """Whether ``picker`` offers exactly ``items``, in order."""
    if picker.count() != len(items):
        return False
    tip_role = Qt.ItemDataRole.ToolTipRole
    return all(
        picker.itemText(i) == label and picker.itemData(i) == data and (picker.itemData(i, tip_role) or "") == tip
        for i, (label, data, tip) in enumerate(items)
    )


def fill(picker: QComboBox, items: Sequence[PickerItem]) -> bool:
    """Make ``picker`` offer ``items`` (its signals blocked), unless it does already; returns whether it was
    filled anew. The current item is the caller's to choose."""
    if offers(picker, items):
        return False
    blocked = picker.blockSignals(True)
    try:
        picker.clear()
        for label, data, tip in items:
            picker.addItem(label, data)
            if tip:
                picker.setItemData(picker.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
    finally:
        picker.blockSignals(blocked)
    return True
