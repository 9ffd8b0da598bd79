"""Point 5 of issue 40: what a watch's slot and an MCP client ask for feeds the paper book. Each runs the demo
desk as it runs for real (the slot through graph/watchlist/slots.py, MCP through graph/mcp/service.py's
DeskService), logs its call with its source ("scheduled" for a watch's slot, "mcp"), and the paper keeper takes
it as an order, to fill at the next session's open."""
from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import time_machine

from graph.core.settings import Settings
from graph.mcp.service import SOURCE as MCP_SOURCE
from graph.mcp.service import DeskService
from graph.runtime.desk import DeskRuntime
from graph.track.log import DecisionLog
from graph.watchlist.rules import Rule
from graph.watchlist.scheduler import WatchDesk
from graph.watchlist.slots import SOURCE as WATCH_SOURCE
from graph.watchlist.store import WatchStore

USER = "ana@example.com"
OPT_IN = datetime(2024, 5, 6, 13, 0, tzinfo=UTC)     # Mon 2024-05-06, before the US open
SLOT = datetime(2024, 5, 6, 21, 0, tzinfo=UTC)       # 17:00 in New York: the day's slot is due
LATER = date(2024, 5, 9)                             # the 7th and the 8th have closed


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, demo_delay_ms=0, demo_first_token_ms=0)


async def test_a_watch_slots_call_is_followed_on_paper(settings: Settings) -> None:
    async with DeskRuntime.open(settings) as desk:
        with time_machine.travel(OPT_IN, tick=False):
            await desk.paper.start(USER, "100000", OPT_IN)
            watch = await WatchStore(desk.store).add(USER, ("NVDA",), Rule(), now=OPT_IN)
        with time_machine.travel(SLOT, tick=False):
            ran = await WatchDesk(desk).check(USER, watch.id, SLOT)
        assert [r.ticker for r in ran] == ["NVDA"] and ran[0].decision is not None
        calls = await DecisionLog(desk.store).calls(USER)
        assert [(c.ticker, c.source) for c in calls] == [("NVDA", WATCH_SOURCE)]
        paper = await desk.paper.settle(USER, LATER)
        assert paper is not None
        assert [(o.call_id, o.source, o.decided) for o in paper.book.orders] == [(calls[0].id, WATCH_SOURCE,
                                                                                  "2024-05-06")]
        traded = [t for t in paper.ledger.trades if t.call_id == calls[0].id]
        if calls[0].signal == "HOLD":
            assert [u.order.call_id for u in paper.ledger.skipped] == [calls[0].id] and not traded
        else:
            assert traded and traded[0].day == date(2024, 5, 7)  # the next session's open, not the slot's day


async def test_an_mcp_analysis_is_followed_on_paper(settings: Settings) -> None:
    async with DeskRuntime.open(settings) as desk:
        with time_machine.travel(OPT_IN, tick=False):
            await desk.paper.start(USER, "100000", OPT_IN)
        with time_machine.travel(SLOT, tick=False):
            replied = await DeskService(desk, USER).analyse("should I buy NVDA today?")
        calls = await DecisionLog(desk.store).calls(USER)
        assert [(c.ticker, c.source, c.trade_date) for c in calls] == [("NVDA", MCP_SOURCE, "2024-05-06")]
        assert calls[0].thread_id in replied.text or calls[0].thread_id in str(replied)
        paper = await desk.paper.settle(USER, LATER)
        assert paper is not None
        assert [(o.call_id, o.source) for o in paper.book.orders] == [(calls[0].id, MCP_SOURCE)]
        if calls[0].signal != "HOLD":
            assert [t.day for t in paper.ledger.trades if t.call_id == calls[0].id][:1] == [date(2024, 5, 7)]
        other = await desk.paper.settle("bob@example.com", LATER)
        assert other is None  # another user's book does not exist, let alone take ana's call
