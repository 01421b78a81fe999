"""An agent asks the person for input (ACP ``elicitation/create``, issue 32 item 3): the form it asked for,
the values typed for it, and one line that records what was asked and what was answered.

Pure: the ACP client turns the request's ``requestedSchema`` (a restricted JSON Schema of string,
number, integer, boolean and single-select enum fields) into an ``ElicitationForm``; the window's card
and ``xworkmate run --answer NAME=VALUE`` both type their values through ``typed_value``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

FieldKind = Literal["string", "number", "integer", "boolean", "enum"]
ElicitationAction = Literal["accept", "decline", "cancel"]

_TRUE = frozenset({"true", "yes", "y", "1", "on"})
_FALSE = frozenset({"false", "no", "n", "0", "off"})


@dataclass(frozen=True)
class FormField:
    """One input of the form."""

    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    choices: tuple[tuple[str, str], ...] = ()
    """An enum's (value, label) pairs, in the agent's order."""
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True)
class ElicitationForm:
    """What the agent asked: its message and fields (form mode), or a URL to open (url mode)."""

    message: str
    fields: tuple[FormField, ...] = ()
    url: str | None = None
    elicitation_id: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    """A question an agent sent as a permission request (kind ``think``, issue 32 item 5): its options as
    (option id, name); the card shows one button each and the answer is ``accept`` with ``{"option": id}``."""
    unsupported: tuple[str, ...] = field(default=())
    """Required fields of a kind this client cannot show (a multi-select): the form cannot be accepted.
    (An optional one is left out.)"""

    @property
    def is_url(self) -> bool:
        return self.url is not None

    def field(self, name: str) -> FormField | None:
        return next((f for f in self.fields if f.name == name), None)

    @property
    def required_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.required)


@dataclass(frozen=True)
class ElicitationAnswer:
    """The person's answer: ``accept`` with ``content`` (typed per the schema), ``decline`` or ``cancel``."""

    action: ElicitationAction
    content: Mapping[str, Any] | None = None
    reason: str = ""


def form_from_schema(message: str, schema: Mapping[str, Any]) -> ElicitationForm:
    """The form for a ``requestedSchema`` (as sent, camelCase keys)."""
    properties = schema.get("properties") or {}
    required = {str(n) for n in schema.get("required") or ()}
    fields: list[FormField] = []
    unsupported: list[str] = []
    for name, spec in properties.items():
        if not isinstance(spec, Mapping):
            if str(name) in required:
                unsupported.append(str(name))
            continue
        kind = spec.get("type")
        title = str(spec.get("title") or name)
        description = str(spec.get("description") or "")
        choices: tuple[tuple[str, str], ...] = ()
        if kind == "string" and (spec.get("enum") or spec.get("oneOf")):
            if spec.get("oneOf"):
                choices = tuple(
                    (str(o.get("const")), str(o.get("title") or o.get("const")))
                    for o in spec["oneOf"]
                    if isinstance(o, Mapping)
                )
            else:
                choices = tuple((str(v), str(v)) for v in spec["enum"])
            kind = "enum"
        if kind not in ("string", "number", "integer", "boolean", "enum"):
            if str(name) in required:
                unsupported.append(str(name))
            continue
        fields.append(
            FormField(
                name=str(name),
                kind=kind,
                title=title,
                description=description,
                required=str(name) in required,
                choices=choices,
                default=spec.get("default"),
                minimum=_number(spec.get("minimum")),
                maximum=_number(spec.get("maximum")),
            )
        )
    return ElicitationForm(message=message, fields=tuple(fields), unsupported=tuple(unsupported))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def typed_value(form_field: FormField, text: str) -> Any:
    """``text`` as the field's type; a ``ValueError`` with one line saying what is wrong (ERR-1)."""
    name, kind = form_field.name, form_field.kind
    value: Any
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ValueError(f"{name} takes true or false, not {text!r}")
    if kind == "enum":
        for choice, label in form_field.choices:
            if text in (choice, label):
                return choice
        offered = ", ".join(c for c, _ in form_field.choices)
        raise ValueError(f"{name} is one of {offered}, not {text!r}")
    if kind == "integer":
        try:
            value = int(text.strip())
        except ValueError:
            raise ValueError(f"{name} takes a whole number, not {text!r}") from None
    elif kind == "number":
        try:
            value = float(text.strip())
        except ValueError:
            raise ValueError(f"{name} takes a number, not {text!r}") from None
        if not math.isfinite(value):
            raise ValueError(f"{name} takes a finite number, not {text!r}")
    else:
        return text
    if form_field.minimum is not None and value < form_field.minimum:
        raise ValueError(f"{name} is at least {_shown(form_field.minimum)}, not {text!r}")
    if form_field.maximum is not None and value > form_field.maximum:
        raise ValueError(f"{name} is at most {_shown(form_field.maximum)}, not {text!r}")
    return value


def _shown(number: float) -> str:
    return str(int(number)) if number.is_integer() else str(number)


def parse_answers(pairs: tuple[str, ...]) -> dict[str, str]:
    """``--answer NAME=VALUE`` options as a dict; a malformed one (or a name twice) is a one-line error."""
    answers: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"--answer takes NAME=VALUE, not {pair!r}")
        if name in answers:
            raise ValueError(f"--answer {name} is given twice")
        answers[name] = value
    return answers


def content_from_answers(form: ElicitationForm, answers: Mapping[str, str]) -> dict[str, Any] | None:
    """The accept content from ``--answer`` values: None when a required field has no answer (then the
    request is refused); a ``ValueError`` (one line) for a value of the wrong type."""
    if form.unsupported or any(name not in answers for name in form.required_names):
        return None
    content: dict[str, Any] = {}
    for form_field in form.fields:
        if form_field.name in answers:
            content[form_field.name] = typed_value(form_field, answers[form_field.name])
    return content


def missing_required(form: ElicitationForm, content: Mapping[str, Any]) -> tuple[str, ...]:
    """The required fields ``content`` leaves empty (the card's Submit stays disabled while there are any)."""
    return (*form.unsupported, *(n for n in form.required_names if content.get(n) in (None, "")))


def describe_form(form: ElicitationForm) -> str:
    """What was asked, in one line: the message and the fields (or the URL)."""
    if form.url is not None:
        return f"{form.message} (open {form.url})"
    if form.options:
        return f"{form.message} ({' / '.join(name for _id, name in form.options)})"
    names = ", ".join(f"{f.name}{'*' if f.required else ''}" for f in form.fields)
    return f"{form.message} ({names})" if names else form.message


def describe_answer(form: ElicitationForm, answer: ElicitationAnswer) -> str:
    """The record kept in the conversation: what was asked and what was answered."""
    asked = describe_form(form)
    if answer.action == "accept":
        given = ", ".join(f"{k}={v!r}" for k, v in (answer.content or {}).items())
        answered = f"answered {given}" if given else "answered (done)"
    else:
        answered = f"{'declined' if answer.action == 'decline' else 'cancelled'}"
        if answer.reason:
            answered += f": {answer.reason}"
    return f"The agent asked: {asked} — {answered}"
