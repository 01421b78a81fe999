"""Provider configuration and API-key lookup (SPEC CAT-1, §7: secrets never in the config)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from keyring.backend import KeyringBackend
from keyring.backends.fail import Keyring as NoKeyring
from pydantic import ValidationError

from tests.llm.conftest import BrokenKeyring, MemoryKeyring
from xworkmate.llm import KEYRING_SERVICE, ApiKeyError, ProviderConfig, resolve_api_key, store_api_key

UseKeyring = Callable[[KeyringBackend], KeyringBackend]


def _config(**overrides: object) -> ProviderConfig:
    fields: dict[str, object] = {"name": "local", "base_url": "http://127.0.0.1:11434/v1", "model": "qwen"}
    fields.update(overrides)
    return ProviderConfig.model_validate(fields)


def test_tags_are_normalised_like_categories() -> None:
    """CAT-1: tags compare equal to normalised category labels."""
    cfg = _config(tags=[" Medical ", "LEGAL", ""])
    assert cfg.tags == frozenset({"medical", "legal"})
    assert cfg.allows("medical")
    assert not cfg.allows("finance")


def test_a_comma_separated_tag_string_is_accepted() -> None:
    assert _config(tags="medical, legal").tags == frozenset({"medical", "legal"})


def test_untagged_provider_allows_only_normal_content() -> None:
    cfg = _config()
    assert cfg.allows(None)
    assert not cfg.allows("medical")


def test_invalid_tag_is_refused_naming_the_field() -> None:
    with pytest.raises(ValidationError) as info:
        _config(tags=["medical records!"])
    assert info.value.errors()[0]["loc"] == ("tags",)
    assert "medical records!" in str(info.value)


@pytest.mark.parametrize("url", ["ftp://example.com/v1", "example.com/v1", "http:///v1"])
def test_bad_base_url_is_refused_naming_the_field(url: str) -> None:
    with pytest.raises(ValidationError) as info:
        _config(base_url=url)
    assert info.value.errors()[0]["loc"] == ("base_url",)
    assert "base_url" in str(info.value)


def test_base_url_trailing_slash_is_dropped() -> None:
    cfg = _config(base_url="https://api.openai.com/v1/")
    assert cfg.chat_completions_url == "https://api.openai.com/v1/chat/completions"


def test_only_openai_kind_is_accepted() -> None:
    with pytest.raises(ValidationError) as info:
        _config(kind="anthropic")
    assert info.value.errors()[0]["loc"] == ("kind",)


def test_a_secret_cannot_be_stored_in_the_config() -> None:
    """§7: keys live in the keyring or an environment variable, never in the model."""
    with pytest.raises(ValidationError) as info:
        _config(api_key="sk-secret")
    assert info.value.errors()[0]["loc"] == ("api_key",)


def test_config_without_key_resolves_to_none() -> None:
    assert resolve_api_key(_config()) is None


def test_key_is_read_from_the_named_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XW_TEST_KEY", "sk-from-env")
    assert resolve_api_key(_config(api_key_env="XW_TEST_KEY")) == "sk-from-env"


def test_missing_environment_variable_names_provider_and_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XW_TEST_KEY", raising=False)
    with pytest.raises(ApiKeyError) as info:
        resolve_api_key(_config(name="openrouter", api_key_env="XW_TEST_KEY"))
    assert "'openrouter'" in str(info.value)
    assert "XW_TEST_KEY" in str(info.value)


def test_key_is_read_from_the_keyring_under_the_provider_name(use_keyring: UseKeyring) -> None:
    backend = use_keyring(MemoryKeyring())
    store_api_key("openrouter", "sk-from-keyring")
    assert isinstance(backend, MemoryKeyring)
    assert backend.passwords == {(KEYRING_SERVICE, "openrouter"): "sk-from-keyring"}
    assert resolve_api_key(_config(name="openrouter", api_key_keyring=True)) == "sk-from-keyring"


def test_environment_variable_wins_over_keyring(use_keyring: UseKeyring, monkeypatch: pytest.MonkeyPatch) -> None:
    use_keyring(MemoryKeyring())
    store_api_key("local", "sk-from-keyring")
    monkeypatch.setenv("XW_TEST_KEY", "sk-from-env")
    assert resolve_api_key(_config(api_key_env="XW_TEST_KEY", api_key_keyring=True)) == "sk-from-env"


def test_empty_keyring_entry_names_provider_and_service(use_keyring: UseKeyring) -> None:
    use_keyring(MemoryKeyring())
    with pytest.raises(ApiKeyError) as info:
        resolve_api_key(_config(name="openrouter", api_key_keyring=True))
    assert "'openrouter'" in str(info.value)
    assert KEYRING_SERVICE in str(info.value)


def test_no_keyring_backend_gives_a_clear_error_naming_the_provider(use_keyring: UseKeyring) -> None:
    use_keyring(NoKeyring())  # type: ignore[no-untyped-call]
    with pytest.raises(ApiKeyError) as info:
        resolve_api_key(_config(name="openrouter", api_key_keyring=True))
    message = str(info.value)
    assert "'openrouter'" in message
    assert "keyring" in message
    assert "api_key_env" in message  # says what to do instead


def test_failing_keyring_backend_gives_a_clear_error(use_keyring: UseKeyring) -> None:
    use_keyring(BrokenKeyring())
    with pytest.raises(ApiKeyError, match=r"'vllm'.*secret service is locked"):
        resolve_api_key(_config(name="vllm", api_key_keyring=True))
    with pytest.raises(ApiKeyError, match="'vllm'"):
        store_api_key("vllm", "sk-x")
