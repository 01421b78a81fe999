"""The composer's skill picker (SPEC §11 SKL-1, ISO-5): the current line's selected skills, and a keyboard-
searchable list with checkboxes to change them.

The button always says the shown line's selection (from its stored view, so it follows every switch and a
restart); the list is the catalog of that line, read off the GUI thread (``catalog_wanted`` asks the window to
read it in a background operation) and shown when it arrives for the same line. A tick is ``picked(key,
names)``: the window saves it through a background store operation; the line's update redraws the button.
Opening the popup only fills a list from the catalog already read (the 16 ms budget, benchmarks/bench_skills).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QListWidget, QListWidgetItem, QToolButton, QVBoxLayout, QWidget

from xworkmate.domain.skills import SkillCatalog
from xworkmate.presentation.text import english_plural

__all__ = ["SkillPicker", "SkillPopup"]

NAME_ROLE = Qt.ItemDataRole.UserRole + 1


class SkillPopup(QFrame):
    """A filter field over a list of checkable skills; typing filters, Space ticks, Esc closes."""

    toggled = Signal(str, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("skillPopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.filter = QLineEdit()
        self.filter.setObjectName("skillFilter")
        self.filter.setPlaceholderText(QCoreApplication.translate("SkillPicker", "Search skills"))
        self.filter.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setObjectName("skillList")
        self.list.setUniformItemSizes(True)
        self.note = QLabel()
        self.note.setObjectName("skillNote")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.note)
        self.resize(380, 320)
        self.filter.textChanged.connect(self.apply_filter)
        self.filter.installEventFilter(self)
        self.list.itemChanged.connect(self._on_item_changed)
        self._filling = False

    def fill(self, catalog: SkillCatalog | None, selected: Sequence[str]) -> None:
        """The catalog's skills, the selected ones ticked; a selected skill that is gone is listed too (it can
        be unticked). ``None``: still reading."""
        self._filling = True
        self.list.setUpdatesEnabled(False)
        try:
            self.list.clear()
            skills = catalog.skills if catalog is not None else ()
            for skill in skills:
                where = (
                    QCoreApplication.translate("SkillPicker", "person")
                    if skill.origin.value == "person"
                    else QCoreApplication.translate("SkillPicker", "line folder")
                )
                item = QListWidgetItem(f"{skill.name} — {skill.description}")
                item.setToolTip(f"{skill.skill_file}\n({where}: {skill.origin_path})")
                self._add(item, skill.name, skill.name in selected)
            known = {s.name for s in skills}
            for name in selected:
                if catalog is not None and name not in known:
                    self._add(
                        QListWidgetItem(
                            QCoreApplication.translate("SkillPicker", "{name} (not found)").format(name=name)
                        ),
                        name,
                        True,
                    )
            if catalog is None:
                self.note.setText(QCoreApplication.translate("SkillPicker", "Looking for skills…"))
            elif not skills and not selected:
                self.note.setText(
                    QCoreApplication.translate(
                        "SkillPicker", "No skills found. A skill is a folder with a SKILL.md in your skills folder."
                    )
                )
            elif catalog.skipped:
                count = len(catalog.skipped)
                text = QCoreApplication.translate("SkillPicker", "%n folder(s) skipped: not a skill.", "", count)
                self.note.setText(english_plural(text, count))
                self.note.setToolTip("\n".join(f"{s.folder}: {s.reason}" for s in catalog.skipped))
            else:
                self.note.setText("")
            self.note.setVisible(bool(self.note.text()))
        finally:
            self.list.setUpdatesEnabled(True)
            self._filling = False
        self.apply_filter(self.filter.text())

    def _add(self, item: QListWidgetItem, name: str, checked: bool) -> None:
        item.setData(NAME_ROLE, name)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.list.addItem(item)

    def apply_filter(self, text: str) -> None:
        needle = text.strip().casefold()
        first: QListWidgetItem | None = None
        for row in range(self.list.count()):
            item = self.list.item(row)
            hidden = bool(needle) and needle not in item.text().casefold()
            item.setHidden(hidden)
            if not hidden and first is None:
                first = item
        if first is not None:
            self.list.setCurrentItem(first)

    def names(self) -> list[str]:
        return [str(self.list.item(r).data(NAME_ROLE)) for r in range(self.list.count())]

    def checked(self) -> list[str]:
        return [
            str(item.data(NAME_ROLE))
            for item in (self.list.item(r) for r in range(self.list.count()))
            if item.checkState() is Qt.CheckState.Checked
        ]

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        if not self._filling:
            self.toggled.emit(str(item.data(NAME_ROLE)), item.checkState() is Qt.CheckState.Checked)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """In the filter field: Up/Down move in the list, Space or Enter ticks the current skill."""
        if watched is self.filter and event.type() is QEvent.Type.KeyPress:
            key = event.key()  # type: ignore[attr-defined]
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                self._move(1 if key == Qt.Key.Key_Down else -1)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) or (key == Qt.Key.Key_Space and not self.filter.text()):
                item = self.list.currentItem()
                if item is not None and not item.isHidden():
                    checked = item.checkState() is Qt.CheckState.Checked
                    item.setCheckState(Qt.CheckState.Unchecked if checked else Qt.CheckState.Checked)
                return True
        return super().eventFilter(watched, event)

    def _move(self, step: int) -> None:
        row = self.list.currentRow()
        for _ in range(self.list.count()):
            row = (row + step) % max(self.list.count(), 1)
            if not self.list.item(row).isHidden():
                self.list.setCurrentRow(row)
                return


class SkillPicker(QToolButton):
    """The button in the composer's picker row: the shown line's selected skills; a click opens the list."""

    catalog_wanted = Signal(str)
    """The list of this line's skills is needed (read it off the GUI thread, then ``set_catalog``)."""
    catalog_changed = Signal()
    """The shown line's catalog arrived, or was dropped on a switch (the ``/`` list follows it)."""
    picked = Signal(str, tuple)
    """The person changed the line's selection: ``(key, names)``, to be saved off the GUI thread."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("skillPicker")
        self.setAccessibleName(QCoreApplication.translate("SkillPicker", "Skills"))
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.popup = SkillPopup(self)
        self.popup.toggled.connect(self._on_toggled)
        self.clicked.connect(self.open_popup)
        self._key: str | None = None
        self._selected: tuple[str, ...] = ()
        self._catalog: SkillCatalog | None = None
        self._catalog_key: str | None = None
        self._show_button()

    @property
    def key(self) -> str | None:
        return self._key

    @property
    def selected(self) -> tuple[str, ...]:
        return self._selected

    def show_selection(self, key: str, selected: Sequence[str]) -> None:
        """ISO-5: the shown line's stored selection; another line's catalog is dropped and asked for again."""
        switched = key != self._key
        self._key, self._selected = key, tuple(selected)
        if switched:
            self._catalog, self._catalog_key = None, None
            self.catalog_changed.emit()
            self.catalog_wanted.emit(key)
        self._show_button()
        if self.popup.isVisible():
            self.popup.fill(self._catalog, self._selected)

    def set_catalog(self, key: str, catalog: SkillCatalog) -> None:
        """The catalog read for ``key``; one for a line no longer shown is dropped."""
        if key != self._key:
            return
        self._catalog, self._catalog_key = catalog, key
        self.catalog_changed.emit()
        if self.popup.isVisible():
            self.popup.fill(catalog, self._selected)

    @property
    def catalog(self) -> SkillCatalog | None:
        return self._catalog

    def select(self, name: str) -> None:
        """Select one more skill for the shown line (the ``/`` list's choice)."""
        if name not in self._selected:
            self._on_toggled(name, True)

    def open_popup(self) -> None:
        if self._key is None:
            return
        self.popup.filter.clear()
        self.popup.fill(self._catalog, self._selected)
        self.popup.move(self.mapToGlobal(QPoint(0, 0)) - QPoint(0, self.popup.height()))
        self.popup.show()
        self.popup.filter.setFocus()
        self.catalog_wanted.emit(self._key)  # a skill added on disk since shows up when it is read again

    def _on_toggled(self, name: str, checked: bool) -> None:
        if self._key is None:
            return
        names = [n for n in self._selected if n != name]
        if checked:
            names.append(name)
        self._selected = tuple(names)
        self._show_button()
        self.picked.emit(self._key, self._selected)

    def _show_button(self) -> None:
        """The count on the button (it sits beside Send, narrow); the names in its tooltip and accessible text."""
        names = self._selected
        if names:
            self.setText(QCoreApplication.translate("SkillPicker", "Skills ({count})").format(count=len(names)))
            tip = QCoreApplication.translate("SkillPicker", "Skills selected for this line: {names}")
            self.setToolTip(tip.format(names=", ".join(names)))
        else:
            self.setText(QCoreApplication.translate("SkillPicker", "Skills"))
            self.setToolTip(QCoreApplication.translate("SkillPicker", "Choose the skills this line's agent may use"))
        self.setAccessibleDescription(self.toolTip())
