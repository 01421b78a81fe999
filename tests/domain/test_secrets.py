"""SEC-1: the one redactor (``domain.secrets.redact``), format by format, with near misses that stay."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xworkmate.domain.secrets import MIN_SECRET_CHARS, REDACTED, redact, register_secret

B62 = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zCd7eFg0hJk"

OPENSSH_BLOCK = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDkVx0RrpZ9ZWm8yKq3aNnJmWdeIYVt2J7X1rE0bW0e6QAAAJgkY5nVJGOZ\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
RSA_BLOCK = (
    "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\n"
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n"
    "-----END RSA PRIVATE KEY-----"
)

SECRETS = {
    "openai": "sk-" + B62[:48],
    "openai-project": "sk-proj-Q7vR2mXk9LpT4wZc8NbY3hJd6FgS1aE5_xY-9zT3",
    "anthropic": "sk-ant-api03-Xy7Zq2Wv9Ut4Sr6Qp1On8Ml3Kj5Ih0Gf2Ed7Cb4Aa9-Zy8XwAA",
    "github-classic": "ghp_" + B62[:36],
    "github-oauth": "gho_" + B62[:36],
    "github-user": "ghu_" + B62[:36],
    "github-server": "ghs_" + B62[:36],
    "github-refresh": "ghr_" + B62[:36],
    "github-fine-grained": "github_pat_11ABCDEFG0" + B62[:12] + "_" + B62[:40],
    "gitlab": "glpat-" + B62[:20],
    "slack-bot": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "slack-user": "xoxp-123456789012-123456789012-1234567890123-" + B62[:32],
    "aws-id": "AKIAIOSFODNN7EXAMPLE",
    "aws-session-id": "ASIA" + "QWERTYUIOP123456",
    "jwt": (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    ),
    "openssh-private-key": OPENSSH_BLOCK,
    "rsa-private-key": RSA_BLOCK,
    "pkcs8-private-key": (
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----"
    ),
}


@pytest.mark.parametrize("secret", list(SECRETS.values()), ids=list(SECRETS))
def test_each_common_key_format_is_redacted_whole_and_the_words_around_it_stay(secret: str) -> None:
    """SEC-1: the key (a PEM block: the whole block, OpenSSH's too) becomes one marker; nothing else moves."""
    text = f"use this: {secret}\nthen deploy."
    assert redact(text) == f"use this: {REDACTED}\nthen deploy."


def test_a_private_key_block_cut_short_is_redacted_to_its_last_base64_line() -> None:
    """A pasted block without its END line (a cut message) still loses every line of the key."""
    cut = OPENSSH_BLOCK.rsplit("\n", 2)[0]
    assert redact(f"here:\n{cut}\n\nwhat does it open?") == f"here:\n{REDACTED}\n\nwhat does it open?"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", f"aws_secret_access_key = {REDACTED}"),
        (
            '"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
            f'"AWS_SECRET_ACCESS_KEY": "{REDACTED}"',
        ),
        ("https://alice:s3cr3t-pw@db.example.com:5432/x", f"https://alice:{REDACTED}@db.example.com:5432/x"),
        ("postgresql://app:hunter22@10.0.0.5/prod", f"postgresql://app:{REDACTED}@10.0.0.5/prod"),
        ("GET /v1/items?api_key=abc123&page=2", f"GET /v1/items?api_key={REDACTED}&page=2"),
        (
            "https://x.io/cb?code=1&access_token=ya29.a0Af&state=9",
            f"https://x.io/cb?code=1&access_token={REDACTED}&state=9",
        ),
        ("https://x.io/login?user=bob&password=hunter2#top", f"https://x.io/login?user=bob&password={REDACTED}#top"),
        ("?secret=shh&token=t0k", f"?secret={REDACTED}&token={REDACTED}"),
        ("s3.amazonaws.com/b/o?X-Amz-Signature=a1b2c3d4", f"s3.amazonaws.com/b/o?X-Amz-Signature={REDACTED}"),
        ("Authorization: Bearer abcdefghijklmnop0123", f"Authorization: {REDACTED}"),
    ],
)
def test_labelled_secrets_lose_their_value_and_keep_their_label(text: str, expected: str) -> None:
    """AWS secret keys where labelled, URL passwords and secret-named query parameters (SEC-1)."""
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "we use sk-learn for the model; the sk- prefix marks OpenAI keys",
        "scikit-learn is sk-learn-compatible-models-and-more in their docs",
        "disk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1w is a volume name, not a key",
        "commit 3f5e2a9c1b7d4e6f8a0b2c4d6e8f0a1b3c5d7e9f fixed it",  # a git sha
        "id 123e4567-e89b-12d3-a456-426614174000 and sha256:9f86d081884c7d659a2feaa0c55ad015",
        "AKIAIOSFODNN7EXAMPL is one short; AKIAIOSFODNN7EXAMPLEX one long; akiaiosfodnn7example lowercase",
        "ghp_short, gho_ and github_pat_ alone, glpat-tiny",
        "xoxo, and xoxb-hello-world-of-words has no digits",
        "eyJhbGciOi.notjson.abc and version 1.2.3",
        "https://example.com/a?b=c&page=2&q=password and git@github.com:org/repo.git",
        "ssh://git@host/x.git and https://host:8080/path@v2",
        "reset your password = easy; token: none; the secret is patience",
        "the bearer of bad news",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n"
        "-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n",
        "我喜欢蓝色的天空 — 没有密钥",
        "",
    ],
)
def test_near_misses_are_left_as_they_are(text: str) -> None:
    """Prose mentioning a prefix, a git sha, a UUID, a public key or certificate is not a secret."""
    assert redact(text) == text


