"""Watches run on schedule in the server: APScheduler wakes the process at each watch's slots, with its jobs
in the desk's database; `WatchDesk.check` decides what is due and runs it exactly once.

**Why APScheduler, and what it does here.** A maintained scheduler (3.x: stable; 4.x is still alpha) keeps the
jobs in a table of the desk's database (SQLite under DESK_DATA_DIR, or Postgres), wakes at each cron time in
the exchange's zone, and after downtime runs a missed job once (`coalesce`, no grace limit), not once per
missed time. What it cannot do alone: know the exchange's holidays (cron knows weekdays), and run a job once
when several processes share its job store (its own documentation says they will not coordinate). So a job
only wakes `check`, which asks the watch's rule for the latest due slot (graph/watchlist/rules.py: a missed
slot once, holidays skipped) and runs it under the slot's fixed thread ids (graph/watchlist/slots.py): every
process that wakes for a slot names the same threads, and the threads' leases and stored decisions let one
run each. Each process syncs its jobs from the watches in the Store every minute, so a watch made in one
process is scheduled in all.

Time is passed in (`now`) everywhere below the scheduler, so tests drive slots with any clock.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..book.store import BookStore
from ..core.clock import now as real_now
from ..core.private import private_file
from ..persistence.lease import LeaseHeld, hold_run
from ..persistence.namespaces import user_label
from ..persistence.postgres import sqlalchemy_url
from ..runtime.desk import DeskRuntime
from .slots import Ran, notice_of, run_ticker
from .store import Notice, Watch, WatchStore
from .webhook import post

log = logging.getLogger(__name__)

JOBS_TABLE = "desk_watch_jobs"
SYNC_EVERY_S = 60
OnRan = Callable[[Watch, Ran], Awaitable[None]]

# The process's WatchDesk: APScheduler keeps jobs as a reference to a module-level function and its
# arguments (it stores them in the database), so the function finds the live desk here.
_ACTIVE: WatchDesk | None = None


def job_id(watch: Watch) -> str:
    return f"watch:{user_label(watch.user)}:{watch.id}"


def jobs_url(data_dir: Path, database_url: str | None) -> str:
    """Where APScheduler keeps its jobs: the desk's Postgres, else a private SQLite file beside the others."""
    if database_url:
        return sqlalchemy_url(database_url)
    return f"sqlite:///{private_file(data_dir / 'schedules.sqlite')}"


async def fire(user: str, watch_id: str) -> None:
    """A watch's job (APScheduler calls it at the watch's cron times)."""
    if _ACTIVE is not None:
        await _ACTIVE.check(user, watch_id)


async def sync_jobs() -> None:
    if _ACTIVE is not None:
        await _ACTIVE.sync()


