"""Session keys and the folders they map to (SPEC ISO-1, ISO-2, ISO-3).

A task line *is* a ``TaskThread`` and its ``thread_id`` *is* its session key.
Three shapes are valid:

* ``main`` — the one main thread;
* ``draft:<ULID>`` — a line the person created;
* ``agent:<agent_id>:<base_key>`` — a line owned by an agent.

``key_to_dir_name`` turns any key into a folder name that is safe on every OS
(no ``:``, ``/``, ``\\``, reserved device names, or trailing dots) and injective
even on case-insensitive file systems: two different keys never share a folder.
"""

from __future__ import annotations

import re

MAIN_KEY = "main"
DRAFT_PREFIX = "draft:"
AGENT_PREFIX = "agent:"

# Crockford base32 as ULIDs use it; canonical form is upper case.
_ULID_RE = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")
_AGENT_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
MAX_KEY_LENGTH = 200
# Encoded names stay well under the 255-byte limit of common file systems.
MAX_DIR_NAME_LENGTH = 240

_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"} | {f"com{i}" for i in range(10)} | {f"lpt{i}" for i in range(10)}
)


class InvalidSessionKeyError(ValueError):
    """A string that is not a valid session key; the message names the key."""


def allocate_draft_key() -> str:
    """A fresh ``draft:<ULID>`` key (ISO-2: allocated before the line exists)."""
    from ulid import ULID  # here, not at the top: importing it reads package metadata (~20 ms at start-up)

    return f"{DRAFT_PREFIX}{ULID()}"


def normalize_session_key(key: str, *, initialising_main: bool = False) -> str:
    """Validate ``key`` and return its canonical form.

    ULIDs are case-insensitive, so ``draft:01j...`` and ``draft:01J...`` are the
    same key; the canonical form is upper case. An empty key becomes ``main``
    only while the main thread is being initialised (ISO-2); anywhere else it
    is an error, never a silent fallback (ISO-7).
    """
    if key is None or not isinstance(key, str):
        raise InvalidSessionKeyError(f"session key must be a string, got {key!r}")
    stripped = key.strip()
    if not stripped:
        if initialising_main:
            return MAIN_KEY
        raise InvalidSessionKeyError("empty session key: a task line must have its own key (ISO-7)")
    if len(stripped) > MAX_KEY_LENGTH:
        raise InvalidSessionKeyError(f"session key is longer than {MAX_KEY_LENGTH} characters: {key[:40]!r}…")
    if stripped == MAIN_KEY:
        return MAIN_KEY
    if stripped.startswith(DRAFT_PREFIX):
        ulid = stripped[len(DRAFT_PREFIX) :].upper()
        if not _ULID_RE.fullmatch(ulid):
            raise InvalidSessionKeyError(f"invalid session key {key!r}: expected draft:<ULID>")
        return DRAFT_PREFIX + ulid
    if stripped.startswith(AGENT_PREFIX):
        rest = stripped[len(AGENT_PREFIX) :]
        agent_id, sep, base = rest.partition(":")
        if not sep or not _AGENT_ID_RE.fullmatch(agent_id):
            raise InvalidSessionKeyError(
                f"invalid session key {key!r}: expected agent:<agent id>:<base key> with a lowercase agent id"
            )
        return f"{AGENT_PREFIX}{agent_id}:{normalize_session_key(base)}"
    raise InvalidSessionKeyError(
        f"invalid session key {key!r}: expected 'main', 'draft:<ULID>' or 'agent:<agent id>:<base key>'"
    )


def is_valid_session_key(key: str) -> bool:
    try:
        normalize_session_key(key)
    except InvalidSessionKeyError:
        return False
    return True


def key_to_dir_name(key: str) -> str:
    """Map a session key to a folder name, injectively and safely on every OS (ISO-3).

    The output alphabet is ``[0-9a-z_-]`` only, so it is unchanged by case
    folding. ``:`` becomes ``-``; every other character outside ``[0-9a-z]``
    (``-``, ``_``, ``.``, upper case, ``/``, anything non-ASCII) becomes
    ``_<hex code point>_``, a self-delimiting escape, so the encoding is
    injective.

    A *valid* key is first put in canonical form and lower-cased: its only
    upper-case letters are ULIDs, which are case-insensitive, so
    ``draft:01J…`` → ``draft-01j…``. That cannot collide with an invalid key's
    name: the lower-cased canonical key is itself a valid key, and an invalid
    key is encoded as it is.
    """
    if not isinstance(key, str) or not key:
        raise InvalidSessionKeyError("empty session key has no folder (ISO-7)")
    try:
        source = normalize_session_key(key).lower()
    except InvalidSessionKeyError:
        source = key
    out: list[str] = []
    for ch in source:
        if "a" <= ch <= "z" or "0" <= ch <= "9":
            out.append(ch)
        elif ch == ":":
            out.append("-")
        else:
            out.append(f"_{ord(ch):x}_")
    name = "".join(out)
    # Windows device names (CON, NUL, COM1…) are reserved; escaping the first
    # letter keeps the mapping injective because plain letters are never
    # escaped elsewhere.
    if name in _WINDOWS_RESERVED:
        name = f"_{ord(name[0]):x}_" + name[1:]
    if len(name) > MAX_DIR_NAME_LENGTH:
        raise InvalidSessionKeyError(
            f"session key {key[:40]!r}… is too long to map to a folder name ({len(name)} characters)"
        )
    return name
