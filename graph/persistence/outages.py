"""Riding out a PostgreSQL blip (issue 36, point 1): a restart, a dropped connection, a failover of a few seconds.

Every Postgres part of the desk (checkpoints, store, leases) runs each of its operations through `Outages.retried`:
an operation that fails because the connection is lost is tried again with backoff for up to `budget_s` seconds
(DESK_DB_RETRY_S). Each of those operations is idempotent (upserts keyed by their ids, deletes, reads), so one
that reached the server before its connection broke may safely run again. A blip is thus ridden out: the run goes
on by itself.

When the budget is spent, the database is "out": the operation raises `DatabaseUnavailable` (a sentence the user
reads, never a driver's error), and until an operation succeeds again each one is tried once and fails fast, so a
failing run closes up at once instead of waiting out the budget at every step. `wait_until_back` polls the database
for whoever resumes the run once it is back (the chat does, by itself).

Listeners hear each change of state ("reconnecting", "back", "out"): the chat shows a short note while a run waits.
SQLite files have no such outage; their parts do not use this.
"""
from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

from ..core.errors import DeskError

log = logging.getLogger(__name__)

T = TypeVar("T")
State = Literal["reconnecting", "back", "out"]
Listener = Callable[[State], None]

DEFAULT_BUDGET_S = 30.0  # a restart or a failover takes seconds; longer than this stops the run (and it resumes)
FIRST_PAUSE_S, LONGEST_PAUSE_S = 0.25, 2.0
PROBE_EVERY_S = 2.0


class DatabaseUnavailable(DeskError):
    """The desk's database did not answer for longer than a blip."""

    def __init__(self, seconds: float) -> None:
        super().__init__(key="errors.database_unavailable", seconds=round(seconds))


def connection_lost(exc: BaseException) -> bool:
    """Whether a failure is the connection's, not the statement's: worth trying again on a new connection.
    psycopg's OperationalError with no SQLSTATE (the client lost the server: refused, reset, closed), class 08
    (connection exception) or 57P01-57P03 (the server shutting down or starting); the pool's timeout waiting for
    a connection (PoolTimeout, an OperationalError). A statement's own error (a constraint, a syntax error, a
    cancelled query) is not retried."""
    psycopg = _psycopg()
    if psycopg is None or not isinstance(exc, psycopg.OperationalError):
        return False
    state = getattr(exc, "sqlstate", None)
    return state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")


def _psycopg() -> Any:
    # psycopg is loaded only when a Postgres URL is configured: no error of it can exist otherwise.
    return sys.modules.get("psycopg")


class Outages:
    """One database's state as this process sees it, and the retrying of its operations."""

    def __init__(self, budget_s: float = DEFAULT_BUDGET_S, *, probe: Callable[[], Awaitable[object]] | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.budget_s = budget_s
        self.probe = probe  # a cheap statement (SELECT 1) that succeeds once the database is back
        self.sleep = sleep
        self.out = False             # the budget was spent and nothing has succeeded since
        self.reconnecting = False    # an operation is being retried now
        self.listeners: list[Listener] = []
        self.blips = 0               # how many times it lost the database (for the fault suite's figures)

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Hear each change of state; returns the call that stops it."""
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener) if listener in self.listeners else None

    def _tell(self, state: State) -> None:
        for listener in list(self.listeners):
            try:
                listener(state)
            except Exception:  # a listener's failure is its own, never the operation's
                log.exception("A database outage listener failed")

    def _back(self) -> None:
        if self.reconnecting or self.out:
            self.reconnecting = self.out = False
            log.warning("The database answers again")
            self._tell("back")

    async def retried(self, operation: Callable[[], Awaitable[T]]) -> T:
        """`operation()` (called anew for each try), tried again while its failure is a lost connection, with
        backoff, for up to the budget; once out, tried once."""
        started = time.monotonic()
        pause = FIRST_PAUSE_S
        while True:
            try:
                result = await operation()
            except Exception as exc:
                if not connection_lost(exc):
                    raise
                waited = time.monotonic() - started
                if self.out or waited >= self.budget_s:
                    if not self.out:
                        self.out, self.reconnecting = True, False
                        log.error("The database did not answer for %.0f s: runs stop until it is back (%s)",
                                  waited, exc)
                        self._tell("out")
                    raise DatabaseUnavailable(waited) from exc
                if not self.reconnecting:
                    self.reconnecting = True
                    self.blips += 1
                    log.warning("Lost the database connection; reconnecting (%s)", exc)
                    self._tell("reconnecting")
                await self.sleep(min(pause, max(0.0, self.budget_s - waited)))
                pause = min(pause * 2, LONGEST_PAUSE_S)
                continue
            self._back()
            return result

    async def answers(self) -> bool:
        """Whether the database answers now (one probe)."""
        if self.probe is None:
            return True
        try:
            await self.probe()
        except Exception as exc:
            if connection_lost(exc):
                return False
            raise
        self._back()
        return True

    async def wait_until_back(self, every_s: float = PROBE_EVERY_S) -> None:
        """Return once the database answers (cancel to give up)."""
        while not await self.answers():
            await self.sleep(every_s)
