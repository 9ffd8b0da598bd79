"""A watch's slot stopped by SIGTERM or SIGKILL (issue 36 point 4): the scheduler in a real process of its own,
wired as the chat server wires it (tests/support/watch_process.py), its webhook a receiver on loopback that counts
what it is posted. The slot watches NVDA then AMD, each with an earlier call whose stop every close crosses, so each
run gives a notice. The process is stopped once NVDA's run is over and posted, while AMD's Trader speaks (or, killed,
once AMD's run is decided but before its notice is made); then the scheduler starts again (in this process, as a
restarted server's catches up). The slot runs exactly once: NVDA kept, not run again nor posted again; AMD goes on
from its last checkpoint (no persona speaking twice) and its notice is made and posted once; the slot is marked run.
SIGTERM is a graceful stop: exit 143, the slot's lease released."""
from __future__ import annotations

import asyncio
import json
import signal
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from graph.core import clock
from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.track.calls import Call
from graph.track.log import DecisionLog
from graph.watchlist.rules import Rule
from graph.watchlist.scheduler import WatchDesk, jobs_url
from graph.watchlist.slots import Ran, thread_id
from graph.watchlist.store import Notice, Watch, WatchStore
from tests.support.signalled import child_env, held, leased, settings_of, threads, when_pending

pytestmark = [pytest.mark.e2e, pytest.mark.faults]

USER = "ana@example.com"
TICKERS = ("NVDA", "AMD")


class Receiver:
    """A webhook on 127.0.0.1, shared by the tests: each test posts to a path of its own; every post is counted."""

    def __init__(self) -> None:
        self.posts: dict[str, list[dict[str, object]]] = {}
        receiver = self

        class Take(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # http.server's name for it
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.posts.setdefault(self.path, []).append(json.loads(body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Take)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    taking = Receiver()
    yield taking
    taking.server.shutdown()


def fast(data: Path) -> Settings:
    return settings_of(data).model_copy(update={"demo_delay_ms": 0.0, "demo_first_token_ms": 0.0})


async def _watched(data: Path) -> tuple[Watch, datetime]:
    """A watch made ten days ago, so its latest slot is due now; an earlier BUY on each ticker with a stop above
    every close (so each run gives a notice, whatever it decides)."""
    async with DeskRuntime.open(fast(data)) as desk:
        now = clock.now()
        watch = await WatchStore(desk.store).add(USER, TICKERS, Rule(), now=now - timedelta(days=10))
        slot = watch.rule.due(now, last_run=None, since=watch.created_at)
        assert slot is not None
        earlier = (slot.astimezone(watch.rule.tz).date() - timedelta(days=7)).isoformat()
        for ticker in TICKERS:
            await DecisionLog(desk.store).save(Call(id=f"earlier:{ticker}", user=USER, thread_id=f"earlier-{ticker}",
                                                    ticker=ticker, trade_date=earlier, signal="BUY", stop="999999"))
        return watch, slot


async def _restarted(data: Path, url: str, watch: Watch) -> tuple[list[Ran], Watch, list[Notice], list[Call]]:
    """The scheduler started again on the same data: its catch-up's runs, then the watch, its notices and calls."""
    async with DeskRuntime.open(fast(data)) as desk:
        watches = WatchDesk(desk, webhook_url=url, webhook_wait_s=0.01)
        await watches.start(jobs_url(data, None))
        try:
            assert watches.background is not None
            ran = await watches.background
        finally:
            await watches.close()
        store = WatchStore(desk.store)
        after = await store.get(USER, watch.id)
        assert after is not None
        return ran, after, await store.notices(USER), await DecisionLog(desk.store).calls(USER)


@pytest.mark.parametrize(("hold", "how"), [("Trader#2", signal.SIGTERM), ("Trader#2", signal.SIGKILL),
                                           ("notice#2", signal.SIGKILL)],
                         ids=["SIGTERM-mid-run", "SIGKILL-mid-run", "SIGKILL-before-the-notice"])
def test_a_watch_slot_stopped_half_way_runs_once_and_posts_once(tmp_path: Path, receiver: Receiver, hold: str,
                                                                how: signal.Signals) -> None:
    data = tmp_path / "data"
    watch, slot = asyncio.run(_watched(data))
    path = f"/hooks/{uuid.uuid4().hex}"
    nvda, amd = (thread_id(watch, t, slot) for t in TICKERS)
    with held(["-m", "tests.support.watch_process", hold, "{fd}"], child_env(data, DESK_WEBHOOK_URL=receiver.url(path)),
              tmp_path) as run:
        run.wait_held()
        if hold.startswith("Trader"):
            when_pending(data, amd, "Trader")
        code = run.stop(how)
    before = threads(data, [nvda, amd])
    assert before[nvda].decided and before[amd].decided == hold.startswith("notice"), run.output
    assert [p["id"] for p in receiver.posts.get(path, [])] == [nvda], run.output  # NVDA's, posted before the stop
    if how == signal.SIGTERM:
        assert code == 143, run.output
        assert leased(data, [amd]) == []  # let go on the way out
    else:
        assert code == -signal.SIGKILL

    ran, after, notices, calls = asyncio.run(_restarted(data, receiver.url(path), watch))
    assert [(r.ticker, r.kept) for r in ran] == [("NVDA", True), ("AMD", hold.startswith("notice"))]
    assert all(r.decision is not None for r in ran) and after.last_run == slot  # the slot is run, once
    assert Counter(p["id"] for p in receiver.posts[path]) == {nvda: 1, amd: 1}  # each notice posted exactly once
    assert sorted((n.id, n.posted) for n in notices) == sorted([(nvda, True), (amd, True)])
    assert Counter(c.thread_id for c in calls if c.thread_id in (nvda, amd)) == {nvda: 1, amd: 1}  # one call each
    now = threads(data, [nvda, amd])
    assert now[nvda] == before[nvda]  # not one step more
    assert now[amd].decided and now[amd].asked == 1 and now[amd].spoken.count("Trader") == 1
    assert now[amd].spoken[:len(before[amd].spoken)] == before[amd].spoken  # went on, did not begin again
