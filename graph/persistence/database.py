"""Where the desk keeps what outlives a process, chosen in one place by one setting.

- No DESK_DATABASE_URL (the default): SQLite files under DESK_DATA_DIR. Nothing to install or run;
  several processes on one machine may share the folder (SQLite locks the files).
- DESK_DATABASE_URL=postgresql://user:password@host:5432/desk: one PostgreSQL database holds the
  checkpoints, the store (the interjection inbox), the run leases and the message rates (and chat/storage.py puts the
  chat history there too), so any number of app processes on any number of machines share threads.

Each part is opened here (`open_checkpointer`, `open_store`, `open_leases`, `open_rates`) and creates or migrates
its tables on start; on Postgres each uses its own small pool (graph/persistence/postgres.py), and each operation
rides out a blip of the database (graph/persistence/outages.py, retrying.py).
"""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore

from ..core.settings import Settings
from .checkpoint import SERDE, open_sqlite_checkpointer
from .lease import Leases, PostgresLeases, SqliteLeases
from .postgres import open_pool, outages_of, postgres_url, schema_lock
from .rates import PostgresRates, RateBuckets, SqliteRates
from .store import open_sqlite_store


@asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The thread store: AsyncPostgresSaver on DESK_DATABASE_URL, else AsyncSqliteSaver in
    DESK_DATA_DIR/checkpoints.sqlite. Built inside the running loop."""
    url = postgres_url(settings)
    if url is None:
        async with open_sqlite_checkpointer(settings.checkpoint_path) as sqlite_saver:
            yield sqlite_saver
        return
    from .retrying import RetryingPostgresSaver

    async with open_pool(url, max_size=8, name="desk-checkpoints") as pool:
        saver = RetryingPostgresSaver(pool, serde=SERDE)
        saver.outages = outages_of(url, settings.db_retry_s)
        async with schema_lock(pool):
            await saver.setup()
        yield saver


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[BaseStore]:
    """LangGraph's Store (the interjection inbox): AsyncPostgresStore on DESK_DATABASE_URL, else
    AsyncSqliteStore in DESK_DATA_DIR/store.sqlite."""
    url = postgres_url(settings)
    if url is None:
        async with open_sqlite_store(settings.data_dir / "store.sqlite") as sqlite_store:
            yield sqlite_store
        return
    from .retrying import RetryingPostgresStore

    async with open_pool(url, max_size=4, name="desk-store") as pool:
        store = RetryingPostgresStore(pool)
        store.outages = outages_of(url, settings.db_retry_s)
        async with schema_lock(pool):
            await store.setup()
        yield store


@asynccontextmanager
async def open_leases(settings: Settings) -> AsyncIterator[Leases]:
    """Run leases (one run per thread across processes, graph/persistence/lease.py): a table in the Postgres
    database, else DESK_DATA_DIR/leases.sqlite (shared by the processes of one machine)."""
    url = postgres_url(settings)
    if url is None:
        async with SqliteLeases.open(settings.data_dir / "leases.sqlite") as sqlite_leases:
            yield sqlite_leases
        return
    async with open_pool(url, max_size=2, name="desk-leases") as pool:
        leases = PostgresLeases(pool, outages_of(url, settings.db_retry_s))
        async with schema_lock(pool):
            await leases.setup()
        yield leases


@asynccontextmanager
async def open_rates(settings: Settings) -> AsyncIterator[RateBuckets]:
    """The message-rate buckets every process counts in (graph/persistence/rates.py): beside the run leases,
    a table in the Postgres database, else in DESK_DATA_DIR/leases.sqlite."""
    url = postgres_url(settings)
    if url is None:
        async with SqliteRates.open(settings.data_dir / "leases.sqlite") as sqlite_rates:
            yield sqlite_rates
        return
    async with open_pool(url, max_size=2, name="desk-rates") as pool:
        rates = PostgresRates(pool)
        async with schema_lock(pool):
            await rates.setup()
        yield rates
