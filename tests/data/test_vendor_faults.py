"""The data vendor hangs or fails mid-analysis (issue 36, point 3).

A whole desk run on a vendor behind the real SQLite cache (graph/data/cache.py): a vendor whose price calls
block on an Event (a hang), and one that dies after answering part of the analysis and part of a frame. Each
time the run finishes with a decision, the analyst's report names what it lacks in one plain line (in the
thread's language, no figure for it), the cache holds nothing of the failed calls, a later good call is
cached, and no thread or task is left blocked once the vendor lets go.
"""
from __future__ import annotations

import asyncio
import pickle
import sqlite3
import threading
import time
from datetime import date, timedelta
from pathlib import Path

import pandas as pd
import pytest

from graph.core.settings import Settings
from graph.data import make_vendor
from graph.data.cache import CachedVendor
from graph.data.synthetic import SyntheticVendor
from graph.data.vendor import VendorError, vendor_call
from graph.data.yfinance_vendor import YFinanceVendor
from graph.nodes.analysts import missing_data
from graph.tools.guarded import VENDOR_TIMEOUT_S, call_vendor, timeout_of
from tests.data.test_yfinance_vendor import TRADE, Feeds, http_error
from tests.support.desk import TODAY

pytestmark = pytest.mark.faults

TIMEOUT_S = 0.3
MISSING_PRICES = "Data I could not get, so not used and not estimated: price history, technical indicators."


class HangingVendor(SyntheticVendor):
    """Synthetic data, but every price call blocks until `release` is set (while `hang` is on)."""
    name, label = "hanging", "a vendor whose prices hang"

    def __init__(self) -> None:
        self.hang = True
        self.release = threading.Event()
        self.in_flight = 0
        self.started = 0
        self._lock = threading.Lock()

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        if self.hang:
            with self._lock:
                self.in_flight += 1
                self.started += 1
            try:
                self.release.wait(30)
            finally:
                with self._lock:
                    self.in_flight -= 1
        return super().ohlcv(ticker, start, end)


class MidwayVendor(SyntheticVendor):
    """Answers the analysis's first calls, then dies: its price frame is built row by row and the
    connection drops half-way through it (the rows already read are lost with the exception)."""
    name, label = "midway", "a vendor that fails mid-way"

    def __init__(self) -> None:
        self.broken = True
        self.rows_read = 0

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        whole = super().ohlcv(ticker, start, end)
        if not self.broken:
            return whole
        part = whole.iloc[:0]
        for i in range(len(whole)):
            if i == len(whole) // 2:
                self.rows_read = len(part)
                raise VendorError(f"connection reset after {len(part)} rows")
            part = pd.concat([part, whole.iloc[i:i + 1]])
        return part


def cached_methods(path: Path) -> list[str]:
    """The methods the cache file holds an answer of (each key is `vendor:method:args`)."""
    with sqlite3.connect(path) as db:
        return sorted(key.split(":")[1] for (key,) in db.execute("SELECT key FROM vendor_cache"))


def cached_values(path: Path, method: str) -> list[object]:
    with sqlite3.connect(path) as db:
        return [pickle.loads(v) for (k, v) in db.execute("SELECT key, value FROM vendor_cache") if f":{method}:" in k]


def vendor_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("desk-vendor")]


async def test_a_hanging_vendor_times_out_the_run_decides_and_nothing_late_is_cached(desk_factory, tmp_path):
    inner = HangingVendor()
    cache = tmp_path / "market_cache.sqlite"
    vendor = CachedVendor(inner, cache, today=lambda: TODAY, timeout_s=TIMEOUT_S)
    desk = desk_factory(vendor=vendor)
    started = time.monotonic()
    await desk.ask("should I buy NVDA today?")
    state = await desk.state()
    assert state["final_decision"] is not None, "the run goes on to a decision"
    assert time.monotonic() - started < 20, "each hanging call waited its time limit, not forever"
    assert inner.started >= 1 and inner.in_flight >= 1, "the vendor really hung"
    assert MISSING_PRICES in state["market_report"]
    assert "| Key figure |" not in state["market_report"], "no figure stands in for the prices"
    assert "ohlcv" not in cached_methods(cache), "a timed-out call stored nothing"
    assert "profile" in cached_methods(cache), "the calls that answered are cached"

    inner.release.set()  # the vendor lets go: the abandoned threads finish, and their late answers are dropped
    for _ in range(200):
        if inner.in_flight == 0:
            break
        await asyncio.sleep(0.05)
    assert inner.in_flight == 0, "no thread is left blocked in the vendor"
    await asyncio.sleep(0.1)
    assert "ohlcv" not in cached_methods(cache), "a late answer is never cached"
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == [], "no task is left"

    inner.hang = False  # the vendor is back: a good call is cached
    frame = await call_vendor(vendor.ohlcv, "NVDA", TODAY - timedelta(days=30), TODAY)
    assert not frame.empty and cached_methods(cache).count("ohlcv") == 1


