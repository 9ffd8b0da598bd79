"""One run per thread, across processes and within one: a lease with an expiry, kept in the desk's
database.

A run takes its thread's lease before it starts or resumes, renews it while it goes on, and
releases it when it ends (`Leases.hold` does all three). Another run asking for the same thread
meanwhile, in another process or in this one (a second tab), is refused and can post the user's
message to the thread's inbox instead: the run that holds the lease reads it from the shared store.

A process that crashes stops renewing, so its lease expires `ttl_s` after the last renewal and the
next process takes the thread over; nobody has to clean up. A process that stalled past its own
expiry learns it at its next renewal (`renew` answers None, `Held.lost` is set) and must stop its
run: the thread may already run elsewhere.

Clocks: in Postgres every time is the database server's (`clock_timestamp()`), so processes on
machines whose clocks disagree still agree on who holds a lease. The SQLite form (the default, for
the processes of one machine) uses that machine's clock.
"""
from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite

from graph.core import clock

from ..core.private import private_file
from .outages import DatabaseUnavailable, Outages

if TYPE_CHECKING:
    from .postgres import Pool

log = logging.getLogger(__name__)

DEFAULT_TTL_S = 30.0  # a crashed process's threads are free again within this
RENEWALS_PER_TTL = 3  # renewed at a third of the TTL: two renewals may fail before it lapses


@cache
def process_owner() -> str:
    """This process's name as a lease owner: host, pid and a random part (a pid is reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def run_owner() -> str:
    """One run's name as a lease owner: its process's and a part of its own, so a second run of a
    thread in the same process (two tabs sending at once) is refused like another process's."""
    return f"{process_owner()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class Lease:
    thread_id: str
    owner: str
    expires_at: datetime  # UTC


class LeaseHeld(RuntimeError):
    """Another owner holds the thread's lease (and it has not expired)."""

    def __init__(self, thread_id: str, holder: Lease | None) -> None:
        super().__init__(f"thread {thread_id} runs elsewhere" + (f" ({holder.owner})" if holder else ""))
        self.thread_id = thread_id
        self.holder = holder


@dataclass
class Held:
    """A lease being held by `Leases.hold`: `lost` is set when a renewal finds it taken over (or
    the database stayed unreachable until it expired); the run should stop then."""
    lease: Lease
    lost: asyncio.Event = field(default_factory=asyncio.Event)


def _check_ttl(ttl_s: float) -> float:
    if not ttl_s > 0:
        raise ValueError("a lease's ttl_s is a positive number of seconds")
    return float(ttl_s)


class Leases(ABC):
    """acquire / renew / release / holder on one table; `hold` for a run's lifetime."""

    @abstractmethod
    async def acquire(self, thread_id: str, owner: str, ttl_s: float = DEFAULT_TTL_S) -> Lease | None:
        """Take the thread's lease for `ttl_s` seconds: when nobody holds it, when its holder's lease
        expired, or when `owner` holds it already (then it is extended). None: another owner holds it."""

    @abstractmethod
    async def renew(self, thread_id: str, owner: str, ttl_s: float = DEFAULT_TTL_S) -> Lease | None:
        """Extend `owner`'s lease by `ttl_s` from now. None: `owner` no longer holds it (taken over after
        it expired, or released). A lease that expired but was not taken over is renewed."""

    @abstractmethod
    async def release(self, thread_id: str, owner: str) -> bool:
        """Give the lease up; False when `owner` did not hold it."""

    @abstractmethod
    async def holder(self, thread_id: str) -> Lease | None:
        """The thread's lease if one is in force (not expired)."""

    @asynccontextmanager
    async def hold(self, thread_id: str, owner: str | None = None, ttl_s: float = DEFAULT_TTL_S, *,
                   cancel_on_loss: bool = True, wait_s: float = 0.0) -> AsyncIterator[Held]:
        """The thread's lease for the body's duration: acquired (LeaseHeld if another owner holds
        it), renewed in the background every ttl_s/3, released at the end however the body ends.
        If it is lost meanwhile, `Held.lost` is set and (with `cancel_on_loss`) the task running the
        body is cancelled: another process may already run the thread. `wait_s`: how long to keep
        trying first (a run that just ended elsewhere releases its lease a moment after its last word)."""
        owner = owner or run_owner()
        await self._release_left_over(thread_id)
        deadline = asyncio.get_running_loop().time() + wait_s
        while (lease := await self.acquire(thread_id, owner, ttl_s)) is None:
            if asyncio.get_running_loop().time() >= deadline:
                break
            await asyncio.sleep(0.2)
        if lease is None:
            raise LeaseHeld(thread_id, await self.holder(thread_id))
        held = Held(lease)
        body = asyncio.current_task() if cancel_on_loss else None
        keeper = asyncio.create_task(self._keep(held, ttl_s, body), name=f"lease-{thread_id}")
        try:
            yield held
        finally:
            keeper.cancel()
            with suppress(asyncio.CancelledError):
                await keeper
            try:
                await self.release(thread_id, owner)
            except DatabaseUnavailable as exc:  # it expires by itself, or the next run here lets it go
                log.warning("Could not release the lease of thread %s: %s", thread_id, exc)
                self._left_over()[thread_id] = owner
            except Exception:
                log.warning("Could not release the lease of thread %s", thread_id, exc_info=True)

    def _left_over(self) -> dict[str, str]:
        """Leases of this process's runs that could not be released (the database was out): thread → owner."""
        return self.__dict__.setdefault("_unreleased", {})

    async def _release_left_over(self, thread_id: str) -> None:
        """A run here that ended while the database was out still holds the thread until its lease expires: let it
        go before this process runs the thread again (only that owner's lease: never another process's)."""
        if (owner := self._left_over().pop(thread_id, None)) is not None:
            try:
                await self.release(thread_id, owner)
            except Exception as exc:
                log.warning("Could not release the lease left over on thread %s: %s", thread_id, exc)

    async def _keep(self, held: Held, ttl_s: float, body: asyncio.Task[Any] | None) -> None:
        try:
            await self._renew_until_lost(held, ttl_s)
        finally:
            if held.lost.is_set() and body is not None:
                body.cancel()

    async def _renew_until_lost(self, held: Held, ttl_s: float) -> None:
        lease = held.lease
        last_ok = time.monotonic()
        while True:
            await asyncio.sleep(ttl_s / RENEWALS_PER_TTL)
            try:
                renewed = await self.renew(lease.thread_id, lease.owner, ttl_s)
            except Exception as exc:
                # The database's outage is said once by graph/persistence/outages.py: its reason, not a traceback.
                log.warning("Could not renew the lease of thread %s", lease.thread_id,
                            exc_info=not isinstance(exc, DatabaseUnavailable))
                if time.monotonic() - last_ok >= ttl_s:  # it has expired meanwhile: another may hold it
                    held.lost.set()
                    return
                continue
            if renewed is None:
                log.warning("Lost the lease of thread %s (taken over after it expired)", lease.thread_id)
                held.lost.set()
                return
            held.lease, last_ok = renewed, time.monotonic()


