"""Which day a vendor call is made for, and the vendor failures of each day.

The analysts' tools answer a vendor failure with "no data: …" and the desk deliberates on what is left
(graph/tools/guarded.py): right for a live question, wrong for a backtest day, whose signal would then rest
on data it did not have. So the backtest's desk reads its vendor through `WatchedVendor`, which notes every
failure against the day being run; the runner retries such a day once and otherwise marks it failed
(graph/backtest/runner.py), never using its signal.

The day is a context variable set by the runner around each day's run: asyncio tasks and the worker threads
of `asyncio.to_thread` (where the tools call the vendor) inherit it, so days running at once each see their
own. A test's vendor reads `current_day()` to refuse data after the day being run.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeVar

import pandas as pd

from ..core.assets import AssetClass
from ..data.vendor import Event, NewsItem, Observation, OptionChain, Post, StatementKind, Vendor

T = TypeVar("T")
# The custom event a LangGraph Server's vendor sends for each failure (graph/server.py), which a runner whose
# days run there counts (graph/backtest/server_days.py).
VENDOR_FAILED = "vendor_failed"


@dataclass
class DayWatch:
    ticker: str
    day: date
    failures: list[str] = field(default_factory=list)


_DAY: ContextVar[DayWatch | None] = ContextVar("backtest_day", default=None)


def current_day() -> DayWatch | None:
    """The (ticker, day) whose run this code is part of; None outside a backtest day."""
    return _DAY.get()


@contextmanager
def watching(ticker: str, day: date) -> Iterator[DayWatch]:
    watch = DayWatch(ticker, day)
    token = _DAY.set(watch)
    try:
        yield watch
    finally:
        _DAY.reset(token)


class WatchedVendor:
    """`inner`, with each failure noted against the day being run (then raised as it was)."""

    def __init__(self, inner: Vendor):
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def label(self) -> str:
        return self.inner.label

    @property
    def macro_source(self) -> str | None:
        return getattr(self.inner, "macro_source", None)

    def _call(self, what: str, fn: Callable[..., T], *args: Any) -> T:
        try:
            return fn(*args)
        except Exception as exc:
            if (watch := _DAY.get()) is not None:
                watch.failures.append(f"{what}: {str(exc) or type(exc).__name__}")
            raise

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        return self._call(f"prices of {ticker}", self.inner.ohlcv, ticker, start, end)

    def profile(self, ticker: str, as_of: date) -> dict:
        return self._call(f"profile of {ticker}", self.inner.profile, ticker, as_of)

    def statements(self, ticker: str, as_of: date, kind: StatementKind) -> pd.DataFrame:
        return self._call(f"{kind} statements of {ticker}", self.inner.statements, ticker, as_of, kind)

    def news(self, ticker: str, start: date, end: date) -> list[NewsItem]:
        return self._call(f"news of {ticker}", self.inner.news, ticker, start, end)

    def macro_news(self, start: date, end: date) -> list[NewsItem]:
        return self._call("market news", self.inner.macro_news, start, end)

    def social_posts(self, ticker: str, start: date, end: date) -> list[Post]:
        return self._call(f"social posts on {ticker}", self.inner.social_posts, ticker, start, end)

    def events(self, ticker: str, as_of: date, until: date) -> list[Event]:
        return self._call(f"scheduled events of {ticker}", self.inner.events, ticker, as_of, until)

    def macro_series(self, series_id: str, start: date, as_of: date) -> list[Observation]:
        return self._call(f"macro series {series_id}", self.inner.macro_series, series_id, start, as_of)

    def option_chain(self, ticker: str, as_of: date) -> OptionChain | None:
        return self._call(f"option chain of {ticker}", self.inner.option_chain, ticker, as_of)

    def asset_class(self, ticker: str) -> AssetClass:
        return self._call(f"asset class of {ticker}", self.inner.asset_class, ticker)

    def recommendations(self, ticker: str, as_of: date) -> list[dict]:
        return self._call(f"analyst grades of {ticker}", self.inner.recommendations, ticker, as_of)
