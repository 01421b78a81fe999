"""The search index and its reads (SPEC LOOP-3, CAT-4, Q-1, ERR-3).

The tokens come from ``domain.search.index_terms`` (one rule for both databases). SQLite keeps
them in the FTS5 table ``message_search`` (``rowid`` = message id); PostgreSQL in
``message_search.terms``, a ``tsvector`` under a GIN index (migration 0011).

The index is written in the same transaction as the message: a mapper event on ``MessageRow``
adds the entry when the row is inserted and replaces it when its text changes, whoever
writes it through the ORM; ``insert_messages`` does the same for Core bulk inserts. When a
message goes, a trigger (SQLite) or the foreign key's cascade (PostgreSQL) drops its entry.
What the index keeps is the stored text, NUL bytes already replaced (ERR-3), passed through the
one redactor (SEC-1, ``domain.secrets.redact``): a key pasted into a message is stored as typed
but never becomes a search term. Both databases index the same tokens. ``redact_index``
re-indexes the entries written before the index was redacted.

Quarantine and release (Q-1) change what the *model* may see, not the stored text, so they
leave the index alone; reads apply them live: a thread viewer (model-facing) never gets a
quarantined row, or a row whose model-visible text differs from its content; the person at the
desktop finds everything. Every read adds the one visibility predicate (CAT-4).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnClause, Connection, Table, and_, column, event, inspect, or_, select, table, text, union
from sqlalchemy.orm import Mapper

from xworkmate.domain.search import SearchQuery, index_terms, searchable_text
from xworkmate.domain.secrets import redact
from xworkmate.domain.viewers import Viewer
from xworkmate.store.repositories.messages import line_page
from xworkmate.store.repositories.records import _aware
from xworkmate.store.tables import MessageRow, ThreadRow
from xworkmate.store.visibility import visible_thread_clause

if TYPE_CHECKING:
    from xworkmate.store.sessions import Sessions

__all__ = [
    "FoundMessage",
    "FoundThread",
    "IndexSize",
    "SearchRepository",
    "create_search_index",
    "index_messages",
    "insert_messages",
    "redact_index",
    "reindex_all",
]

_SQLITE_DDL = (
    # 'ascii' splits on the spaces between our tokens and leaves every non-ASCII token whole.
    # prefix='2 3': a word typed so far (two or three characters) reads one doclist, not thousands merged.
    "CREATE VIRTUAL TABLE message_search USING fts5(terms, chars, tokenize='ascii', columnsize=0, prefix='2 3')",
    "CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN"
    " DELETE FROM message_search WHERE rowid = old.id; END",
)
_PG_DDL = (
    "CREATE TABLE message_search (message_id BIGINT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,"
    " terms TSVECTOR NOT NULL)",
    "CREATE INDEX ix_message_search_terms ON message_search USING gin (terms)",
    # Ten times the default sample: with the default, a rare Chinese pair was estimated common,
    # and the planner walked every message newest first (950 ms at 500,000) instead of the index.
    "ALTER TABLE message_search ALTER COLUMN terms SET STATISTICS 1000",
)
_SQLITE_INSERT = text("INSERT INTO message_search (rowid, terms, chars) VALUES (:id, :terms, :chars)")
_PG_INSERT = text("INSERT INTO message_search (message_id, terms) VALUES (:id, CAST(:terms AS tsvector))")
_SQLITE_DELETE = text("DELETE FROM message_search WHERE rowid = :id")
_PG_DELETE = text("DELETE FROM message_search WHERE message_id = :id")

_SEARCH = table("message_search", column("rowid"), column("message_id"), column("terms"))
_MESSAGES: Table = MessageRow.__table__  # type: ignore[assignment]
_THREADS: Table = ThreadRow.__table__  # type: ignore[assignment]


def create_search_index(connection: Connection) -> None:
    """Migration 0011's tables, on either database."""
    for statement in _SQLITE_DDL if connection.dialect.name == "sqlite" else _PG_DDL:
        connection.execute(text(statement))


