"""SQLAlchemy 2 tables. Alembic owns the schema; these mirror the migrations."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

KEY_LEN = 200

# SQLite only auto-increments an ``INTEGER PRIMARY KEY``.
BigIntId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    pass


class ThreadRow(Base):
    __tablename__ = "threads"

    thread_id: Mapped[str] = mapped_column(String(KEY_LEN), primary_key=True)
    title: Mapped[str] = mapped_column(String(500))
    kind: Mapped[str] = mapped_column(String(20), default="conversation")
    parent_key: Mapped[str | None] = mapped_column(
        String(KEY_LEN), ForeignKey("threads.thread_id", ondelete="RESTRICT"), index=True
    )
    category: Mapped[str | None] = mapped_column(String(64))
    category_own: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    archived: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    workspace_path: Mapped[str | None] = mapped_column(Text)
    workspace_kind: Mapped[str] = mapped_column(String(20), default="local")
    workspace_bound_by: Mapped[str] = mapped_column(String(20), default="explicit")
    execution_mode: Mapped[str] = mapped_column(String(10), default="native")
    provider: Mapped[str | None] = mapped_column(String(200))
    model: Mapped[str | None] = mapped_column(String(200))
    acp_session_id: Mapped[str | None] = mapped_column(String(200))
    context_model: Mapped[str | None] = mapped_column(String(200))
    selected_skills: Mapped[str] = mapped_column(Text, default="[]")
    permission_level: Mapped[str] = mapped_column(String(16), default="ask")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_threads_archived_created", "archived", "created_at"),)


class MessageRow(Base):
    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    thread_id: Mapped[str] = mapped_column(
        String(KEY_LEN), ForeignKey("threads.thread_id", ondelete="CASCADE")
    )
    role: Mapped[str] = mapped_column(String(20))
    source: Mapped[str] = mapped_column(String(20))
    content: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16), default="complete")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # JSON: tool calls of an assistant message, the call a tool result answers, card data.
    payload: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (Index("ix_messages_thread_id_id", "thread_id", "id"),)


class ProviderRow(Base):
    """A configured provider; secrets stay in the keyring or the environment (SPEC §7)."""

    __tablename__ = "providers"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    kind: Mapped[str] = mapped_column(String(10), default="openai")
    base_url: Mapped[str | None] = mapped_column(Text)
    model: Mapped[str | None] = mapped_column(String(200))
    tags: Mapped[str] = mapped_column(Text, default="[]")
    api_key_env: Mapped[str | None] = mapped_column(String(200))
    api_key_keyring: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    is_default: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    acp_command: Mapped[str] = mapped_column(Text, default="[]")
    acp_env_refs: Mapped[str] = mapped_column(Text, default="[]")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AppStateRow(Base):
    """Small named values: the current line, window geometry, splitter sizes."""

    __tablename__ = "app_state"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
