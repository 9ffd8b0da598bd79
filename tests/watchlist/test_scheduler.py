"""The watches' scheduler (graph/watchlist/scheduler.py): APScheduler's jobs in the database, one per active
watch at the watch's cron, kept across a restart, gone for a paused or removed watch."""
from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.watchlist.rules import Rule
from graph.watchlist.scheduler import WatchDesk, job_id, jobs_url
from graph.watchlist.store import WatchStore

USER = "ana@example.com"


async def test_jobs_live_in_the_database_and_follow_the_watches(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, demo_delay_ms=0, demo_first_token_ms=0)
    url = jobs_url(tmp_path, None)
    assert (tmp_path / "schedules.sqlite").stat().st_mode & 0o077 == 0  # private, like the desk's other files
    async with DeskRuntime.open(settings) as desk:
        store = WatchStore(desk.store)
        daily = await store.add(USER, ("NVDA",), Rule())
        monday = await store.add(USER, ("AMD",), Rule(weekday=0))
        first = WatchDesk(desk)
        await first.start(url)
        try:
            job = first.scheduler.get_job(job_id(daily))
            # cron wakes on weekdays (a holiday's wake finds no slot due: rules.py), at the time in New York
            assert job is not None and job.next_run_time <= daily.rule.next_slot(datetime.now(UTC))
            assert job.next_run_time.strftime("%H:%M %Z") in ("16:30 EST", "16:30 EDT")
            assert job.next_run_time.weekday() < 5
            assert first.scheduler.get_job(job_id(monday)).next_run_time.weekday() == 0
        finally:
            first.stop()
        # a restart finds the jobs in the database; a paused watch loses its job at the next sync
        await store.set_paused(monday, True)
        second = WatchDesk(desk)
        await second.start(url)
        try:
            assert second.scheduler.get_job(job_id(daily)) is not None
            assert second.scheduler.get_job(job_id(monday)) is None
            await store.remove(daily)
            await second.sync()
            assert [j.id for j in second.scheduler.get_jobs()] == ["watch:sync"]
        finally:
            second.stop()


async def test_a_crypto_watch_wakes_on_the_weekend_and_an_old_weekday_job_is_re_timed(tmp_path: Path) -> None:
    from apscheduler.triggers.cron import CronTrigger  # type: ignore[import-untyped]

    settings = Settings(data_dir=tmp_path, demo_delay_ms=0, demo_first_token_ms=0)
    async with DeskRuntime.open(settings) as desk:
        btc = await WatchStore(desk.store).add(USER, ("BTC-USD",), Rule.closing("CRYPTO"))
        scheduler = WatchDesk(desk)
        await scheduler.start(jobs_url(tmp_path, None))
        try:
            job = scheduler.scheduler.get_job(job_id(btc))
            saturday_morning = datetime(2026, 11, 28, 8, 0, tzinfo=UTC)
            assert job.trigger.get_next_fire_time(None, saturday_morning) == datetime(2026, 11, 28, 23, 30, tzinfo=UTC)
            # a job stored when crypto watches woke Monday to Friday only is re-timed at the next sync
            job.reschedule(CronTrigger(day_of_week="mon-fri", hour=23, minute=30, timezone="UTC"))
            await scheduler.sync()
            job = scheduler.scheduler.get_job(job_id(btc))
            assert job.trigger.get_next_fire_time(None, saturday_morning).weekday() == 5
        finally:
            scheduler.stop()
