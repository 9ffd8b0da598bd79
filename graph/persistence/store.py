"""LangGraph's Store for what outlives a run but is not a checkpoint: the interjection inbox.
Its SQLite form is one file under DESK_DATA_DIR, opened inside the running loop; which store a
process opens, SQLite or Postgres, is decided in graph/persistence/database.py."""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from langgraph.store.sqlite.aio import AsyncSqliteStore

from ..core.private import private_file


@asynccontextmanager
async def open_sqlite_store(path: Path) -> AsyncIterator[AsyncSqliteStore]:
    private_file(path)  # owner-only from creation, its folder too
    async with AsyncSqliteStore.from_conn_string(str(path)) as store:
        await store.setup()
        yield store
