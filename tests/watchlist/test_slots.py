"""A watch's slot run exactly once (graph/watchlist/slots.py, scheduler.py): each ticker an ordinary stored
thread of the user's, not run again when asked twice, once between two processes on one database, the
latest missed slot once after downtime, nothing on a holiday; a changed call gives one notice and one webhook
post (to a receiver on loopback), whatever process asks again. The clock is passed in: nothing sleeps."""
from __future__ import annotations

import asyncio
import json
import logging
from datetime import date, datetime, time
from pathlib import Path

import pytest
from aiohttp import web

from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.track.calls import Call
from graph.track.log import DecisionLog
from graph.watchlist.rules import NEW_YORK, Rule
from graph.watchlist.scheduler import WatchDesk
from graph.watchlist.slots import run_ticker, thread_id
from graph.watchlist.store import WatchStore
from graph.watchlist.webhook import SIGNATURE, signature
from tests.support.loopback import Loopback

USER = "ana@example.com"
SECRET = "s3cret-never-logged"


def ny(day: str, at: str = "17:00") -> datetime:
    return datetime.combine(date.fromisoformat(day), time.fromisoformat(at), tzinfo=NEW_YORK)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, demo_delay_ms=0, demo_first_token_ms=0)


async def _watch(desk: DeskRuntime, tickers: tuple[str, ...] = ("NVDA", "AMD"), *, last: datetime | None = None):
    store = WatchStore(desk.store)
    watch = await store.add(USER, tickers, Rule(), now=ny("2024-05-01", "12:00"))
    if last is not None:
        watch = await store.ran(watch, last)
    return watch


async def test_a_due_slot_runs_each_ticker_once(settings: Settings) -> None:
    async with DeskRuntime.open(settings) as desk:
        watch = await _watch(desk)
        checks = WatchDesk(desk)
        ran = await checks.check(USER, watch.id, ny("2024-05-06"))
        assert [(r.ticker, r.kept, r.decision is not None) for r in ran] == [("NVDA", False, True),
                                                                          ("AMD", False, True)]
        slot = ny("2024-05-06", "16:30")
        assert [r.thread for r in ran] == [thread_id(watch, t, slot) for t in ("NVDA", "AMD")]
        for r in ran:
            assert r.decision is not None and r.decision.trade_date == "2024-05-06"
        calls = await DecisionLog(desk.store).calls(USER)
        assert sorted((c.ticker, c.source) for c in calls) == [("AMD", "scheduled"), ("NVDA", "scheduled")]
        assert await checks.check(USER, watch.id, ny("2024-05-06", "20:00")) == []  # run: nothing more is due
        stored = await WatchStore(desk.store).get(USER, watch.id)
        assert stored is not None and stored.last_run == slot


async def test_two_processes_run_a_slot_once(settings: Settings) -> None:
    async with DeskRuntime.open(settings) as a, DeskRuntime.open(settings) as b:
        watch = await _watch(a)
        ran = await asyncio.gather(WatchDesk(a).check(USER, watch.id, ny("2024-05-06")),
                                   WatchDesk(b).check(USER, watch.id, ny("2024-05-06")))
        fresh = [r.ticker for rs in ran for r in rs if r.decision is not None and not r.kept]
        assert sorted(fresh) == ["AMD", "NVDA"]  # each ticker deliberated by one process only
        assert len(await DecisionLog(a.store).calls(USER)) == 2
        # and a third look, after both: every thread is kept, nothing runs
        again = await WatchDesk(b).check(USER, watch.id, ny("2024-05-06", "18:00"))
        assert all(r.kept for r in again)


async def test_a_slot_run_by_another_process_between_the_look_and_the_lease_is_kept(settings: Settings,
                                                                                      monkeypatch) -> None:
    # The race CI met: one process finished AMD's slot after the other looked (no thread yet) but before it took
    # the lease; the second then ran the slot again. It looks again under the lease now.
    async with DeskRuntime.open(settings) as a, DeskRuntime.open(settings) as b:
        watch = await _watch(a, ("AMD",))
        slot = ny("2024-05-06", "16:30")
        first = await run_ticker(a, watch, "AMD", slot)

        async def looked_too_early(thread: str) -> bool:
            return False

        monkeypatch.setattr(b, "has_thread", looked_too_early)
        second = await run_ticker(b, watch, "AMD", slot)
        assert first.decision is not None and not first.kept
        assert second.kept and second.decision == first.decision
        assert len(await DecisionLog(a.store).calls(USER)) == 1


