"""Where the desk keeps what outlives a process, chosen in one place by one setting.

- No DESK_DATABASE_URL (the default): SQLite files under DESK_DATA_DIR. Nothing to install or run;
  several processes on one machine may share the folder (SQLite locks the files).
- DESK_DATABASE_URL=postgresql://user:password@host:5432/desk: one PostgreSQL database holds the
  checkpoints, the store (the interjection inbox) and the run leases (and chat/storage.py puts the
  chat history there too), so any number of app processes on any number of machines share threads.

Each part is opened here (`open_checkpointer`, `open_store`, `open_leases`) and creates or migrates
its tables on start. Postgres parts each use their own small psycopg pool, configured as
langgraph-checkpoint-postgres requires: autocommit (each write is durable on its own),
prepare_threshold=0 (no server-side prepared statements, so a transaction-pooling PgBouncer works)
and dict rows. Schema changes run under an advisory lock: N processes starting together would
otherwise race on CREATE TABLE IF NOT EXISTS, which Postgres does not make atomic.
"""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore

from ..core.settings import Settings
from .checkpoint import SERDE, open_sqlite_checkpointer
from .lease import Leases, PostgresLeases, SqliteLeases
from .store import open_sqlite_store

if TYPE_CHECKING:  # psycopg loads only when a Postgres URL is configured
    from psycopg import AsyncConnection
    from psycopg.rows import DictRow
    from psycopg_pool import AsyncConnectionPool

    Pool = AsyncConnectionPool[AsyncConnection[DictRow]]

POSTGRES_SCHEMES = ("postgresql", "postgres")
# pg_advisory_lock's key for schema changes: any fixed bigint, the same in every process of the desk.
SCHEMA_LOCK = 0x7D65_736B_0001


class DatabaseUrlError(ValueError):
    """DESK_DATABASE_URL names something other than a PostgreSQL database."""


def postgres_url(settings: Settings) -> str | None:
    """The libpq connection URL of the configured Postgres database, or None for SQLite files."""
    return libpq_url(settings.database_url)


def libpq_url(database_url: str | None) -> str | None:
    """DESK_DATABASE_URL as libpq (and psycopg) take it; None when unset. A SQLAlchemy spelling
    (postgresql+psycopg://) is accepted and its driver dropped."""
    url = (database_url or "").strip()
    if not url:
        return None
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.split("+", 1)[0].lower() not in POSTGRES_SCHEMES:
        raise DatabaseUrlError("DESK_DATABASE_URL must be a postgresql://… URL (leave it unset for SQLite files "
                               "under DESK_DATA_DIR)")
    return f"postgresql://{rest}"


def sqlalchemy_url(url: str, *, driver: str = "psycopg") -> str:
    """The same database for SQLAlchemy, through psycopg 3 (sync and async engines alike)."""
    return f"postgresql+{driver}://{url.partition('://')[2]}"


@asynccontextmanager
async def open_pool(url: str, *, max_size: int = 8, name: str = "desk") -> AsyncIterator[Pool]:
    """A pool of autocommit connections with dict rows; opened before it is handed out, so a wrong
    URL or a server that is down fails the start, not the first user's request."""
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    pool: Pool = AsyncConnectionPool(url, min_size=1, max_size=max(max_size, 2), kwargs=kwargs, name=name,
                                     open=False)
    await pool.open(wait=True, timeout=30)
    try:
        yield pool
    finally:
        await pool.close()


@asynccontextmanager
async def schema_lock(pool: Pool) -> AsyncIterator[None]:
    """Held while a part creates or migrates its tables: one process at a time."""
    async with pool.connection() as conn:
        await conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
        try:
            yield
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))


@asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The thread store: AsyncPostgresSaver on DESK_DATABASE_URL, else AsyncSqliteSaver in
    DESK_DATA_DIR/checkpoints.sqlite. Built inside the running loop."""
    url = postgres_url(settings)
    if url is None:
        async with open_sqlite_checkpointer(settings.checkpoint_path) as sqlite_saver:
            yield sqlite_saver
        return
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    async with open_pool(url, max_size=8, name="desk-checkpoints") as pool:
        saver = AsyncPostgresSaver(pool, serde=SERDE)
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
    from langgraph.store.postgres.aio import AsyncPostgresStore

    async with open_pool(url, max_size=4, name="desk-store") as pool:
        store = AsyncPostgresStore(pool)
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
        leases = PostgresLeases(pool)
        async with schema_lock(pool):
            await leases.setup()
        yield leases
