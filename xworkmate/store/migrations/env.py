"""Alembic environment: migrations always run on a connection the store hands over."""

from __future__ import annotations

from alembic import context

from xworkmate.store.tables import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("xworkmate migrations run through xworkmate.store.open_store, which passes a connection")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
