"""Category labels a person asks for (CAT-1, CAT-10): the one rule the CLI, the window and the controller share."""

from __future__ import annotations

import pytest

from xworkmate.domain.categories import (
    EmptyCategoryError,
    InvalidCategoryError,
    normalize_category,
    requested_category,
)


def test_a_requested_category_is_normalised_and_none_clears_it() -> None:
    """CAT-1: the label is normalised as everywhere; ``None`` is the explicit "normal"."""
    assert requested_category(" Medical ") == "medical"
    assert requested_category(None) is None


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
def test_a_blank_requested_category_is_refused_not_read_as_normal(blank: str) -> None:
    """CAT-10: a relabel moves a whole subtree, so clearing must be asked for, never implied by a blank."""
    with pytest.raises(EmptyCategoryError, match="--clear") as refused:
        requested_category(blank)
    assert isinstance(refused.value, InvalidCategoryError)
    assert normalize_category(blank) is None  # provider tags and stored rows keep their lenient reading
