"""The one redactor (SEC-1, issue 33 item 3): ``redact(text, key=…)`` against the two-step rule it replaced.

Before issue 33 an LLM error was cleaned by ``redact(redact_key(text, key))``: the provider's key in pieces
first, then the formats and the known keys. ``redact`` now takes ``key`` itself. The reference below is that
old composition, kept here verbatim (``_old_redact_key``) so both run in the same process on the same texts:
prose with a key echoed whole and masked, at 1k, 10k and 100k characters, with 0 and 50 registered keys.
Figures: the median of repeats, new beside old; target: no slower than 1.2× the old rule, and linear growth
(10× the text, about 10× the time).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from benchmarks.common import Figure, median
from xworkmate.domain import secrets
from xworkmate.domain.secrets import MIN_SECRET_CHARS, REDACTED, redact, register_secret

KEY = "sk-proj-Q7vR2mXk9LpT4wZc8NbY3hJd6FgS1aE5"
SIZES = (1_000, 10_000, 100_000)
REPEATS = 15


def _old_redact_key(text: str, key: str | None) -> str:
    """``domain.secrets.redact_key`` as it was before issue 33 (the reference)."""
    if not key or not text:
        return text
    if len(key) < MIN_SECRET_CHARS:
        return text.replace(key, REDACTED)
    width = MIN_SECRET_CHARS
    pieces = {key[i : i + width] for i in range(len(key) - width + 1)}
    spans: list[list[int]] = []
    for start in range(len(text) - width + 1):
        if text[start : start + width] in pieces:
            end = start + width
            if spans and start <= spans[-1][1]:
                spans[-1][1] = end
            else:
                spans.append([start, end])
    if not spans:
        return text
    parts: list[str] = []
    position = 0
    for start, end in spans:
        parts.append(text[position:start])
        parts.append(REDACTED)
        position = end
    parts.append(text[position:])
    return "".join(parts)


def _text(size: int) -> str:
    prose = "The provider said the request failed; retry later or check the settings of this line. "
    echo = f"Incorrect API key provided: {KEY}. Also known as {KEY[:10]}...{KEY[-8:]}. "
    body = (prose * 8 + echo) * (size // (len(prose) * 8 + len(echo)) + 1)
    return body[:size]


def _time(call: Callable[[], str]) -> float:
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return median(samples)


def run() -> list[Figure]:
    figures: list[Figure] = []
    for registered in (0, 50):
        if registered:
            for n in range(registered):
                register_secret(f"configured-key-{n:04d}-Zq8Wm3Lp")
        assert len(secrets.known_secrets()) == registered
        for size in SIZES:
            text = _text(size)
            assert redact(text, key=KEY) == redact(_old_redact_key(text, KEY))  # the same output
            new = _time(lambda text=text: redact(text, key=KEY))  # type: ignore[misc]
            old = _time(lambda text=text: redact(_old_redact_key(text, KEY)))  # type: ignore[misc]
            figures.append(
                Figure(
                    name=f"redact(text, key=…), {size:,} chars, {registered} registered keys",
                    value=round(new, 3),
                    unit="ms",
                    target="≤ 1.2× the old redact(redact_key(…)); linear in the text",
                    met=new <= 1.2 * old,
                    reference=round(old, 3),
                    reference_label="old redact(redact_key(text, key)), same run",
                )
            )
    return figures


if __name__ == "__main__":
    for figure in run():
        print(f"{figure.name}: {figure.value} {figure.unit} (old: {figure.reference} {figure.unit})")