class PostgresLeases(Leases):
    """Leases in a table of the desk's Postgres database, timed by the server's clock."""

    TABLE = "desk_run_leases"

    def __init__(self, pool: Pool, outages: Outages | None = None) -> None:
        self.pool = pool
        self.outages = outages or Outages()

    async def setup(self) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(f"""
                CREATE TABLE IF NOT EXISTS {self.TABLE} (
                    thread_id  TEXT PRIMARY KEY,
                    owner      TEXT NOT NULL,
                    expires_at TIMESTAMPTZ NOT NULL
                )""")

    async def _one(self, query: str, params: dict[str, Any]) -> Lease | None:
        async def run() -> dict[str, Any] | None:
            async with self.pool.connection() as conn:
                cur = await conn.execute(query, params)
                return await cur.fetchone()
        # Each statement is safe to run twice: the owner's own lease is re-taken or renewed, never another's.
        row = await self.outages.retried(run)
        if row is None:
            return None
        return Lease(row["thread_id"], row["owner"], row["expires_at"].astimezone(UTC))

    async def acquire(self, thread_id: str, owner: str, ttl_s: float = DEFAULT_TTL_S) -> Lease | None:
        # One statement: two processes racing for a thread are ordered by the primary key's lock, and
        # the loser sees the winner's row in the conflict's WHERE.
        return await self._one(f"""
            INSERT INTO {self.TABLE} AS l (thread_id, owner, expires_at)
            VALUES (%(thread)s, %(owner)s, clock_timestamp() + %(ttl)s * interval '1 second')
            ON CONFLICT (thread_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
            WHERE l.owner = EXCLUDED.owner OR l.expires_at <= clock_timestamp()
            RETURNING thread_id, owner, expires_at
        """, {"thread": thread_id, "owner": owner, "ttl": _check_ttl(ttl_s)})

    async def renew(self, thread_id: str, owner: str, ttl_s: float = DEFAULT_TTL_S) -> Lease | None:
        return await self._one(f"""
            UPDATE {self.TABLE} SET expires_at = clock_timestamp() + %(ttl)s * interval '1 second'
            WHERE thread_id = %(thread)s AND owner = %(owner)s
            RETURNING thread_id, owner, expires_at
        """, {"thread": thread_id, "owner": owner, "ttl": _check_ttl(ttl_s)})

    async def release(self, thread_id: str, owner: str) -> bool:
        async def run() -> bool:
            async with self.pool.connection() as conn:
                cur = await conn.execute(f"DELETE FROM {self.TABLE} WHERE thread_id = %(thread)s AND owner = %(owner)s",
                                         {"thread": thread_id, "owner": owner})
                return cur.rowcount > 0
        return await self.outages.retried(run)

    async def holder(self, thread_id: str) -> Lease | None:
        return await self._one(f"""
            SELECT thread_id, owner, expires_at FROM {self.TABLE}
            WHERE thread_id = %(thread)s AND expires_at > clock_timestamp()
        """, {"thread": thread_id})