class WatchDesk:
    def __init__(self, desk: DeskRuntime, *, webhook_url: str = "", webhook_secret: str = "",
                 on_ran: OnRan | None = None, clock: Callable[[], datetime] | None = None,
                 webhook_wait_s: float = 1.0):
        self.desk = desk
        self.watches = WatchStore(desk.store)
        self.webhook_url = webhook_url
        self.webhook_secret = webhook_secret
        self.webhook_wait_s = webhook_wait_s  # the first back-off; doubled at each try
        self.on_ran = on_ran
        self.clock = clock or real_now
        self.scheduler: Any = None
        self.background: asyncio.Task[list[Ran]] | None = None  # the catch-up at start
        self._running: set[str] = set()  # watches being checked in this process (a slow slot, a new wake)
        self._checks: set[asyncio.Task[Any]] = set()  # the tasks checking them, stopped by `close`

    # --- what is due, run once ------------------------------------------------------------------------

    async def check(self, user: str, watch_id: str, now: datetime | None = None) -> list[Ran]:
        """Run the watch's due slot, if any: every ticker (the book's, read now, for a watch of the book)."""
        now = now or self.clock()
        watch = await self.watches.get(user, watch_id)
        if watch is None or watch.paused or job_id(watch) in self._running:
            return []
        slot = watch.rule.due(now, last_run=watch.last_run, since=watch.created_at)
        if slot is None:
            return []
        self._running.add(job_id(watch))
        if (task := asyncio.current_task()) is not None:
            self._checks.add(task)
        try:
            ran = [await self._ticker(watch, ticker, slot) for ticker in await self._tickers(watch)]
            if all(r.decision is not None for r in ran):  # a ticker another process still runs: not yet
                await self.watches.ran(watch, slot)
            return ran
        finally:
            self._running.discard(job_id(watch))
            if task is not None:
                self._checks.discard(task)

    async def check_all(self, now: datetime | None = None) -> list[Ran]:
        """Every watch's due slot, once: at start (slots missed while the server was down) and in tests."""
        ran: list[Ran] = []
        for user in await self.watches.users():
            for watch in await self.watches.watches(user):
                ran += await self.check(user, watch.id, now)
        return ran

    async def _tickers(self, watch: Watch) -> tuple[str, ...]:
        if not watch.book:
            return watch.tickers
        book = await BookStore(self.desk.store).get(watch.user)
        return tuple(p.symbol for p in book.positions) if book is not None else ()

    async def _ticker(self, watch: Watch, ticker: str, slot: datetime) -> Ran:
        ran = await run_ticker(self.desk, watch, ticker, slot)
        if ran.decision is None:
            return ran
        try:
            # Under a lease of the notice's own, so two processes finishing one slot's ticker (one of them finding
            # it kept) make and post its notice once between them.
            async with hold_run(self.desk.leases, f"notice-{ran.thread}"):
                notice = await self._notice(watch, ran, slot)
        except LeaseHeld:
            # Another process makes and posts the notice now (one that found the run kept); the run itself is this
            # one's or kept, as it was: marking the slot run twice is marking it once.
            return Ran(ticker, ran.thread, ran.decision, ran.kept)
        if ran.kept and notice is None:
            return ran  # run, noticed and posted before: nothing done here
        ran = Ran(ran.ticker, ran.thread, ran.decision, ran.kept, notice)
        if self.on_ran is not None:  # a run kept from before whose notice is made now: its process stopped first
            await self.on_ran(watch, ran)
        return ran

    async def _notice(self, watch: Watch, ran: Ran, slot: datetime) -> Notice | None:
        """The run's notice, made and posted now; None when there is none, or nothing was left to do. A run kept
        from before (its process stopped after the decision) may still lack its notice, or its post: done now,
        once; the post's receiver can tell a repeat by the notice's id, should a process stop between its post
        and the mark that it was taken."""
        if ran.kept and (kept := await self.watches.kept(watch.user, ran.thread)) is not None:
            if kept.posted or not self.webhook_url:
                return None  # made (and posted) by the run before
            return await self.post(kept)
        notice = await notice_of(self.desk, watch, ran, slot)
        if notice is not None and self.webhook_url and not notice.posted:
            notice = await self.post(notice)
        return notice

    async def post(self, notice: Notice) -> Notice:
        posted = await post(self.webhook_url, {"kind": "desk.notice", **notice.to_json()}, secret=self.webhook_secret,
                            first_wait_s=self.webhook_wait_s)
        if posted.ok:
            return await self.watches.mark(notice, posted=True)
        log.warning("The notice %s was not posted: %s", notice.id, posted.why)
        return notice

    # --- the scheduler --------------------------------------------------------------------------------

    async def start(self, url: str) -> None:
        """Start APScheduler on the job store at `url`, schedule every watch, and run what was missed."""
        global _ACTIVE
        from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore  # type: ignore[import-untyped]
        from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]

        _ACTIVE = self
        self.scheduler = AsyncIOScheduler(
            jobstores={"default": SQLAlchemyJobStore(url=url, tablename=JOBS_TABLE)},
            job_defaults={"coalesce": True, "misfire_grace_time": None, "max_instances": 1}, timezone=UTC)
        self.scheduler.start()
        await self.sync()
        self.scheduler.add_job(sync_jobs, "interval", seconds=SYNC_EVERY_S, id="watch:sync", replace_existing=True)
        self.background = asyncio.create_task(self.check_all(), name="watch-catch-up")

    async def sync(self) -> None:
        """The jobs as the Store's watches say: one per active watch, none for a paused or removed one."""
        if self.scheduler is None:
            return
        wanted: dict[str, Watch] = {}
        for user in await self.watches.users():
            for watch in await self.watches.watches(user):
                if not watch.paused:
                    wanted[job_id(watch)] = watch
        for job in self.scheduler.get_jobs():
            if job.id.startswith("watch:") and job.id != "watch:sync" and job.id not in wanted:
                job.remove()
        from apscheduler.triggers.cron import CronTrigger  # type: ignore[import-untyped]

        for jid, watch in wanted.items():
            if (job := self.scheduler.get_job(jid)) is None:
                self.scheduler.add_job(fire, "cron", args=[watch.user, watch.id], id=jid, **watch.rule.cron())
            elif str(job.trigger) != str(trigger := CronTrigger(**watch.rule.cron())):
                # A job stored before its rule's days changed (a crypto watch woke Monday to Friday only
                # until watches followed the class calendar): its weekends would be missed, so it is re-timed.
                job.reschedule(trigger)

    def stop(self) -> list[asyncio.Task[Any]]:
        """Stop waking; a catch-up or a slot still running is cancelled: its runs stop at their last checkpoint
        and the slot stays due, to go on at the next start (graph/watchlist/slots.py). The tasks cancelled."""
        global _ACTIVE
        here = asyncio.current_task() if _in_loop() else None
        stopping = [t for t in {*self._checks, *([self.background] if self.background else [])}
                    if not t.done() and t is not here]
        for task in stopping:
            task.cancel()
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
            self.scheduler = None
        if _ACTIVE is self:
            _ACTIVE = None
        return stopping

    async def close(self) -> None:
        """`stop`, and wait for what it cancelled to let go: its threads' leases released, before the desk's
        database closes (a server's shutdown, a SIGTERM)."""
        await asyncio.gather(*self.stop(), return_exceptions=True)


def _in_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
