"""Which providers a call may use (SPEC CAT-2, CAT-6). Pure: no HTTP."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xworkmate.domain.categories import InvalidCategoryError
from xworkmate.llm import (
    CategoryModelError,
    ModelRouter,
    NoProviderError,
    ProviderConfig,
    UnknownProviderError,
)


def _provider(name: str, *tags: str, is_default: bool = False, model: str = "m") -> ProviderConfig:
    url = f"http://{name}.invalid/v1"
    return ProviderConfig(name=name, base_url=url, model=model, tags=frozenset(tags), is_default=is_default)


OPENAI = _provider("openai", is_default=True)
LOCAL_MED = _provider("local-med", "medical")
OPENROUTER = _provider("openrouter")
VLLM_MED_LEGAL = _provider("vllm", "medical", "legal")


@pytest.fixture
def router() -> ModelRouter:
    return ModelRouter([LOCAL_MED, OPENAI, OPENROUTER, VLLM_MED_LEGAL])


def _names(providers: list[ProviderConfig]) -> list[str]:
    return [p.name for p in providers]


def test_normal_content_may_use_every_provider_default_first(router: ModelRouter) -> None:
    """CAT-2: normal content may use any provider."""
    assert _names(router.candidates(None)) == ["openai", "local-med", "openrouter", "vllm"]


def test_category_content_keeps_only_tagged_providers_of_the_chain(router: ModelRouter) -> None:
    """CAT-2: the candidate chain is filtered to the category's group."""
    assert _names(router.candidates("medical")) == ["local-med", "vllm"]
    assert _names(router.candidates("legal")) == ["vllm"]


def test_category_is_normalised_before_filtering(router: ModelRouter) -> None:
    assert _names(router.candidates(" Medical ")) == ["local-med", "vllm"]


def test_invalid_category_label_is_refused(router: ModelRouter) -> None:
    with pytest.raises(InvalidCategoryError):
        router.candidates("no such: label")


def test_explicit_chain_is_filtered_and_keeps_its_order(router: ModelRouter) -> None:
    """CAT-2: candidate chain."""
    chain = ["openai", "vllm", "openrouter", "local-med"]
    assert _names(router.candidates(None, chain=chain)) == chain
    assert _names(router.candidates("medical", chain=chain)) == ["vllm", "local-med"]


def test_pinned_tagged_provider_comes_first(router: ModelRouter) -> None:
    """CAT-2: pinned model, inside the group."""
    assert _names(router.candidates("medical", pinned="vllm")) == ["vllm", "local-med"]


def test_pinned_untagged_provider_is_dropped_for_category_content(router: ModelRouter) -> None:
    """CAT-2: a pinned model outside the group is never used."""
    assert _names(router.candidates("medical", pinned="openai")) == ["local-med", "vllm"]
    with pytest.raises(CategoryModelError, match="'medical'"):
        router.candidates("medical", pinned="openai", chain=[])


def test_pinned_provider_is_used_for_normal_content(router: ModelRouter) -> None:
    assert _names(router.candidates(None, pinned="openrouter", chain=[])) == ["openrouter"]


def test_pinned_config_with_another_model_keeps_its_tags() -> None:
    router = ModelRouter([LOCAL_MED])
    other_model = LOCAL_MED.model_copy(update={"model": "bigger"})
    candidates = router.candidates("medical", pinned=other_model)
    assert [(p.name, p.model) for p in candidates] == [("local-med", "bigger"), ("local-med", "m")]


def test_palette_is_filtered_to_the_group(router: ModelRouter) -> None:
    """CAT-2: palette."""
    picked = router.candidates("medical", chain=[], palette=["openai", "local-med", "openrouter"])
    assert _names(picked) == ["local-med"]


def test_fallback_pool_is_filtered_to_the_group(router: ModelRouter) -> None:
    """CAT-2: final fallback pool."""
    picked = router.candidates("legal", chain=["local-med"], fallback=["openrouter", "vllm", "openai"])
    assert _names(picked) == ["vllm"]
    assert _names(router.candidates(None, chain=["local-med"], fallback=["openrouter"])) == [
        "local-med",
        "openrouter",
    ]


def test_order_is_pinned_chain_palette_fallback_without_duplicates(router: ModelRouter) -> None:
    picked = router.candidates(
        None,
        pinned="vllm",
        chain=["openai", "vllm"],
        palette=["openrouter"],
        fallback=["openai", "local-med"],
    )
    assert _names(picked) == ["vllm", "openai", "openrouter", "local-med"]


def test_no_tagged_provider_raises_category_model_error_naming_the_category(router: ModelRouter) -> None:
    """CAT-2: none remain → CategoryModelError; it never falls back to an untagged model."""
    with pytest.raises(CategoryModelError) as info:
        router.candidates("finance", pinned="openai", palette=["openrouter"], fallback=["local-med"])
    assert info.value.category == "finance"
    assert "'finance'" in str(info.value)
    assert "openai" in str(info.value)  # says which providers were considered


def test_empty_router_raises_no_provider_for_normal_content() -> None:
    with pytest.raises(NoProviderError):
        ModelRouter([]).candidates(None)
    with pytest.raises(CategoryModelError):
        ModelRouter([]).candidates("medical")


def test_first_allowed_is_the_groups_first_tagged_provider(router: ModelRouter) -> None:
    """CAT-6: with no model chosen, the first tagged provider of the group is used."""
    assert router.first_allowed("medical").name == "local-med"
    assert router.first_allowed(None).name == "openai"


def test_unknown_provider_name_is_an_error(router: ModelRouter) -> None:
    with pytest.raises(UnknownProviderError, match="'nope'"):
        router.candidates(None, pinned="nope")


def test_duplicate_provider_names_are_refused() -> None:
    with pytest.raises(ValueError, match="'openai'"):
        ModelRouter([OPENAI, _provider("openai")])


_TAGS = st.frozensets(st.sampled_from(["medical", "legal", "hr"]), max_size=3)
_NAMES = [f"p{i}" for i in range(6)]


@given(
    tag_sets=st.lists(_TAGS, min_size=len(_NAMES), max_size=len(_NAMES)),
    category=st.sampled_from([None, "medical", "legal", "hr"]),
    chain=st.none() | st.lists(st.sampled_from(_NAMES), max_size=6),
    pinned=st.none() | st.sampled_from(_NAMES),
    palette=st.none() | st.lists(st.sampled_from(_NAMES), max_size=6),
    fallback=st.none() | st.lists(st.sampled_from(_NAMES), max_size=6),
)
def test_candidates_never_include_an_out_of_group_provider(
    tag_sets: list[frozenset[str]],
    category: str | None,
    chain: list[str] | None,
    pinned: str | None,
    palette: list[str] | None,
    fallback: list[str] | None,
) -> None:
    """CAT-2, for any configuration: every candidate is allowed, and every allowed source is kept."""
    router = ModelRouter([_provider(name, *tags) for name, tags in zip(_NAMES, tag_sets, strict=True)])
    sources = [pinned] if pinned else []
    sources += _NAMES if chain is None else chain
    sources += (palette or []) + (fallback or [])
    expected = list(dict.fromkeys(n for n in sources if router.provider(n).allows(category)))
    try:
        picked = router.candidates(category, chain=chain, pinned=pinned, palette=palette, fallback=fallback)
    except (CategoryModelError, NoProviderError):
        assert expected == []
        return
    assert all(p.allows(category) for p in picked)
    assert _names(picked) == expected
