"""The whole desk on the live vendor path: yfinance (mocked with recorded shapes) behind the cache."""
from __future__ import annotations

import re
from datetime import date

from langchain_core.messages import ToolMessage

from graph.data import make_vendor
from graph.data.cache import CachedVendor
from graph.data.yfinance_vendor import YFinanceVendor
from tests.support.models import ScriptedChatModel, system_text
from tests.support.yahoo import STOCKTWITS, price_frame


def live_vendor(tmp_path, sleeps=None):
    inner = YFinanceVendor(sleep=lambda s: None, today=lambda: date(2024, 5, 6),
                           fetch=lambda url, timeout: STOCKTWITS)
    return CachedVendor(inner, tmp_path / "cache.sqlite", today=lambda: date(2024, 5, 6))


async def test_reports_quote_the_vendors_numbers_and_a_rerun_makes_no_vendor_calls(desk_factory, yahoo, tmp_path):
    vendor = live_vendor(tmp_path)
    model = ScriptedChatModel()
    desk = desk_factory(model, vendor=vendor)
    await desk.ask("should I buy NVDA on 2024-04-30?")
    state = await desk.state()
    closes = price_frame()["Close"]
    expected = round(float(closes[closes.index.strftime("%Y-%m-%d") == "2024-04-30"].iloc[0]), 2)
    assert re.search(rf"\| Close \| {re.escape(str(expected))} \|", state["market_report"])
    market = [c for c in model.calls if c["persona"] == "Market Analyst"]
    assert "Data source: Yahoo Finance (yfinance)" in system_text(market[0]["messages"])
    results = [str(m.content) for m in market[-1]["messages"] if isinstance(m, ToolMessage)]
    assert results and all(r.startswith("Source: Yahoo Finance (yfinance) · as of 2024-04-30") for r in results)
    assert state["final_decision"].ticker == "NVDA"

    calls = len(yahoo.calls)
    again = desk_factory(ScriptedChatModel(), vendor=vendor)
    await again.ask("should I buy NVDA on 2024-04-30?")
    assert len(yahoo.calls) == calls, "the second analysis of a closed date is served from the cache"


def test_settings_pick_the_vendor_and_never_mix(settings, monkeypatch):
    assert make_vendor(settings).name == "synthetic"
    live = settings.model_copy(update={"openai_api_key": "sk-test"})
    vendor = make_vendor(live)
    assert (vendor.name, type(vendor)) == ("yfinance", CachedVendor)
    forced = live.model_copy(update={"data_vendor": "synthetic"})
    assert make_vendor(forced).label.startswith("synthetic")
