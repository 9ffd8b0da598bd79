"""How fast one person may send messages, counted across processes: token buckets kept where the run
leases are (graph/persistence/lease.py), so N chat processes on one database allow the rate once, not N times.

A bucket per key ("user:<id>", "thread:<id>") holds `burst` messages and refills at `per_s` a second
of wall time (`clock.epoch()`, injectable). `take(*keys)` takes one message from every key's bucket,
or none: 0.0 when each had one, else the seconds until they all will. Each store does it in one
transaction that no other process interleaves with: SQLite's `BEGIN IMMEDIATE` (the file's write
lock), Postgres's row locks (`SELECT … FOR UPDATE`, keys in one order so two takes never deadlock).
Keys are only ever SQL parameters, never text of a statement.

A missing bucket is a full one, so a bucket that has been idle long enough to be full again is
forgotten (`forget_idle`, run every PRUNE_EVERY takes): the table holds the people sending now.
Clocks of several machines may disagree: time never runs backwards for a bucket (a take dated
before the bucket's last one refills nothing), so a slow clock cannot mint messages.
"""
from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite

from graph.core import clock as wall

from ..core.private import private_file

if TYPE_CHECKING:
    from .postgres import Pool

BURST = 10     # messages in a row
PER_S = 0.5    # then one every two seconds
MAX_BUCKETS = 10_000  # in memory: beyond this, full (idle) buckets are dropped
PRUNE_EVERY = 256     # in a database: full (idle) buckets are deleted every this many takes of a process


def _epoch() -> float:
    return wall.epoch()  # looked up at each call: a test moves the module's clock


@dataclass
class Level:
    """A bucket as stored: its tokens when last taken from, and when (seconds)."""
    tokens: float
    at: float


class RateBuckets(ABC):
    """Token buckets by key, shared by the processes on one store."""

    def __init__(self, burst: int = BURST, per_s: float = PER_S, clock: Callable[[], float] = _epoch) -> None:
        if not (burst >= 1 and per_s > 0):
            raise ValueError("a bucket holds at least one message and refills at a positive rate")
        self.burst, self.per_s, self.clock = float(burst), float(per_s), clock
        self._takes = 0
        self._running: set[asyncio.Task[float]] = set()

    @property
    def full_after_s(self) -> float:
        """An untouched bucket is full again after this long, whatever it held."""
        return self.burst / self.per_s

    def refilled(self, level: Level | None, now: float) -> Level:
        """The bucket at `now`: refilled for the time since its last take (none for a time before it)."""
        if level is None:
            return Level(self.burst, now)
        return Level(min(self.burst, level.tokens + max(0.0, now - level.at) * self.per_s), max(level.at, now))

    def decide(self, levels: Sequence[Level]) -> float:
        """0.0 and one token off each level, or the wait until each has one (and nothing taken)."""
        short = [lv for lv in levels if lv.tokens < 1]
        if short:
            return max((1 - lv.tokens) / self.per_s for lv in short)
        for lv in levels:
            lv.tokens -= 1
        return 0.0

    async def take(self, *keys: str) -> float:
        """Take one message from every key's bucket: 0.0 if each had one, else the seconds until they
        all will (and nothing is taken)."""
        keys = tuple(sorted(set(keys)))  # one order in every process: no two takes wait on each other
        # A caller that stops waiting (the door's timeout) leaves the transaction to end by itself, in a
        # task of its own: cancelled half-way, it could leave the connection inside an open transaction
        # that holds the file's write lock.
        task = asyncio.create_task(self._take(keys, self.clock()))
        self._running.add(task)
        task.add_done_callback(self._ended)
        wait = await asyncio.shield(task)
        self._takes += 1
        if self._takes % PRUNE_EVERY == 0:
            await self.forget_idle()
        return wait

    def _ended(self, task: asyncio.Task[float]) -> None:
        self._running.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a caller that stopped waiting was told already, by its timeout

    @abstractmethod
    async def _take(self, keys: tuple[str, ...], now: float) -> float:
        """`take` in one transaction."""

    @abstractmethod
    async def forget_idle(self) -> int:
        """Forget the buckets full again by now (as good as absent); how many."""


class MemoryRates(RateBuckets):
    """The buckets of one process: a runtime over in-memory parts, and the chat's fallback when the
    database does not answer (chat/web/rates.py). `take_now` is the same take, synchronous."""

    def __init__(self, burst: int = BURST, per_s: float = PER_S, clock: Callable[[], float] = _epoch) -> None:
        super().__init__(burst, per_s, clock)
        self.buckets: dict[str, Level] = {}

    def take_now(self, *keys: str) -> float:
        now = self.clock()
        if len(self.buckets) >= MAX_BUCKETS and any(k not in self.buckets for k in keys):
            self._forget(now)
        levels = [self.refilled(self.buckets.get(k), now) for k in keys]
        wait = self.decide(levels)
        self.buckets.update(zip(keys, levels, strict=True))
        return wait

    async def _take(self, keys: tuple[str, ...], now: float) -> float:
        return self.take_now(*keys)

    def _forget(self, now: float) -> int:
        before = len(self.buckets)
        self.buckets = {k: b for k, b in self.buckets.items() if now - b.at < self.full_after_s}
        return before - len(self.buckets)

    async def forget_idle(self) -> int:
        return self._forget(self.clock())