async def test_a_vendor_failing_mid_way_caches_nothing_partial_and_the_thread_language_is_kept(desk_factory, tmp_path):
    inner = MidwayVendor()
    cache = tmp_path / "market_cache.sqlite"
    vendor = CachedVendor(inner, cache, today=lambda: TODAY)
    desk = desk_factory(vendor=vendor)
    await desk.ask("我今天应该买入 NVDA 吗？")
    state = await desk.state()
    assert state["final_decision"] is not None
    assert inner.rows_read > 0, "the frame was half read when the vendor failed"
    assert "未能获取以下数据，因此未使用，也未作任何估算：价格历史、技术指标。" in state["market_report"]
    assert "ohlcv" not in cached_methods(cache), "no part of the frame is cached"
    assert {"profile", "statements"} <= set(cached_methods(cache)), "what answered before the failure is"

    inner.broken = False
    start, end = TODAY - timedelta(days=30), TODAY
    frame = await call_vendor(vendor.ohlcv, "NVDA", start, end)
    [stored] = cached_values(cache, "ohlcv")
    assert isinstance(stored, pd.DataFrame)
    assert len(stored) == len(frame) == len(SyntheticVendor().ohlcv("NVDA", start, end)), "the whole frame"


def test_an_answer_a_feed_gave_in_part_is_shown_but_not_cached(tmp_path):
    """Yahoo's social posts: Reddit answers, StockTwits fails: the posts are used, never kept as the whole."""
    feeds = Feeds(stocktwits=http_error(503, "Service Unavailable"))
    cache = tmp_path / "market_cache.sqlite"
    vendor = CachedVendor(YFinanceVendor(fetch=feeds), cache, today=lambda: date(2024, 5, 3))
    assert vendor.social_posts("NVDA", date(2024, 4, 30), TRADE), "the part that answered is used"
    assert cached_methods(cache) == []
    feeds.answers["api.stocktwits.com"] = Feeds().answers["api.stocktwits.com"]
    vendor.social_posts("NVDA", date(2024, 4, 30), TRADE)
    assert cached_methods(cache) == ["social_posts"], "both feeds answered: cached"


def test_a_given_up_call_stops_a_retrying_vendor():
    """The tools' time limit passed: the live vendor makes no further try (its backoff would outlive the run)."""
    tries: list[int] = []
    stop = threading.Event()

    def fetch() -> None:
        tries.append(1)
        stop.set()  # the caller gives up while this try fails
        raise ConnectionError("reset")

    with vendor_call(stop), pytest.raises(VendorError, match="in time"):
        YFinanceVendor(retries=3, sleep=lambda s: None)._retry(fetch, "NVDA prices")
    assert tries == [1]


async def test_the_time_limit_is_a_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("DESK_VENDOR_TIMEOUT_S", "0.2")
    live = Settings(DESK_DATA_DIR=tmp_path, DESK_DATA_VENDOR="yfinance")
    assert timeout_of(make_vendor(live).ohlcv, ()) == 0.2
    assert timeout_of(make_vendor(live.model_copy(update={"data_vendor": "synthetic"})).ohlcv, ()) == 0.2
    default = Settings.model_fields["vendor_timeout_s"].default
    assert timeout_of(SyntheticVendor().ohlcv, ()) == VENDOR_TIMEOUT_S == default
    inner = HangingVendor()
    inner.timeout_s = 0.2
    started = time.monotonic()
    with pytest.raises(VendorError, match=r"^timeout: the data source did not answer within 0.2 s"):
        await call_vendor(inner.ohlcv, "NVDA", TODAY - timedelta(days=5), TODAY)
    assert time.monotonic() - started < 2
    inner.release.set()


def test_the_missing_line_names_only_data_no_later_call_brought():
    from langchain_core.messages import ToolMessage

    def result(tool: str, **art: object) -> ToolMessage:
        return ToolMessage(content="x", tool_call_id=tool, name=tool, artifact={"tool": tool, **art})

    failed = {"error": "timeout", "failed": True}
    results = [result("get_price_history", **failed), result("get_indicators", **failed),
               result("get_indicators", figures={"RSI": 50}), result("get_company_news", error="no news")]
    assert missing_data(results, "en") == "Data I could not get, so not used and not estimated: price history."
    assert missing_data(results, "fr").endswith(": historique des cours.")
    assert missing_data(results[2:], "en") == "", "an empty answer is not a failure"
