"""A backtest's desk in-process: the demo model at full speed, in-memory checkpoints and store, and the
runner's watched vendor over a vendor a test chooses (the synthetic one by default)."""
from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import pandas as pd
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from graph.backtest.plan import make_plan
from graph.backtest.record import Backtest, Records
from graph.backtest.runner import Runner
from graph.backtest.watch import WatchedVendor
from graph.core.settings import Settings
from graph.data.synthetic import SyntheticVendor
from graph.data.vendor import Vendor
from graph.models.demo import DemoChatModel
from graph.models.registry import ModelRegistry
from graph.persistence.checkpoint import SERDE
from graph.runtime.desk import DeskRuntime

TODAY = date(2024, 6, 28)  # the desk's "today" in these tests: every window is before it


class MissingDay(SyntheticVendor):
    """The synthetic rows without the given days' (a session the vendor has no close for)."""

    def __init__(self, *missing: str) -> None:
        self.missing = {date.fromisoformat(d) for d in missing}

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        frame = super().ohlcv(ticker, start, end)
        return frame[[stamp.date() not in self.missing for stamp in frame.index]]


def backtest_desk(settings: Settings, vendor: Vendor | None = None, **kept: Any) -> DeskRuntime:
    """A desk as the backtest opens it; `kept` (checkpointer=, store=) shares storage between two desks, as two
    processes on one database would."""
    models = ModelRegistry.fixed(DemoChatModel(delay_ms=0), settings, notice="demo")
    desk = DeskRuntime.build(settings, kept.get("checkpointer") or InMemorySaver(serde=SERDE),
                             kept.get("store") or InMemoryStore(), models=models,
                             vendor=WatchedVendor(vendor or SyntheticVendor()))
    return desk


Make = Callable[..., Any]


@pytest.fixture
def new_backtest(settings: Settings) -> Make:
    """make(desk, tickers, start, end, **plan options) → a stored Backtest of that plan."""
    async def make(desk: DeskRuntime, tickers: list[str], start: date, end: date, **options: Any) -> Backtest:
        plan = await make_plan(desk.vendor, desk.settings, tickers, start, end, today=TODAY, **options)
        return await Records(desk.store).create("tester", plan)
    return make


async def run_all(desk: DeskRuntime, backtest: Backtest, concurrency: int = 2, **options: Any) -> Runner:
    runner = Runner(desk, backtest, concurrency=concurrency, **options)
    await runner.run()
    return runner
