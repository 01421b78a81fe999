"""The agent asks the person for input (ACP ``elicitation/create``, issue 32 item 3): a form card in the approval
area, one input per field of the agent's form.

A text field is a ``QLineEdit``, a whole number a ``QSpinBox``, a number a ``QDoubleSpinBox``, a yes/no a
``QCheckBox`` and a choice a ``QComboBox``; a required field is marked ``*`` and Submit stays disabled until
every one has a value. Enter in a text field submits; Tab moves between the fields and the buttons. Submit
answers ``accept`` with the values typed as the form says, Decline ``decline``, Cancel ``cancel``. A url-mode
request shows its message and address with Open (the browser) and Done.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from xworkmate.controllers import ApprovalRequested
from xworkmate.domain.elicitation import ElicitationForm, FormField, missing_required
from xworkmate.presentation.files import cut_lines

ACCEPT = "accept"
DECLINE = "decline"
CANCEL = "cancel"

_INT_LIMIT = 2**31 - 1
_FLOAT_LIMIT = 1e15


class ElicitationCard(QFrame):
    """One waiting form.

    Signals:
        answered(int, str, object): the approval id, ``"accept"`` / ``"decline"`` / ``"cancel"``, and the
        content (a dict of typed values; None unless accepted).
    """

    answered = Signal(int, str, object)

    def __init__(self, request: ApprovalRequested, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        assert request.form is not None
        self.setObjectName("elicitationCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.request = request
        self.form: ElicitationForm = request.form
        self.inputs: dict[str, QWidget] = {}

        # What an agent sends is laid out whole by a label: its long lines cut (issue 34; a 300,000-character
        # line took seconds, the window frozen).
        heading = QLabel(self.tr("The agent asks: {message}").format(message=cut_lines(self.form.message)))
        heading.setObjectName("elicitationMessage")
        heading.setWordWrap(True)
        heading.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(heading)

        self.submit_button = QPushButton(self.tr("Done") if self.form.is_url else self.tr("Submit"))
        self.submit_button.setObjectName("elicitationSubmitButton")
        self.decline_button = QPushButton(self.tr("Decline"))
        self.decline_button.setObjectName("elicitationDeclineButton")
        self.decline_button.setToolTip(self.tr("Say no: the agent is told you declined"))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("elicitationCancelButton")
        self.cancel_button.setToolTip(self.tr("Dismiss without answering"))
        buttons = QHBoxLayout()
        buttons.addStretch(1)

        self.option_buttons: list[QPushButton] = []
        if self.form.options:
            # A question sent as a permission request (issue 32 item 5): the agent's own options, one button each.
            for option_id, name in self.form.options:
                button = QPushButton(name)
                button.setObjectName("elicitationOptionButton")
                button.setProperty("optionId", option_id)
                button.clicked.connect(
                    lambda _checked=False, chosen=option_id: self._answer(ACCEPT, {"option": chosen})
                )
                self.option_buttons.append(button)
                buttons.addWidget(button)
            self.submit_button.setVisible(False)
            self.decline_button.setVisible(False)
            self.setFocusProxy(self.option_buttons[0])
        elif self.form.is_url:
            address = QLabel(cut_lines(self.form.url or ""))  # "Open" opens the whole address
            address.setObjectName("elicitationUrl")
            address.setTextFormat(Qt.TextFormat.PlainText)
            address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            address.setWordWrap(True)
            layout.addWidget(address)
            self.open_button = QPushButton(self.tr("Open"))
            self.open_button.setObjectName("elicitationOpenButton")
            self.open_button.setToolTip(self.tr("Open the address in your browser; press Done when you finished there"))
            self.open_button.clicked.connect(self._open)
            buttons.addWidget(self.open_button)
            self.submit_button.setToolTip(self.tr("Tell the agent you finished at that address"))
        else:
            fields = QFormLayout()
            for form_field in self.form.fields:
                editor = self._editor(form_field)
                editor.setObjectName("elicitationField")
                editor.setProperty("fieldName", form_field.name)
                editor.setAccessibleName(form_field.title)
                if form_field.description:
                    editor.setToolTip(cut_lines(form_field.description))
                self.inputs[form_field.name] = editor
                label = QLabel(f"{cut_lines(form_field.title)}{' *' if form_field.required else ''}")
                label.setBuddy(editor)
                fields.addRow(label, editor)
            layout.addLayout(fields)
            if self.form.unsupported:
                note = QLabel(
                    self.tr("This form asks for {names}, which XWorkmate cannot show; decline it or cancel").format(
                        names=", ".join(self.form.unsupported)
                    )
                )
                note.setObjectName("elicitationNote")
                note.setWordWrap(True)
                layout.addWidget(note)
            self.submit_button.setToolTip(self.tr("Send these values to the agent (fields marked * are required)"))
            first = next(iter(self.inputs.values()), None)
            if first is not None:
                self.setFocusProxy(first)

        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.decline_button)
        buttons.addWidget(self.submit_button)
        layout.addLayout(buttons)
        self.submit_button.setDefault(True)
        self.submit_button.clicked.connect(self._submit)
        self.decline_button.clicked.connect(lambda: self._answer(DECLINE, None))
        self.cancel_button.clicked.connect(lambda: self._answer(CANCEL, None))
        self._update_submit()

    @property
    def approval_id(self) -> int:
        return self.request.approval_id

    def _editor(self, form_field: FormField) -> QWidget:
        if form_field.kind == "boolean":
            box = QCheckBox()
            box.setChecked(bool(form_field.default))
            return box
        if form_field.kind == "enum":
            combo = QComboBox()
            if not form_field.required or form_field.default is None:
                combo.addItem(self.tr("(choose)") if form_field.required else "", None)
            for value, label in form_field.choices:
                combo.addItem(label, value)
            if form_field.default is not None:
                combo.setCurrentIndex(max(combo.findData(form_field.default), 0))
            combo.currentIndexChanged.connect(self._update_submit)
            return combo
        if form_field.kind == "integer":
            spin = QSpinBox()
            low = int(form_field.minimum) if form_field.minimum is not None else -_INT_LIMIT
            high = int(form_field.maximum) if form_field.maximum is not None else _INT_LIMIT
            unset = not form_field.required and not isinstance(form_field.default, int)
            spin.setRange(low - 1 if unset else low, high)
            if unset:  # an optional number the person leaves alone is not sent: "(none)" below the range
                spin.setSpecialValueText(self.tr("(none)"))
                spin.setValue(spin.minimum())
            elif isinstance(form_field.default, int):
                spin.setValue(form_field.default)
            elif low <= 0 <= high:
                spin.setValue(0)
            return spin
        if form_field.kind == "number":
            double = QDoubleSpinBox()
            double.setDecimals(6)
            low_f = form_field.minimum if form_field.minimum is not None else -_FLOAT_LIMIT
            high_f = form_field.maximum if form_field.maximum is not None else _FLOAT_LIMIT
            unset_f = not form_field.required and not isinstance(form_field.default, int | float)
            double.setRange(low_f - 1 if unset_f else low_f, high_f)
            if unset_f:
                double.setSpecialValueText(self.tr("(none)"))
                double.setValue(double.minimum())
            elif isinstance(form_field.default, int | float):
                double.setValue(float(form_field.default))
            return double
        line = QLineEdit()
        if isinstance(form_field.default, str):
            line.setText(form_field.default)
        line.textChanged.connect(self._update_submit)
        line.returnPressed.connect(self._submit)
        return line

    def content(self) -> dict[str, Any]:
        """The values as the form types them; an empty optional text or choice is left out."""
        values: dict[str, Any] = {}
        for form_field in self.form.fields:
            editor = self.inputs[form_field.name]
            value: Any
            if isinstance(editor, QCheckBox):
                value = editor.isChecked()
            elif isinstance(editor, QComboBox):
                value = editor.currentData()
            elif isinstance(editor, QSpinBox | QDoubleSpinBox):
                unset = bool(editor.specialValueText()) and editor.value() == editor.minimum()
                value = None if unset else editor.value()
            elif isinstance(editor, QLineEdit):
                value = editor.text()
            else:
                continue
            if value is None or value == "":
                continue
            values[form_field.name] = value
        return values

    def missing(self) -> tuple[str, ...]:
        return () if self.form.is_url or self.form.options else missing_required(self.form, self.content())

    def _update_submit(self) -> None:
        missing = self.missing()
        self.submit_button.setEnabled(not missing and self.decline_button.isEnabled())
        if missing:
            names = ", ".join(f.title for f in self.form.fields if f.name in missing) or ", ".join(missing)
            self.submit_button.setToolTip(self.tr("Still needed: {names}").format(names=names))

    def _open(self) -> None:
        if self.form.url:
            QDesktopServices.openUrl(QUrl(self.form.url))

    def _submit(self) -> None:
        if self.missing() or not self.submit_button.isEnabled():
            return
        self._answer(ACCEPT, None if self.form.is_url else self.content())

    def _answer(self, action: str, content: dict[str, Any] | None) -> None:
        for button in (self.submit_button, self.decline_button, self.cancel_button, *self.option_buttons):
            button.setEnabled(False)  # one answer per card; it goes when the controller settles it
        self.answered.emit(self.request.approval_id, action, content)