async def test_a_missed_slot_runs_once_after_downtime_and_a_holiday_runs_nothing(settings: Settings) -> None:
    async with DeskRuntime.open(settings) as desk:
        watch = await _watch(desk, ("NVDA",), last=ny("2024-05-03", "16:30"))  # Friday's ran; down until Wednesday
        checks = WatchDesk(desk)
        ran = await checks.check(USER, watch.id, ny("2024-05-08", "18:00"))
        assert [r.thread for r in ran] == [thread_id(watch, "NVDA", ny("2024-05-08", "16:30"))]
        for missed in ("2024-05-06", "2024-05-07"):
            assert not await desk.has_thread(thread_id(watch, "NVDA", ny(missed, "16:30")))
        # Memorial Day 2024-05-27: after Friday 05-24's slot nothing is due until Tuesday's
        await WatchStore(desk.store).ran(watch, ny("2024-05-24", "16:30"))
        assert await checks.check(USER, watch.id, ny("2024-05-27", "18:00")) == []


async def test_a_paused_watch_does_not_run(settings: Settings) -> None:
    async with DeskRuntime.open(settings) as desk:
        watch = await _watch(desk, ("NVDA",))
        await WatchStore(desk.store).set_paused(watch, True)
        assert await WatchDesk(desk).check(USER, watch.id, ny("2024-05-06")) == []


@pytest.fixture
async def receiver(loopback: Loopback) -> dict:
    """A webhook receiver on loopback: the first post answers 500, the next ones 200."""
    seen: dict = {"posts": [], "url": ""}

    async def take(request: web.Request) -> web.Response:
        body = await request.read()
        seen["posts"].append((body, request.headers.get(SIGNATURE, "")))
        return web.Response(status=500 if len(seen["posts"]) == 1 else 200)

    seen["url"] = await loopback.serve("/hooks/desk-token-123", take)
    return seen


async def test_a_changed_call_gives_one_notice_and_one_webhook_post(settings: Settings, receiver: dict,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    # What the demo desk decides on NVDA for 2024-05-06, learned on a throwaway desk of its own.
    async with DeskRuntime.open(settings.model_copy(update={"data_dir": settings.data_dir / "probe"})) as probe:
        scout = await _watch(probe, ("NVDA",))
        decided = (await WatchDesk(probe).check(USER, scout.id, ny("2024-05-06")))[0].decision
    assert decided is not None
    before = "SELL" if decided.signal != "SELL" else "BUY"
    async with DeskRuntime.open(settings) as a, DeskRuntime.open(settings) as b:
        await DecisionLog(a.store).save(Call(id="earlier:1", user=USER, thread_id="earlier", ticker="NVDA",
                                             trade_date="2024-05-01", signal=before, stop="n/a"))
        watch = await _watch(a, ("NVDA",))
        first = WatchDesk(a, webhook_url=receiver["url"], webhook_secret=SECRET, webhook_wait_s=0.01)
        ran = await first.check(USER, watch.id, ny("2024-05-06"))
        notice = ran[0].notice
        assert notice is not None and notice.reason == f"{before} → {decided.signal}" and notice.posted
        assert notice.previous_thread == "earlier"
        # the other process wakes for the same slot: no second notice, no second post
        await WatchStore(b.store).ran(watch, ny("2024-05-01", "16:30"))  # as if it had not seen the run
        second = WatchDesk(b, webhook_url=receiver["url"], webhook_secret=SECRET, webhook_wait_s=0.01)
        again = await second.check(USER, watch.id, ny("2024-05-06", "18:00"))
        assert all(r.kept and r.notice is None for r in again)
        notices = await WatchStore(a.store).notices(USER)
        assert len(notices) == 1 and notices[0].posted and not notices[0].seen
    posts = receiver["posts"]
    assert len(posts) == 2  # the 500, then the one taken
    body, signed = posts[-1]
    assert json.loads(body)["reason"] == notice.reason and signed == signature(body, SECRET)
    ours = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("aiohttp"))  # not the receiver's
    assert SECRET not in ours and "desk-token-123" not in ours
    assert "webhook to 127.0.0.1: HTTP 500 (try 1)" in ours  # the failed try is logged, by host


async def test_one_users_watches_and_notices_never_reach_another(settings: Settings) -> None:
    async with DeskRuntime.open(settings) as desk:
        watch = await _watch(desk, ("NVDA",))
        await WatchDesk(desk).check(USER, watch.id, ny("2024-05-06"))
        store = WatchStore(desk.store)
        assert await store.watches("bob@example.com") == []
        assert await store.notices("bob@example.com") == []
        assert await store.get("bob@example.com", watch.id) is None
        assert await WatchDesk(desk).check("bob@example.com", watch.id, ny("2024-05-07")) == []
        assert await DecisionLog(desk.store).calls("bob@example.com") == []


async def test_a_chinese_watch_runs_in_chinese(settings: Settings) -> None:
    async with DeskRuntime.open(settings) as desk:
        store = WatchStore(desk.store)
        watch = await store.add(USER, ("NVDA",), Rule(), language="zh", now=ny("2024-05-01", "12:00"))
        ran = await WatchDesk(desk).check(USER, watch.id, ny("2024-05-06"))
        assert ran[0].decision is not None
        state = await desk.state(ran[0].thread)
        assert state.get("language") == "zh"
