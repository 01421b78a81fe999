"""Search across lines, for the window and the command line (SPEC LOOP-3, CAT-4, Q-1).

``search_lines`` runs a query as one viewer (the person at the desktop, by default) and returns
typed hits grouped by line: lines whose title matched first, then by their newest hit. Any
thread, safe to call from a worker thread: it opens its own connections.

Snippets read Markdown as plain words (``markdown_plain``, issue 30 item 5).

SEC-1: titles and snippets are made from the redacted text (``domain.secrets.redact``; a snippet
is redacted again after its Markdown is stripped, so a key split by formatting is caught), and a
message that matched only through a secret (an index entry written before the index was
redacted) is not a hit: a search for a key never finds it.
"""

from __future__ import annotations

import json

from xworkmate.controllers.known_keys import register_provider_keys
from xworkmate.domain.search import (
    DEFAULT_SEARCH_LIMIT,
    TOOL_HIT_KEYS,
    HighlightedText,
    LineHits,
    MessageHit,
    SearchResults,
    ToolHit,
    markdown_plain,
    match_spans,
    parse_query,
    searchable_text,
    snippet,
)
from xworkmate.domain.secrets import redact
from xworkmate.domain.viewers import DESKTOP, Viewer
from xworkmate.store import Store
from xworkmate.store.search import FoundThread, SearchRepository

__all__ = ["search_lines"]


def _title(thread: FoundThread, spans: list[tuple[int, int]] | None) -> HighlightedText:
    return HighlightedText(text=redact(thread.title), ranges=tuple(spans or ()))


def search_lines(
    store: Store,
    query: str,
    *,
    line: str | None = None,
    limit: int = DEFAULT_SEARCH_LIMIT,
    viewer: Viewer = DESKTOP,
) -> SearchResults:
    """The newest ``limit`` messages matching ``query`` and the lines whose title matches, as ``viewer``
    may read them (CAT-4; a thread viewer never finds quarantined text, Q-1). ``line``: only that line."""
    parsed = parse_query(query)
    if parsed.empty:
        return SearchResults(query=query)
    # One connection for the keys' read and the search's (a checkout, and on PostgreSQL a ping, less).
    with store.operation():
        register_provider_keys(store)
        found, visible = SearchRepository(store).find(parsed, viewer=viewer, line=line, limit=limit + 1)
    truncated = len(found) > limit
    found = found[:limit]
    titled = {t.thread_id: (t, spans) for t in visible if (spans := match_spans(redact(t.title), parsed)) is not None}
    threads = {t.thread_id: t for t in visible}

    hits: dict[str, list[MessageHit]] = {}
    for message in found:
        if message.thread_id not in threads:
            continue  # relabelled between the two reads: the predicate's newer answer wins
        stored = searchable_text(message.content, message.payload)
        text = redact(stored)
        if text != stored and match_spans(text, parsed) is None:
            continue  # SEC-1: it matched only inside a secret (indexed before the index was redacted)
        hits.setdefault(message.thread_id, []).append(
            MessageHit(
                message_id=message.id,
                role=message.role,
                source=message.source,
                created_at=message.created_at,
                # Markdown read as plain words, redacted again: a key split by ``**`` is whole only now.
                snippet=snippet(redact(markdown_plain(text)), parsed),
                tool=_tool_hit(message.payload, message.content) if message.role == "tool" else None,
            )
        )

    def group(key: str) -> LineHits:
        thread, spans = titled.get(key, (threads.get(key), None))
        assert thread is not None
        return LineHits(
            line_key=key,
            title=_title(thread, spans),
            category=thread.category,
            archived=thread.archived,
            title_matched=spans is not None,
            hits=tuple(hits.get(key, ())),
        )

    order = [key for key in hits if key in titled] + [key for key in titled if key not in hits]
    order += [key for key in hits if key not in titled]
    return SearchResults(query=query, lines=tuple(group(key) for key in order), truncated=truncated)


def _tool_hit(payload: str | None, content: str) -> ToolHit | None:
    """The card facts of a tool message, redacted (SEC-1) like its snippet; None when it has no payload."""
    try:
        stored = json.loads(payload) if payload else None
    except ValueError:
        return None
    if not isinstance(stored, dict):
        return None
    kept = {key: value for key, value in stored.items() if key in TOOL_HIT_KEYS}
    try:
        facts = json.loads(redact(json.dumps(kept, ensure_ascii=False)))
    except ValueError:
        return None
    first = content.splitlines()[0] if content else ""
    return ToolHit(payload=facts if isinstance(facts, dict) else {}, first_line=redact(first))
