"""Content categories (SPEC CAT-1).

A category is a normalised lowercase label such as ``medical``; ``None`` means
normal content. Providers carry a set of such tags.
"""

from __future__ import annotations

import re

_CATEGORY_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


class InvalidCategoryError(ValueError):
    """A category label that cannot be normalised."""


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
        raise InvalidCategoryError(
            f"invalid content category {value!r}: use 1-64 characters from a-z, 0-9, '_' and '-',"
            " starting with a letter or digit"
        )
    return label


def normalize_tags(values: list[str] | tuple[str, ...] | set[str] | frozenset[str]) -> frozenset[str]:
    """Normalise a provider's category tags; empty labels are dropped."""
    tags = {normalize_category(v) for v in values}
    return frozenset(t for t in tags if t is not None)
