"""Persistence: SQLAlchemy tables, repositories, migrations. Imports only the domain (SPEC §1)."""

from xworkmate.store.database import Store, StoreOpenError, open_store

__all__ = ["Store", "StoreOpenError", "open_store"]
