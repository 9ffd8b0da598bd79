"""Watches on a real PostgreSQL server: two runtimes (two server processes) on one database run a slot once,
and APScheduler keeps its jobs in that database, found again by a restart."""
from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, time
from pathlib import Path

import pytest

from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.track.log import DecisionLog
from graph.watchlist.rules import NEW_YORK, Rule
from graph.watchlist.scheduler import WatchDesk, job_id, jobs_url
from graph.watchlist.store import WatchStore

USER = "ana@example.com"
pytestmark = pytest.mark.postgres


def ny(day: str, at: str = "17:00") -> datetime:
    return datetime.combine(date.fromisoformat(day), time.fromisoformat(at), tzinfo=NEW_YORK)


async def test_two_processes_on_postgres_run_a_slot_once_and_jobs_live_there(tmp_path: Path,
                                                                            fresh_postgres_url: str) -> None:
    settings = Settings(DESK_DATA_DIR=tmp_path, DESK_DEMO_DELAY_MS=0, DESK_DEMO_FIRST_TOKEN_MS=0,
                        DESK_DATABASE_URL=fresh_postgres_url)
    async with DeskRuntime.open(settings) as a, DeskRuntime.open(settings) as b:
        watch = await WatchStore(a.store).add(USER, ("NVDA", "AMD"), Rule(), now=ny("2024-05-01", "12:00"))
        ran = await asyncio.gather(WatchDesk(a).check(USER, watch.id, ny("2024-05-06")),
                                   WatchDesk(b).check(USER, watch.id, ny("2024-05-06")))
        fresh = sorted(r.ticker for rs in ran for r in rs if r.decision is not None and not r.kept)
        assert fresh == ["AMD", "NVDA"]
        assert len(await DecisionLog(b.store).calls(USER)) == 2
        url = jobs_url(tmp_path, fresh_postgres_url)
        assert url.startswith("postgresql+psycopg://")
        first = WatchDesk(a)
        await first.start(url)
        first.stop()
        second = WatchDesk(b)
        await second.start(url)
        try:
            job = second.scheduler.get_job(job_id(watch))
            assert job is not None and job.next_run_time > datetime.now(UTC)
        finally:
            second.stop()
