"""LangGraph's Store for what outlives a run but is not a checkpoint: the interjection inbox.
One SQLite file under DESK_DATA_DIR, opened inside the running loop."""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.store.sqlite.aio import AsyncSqliteStore

from .settings import Settings


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[AsyncSqliteStore]:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    async with AsyncSqliteStore.from_conn_string(str(settings.data_dir / "store.sqlite")) as store:
        await store.setup()
        yield store
