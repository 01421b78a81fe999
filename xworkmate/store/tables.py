"""SQLAlchemy 2 tables. Alembic owns the schema; these mirror the migrations."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from xworkmate.domain.stored_text import storable_json_text, storable_text
from xworkmate.domain.titles import TITLE_MAX_CHARS

KEY_LEN = 200


class StoredString(TypeDecorator[str]):
    """ERR-3: text both databases keep the same way — every value written has its NUL bytes replaced.

    PostgreSQL refuses a NUL in a text value; SQLite would keep it. Every text column is one of
    these types, so no write (ORM or Core, row or WHERE clause) can miss the rule.
    """

    impl = String
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else storable_text(value)[0]


class StoredText(StoredString):
    impl = Text
    cache_ok = True


class StoredJSONText(StoredText):
    """JSON kept as text: a NUL inside one of its strings (``json.dumps`` writes ``\\u0000``) is replaced too."""

    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else storable_json_text(value)


# SQLite only auto-increments an ``INTEGER PRIMARY KEY``.
BigIntId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    pass


class ThreadRow(Base):
    __tablename__ = "threads"

    thread_id: Mapped[str] = mapped_column(StoredString(KEY_LEN), primary_key=True)
    title: Mapped[str] = mapped_column(StoredString(TITLE_MAX_CHARS))
    # Issue 34 item 2 (migration 0024): ``domain.search.normalise(title)``, so that a search reads only
    # the lines whose title may match, not every line; NULL (a Core bulk insert) is read as "may match".
    title_folded: Mapped[str | None] = mapped_column(StoredText)
    kind: Mapped[str] = mapped_column(StoredString(20), default="conversation")
    parent_key: Mapped[str | None] = mapped_column(
        StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="RESTRICT"), index=True
    )
    category: Mapped[str | None] = mapped_column(StoredString(64))
    category_own: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    archived: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    workspace_path: Mapped[str | None] = mapped_column(StoredText)
    workspace_kind: Mapped[str] = mapped_column(StoredString(20), default="local")
    workspace_bound_by: Mapped[str] = mapped_column(StoredString(20), default="explicit")
    # Issue 16 (migration 0010): a worktree line's repository and branch.
    worktree_repo: Mapped[str | None] = mapped_column(StoredText)
    worktree_branch: Mapped[str | None] = mapped_column(StoredString(255))
    # SBX-3 (migration 0015): the bound folder's ``device:inode:real path`` when it was bound (``FolderPin``).
    workspace_pin: Mapped[str | None] = mapped_column(StoredText)
    execution_mode: Mapped[str] = mapped_column(StoredString(10), default="native")
    provider: Mapped[str | None] = mapped_column(StoredString(200))
    model: Mapped[str | None] = mapped_column(StoredString(200))
    acp_session_id: Mapped[str | None] = mapped_column(StoredString(200))
    context_model: Mapped[str | None] = mapped_column(StoredString(200))
    selected_skills: Mapped[str] = mapped_column(StoredJSONText, default="[]")
    permission_level: Mapped[str] = mapped_column(StoredString(16), default="ask")
    # SBX-4 (migration 0016, was the boolean ``network_access`` of 0004): off, allow-list or on, and the
    # allow-list's ``host:port`` entries; SBX-1 (0004): the variables the person lets through.
    network_mode: Mapped[str] = mapped_column(StoredString(16), default="off", server_default="off")
    network_hosts: Mapped[str] = mapped_column(StoredJSONText, default="[]", server_default="[]")
    command_env_names: Mapped[str] = mapped_column(StoredJSONText, default="[]", server_default="[]")
    # Issue 13 (migration 0006): how long one turn may run, in seconds.
    turn_limit_s: Mapped[int] = mapped_column(Integer, default=1800, server_default="1800")
    # Q-1 (migration 0007): quarantine the output of the line's untrusted tools.
    quarantine_untrusted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # CAT-10: the read-only archive level; tasks inherit it, independently of categories.
    seal_level: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The current session generation (``thread_sessions.id``); kept by the repositories.
    current_session_id: Mapped[int | None] = mapped_column(BigIntId)

    __table_args__ = (
        Index("ix_threads_archived_created", "archived", "created_at"),
        # Issue 34 item 2 (migration 0025): a search tests every line's folded title; it reads this alone.
        Index("ix_threads_title_folded", "title_folded", "thread_id"),
    )


class ThreadSessionRow(Base):
    """One session generation of a thread; compaction ends one and starts the next (PROV-2)."""

    __tablename__ = "thread_sessions"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    thread_id: Mapped[str] = mapped_column(StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"))
    generation: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    end_reason: Mapped[str | None] = mapped_column(StoredString(32))

    __table_args__ = (UniqueConstraint("thread_id", "generation", name="uq_thread_sessions_thread_generation"),)


class MessageRow(Base):
    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    thread_id: Mapped[str] = mapped_column(StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(StoredString(20))
    source: Mapped[str] = mapped_column(StoredString(20))
    content: Mapped[str] = mapped_column(StoredText)
    state: Mapped[str] = mapped_column(StoredString(16), default="complete")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # JSON: tool calls of an assistant message, the call a tool result answers, card data.
    payload: Mapped[str | None] = mapped_column(StoredJSONText)
    # The session generation the message belongs to (``thread_sessions.id``).
    session_id: Mapped[int | None] = mapped_column(BigIntId)
    # the frozen text the model sees; NULL means ``content``. Never rewritten.
    model_visible_text: Mapped[str | None] = mapped_column(StoredText)
    # a quarantine mark. ``quarantined`` says the row carries one; its
    # ``message_id`` is ``quarantine_message_id`` (NULL: the row itself).
    quarantined: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    quarantine_message_id: Mapped[int | None] = mapped_column(BigIntId)

    __table_args__ = (
        Index("ix_messages_thread_id_id", "thread_id", "id"),
        # Capture and evidence: a thread's recent human messages of one generation (PROV-1).
        Index("ix_messages_thread_session_source_id", "thread_id", "session_id", "source", "id"),
    )


class DispatchSourceRow(Base):
    """PROV-1: the ids of the human messages a task was dispatched on, replaced as a set (PROV-4)."""

    __tablename__ = "dispatch_sources"

    task_key: Mapped[str] = mapped_column(StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    message_id: Mapped[int] = mapped_column(BigIntId, ForeignKey("messages.id", ondelete="CASCADE"))

    __table_args__ = (
        PrimaryKeyConstraint("task_key", "position", name="pk_dispatch_sources"),
        Index("ix_dispatch_sources_message_id", "message_id"),
    )


class ProviderRow(Base):
    """A configured provider; secrets stay in the keyring or the environment (SPEC §7)."""

    __tablename__ = "providers"

    name: Mapped[str] = mapped_column(StoredString(100), primary_key=True)
    kind: Mapped[str] = mapped_column(StoredString(10), default="openai")
    base_url: Mapped[str | None] = mapped_column(StoredText)
    model: Mapped[str | None] = mapped_column(StoredString(200))
    tags: Mapped[str] = mapped_column(StoredJSONText, default="[]")
    api_key_env: Mapped[str | None] = mapped_column(StoredString(200))
    api_key_keyring: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    is_default: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    acp_command: Mapped[str] = mapped_column(StoredJSONText, default="[]")
    acp_env_refs: Mapped[str] = mapped_column(StoredJSONText, default="[]")
    # JSON list of folders the agent may write (SBX-1); NULL: the defaults for a known agent.
    acp_state_dirs: Mapped[str | None] = mapped_column(StoredJSONText)
    # The agent's sign-in method id (issue 15); NULL: the only one offered, or ask.
    acp_auth_method: Mapped[str | None] = mapped_column(StoredString(200))
    # SBX-4 (migration 0016): ``host:port`` entries the agent's sandbox reaches besides its known model hosts.
    acp_allow_hosts: Mapped[str] = mapped_column(StoredJSONText, default="[]", server_default="[]")
    # ATT-1 (migration 0018): the model takes images.
    vision: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AppStateRow(Base):
    """Small named values: the current line, window geometry, splitter sizes."""

    __tablename__ = "app_state"

    name: Mapped[str] = mapped_column(StoredString(100), primary_key=True)
    value: Mapped[str] = mapped_column(StoredText)


class LineMarkRow(Base):
    """What the window remembers per line for the person (migration 0013, LOOP-2): seen, outcome, mute, draft."""

    __tablename__ = "line_marks"

    thread_id: Mapped[str] = mapped_column(
        StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"), primary_key=True
    )
    last_seen_message_id: Mapped[int | None] = mapped_column(BigInteger)
    last_outcome: Mapped[str | None] = mapped_column(StoredString(16))
    last_outcome_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    outcome_message_id: Mapped[int | None] = mapped_column(BigInteger)
    notifications_muted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    draft: Mapped[str] = mapped_column(StoredText, default="", server_default="")


class CheckpointTurnRow(Base):
    """LOOP-1 (migration 0009): one checkpointed turn of a line — its snapshots and its change set."""

    __tablename__ = "checkpoint_turns"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    thread_id: Mapped[str] = mapped_column(StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"))
    turn: Mapped[int] = mapped_column(Integer)
    before_commit: Mapped[str] = mapped_column(StoredString(64))
    # Issue 34 (migration 0023): NULL, taking, not_exact or missing (store/checkpoints.BeforeState).
    before_state: Mapped[str | None] = mapped_column(StoredString(16))
    after_commit: Mapped[str | None] = mapped_column(StoredString(64))
    # The last message the turn stored (its chip); the fork point: messages with a smaller id.
    message_id: Mapped[int | None] = mapped_column(BigIntId)
    fork_before_id: Mapped[int | None] = mapped_column(BigIntId)
    # JSON list of FileChange, written once the turn ended; NULL while it runs.
    files: Mapped[str | None] = mapped_column(StoredJSONText)
    status: Mapped[str | None] = mapped_column(StoredString(16))
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (UniqueConstraint("thread_id", "turn", name="uq_checkpoint_turns_thread_turn"),)


# -- issue 15: what an ACP agent offers a line, the line's usage, MCP servers (migration 0012) ------------


class LineAgentStateRow(Base):
    __tablename__ = "line_agent_state"

    thread_id: Mapped[str] = mapped_column(
        StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"), primary_key=True
    )
    state: Mapped[str] = mapped_column(StoredJSONText, default="{}")
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LineUsageRow(Base):
    __tablename__ = "line_usage"

    thread_id: Mapped[str] = mapped_column(
        StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"), primary_key=True
    )
    context_used: Mapped[int | None] = mapped_column(BigInteger)
    context_size: Mapped[int | None] = mapped_column(BigInteger)
    tokens_in: Mapped[int] = mapped_column(BigInteger, default=0)
    tokens_out: Mapped[int] = mapped_column(BigInteger, default=0)
    cost: Mapped[float | None] = mapped_column(Float)
    currency: Mapped[str | None] = mapped_column(StoredString(16))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class McpServerRow(Base):
    __tablename__ = "mcp_servers"

    name: Mapped[str] = mapped_column(StoredString(100), primary_key=True)
    transport: Mapped[str] = mapped_column(StoredString(10), default="stdio")
    command: Mapped[str] = mapped_column(StoredJSONText, default="[]")
    url: Mapped[str | None] = mapped_column(StoredText)
    env_refs: Mapped[str] = mapped_column(StoredJSONText, default="[]")
    header_refs: Mapped[str] = mapped_column(StoredJSONText, default="[]")
    tags: Mapped[str] = mapped_column(StoredJSONText, default="[]")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LineMcpServerRow(Base):
    __tablename__ = "line_mcp_servers"
    __table_args__ = (PrimaryKeyConstraint("thread_id", "server_name"),)

    thread_id: Mapped[str] = mapped_column(StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"))
    server_name: Mapped[str] = mapped_column(StoredString(100), ForeignKey("mcp_servers.name", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer, default=0)


class TurnOwnerRow(Base):
    """Migration 0020 (issue 31, ERR-2): the process running a line's turn, its lease and its streamed reply."""

    __tablename__ = "turn_owners"

    thread_id: Mapped[str] = mapped_column(
        StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"), primary_key=True
    )
    host: Mapped[str] = mapped_column(StoredString(255))
    pid: Mapped[int] = mapped_column(Integer)
    process_started: Mapped[str] = mapped_column(StoredString(32), default="", server_default="")
    mode: Mapped[str] = mapped_column(StoredString(16), default="native", server_default="native")
    after_message_id: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    partial_text: Mapped[str] = mapped_column(StoredText, default="", server_default="")
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class QueuedFollowupRow(Base):
    """Issue 31 (migration 0019): a follow-up the person sent while a turn ran, waiting for its own turn."""

    __tablename__ = "queued_followups"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    thread_id: Mapped[str] = mapped_column(StoredString(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(StoredText)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_queued_followups_thread_position", "thread_id", "position"),)
