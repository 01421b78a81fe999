"""Secrets (SEC-1): which names hold them, which keys this process knows, and the one redactor.

``redact`` is the one rule for every text derived from what people, models and agents wrote
(export, search results and index, ``messages``, titles, notifications, the log file): the
person's own configured keys (``register_secret``, called wherever a key is read) and the common
key formats become ``REDACTED``. The stored message keeps what the person typed. Its ``key``
argument adds the stricter rule for the one key a provider may echo in pieces (an LLM error, issue
33 item 3: one redactor, one threshold ``MIN_SECRET_CHARS``). It runs on every search hit and index
write, so each format is tried only when a cheap substring test says it could be there.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable

__all__ = [
    "MIN_SECRET_CHARS",
    "REDACTED",
    "is_secret_name",
    "known_secrets",
    "redact",
    "register_secret",
]

REDACTED = "[redacted]"
"""What stands where a secret was, in every derived text (export, log, search, errors)."""
MIN_SECRET_CHARS = 8
"""SEC-1: a known key (or an echoed run of one) this long or longer is replaced; shorter values would
match ordinary words."""

_registered: set[str] = set()
_known: tuple[str, ...] = ()  # _registered, longest first (a key that contains another is replaced whole)
_lock = threading.Lock()

_SECRET_NAME = re.compile(
    r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|AUTH|COOKIE|SESSION)", re.IGNORECASE
)


def is_secret_name(name: str) -> bool:
    """An environment variable (or setting) whose name says it holds a secret."""
    return bool(_SECRET_NAME.search(name))


def register_secret(value: str | None) -> None:
    """Remember a key this process read (keyring, environment), so no derived text can carry it."""
    global _known
    if value and len(value) >= MIN_SECRET_CHARS and value not in _registered:
        with _lock:
            _registered.add(value)
            _known = tuple(sorted(_registered, key=len, reverse=True))


def known_secrets() -> list[str]:
    """The keys registered so far, longest first (a key that contains another is replaced whole)."""
    return list(_known)


# -- the common formats ------------------------------------------------------------------------
# Each: whether a text could hold it (substrings one of which must be there: a C-speed test, so a
# text without any costs a few microseconds), the pattern, and what replaces a match.

_B62 = "A-Za-z0-9"


def _starts_token(prefix: str) -> str:
    """``prefix`` not glued to a word before it (\"disk-…\" is no \"sk-…\"): the literal comes first, so
    the regex engine scans for it at C speed, and the look-behind checks the character before it."""
    return rf"{prefix}(?<![{_B62}_\-]{prefix})"


_Replacement = str | Callable[[re.Match[str]], str]


def _keep_label(match: re.Match[str]) -> str:
    return match.group("label") + REDACTED


_SECRET_PARAMETER_ENDS = ("password", "passwd", "pwd", "token", "secret", "key", "signature", "credential")
_SECRET_PARAMETERS = frozenset({"sig", "pass", "auth"})
# An "=" right after a name ending like a secret parameter's: the literal "=" first (scanned at C speed),
# then one fixed-width look-behind per ending.
_AFTER_SECRET_NAME = re.compile(
    "=(?:" + "|".join(f"(?<={end}=)" for end in (*_SECRET_PARAMETER_ENDS, *_SECRET_PARAMETERS)) + ")", re.IGNORECASE
)


def _holds(*triggers: str) -> Callable[[str], bool]:
    """Whether a text could hold the format: it contains one of ``triggers`` (a C-speed test each; a loop, not
    a generator: every redacted text asks each format, a search's snippets fifty texts at a time)."""

    def holds(text: str) -> bool:
        for trigger in triggers:  # noqa: SIM110 (any() over a generator: 1.0 µs a call against 0.3 here)
            if trigger in text:
                return True
        return False

    return holds


def _scanned(_text: str) -> bool:
    """A pattern that starts with a literal: the regex engine's own scan for it is the cheap test."""
    return True


def _could_hold_parameter(text: str) -> bool:
    return "=" in text and _AFTER_SECRET_NAME.search(text) is not None


def _secret_parameter(match: re.Match[str]) -> str:
    """A query parameter whose name says it holds a secret (``token``, ``X-Amz-Signature``, ``api_key``)."""
    name = match.group("name").lower()
    if name.endswith(_SECRET_PARAMETER_ENDS) or name in _SECRET_PARAMETERS:
        return _keep_label(match)
    return match.group()


_FORMATS: tuple[tuple[Callable[[str], bool], re.Pattern[str], _Replacement], ...] = (
    # PEM private keys, OpenSSH's included: the whole block; a block cut short, to its last base64 line.
    (
        _holds("PRIVATE KEY-----"),
        re.compile(
            r"-----BEGIN (?P<kind>[A-Z0-9 ]*)PRIVATE KEY-----"
            r"(?:[\s\S]*?-----END (?P=kind)PRIVATE KEY-----|(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/=:\- ]{16,})*)"
        ),
        REDACTED,
    ),
    # OpenAI (sk-…, sk-proj-…) and Anthropic (sk-ant-…): a long random tail with a digit or a capital,
    # so a hyphenated word ("sk-learn-compatible-models") is left alone.
    (
        _holds("sk-"),
        re.compile(_starts_token("sk-") + rf"(?=[{_B62}_\-]*[0-9A-Z])[{_B62}_\-]{{16,}}"),
        REDACTED,
    ),
    # GitHub tokens (classic and fine-grained), GitLab personal tokens, Slack tokens.
    (
        _scanned,
        re.compile(rf"(?:{_starts_token('gh[pousr]_')}[{_B62}]{{20,}}|{_starts_token('github_pat_')}[{_B62}_]{{20,}})"),
        REDACTED,
    ),
    (_holds("glpat-"), re.compile(_starts_token("glpat-") + rf"[{_B62}_\-]{{20,}}"), REDACTED),
    (_holds("xox"), re.compile(_starts_token("xox[abprs]-") + rf"(?=[{_B62}\-]*[0-9])[{_B62}\-]{{10,}}"), REDACTED),
    # AWS: access key ids, and a secret access key where it is labelled as one.
    (_scanned, re.compile(r"A[KS]IA(?<![A-Z0-9]A[KS]IA)[A-Z0-9]{16}(?![A-Za-z0-9])"), REDACTED),
    (
        _holds("ws_secret", "WS_SECRET", "wsSecret", "ws_Secret"),
        re.compile(
            r"(?P<label>(?i:aws_?secret(?:_?access)?_?key)[\"']?\s*[:=]\s*[\"']?)"
            r"[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])"
        ),
        _keep_label,
    ),
    # JWTs: header and payload are base64url JSON ("eyJ" is '{"'), then the signature.
    (
        _holds("eyJ"),
        re.compile(_starts_token("eyJ") + r"[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"),
        REDACTED,
    ),
    # "Authorization: Bearer …" (the log's old rule).
    (_holds("earer", "EARER"), re.compile(r"(?i:bearer)\s+[A-Za-z0-9._~+/\-]{16,}=*"), REDACTED),
    # URLs: a password after "user:" before "@", and secret-named query parameters.
    (
        _holds("://"),
        re.compile(r"(?P<label>://[^\s:/?#@\[\]]+:)[^\s/?#@]+(?=@)"),
        _keep_label,
    ),
    (_could_hold_parameter, re.compile(r"(?P<label>[?&;](?P<name>[A-Za-z0-9_.\-]+)=)[^&#\s\"'<>]+"), _secret_parameter),
)


def redact(text: str, *, also: Iterable[str] = (), key: str | None = None) -> str:
    """SEC-1: ``text`` with every known key, every value of ``also`` (at least ``MIN_SECRET_CHARS``
    long) and every common key format replaced by ``REDACTED``. A known key whose start is there but
    not the whole (pasted wrapped over two lines) loses every run of it.

    ``key``: the key a provider was sent, which it may echo whole or masked as its first and last
    characters (``sk-proj-abcd…wxyz``): every run of it ``MIN_SECRET_CHARS`` long or longer goes, wherever
    it is; a shorter key only where it is whole.
    """
    if not text:
        return text
    if key:
        text = _every_run_of(text, key)
    # The formats first: each takes a whole token, so a known key that is only the start of a longer
    # key-shaped token cannot leave the rest of that token behind.
    for could_hold, pattern, replacement in _FORMATS:
        if could_hold(text):
            text = pattern.sub(replacement, text)
    for value in (*_known, *(v for v in also if len(v) >= MIN_SECRET_CHARS)):
        if value in text:
            text = text.replace(value, REDACTED)
        elif value[:MIN_SECRET_CHARS] in text:
            # Its start without the whole: a key wrapped over lines (or cut); every run of it goes.
            text = _every_run_of(text, value)
    return text


def _every_run_of(text: str, key: str) -> str:
    """``text`` with ``key``, and every piece of it ``MIN_SECRET_CHARS`` characters or longer, replaced;
    a key shorter than ``MIN_SECRET_CHARS`` only where it appears whole."""
    if len(key) < MIN_SECRET_CHARS:
        return text.replace(key, REDACTED)
    width = MIN_SECRET_CHARS
    pieces = {key[i : i + width] for i in range(len(key) - width + 1)}
    # Every echoed piece of the key is covered by its MIN_SECRET_CHARS-long windows; merge overlapping hits.
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