def _entry(message_id: int, content: str, payload: Mapping[str, Any] | str | None, sqlite: bool) -> dict[str, Any]:
    terms = index_terms(redact(searchable_text(content, payload)))
    if sqlite:
        return {"id": message_id, "terms": " ".join(terms.terms), "chars": " ".join(terms.chars)}
    return {"id": message_id, "terms": terms.tsvector_literal()}


def index_messages(connection: Connection, rows: Iterable[tuple[int, str, Mapping[str, Any] | str | None]]) -> None:
    """Add index entries for ``(id, content, payload)`` rows, in ``connection``'s transaction."""
    sqlite = connection.dialect.name == "sqlite"
    entries = [_entry(message_id, content, payload, sqlite) for message_id, content, payload in rows]
    if entries:
        connection.execute(_SQLITE_INSERT if sqlite else _PG_INSERT, entries)


def reindex_all(connection: Connection, *, batch: int = 5000) -> int:
    """Index every message not indexed yet (migration 0011 on an existing database); returns how many."""
    sqlite = connection.dialect.name == "sqlite"
    key: ColumnClause[Any] = column("rowid") if sqlite else column("message_id")
    done = 0
    after = 0
    while True:
        rows = connection.execute(
            select(_MESSAGES.c.id, _MESSAGES.c.content, _MESSAGES.c.payload)
            .where(_MESSAGES.c.id > after, ~select(key).select_from(_SEARCH).where(key == _MESSAGES.c.id).exists())
            .order_by(_MESSAGES.c.id)
            .limit(batch)
        ).all()
        if not rows:
            return done
        index_messages(connection, [(row.id, row.content, row.payload) for row in rows])
        done += len(rows)
        after = rows[-1].id


def redact_index(connection: Connection, *, batch: int = 5000) -> int:
    """SEC-1: re-index every message whose index entry may hold a secret (written before the index was
    redacted); returns how many. For a migration: it reads every message once."""
    sqlite = connection.dialect.name == "sqlite"
    after = 0
    done = 0
    while True:
        rows = connection.execute(
            select(_MESSAGES.c.id, _MESSAGES.c.content, _MESSAGES.c.payload)
            .where(_MESSAGES.c.id > after)
            .order_by(_MESSAGES.c.id)
            .limit(batch)
        ).all()
        if not rows:
            return done
        stale = [
            (row.id, row.content, row.payload)
            for row in rows
            if redact(text := searchable_text(row.content, row.payload)) != text
        ]
        if stale:
            connection.execute(
                _SQLITE_DELETE if sqlite else _PG_DELETE, [{"id": message_id} for message_id, *_ in stale]
            )
            index_messages(connection, stale)
        done += len(stale)
        after = rows[-1].id