def test_a_configured_key_of_any_shape_is_redacted_once_registered() -> None:
    """The person's own key (read from the environment or keyring) is replaced whatever its shape;
    a value shorter than the threshold is never registered (it would match ordinary words)."""
    own = "Zq81-plain-Kx7Lm2Nb5Vc8Xz3"
    assert redact(f"key {own}!") == f"key {own}!"  # no common format
    register_secret(own)
    register_secret("short")
    assert redact(f"key {own}!") == f"key {REDACTED}!"
    assert redact("a short word") == "a short word"


def test_a_configured_key_that_starts_a_longer_key_leaves_nothing_of_the_longer_one() -> None:
    """A key the person configured may be the start of a longer key-shaped token in a message: the
    whole token goes, not the configured part alone (the rest was left behind when the configured keys
    were replaced before the formats)."""
    longer = SECRETS["openai-project"]
    register_secret(longer[:40])
    assert redact(f"use this: {longer}\nthen deploy.") == f"use this: {REDACTED}\nthen deploy."


def test_extra_values_are_redacted_from_the_threshold_on() -> None:
    """``also`` (the log's secret-named environment values) counts from ``MIN_SECRET_CHARS`` characters."""
    long_enough = "v" * MIN_SECRET_CHARS
    assert redact(f"x {long_enough} y vvv", also=[long_enough, "vvv"]) == f"x {REDACTED} y vvv"


def test_an_echoed_key_and_its_pieces_share_the_one_marker() -> None:
    """A provider's echo of the key it was sent, in pieces (``key=``), gets the one marker (issue 33 item 3)."""
    key = SECRETS["openai-project"]
    assert redact(f"bad key {key[:10]}...{key[-8:]}", key=key) == f"bad key {REDACTED}...{REDACTED}"


@given(st.lists(st.sampled_from([*SECRETS.values(), "plain words ", "\n", "https://a.io/?x=1&", " 3f5e2a9c "])))
def test_redacting_twice_changes_nothing_and_no_key_survives(parts: list[str]) -> None:
    """As a property: redaction is idempotent, and no secret survives in any mix of them and prose."""
    once = redact(" ".join(parts))
    assert redact(once) == once
    for secret in SECRETS.values():
        assert secret not in once


def test_redacting_grows_linearly_with_the_text_with_a_key_and_registered_keys() -> None:
    """Issue 33 item 3: the one ``redact(text, key=…)`` stays one pass per rule: ten times the text costs
    about ten times the time (a quadratic rule would cost a hundred); an order of growth, not a clock limit."""
    import time

    key = SECRETS["openai-project"]
    for n in range(20):
        register_secret(f"growth-test-key-{n:03d}-Lq2Zx9")
    unit = f"a line of prose about the build; the key was {key[:10]}...{key[-8:]} and then {key}. "

    def cost(copies: int) -> float:
        text = unit * copies
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            redact(text, key=key)
            best = min(best, time.perf_counter() - started)
        return best

    assert cost(2_000) / cost(200) < 40
