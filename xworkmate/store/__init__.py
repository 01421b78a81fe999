"""Persistence: SQLAlchemy tables, repositories, migrations. Imports only the domain (SPEC §1)."""

from xworkmate.store import search as _search  # noqa: F401  (LOOP-3: the index follows every message write)
from xworkmate.store.database import Store, StoreOpenError, database_failure, describe_database_url, open_store

__all__ = ["Store", "StoreOpenError", "database_failure", "describe_database_url", "open_store"]
