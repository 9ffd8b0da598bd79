"""The desk's PostgreSQL database (DESK_DATABASE_URL): its URL in each spelling, the connection
pools every Postgres part uses, and the lock schema changes run under.

Pools are configured as langgraph-checkpoint-postgres requires: autocommit (each write is durable
on its own), prepare_threshold=0 (no server-side prepared statements, so a transaction-pooling
PgBouncer works) and dict rows. Schema changes run under an advisory lock: N processes starting
together would otherwise race on CREATE TABLE IF NOT EXISTS, which Postgres does not make atomic.
"""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from ..core.settings import Settings
from .outages import Outages

if TYPE_CHECKING:  # psycopg loads only when a Postgres URL is configured
    from psycopg import AsyncConnection
    from psycopg.rows import DictRow
    from psycopg_pool import AsyncConnectionPool

    Pool = AsyncConnectionPool[AsyncConnection[DictRow]]

POSTGRES_SCHEMES = ("postgresql", "postgres")
# pg_advisory_lock's key for schema changes: any fixed bigint, the same in every process of the desk.
SCHEMA_LOCK = 0x7D65_736B_0001
CONNECT_TIMEOUT_S = 5  # a host that does not answer at all fails a try in seconds, not the OS's minutes
# The longest one try waits for a pooled connection. Short: while the database is down each try fails in this time,
# and graph/persistence/outages.py's retries (DESK_DB_RETRY_S in all) decide how long an operation keeps trying.
POOL_WAIT_S = 2.0


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


# One per database and process: every part's operations on a database share what is known of its outages.
_OUTAGES: dict[str, Outages] = {}


def outages_of(url: str, budget_s: float) -> Outages:
    """The outages of the database at `url` as this process sees them (graph/persistence/outages.py)."""
    outages = _OUTAGES.get(url)
    if outages is None:
        outages = _OUTAGES[url] = Outages(budget_s, probe=lambda: _probe(url))
    outages.budget_s = budget_s
    return outages


async def _probe(url: str) -> None:
    """SELECT 1 on a connection of its own: a pool's connections may all be stale after a restart."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
        await conn.execute("SELECT 1")


@asynccontextmanager
async def open_pool(url: str, *, max_size: int = 8, name: str = "desk") -> AsyncIterator[Pool]:
    """A pool of autocommit connections with dict rows; opened before it is handed out, so a wrong
    URL or a server that is down fails the start, not the first user's request."""
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row,
                              "connect_timeout": CONNECT_TIMEOUT_S}
    # A connection is checked as it is handed out (a server restart leaves every idle one broken), and waiting for
    # one is bounded (a database that is down fails the operation soon; graph/persistence/outages.py retries it).
    # The pool's own reconnecting gives up as soon (its backoff would otherwise grow to half a minute and more,
    # and leave the pool empty long after the database is back): the next operation that needs a connection
    # starts a new attempt at once.
    pool: Pool = AsyncConnectionPool(url, min_size=1, max_size=max(max_size, 2), kwargs=kwargs, name=name,
                                     open=False, check=AsyncConnectionPool.check_connection,
                                     timeout=POOL_WAIT_S, reconnect_timeout=POOL_WAIT_S)
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
