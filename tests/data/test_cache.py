"""CachedVendor: hits, TTL for open periods, forever for closed ones, no error caching."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta

import pandas as pd
import pytest

from graph.data.cache import CachedVendor
from graph.data.synthetic import SyntheticVendor
from graph.data.vendor import FILED_ATTR, NewsItem, Post, Vendor, VendorError
from graph.tools import make_toolkit

TODAY = date(2024, 5, 6)
PAST = date(2024, 4, 1)


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class CountingVendor:
    """A vendor that counts calls per method and can be told to fail."""

    name = "counting"
    label = "counting test vendor"

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        self.fail_with: VendorError | None = None
        self._lock = threading.Lock()

    def _hit(self, method: str) -> None:
        with self._lock:
            self.calls[method] = self.calls.get(method, 0) + 1
        if self.fail_with is not None:
            raise self.fail_with

    def ohlcv(self, ticker, start, end):
        self._hit("ohlcv")
        days = pd.bdate_range(start, end, name="date")
        n = self.calls["ohlcv"]
        return pd.DataFrame({"open": 1.0, "high": 2.0, "low": 0.5, "close": float(n), "volume": 100}, index=days)

    def profile(self, ticker, as_of):
        self._hit("profile")
        return {"name": f"{ticker} Inc.", "pe": 10.0 + self.calls["profile"]}

    def statements(self, ticker, as_of, kind):
        self._hit("statements")
        frame = pd.DataFrame({pd.Timestamp("2023-12-31"): [5.0]}, index=["Total Revenue"])
        frame.attrs[FILED_ATTR] = {pd.Timestamp("2023-12-31"): pd.Timestamp("2024-02-14")}
        return frame

    def news(self, ticker, start, end):
        self._hit("news")
        return [NewsItem(published=datetime(2024, 3, 30, 9), title=f"{ticker} news", publisher="Wire")]

    def macro_news(self, start, end):
        self._hit("macro_news")
        return [NewsItem(published=datetime(2024, 3, 30, 9), title="macro", publisher="Wire", url="u")]

    def social_posts(self, ticker, start, end):
        self._hit("social_posts")
        return [Post(created=datetime(2024, 3, 30, 9), text="up", sentiment="bullish", source="x")]

    def recommendations(self, ticker, as_of):
        self._hit("recommendations")
        return [{"date": date(2024, 3, 1), "firm": "F", "to_grade": "Buy", "from_grade": None, "action": "up"}]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def inner() -> CountingVendor:
    return CountingVendor()


@pytest.fixture
def cached(tmp_path, inner, clock):
    vendor = CachedVendor(inner, tmp_path / "cache" / "vendor.sqlite", ttl_seconds=900, today=lambda: TODAY,
                          clock=clock)
    yield vendor
    vendor.close()


def test_protocol_and_identity(cached):
    assert isinstance(cached, Vendor)
    assert (cached.name, cached.label) == ("counting", "counting test vendor")


def test_second_identical_call_is_a_hit(cached, inner):
    first = cached.ohlcv("NVDA", date(2024, 3, 1), PAST)
    second = cached.ohlcv("NVDA", date(2024, 3, 1), PAST)
    assert inner.calls["ohlcv"] == 1
    pd.testing.assert_frame_equal(first, second)
    cached.ohlcv("NVDA", date(2024, 3, 2), PAST)  # different args: a new entry
    cached.ohlcv("AAPL", date(2024, 3, 1), PAST)
    assert inner.calls["ohlcv"] == 3


def test_every_method_is_cached_and_round_trips(cached, inner):
    calls = [
        lambda: cached.ohlcv("NVDA", date(2024, 3, 1), PAST),
        lambda: cached.profile("NVDA", PAST),
        lambda: cached.statements("NVDA", PAST, "income"),
        lambda: cached.news("NVDA", date(2024, 3, 25), PAST),
        lambda: cached.macro_news(date(2024, 3, 25), PAST),
        lambda: cached.social_posts("NVDA", date(2024, 3, 25), PAST),
        lambda: cached.recommendations("NVDA", PAST),
    ]
    firsts = [fn() for fn in calls]
    seconds = [fn() for fn in calls]
    assert set(inner.calls.values()) == {1} and len(inner.calls) == 7
    for a, b in zip(firsts, seconds):
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b)
            assert a.attrs == b.attrs
        else:
            assert a == b
    statement = seconds[2]
    assert statement.attrs[FILED_ATTR] == {pd.Timestamp("2023-12-31"): pd.Timestamp("2024-02-14")}
    assert isinstance(seconds[3][0], NewsItem) and isinstance(seconds[5][0], Post)
    assert seconds[6][0]["date"] == date(2024, 3, 1)


def test_hits_are_fresh_copies(cached):
    frame = cached.ohlcv("NVDA", date(2024, 3, 1), PAST)
    frame["close"] = -1.0
    assert (cached.ohlcv("NVDA", date(2024, 3, 1), PAST)["close"] > 0).all()


def test_todays_answers_expire_after_ttl(cached, inner, clock):
    assert cached.profile("NVDA", TODAY)["pe"] == 11.0
    clock.advance(899)
    assert cached.profile("NVDA", TODAY)["pe"] == 11.0
    assert inner.calls["profile"] == 1
    clock.advance(2)
    assert cached.profile("NVDA", TODAY)["pe"] == 12.0  # refetched
    assert inner.calls["profile"] == 2
    # an open window (ends today) expires too, as does a future one
    cached.news("NVDA", date(2024, 5, 1), TODAY)
    cached.news("NVDA", date(2024, 5, 1), TODAY + timedelta(days=3))
    clock.advance(1000)
    cached.news("NVDA", date(2024, 5, 1), TODAY)
    cached.news("NVDA", date(2024, 5, 1), TODAY + timedelta(days=3))
    assert inner.calls["news"] == 4


def test_past_dates_are_kept_forever(cached, inner, clock):
    cached.ohlcv("NVDA", date(2024, 3, 1), PAST)
    cached.statements("NVDA", PAST, "income")
    clock.advance(10 * 365 * 86400)
    cached.ohlcv("NVDA", date(2024, 3, 1), PAST)
    cached.statements("NVDA", PAST, "income")
    assert inner.calls == {"ohlcv": 1, "statements": 1}


def test_yesterday_is_still_open_by_default(tmp_path, inner, clock):
    yesterday = TODAY - timedelta(days=1)
    strict = CachedVendor(inner, tmp_path / "a.sqlite", today=lambda: TODAY, clock=clock)
    loose = CachedVendor(inner, tmp_path / "b.sqlite", today=lambda: TODAY, clock=clock, settle_days=0)
    strict.profile("NVDA", yesterday)
    loose.profile("NVDA", yesterday)
    clock.advance(10_000)
    strict.profile("NVDA", yesterday)  # expired: refetch
    loose.profile("NVDA", yesterday)  # kept
    assert inner.calls["profile"] == 3
    strict.close()
    loose.close()


def test_errors_are_not_cached(cached, inner):
    inner.fail_with = VendorError("rate limited by Yahoo Finance; try again in a minute")
    for _ in range(2):
        with pytest.raises(VendorError, match="rate limited"):
            cached.ohlcv("NVDA", date(2024, 3, 1), PAST)
    assert inner.calls["ohlcv"] == 2
    inner.fail_with = None
    assert not cached.ohlcv("NVDA", date(2024, 3, 1), PAST).empty
    cached.ohlcv("NVDA", date(2024, 3, 1), PAST)
    assert inner.calls["ohlcv"] == 3


def test_survives_reopening_the_file(tmp_path, inner, clock):
    path = tmp_path / "vendor.sqlite"
    first = CachedVendor(inner, path, today=lambda: TODAY, clock=clock)
    kept = first.statements("NVDA", PAST, "income")
    first.profile("NVDA", TODAY)
    first.close()

    again = CachedVendor(inner, path, today=lambda: TODAY, clock=clock)
    pd.testing.assert_frame_equal(again.statements("NVDA", PAST, "income"), kept)
    assert again.statements("NVDA", PAST, "income").attrs == kept.attrs
    again.profile("NVDA", TODAY)  # still within its TTL
    assert inner.calls == {"statements": 1, "profile": 1}
    clock.advance(901)
    again.profile("NVDA", TODAY)
    assert inner.calls["profile"] == 2
    again.close()


def test_thread_safe_under_concurrent_calls(cached, inner):
    def work(i: int):
        return cached.profile(f"T{i % 5}", PAST)["name"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        names = list(pool.map(work, range(200)))
    assert names == [f"T{i % 5} Inc." for i in range(200)]
    # a concurrent miss may fetch twice, but most calls are hits
    assert 5 <= inner.calls["profile"] <= 5 + 8


def test_tools_through_the_cache(tmp_path):
    vendor = CachedVendor(SyntheticVendor(), tmp_path / "synthetic.sqlite", today=lambda: TODAY)
    tool = make_toolkit(vendor, "NVDA", date(2024, 5, 1))["market"][0]

    def run():
        message = asyncio.run(tool.ainvoke({"type": "tool_call", "name": tool.name, "args": {}, "id": "c1"}))
        return message.content, message.artifact

    first = run()
    second = run()
    assert first == second
    assert first[1]["source"] == "synthetic" and "error" not in first[1]
    assert first[0].startswith("Source: synthetic demo data")
    vendor.close()