def insert_messages(connection: Connection, rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """Insert ``messages`` rows with Core (fast seeding: benchmarks, tests) and index them in the same
    transaction; returns their ids in order. Each row needs the ``messages`` columns but ``id``."""
    if not rows:
        return []
    result = connection.execute(_MESSAGES.insert().returning(_MESSAGES.c.id, sort_by_parameter_order=True), list(rows))
    ids = [row[0] for row in result]
    index_messages(connection, [(i, row["content"], row.get("payload")) for i, row in zip(ids, rows, strict=True)])
    return ids


# -- kept in sync with every ORM write of a message ------------------------------------------


@event.listens_for(MessageRow, "after_insert")
def _index_inserted(_mapper: Mapper[Any], connection: Connection, row: MessageRow) -> None:
    index_messages(connection, [(row.id, row.content, row.payload)])


@event.listens_for(MessageRow, "after_update")
def _reindex_updated(_mapper: Mapper[Any], connection: Connection, row: MessageRow) -> None:
    state = inspect(row)
    if not (state.attrs.content.history.has_changes() or state.attrs.payload.history.has_changes()):
        return  # a quarantine or release: the text is the same
    sqlite = connection.dialect.name == "sqlite"
    connection.execute(_SQLITE_DELETE if sqlite else _PG_DELETE, {"id": row.id})
    index_messages(connection, [(row.id, row.content, row.payload)])


# -- reads -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FoundMessage:
    id: int
    thread_id: str
    role: str
    content: str
    payload: str | None
    created_at: datetime
    source: str | None = None


@dataclass(frozen=True)
class FoundThread:
    thread_id: str
    title: str
    category: str | None
    archived: bool


@dataclass(frozen=True)
class IndexSize:
    index_bytes: int
    database_bytes: int
    indexed_messages: int


def _model_may_read() -> Any:
    # what the model may read of a row is its content only when nothing else was frozen for it.
    return and_(_MESSAGES.c.quarantined.is_(False), _MESSAGES.c.model_visible_text.is_(None))


class SearchRepository:
    """Search reads; every one takes a ``viewer`` and applies the visibility predicate (CAT-4)."""

    def __init__(self, store: Sessions) -> None:
        self._store = store

    def find(
        self, query: SearchQuery, *, viewer: Viewer, line: str | None = None, limit: int
    ) -> tuple[list[FoundMessage], list[FoundThread]]:
        """``messages`` and ``threads`` (of ``line``, or all), in one connection: one round trip less."""
        with self._store.connect() as connection:
            found = self._messages(connection, query, viewer=viewer, line=line, limit=limit)
            if line is not None:
                threads = self._threads(connection, viewer=viewer, keys=[line])
            else:  # the hits' lines, and those whose title may match (not every line: issue 34 item 2)
                threads = self._threads(
                    connection, viewer=viewer, keys=[m.thread_id for m in found], title_may_match=query
                )
        return found, threads

    def messages(
        self, query: SearchQuery, *, viewer: Viewer, line: str | None = None, limit: int
    ) -> list[FoundMessage]:
        """The newest ``limit`` messages matching ``query`` that ``viewer`` may read, newest first."""
        with self._store.connect() as connection:
            return self._messages(connection, query, viewer=viewer, line=line, limit=limit)

    def threads(
        self, *, viewer: Viewer, keys: Iterable[str] | None = None, title_may_match: SearchQuery | None = None
    ) -> list[FoundThread]:
        """Lines ``viewer`` may read (archived included): all of them, or those of ``keys``; with
        ``title_may_match``, also every line whose folded title holds each of the query's segments."""
        with self._store.connect() as connection:
            return self._threads(connection, viewer=viewer, keys=keys, title_may_match=title_may_match)

    @staticmethod
    def _messages(
        connection: Connection, query: SearchQuery, *, viewer: Viewer, line: str | None, limit: int
    ) -> list[FoundMessage]:
        if query.empty or limit <= 0:
            return []
        sqlite = connection.dialect.name == "sqlite"
        key = _SEARCH.c.rowid if sqlite else _SEARCH.c.message_id
        match = (
            text("message_search MATCH :match").bindparams(match=query.fts5_match())
            if sqlite
            else text("message_search.terms @@ CAST(:match AS tsquery)").bindparams(match=query.tsquery_literal())
        )
        columns = (
            _MESSAGES.c.id,
            _MESSAGES.c.thread_id,
            _MESSAGES.c.role,
            _MESSAGES.c.content,
            _MESSAGES.c.payload,
            _MESSAGES.c.created_at,
            _MESSAGES.c.source,
        )
        if line is None and viewer.sees_everything:
            # Issue 34 item 2: nothing to filter on ``messages``, so the newest ``limit`` hits are taken from
            # the index alone and only they are joined (every entry has its message: the delete trigger /
            # cascade), instead of joining messages row by row while walking the index.
            top = (
                select(key.label("hit")).select_from(_SEARCH).where(match).order_by(key.desc()).limit(limit).subquery()
            )
            stmt = (
                select(*columns)
                .select_from(top.join(_MESSAGES, _MESSAGES.c.id == top.c.hit))
                .order_by(_MESSAGES.c.id.desc())
            )
            rows = connection.execute(stmt).all()
            return [FoundMessage(**{**row._mapping, "created_at": _aware(row.created_at)}) for row in rows]
        stmt = (
            select(*columns)
            .select_from(_SEARCH.join(_MESSAGES, _MESSAGES.c.id == key))
            .where(match, visible_thread_clause(viewer, _MESSAGES.c.thread_id))
            .limit(limit)
        )
        if line is not None and not sqlite:
            # Issue 34 item 2: the line's messages as a page of them, newest first (``line_page``): a frequent
            # word walks the line's index and stops, never every newer message of other lines.
            where, order = line_page(connection.dialect.name, line, newest_first=True)
            stmt = stmt.where(*where).order_by(*order)
        else:
            if line is not None:
                stmt = stmt.where(_MESSAGES.c.thread_id == line)
            stmt = stmt.order_by(key.desc())
        if not viewer.sees_everything:
            stmt = stmt.where(_model_may_read())
        rows = connection.execute(stmt).all()
        return [FoundMessage(**{**row._mapping, "created_at": _aware(row.created_at)}) for row in rows]

    @staticmethod
    def _threads(
        connection: Connection,
        *,
        viewer: Viewer,
        keys: Iterable[str] | None,
        title_may_match: SearchQuery | None = None,
    ) -> list[FoundThread]:
        columns = (_THREADS.c.thread_id, _THREADS.c.title, _THREADS.c.category, _THREADS.c.archived)
        visible = visible_thread_clause(viewer, _THREADS.c.thread_id)
        wanted = list(dict.fromkeys(keys)) if keys is not None else None
        stmt: Any
        if title_may_match is not None:
            # A superset of what ``match_spans`` accepts (its quick test: each segment inside the folded
            # title); the caller matches exactly. NULL: not folded yet (a Core bulk insert), so maybe.
            # Issue 34 item 2: tested on ``ix_threads_title_folded`` alone (0025), not on every row of the
            # table; the lines it names, and ``keys``, are read by key (a union: with OR, PostgreSQL read the
            # whole table once more to apply it).
            folded = _THREADS.c.title_folded
            titled = select(_THREADS.c.thread_id).where(
                or_(
                    folded.is_(None),
                    and_(*(folded.contains(s.text, autoescape=True) for s in title_may_match.segments)),
                )
            )
            stmt = select(*columns).where(visible, _THREADS.c.thread_id.in_(titled))
            if wanted:
                stmt = union(stmt, select(*columns).where(visible, _THREADS.c.thread_id.in_(wanted)))
        else:
            stmt = select(*columns).where(visible)
            if wanted is not None:
                if not wanted:
                    return []
                stmt = stmt.where(_THREADS.c.thread_id.in_(wanted))
        return [FoundThread(**row._mapping) for row in connection.execute(stmt)]

    def index_size(self) -> IndexSize:
        """The index's size beside the whole database's, in bytes (for the benchmark and ``doctor``)."""
        with self._store.connect() as connection:
            if connection.dialect.name == "sqlite":
                page = int(connection.exec_driver_sql("PRAGMA page_size").scalar() or 0)
                pages = int(connection.exec_driver_sql("PRAGMA page_count").scalar() or 0)
                index = int(
                    connection.exec_driver_sql(
                        "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE 'message_search%'"
                    ).scalar()
                    or 0
                )
                count = int(connection.exec_driver_sql("SELECT count(*) FROM message_search").scalar() or 0)
                return IndexSize(index_bytes=index, database_bytes=page * pages, indexed_messages=count)
            index = int(connection.exec_driver_sql("SELECT pg_total_relation_size('message_search')").scalar() or 0)
            database = int(connection.exec_driver_sql("SELECT pg_database_size(current_database())").scalar() or 0)
            count = int(connection.exec_driver_sql("SELECT count(*) FROM message_search").scalar() or 0)
            return IndexSize(index_bytes=index, database_bytes=database, indexed_messages=count)
