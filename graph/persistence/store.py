"""LangGraph's Store for what outlives a run but is not a checkpoint: the interjection inbox.
Its SQLite form is one file under DESK_DATA_DIR, opened inside the running loop; which store a
process opens, SQLite or Postgres, is decided in graph/persistence/database.py."""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from langgraph.store.base import BaseStore
from langgraph.store.sqlite.aio import AsyncSqliteStore

from ..core.private import private_file
from ..core.settings import Settings


@asynccontextmanager
async def open_sqlite_store(path: Path) -> AsyncIterator[AsyncSqliteStore]:
    private_file(path)  # owner-only from creation, its folder too
    async with AsyncSqliteStore.from_conn_string(str(path)) as store:
        await store.setup()
        yield store


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[BaseStore]:
    """The store the settings configure (SQLite or Postgres): graph/persistence/database.py's."""
    from .database import open_store as open_configured  # database.py imports this module

    async with open_configured(settings) as store:
        yield store
