"""LangGraph's Store for what outlives a run but is not a checkpoint: the interjection inbox.
One SQLite file under DESK_DATA_DIR, opened inside the running loop."""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.store.sqlite.aio import AsyncSqliteStore

from .private import private_file
from .settings import Settings


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[AsyncSqliteStore]:
    path = private_file(settings.data_dir / "store.sqlite")  # owner-only from creation, its folder too
    async with AsyncSqliteStore.from_conn_string(str(path)) as store:
        await store.setup()
        yield store
