"""Persistence: SQLAlchemy tables, repositories, migrations. Imports only the domain (SPEC §1)."""

from xworkmate.store.database import Store, StoreOpenError, database_failure, describe_database_url, open_store

__all__ = ["Store", "StoreOpenError", "database_failure", "describe_database_url", "open_store"]