class SqliteRates(RateBuckets):
    """Buckets in the leases' SQLite file (DESK_DATA_DIR/leases.sqlite), table rate_buckets, on a
    connection of their own (a transaction on the leases' connection would take in their statements)."""

    def __init__(self, conn: aiosqlite.Connection, burst: int = BURST, per_s: float = PER_S,
                 clock: Callable[[], float] = _epoch) -> None:
        super().__init__(burst, per_s, clock)
        self.conn = conn
        self._lock = asyncio.Lock()  # one transaction at a time on the connection

    @classmethod
    @asynccontextmanager
    async def open(cls, path: Path, burst: int = BURST, per_s: float = PER_S,
                   clock: Callable[[], float] = _epoch) -> AsyncIterator[SqliteRates]:
        private_file(path)
        # Autocommit, explicit transactions; another process's write waits up to 5 s (then the door
        # falls back to its own buckets rather than keep a person waiting).
        async with aiosqlite.connect(str(path), timeout=5, isolation_level=None) as conn:
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute("""
                CREATE TABLE IF NOT EXISTS rate_buckets (
                    key    TEXT PRIMARY KEY,
                    tokens REAL NOT NULL,
                    at     REAL NOT NULL
                )""")
            await conn.execute("CREATE INDEX IF NOT EXISTS rate_buckets_at ON rate_buckets (at)")
            yield cls(conn, burst, per_s, clock)

    async def _take(self, keys: tuple[str, ...], now: float) -> float:
        marks = ", ".join("?" * len(keys))
        async with self._lock:
            await self.conn.execute("BEGIN IMMEDIATE")  # the write lock first: no other take in between
            try:
                async with self.conn.execute(f"SELECT key, tokens, at FROM rate_buckets WHERE key IN ({marks})",
                                             keys) as cur:
                    stored = {row[0]: Level(row[1], row[2]) for row in await cur.fetchall()}
                levels = [self.refilled(stored.get(k), now) for k in keys]
                wait = self.decide(levels)
                if not wait:
                    await self.conn.executemany("""
                        INSERT INTO rate_buckets (key, tokens, at) VALUES (?, ?, ?)
                        ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, at = excluded.at
                    """, [(k, lv.tokens, lv.at) for k, lv in zip(keys, levels, strict=True)])
                await self.conn.execute("COMMIT")
            except BaseException:
                await self.conn.execute("ROLLBACK")
                raise
        return wait

    async def forget_idle(self) -> int:
        async with self._lock, self.conn.execute("DELETE FROM rate_buckets WHERE at <= ?",
                                                 (self.clock() - self.full_after_s,)) as cur:
            return cur.rowcount


class PostgresRates(RateBuckets):
    """Buckets in a table of the desk's Postgres database."""

    TABLE = "desk_rate_buckets"

    def __init__(self, pool: Pool, burst: int = BURST, per_s: float = PER_S,
                 clock: Callable[[], float] = _epoch) -> None:
        super().__init__(burst, per_s, clock)
        self.pool = pool

    async def setup(self) -> None:
        async with self.pool.connection() as conn:
            await conn.execute(f"""
                CREATE TABLE IF NOT EXISTS {self.TABLE} (
                    key    TEXT PRIMARY KEY,
                    tokens DOUBLE PRECISION NOT NULL,
                    at     DOUBLE PRECISION NOT NULL
                )""")
            await conn.execute(f"CREATE INDEX IF NOT EXISTS {self.TABLE}_at ON {self.TABLE} (at)")

    async def _take(self, keys: tuple[str, ...], now: float) -> float:
        params: dict[str, Any] = {"keys": list(keys), "full": self.burst, "now": now}
        # In a pipeline: BEGIN, the INSERT and the SELECT go in one round trip (the rows are read when they
        # come), the UPDATE and COMMIT in a second. Every message waits for its take before it goes on, and
        # a take holds one of the pool's connections: ~5 round trips each, on a loop busy with 25 chats
        # starting, queued 25 messages' takes behind each other for up to a second (benchmarks/RESULTS.md).
        async with self.pool.connection() as conn, conn.pipeline(), conn.transaction():
            # Every key's row exists (a new one full), then all are locked in key order: a concurrent
            # take of the same keys waits here until this one commits, and reads what it left.
            await conn.execute(f"""
                INSERT INTO {self.TABLE} (key, tokens, at)
                SELECT k, %(full)s, %(now)s FROM unnest(%(keys)s::text[]) AS k ORDER BY k
                ON CONFLICT (key) DO NOTHING""", params)
            cur = await conn.execute(f"SELECT key, tokens, at FROM {self.TABLE} WHERE key = ANY(%(keys)s) "
                                     "ORDER BY key FOR UPDATE", params)
            stored = {row["key"]: Level(row["tokens"], row["at"]) for row in await cur.fetchall()}
            levels = [self.refilled(stored.get(k), now) for k in keys]
            wait = self.decide(levels)
            if not wait:
                await cur.executemany(f"UPDATE {self.TABLE} SET tokens = %(tokens)s, at = %(at)s WHERE key = %(key)s",
                                      [{"key": k, "tokens": lv.tokens, "at": lv.at}
                                       for k, lv in zip(keys, levels, strict=True)])
        return wait

    async def forget_idle(self) -> int:
        async with self.pool.connection() as conn:
            cur = await conn.execute(f"DELETE FROM {self.TABLE} WHERE at <= %(idle)s",
                                     {"idle": self.clock() - self.full_after_s})
            return cur.rowcount
