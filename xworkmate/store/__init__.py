"""Persistence: SQLAlchemy tables, repositories, migrations. Imports only the domain (SPEC §1).

Importing the package is light: the names below load ``database`` (and SQLAlchemy) when first asked for,
so ``first_list`` can read the window's first task list before the stack loads (issue 19, item 7).
``database`` loads ``search``, whose listeners keep the index following every message write (LOOP-3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xworkmate.lazy import lazy_attributes

if TYPE_CHECKING:
    from xworkmate.store.database import Store, StoreOpenError, database_failure, describe_database_url, open_store

__all__ = ["Store", "StoreOpenError", "database_failure", "describe_database_url", "open_store"]

__getattr__ = lazy_attributes(__name__, dict.fromkeys(__all__, "database"))
