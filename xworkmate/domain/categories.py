"""Content categories (SPEC CAT-1).

A category is a normalised lowercase label such as ``medical``; ``None`` means
normal content. Providers carry a set of such tags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Final

from xworkmate.domain.translatable import QT_TRANSLATE_NOOP

_CATEGORY_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class InvalidCategoryError(ValueError):
    """A category label that cannot be normalised."""


# The refusals and the reminder of this module, marked for the window's catalogue (issue 20): the CLI and the
# model read them in English; the window shows them in the person's language (ui/wording.plain_words).
INVALID_CATEGORY = QT_TRANSLATE_NOOP(
    "CoreText",
    "invalid content category {value!r}: use 1-64 characters from a-z, 0-9, '_' and '-',"
    " starting with a letter or digit",
)
EMPTY_CATEGORY_REFUSAL = QT_TRANSLATE_NOOP(
    "CoreText",
    "empty content category {value!r}: name a category, or clear the category to make it normal"
    " (`xworkmate thread category KEY --clear`)",
)
NO_OWN_CATEGORY_REFUSAL = QT_TRANSLATE_NOOP(
    "CoreText",
    "this conversation has no content category, so it cannot dispatch a task of category {declared!r};"
    " omit `category` to dispatch a normal task",
)
OTHER_CATEGORY_REFUSAL = QT_TRANSLATE_NOOP(
    "CoreText",
    "category {declared!r} is not this thread's category ({owner!r}): a task may declare only"
    " its dispatcher's own category; pass {owner!r} for work on this category's content, or"
    " omit `category` to dispatch a normal task",
)
NORMAL_TASK_REMINDER = QT_TRANSLATE_NOOP(
    "CoreText",
    "Reminder: this is a normal task. Keep this conversation's {category!r} content out of its"
    ' goal and context; to dispatch work related to {category!r}, pass "category": "{category}".',
)
ACP_CATEGORY_REFUSAL = QT_TRANSLATE_NOOP(
    "CoreText",
    "a task of category {category!r} cannot run in ACP mode: external agent CLIs do not go through the"
    " category router (CAT-3); use native mode with a model tagged {category!r}",
)
UNTAGGED_MODEL_REFUSAL = QT_TRANSLATE_NOOP(
    "CoreText",
    "model {provider!r} is not tagged {category!r}, so it may not see this task's content;"
    " choose a model tagged {category!r} or leave the model unset to use the first one of the group",
)


def normalize_category(value: str | None) -> str | None:
    """Return the canonical form of a category label, ``None`` for normal content.

    Surrounding whitespace is dropped and letters are lower-cased; an empty
    string means normal. Anything else outside ``[a-z0-9_-]`` is refused with the
    offending label named, never silently rewritten.
    """
    if value is None:
        return None
    label = value.strip().lower()
    if not label:
        return None
    if not _CATEGORY_RE.fullmatch(label):
        raise InvalidCategoryError(INVALID_CATEGORY.format(value=value))
    return label


class EmptyCategoryError(InvalidCategoryError):
    """A relabel to a blank label: a person who means "normal" clears the category instead."""


def requested_category(value: str | None) -> str | None:
    """CAT-1, CAT-10: the category a person asked a line to carry; ``None`` clears it.

    Unlike ``normalize_category``, a blank label (``""``, whitespace) is refused
    rather than read as "normal": relabelling moves a whole subtree, so clearing
    it takes the explicit ``None`` (``thread category --clear``), never an empty
    ``--set``.
    """
    if value is not None and not value.strip():
        raise EmptyCategoryError(EMPTY_CATEGORY_REFUSAL.format(value=value))
    return normalize_category(value)


def normalize_tags(values: list[str] | tuple[str, ...] | set[str] | frozenset[str]) -> frozenset[str]:
    """Normalise a provider's category tags; empty labels are dropped."""
    tags = {normalize_category(v) for v in values}
    return frozenset(t for t in tags if t is not None)


def tags_allow(tags: frozenset[str] | tuple[str, ...] | set[str], content_category: str | None) -> bool:
    """CAT-2: normal content may reach anything; category content only what is tagged with its category.

    The one rule for every configured thing that content may reach: providers (the router) and
    MCP servers a category line gets (issue 15).
    """
    return content_category is None or content_category in tags


# -- the category of a new task (CAT-5, CAT-6, CAT-9) -------------------------------------


class _NotPassed(Enum):
    """The type of ``NOT_PASSED``: "the caller said nothing about the category"."""

    NOT_PASSED = "NOT_PASSED"

    def __repr__(self) -> str:
        return "NOT_PASSED"


NOT_PASSED: Final = _NotPassed.NOT_PASSED
"""CAT-5: internal flows (auto-repair…) that do not pass a category inherit the dispatcher's.

Distinct from ``None``, which asks for a normal task. The agent-facing
``task_start`` tool never produces it: an omitted argument becomes ``None``.
"""

DeclaredCategory = str | None | _NotPassed


class TaskCategoryError(ValueError):
    """A task may declare only its dispatcher's own category (CAT-5) or an allowed execution (CAT-6)."""


@dataclass(frozen=True, slots=True)
class CategoryChoice:
    """The outcome of ``task_category_choice``: the task's category and whether it is its own.

    ``own`` becomes ``threads.category_own``: ``True`` keeps the written value
    (``None`` included) instead of the parent's, which the CAT-7 trigger would copy.
    """

    own: bool
    category: str | None


def task_category_choice(declared: DeclaredCategory, owner: str | None) -> CategoryChoice:
    """CAT-5: the three-way choice of a new task's category; the dye follows the content.

    * ``NOT_PASSED`` → inherit ``owner``, the dispatcher's category (internal flows);
    * ``None`` → a normal task, whatever the dispatcher is;
    * a label → a task of that category, which must be the dispatcher's own.
    """
    if isinstance(declared, _NotPassed):
        return CategoryChoice(own=False, category=normalize_category(owner))
    if declared is None:
        return CategoryChoice(own=True, category=None)
    owner_category = normalize_category(owner)
    if owner_category is None:
        raise TaskCategoryError(NO_OWN_CATEGORY_REFUSAL.format(declared=declared))
    try:
        category = normalize_category(declared)
    except InvalidCategoryError:
        category = None
    if category is None or category != owner_category:
        raise TaskCategoryError(OTHER_CATEGORY_REFUSAL.format(declared=declared, owner=owner_category))
    return CategoryChoice(own=True, category=category)


def normal_task_reminder(dispatcher_category: str | None, task_category: str | None) -> str | None:
    """CAT-9: the one reminder, only when a category conversation dispatches a normal task."""
    if dispatcher_category is None or task_category is not None:
        return None
    return NORMAL_TASK_REMINDER.format(category=dispatcher_category)


def check_task_execution(
    category: str | None,
    *,
    execution_mode: str,
    chosen_provider: str | None,
    chosen_provider_tags: frozenset[str] | None,
) -> None:
    """CAT-6, the part that needs no router: ACP and explicitly chosen untagged models are refused.

    ``chosen_provider_tags`` are the tags of ``chosen_provider`` (``None`` when
    no provider was chosen). Normal tasks may use anything.
    """
    if category is None:
        return
    if execution_mode == "acp":
        raise TaskCategoryError(ACP_CATEGORY_REFUSAL.format(category=category))
    if chosen_provider is not None and category not in (chosen_provider_tags or frozenset()):
        raise TaskCategoryError(UNTAGGED_MODEL_REFUSAL.format(provider=chosen_provider, category=category))