class SqliteLeases(Leases):
    """Leases in a SQLite file (DESK_DATA_DIR/leases.sqlite), for the processes of one machine,
    timed by `clock` (seconds since the epoch)."""

    def __init__(self, conn: aiosqlite.Connection, clock: Callable[[], float] = clock.epoch) -> None:
        self.conn = conn
        self.clock = clock

    @classmethod
    @asynccontextmanager
    async def open(cls, path: Path, clock: Callable[[], float] = clock.epoch) -> AsyncIterator[SqliteLeases]:
        private_file(path)  # owner-only from creation, its folder too
        # Autocommit: each statement is its own transaction; another process's write waits up to 30 s.
        async with aiosqlite.connect(str(path), timeout=30, isolation_level=None) as conn:
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute("""
                CREATE TABLE IF NOT EXISTS run_leases (
                    thread_id  TEXT PRIMARY KEY,
                    owner      TEXT NOT NULL,
                    expires_at REAL NOT NULL
                )""")
            yield cls(conn, clock)

    async def _one(self, query: str, params: tuple[Any, ...]) -> Lease | None:
        async with self.conn.execute(query, params) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return Lease(row[0], row[1], datetime.fromtimestamp(row[2], UTC))

    async def acquire(self, thread_id: str, owner: str, ttl_s: float = DEFAULT_TTL_S) -> Lease | None:
        now = self.clock()
        return await self._one("""
            INSERT INTO run_leases (thread_id, owner, expires_at) VALUES (?, ?, ?)
            ON CONFLICT (thread_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
            WHERE run_leases.owner = excluded.owner OR run_leases.expires_at <= ?
            RETURNING thread_id, owner, expires_at
        """, (thread_id, owner, now + _check_ttl(ttl_s), now))

    async def renew(self, thread_id: str, owner: str, ttl_s: float = DEFAULT_TTL_S) -> Lease | None:
        return await self._one("""
            UPDATE run_leases SET expires_at = ? WHERE thread_id = ? AND owner = ?
            RETURNING thread_id, owner, expires_at
        """, (self.clock() + _check_ttl(ttl_s), thread_id, owner))

    async def release(self, thread_id: str, owner: str) -> bool:
        async with self.conn.execute("DELETE FROM run_leases WHERE thread_id = ? AND owner = ?",
                                     (thread_id, owner)) as cur:
            return cur.rowcount > 0

    async def holder(self, thread_id: str) -> Lease | None:
        return await self._one("SELECT thread_id, owner, expires_at FROM run_leases WHERE thread_id = ? "
                               "AND expires_at > ?", (thread_id, self.clock()))


class MemoryLeases(Leases):
    """Leases of one process (a runtime built over in-memory parts: tests, benchmarks)."""

    def __init__(self, clock: Callable[[], float] = clock.epoch) -> None:
        self.clock = clock
        self._leases: dict[str, tuple[str, float]] = {}

    def _lease(self, thread_id: str) -> Lease:
        owner, expires = self._leases[thread_id]
        return Lease(thread_id, owner, datetime.fromtimestamp(expires, UTC))

    async def acquire(self, thread_id: str, owner: str, ttl_s: float = DEFAULT_TTL_S) -> Lease | None:
        now = self.clock()
        current = self._leases.get(thread_id)
        if current is not None and current[0] != owner and current[1] > now:
            return None
        self._leases[thread_id] = (owner, now + _check_ttl(ttl_s))
        return self._lease(thread_id)

    async def renew(self, thread_id: str, owner: str, ttl_s: float = DEFAULT_TTL_S) -> Lease | None:
        current = self._leases.get(thread_id)
        if current is None or current[0] != owner:
            return None
        self._leases[thread_id] = (owner, self.clock() + _check_ttl(ttl_s))
        return self._lease(thread_id)

    async def release(self, thread_id: str, owner: str) -> bool:
        current = self._leases.get(thread_id)
        if current is None or current[0] != owner:
            return False
        del self._leases[thread_id]
        return True

    async def holder(self, thread_id: str) -> Lease | None:
        current = self._leases.get(thread_id)
        return self._lease(thread_id) if current is not None and current[1] > self.clock() else None


def _dead_here(owner: str) -> bool:
    """Whether a lease owner (`run_owner`: "host:pid:random:random") is a process of this machine that
    no longer exists: a chat server or CLI killed and started again within the lease's TTL."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


async def live_holder(leases: Leases, thread_id: str) -> Lease | None:
    """The thread's lease holder, after releasing it for a dead process of this machine (the lease
    would otherwise stay in force until its TTL ran out: a restarted chat server would offer no
    Resume, a restarted CLI refuse to resume)."""
    holder = await leases.holder(thread_id)
    if holder is not None and _dead_here(holder.owner):
        await leases.release(thread_id, holder.owner)
        return None
    return holder


@asynccontextmanager
async def hold_run(leases: Leases, thread_id: str, wait_s: float = 0.0) -> AsyncIterator[Held]:
    """`leases.hold(thread_id)` for a run, a dead local holder's lease let go first."""
    await live_holder(leases, thread_id)
    async with leases.hold(thread_id, wait_s=wait_s) as held:
        yield held
