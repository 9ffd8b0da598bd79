"""The live vendor per asset class, on recorded yfinance shapes (tests/support/yahoo.py; nothing reaches the
internet): the class from Yahoo's quoteType, each class's own figures (issue 37, point 3), and none of a
company's (P/E, margins, revenue growth) for anything that is not one, though Yahoo sends a fund's P/E."""
from __future__ import annotations

import asyncio
from datetime import date

import pytest

from graph.core.assets import AssetClass
from graph.data.yfinance_vendor import YFinanceVendor
from graph.tools import make_toolkit

TODAY = date(2024, 5, 10)
COMPANY = ("pe", "forward_pe", "pb", "profit_margin", "debt_to_equity", "revenue_growth", "dividend_yield", "beta")


@pytest.fixture
def vendor() -> YFinanceVendor:
    return YFinanceVendor(sleep=lambda s: None, today=lambda: TODAY)


@pytest.mark.parametrize(("symbol", "kind"), [
    ("NVDA", AssetClass.EQUITY), ("SPY", AssetClass.FUND), ("BTC-USD", AssetClass.CRYPTO),
    ("^GSPC", AssetClass.INDEX), ("EURUSD=X", AssetClass.CURRENCY), ("GC=F", AssetClass.FUTURE),
])
def test_the_class_is_yahoos_quote_type(vendor, yahoo, symbol, kind) -> None:
    assert vendor.asset_class(symbol) is kind


def test_a_fund_has_costs_assets_a_premium_and_holdings_and_no_company_ratios(vendor, yahoo) -> None:
    p = vendor.profile("SPY", TODAY)
    assert p["asset_class"] == "fund" and p["name"] == "SPDR S&P 500 ETF Trust"
    assert p["expense_ratio"] == pytest.approx(0.000945)  # netExpenseRatio 0.0945 is percent
    assert (p["total_assets"], p["nav_price"], p["fund_yield"]) == (633_474_000_000, 590.12, 0.0121)
    assert p["premium_discount"] == pytest.approx(590.5 / 590.12 - 1)
    assert [(h["symbol"], h["weight"]) for h in p["holdings"]][:2] == [("AAPL", 0.0712), ("NVDA", 0.0665)]
    assert all(p[key] is None for key in COMPANY)  # Yahoo's trailingPE 27.31 for SPY is not read


def test_a_fund_without_a_net_expense_ratio_reads_funds_data(vendor, yahoo) -> None:
    info = dict(yahoo.data["SPY"]["info"])  # type: ignore[call-overload]
    del info["netExpenseRatio"]
    yahoo.set("SPY", info=info)
    assert vendor.profile("SPY", TODAY)["expense_ratio"] == pytest.approx(0.000945)


def test_a_coin_has_supply_and_traded_value(vendor, yahoo) -> None:
    p = vendor.profile("BTC-USD", TODAY)
    assert (p["asset_class"], p["name"]) == ("crypto", "Bitcoin USD")
    assert (p["market_cap"], p["circulating_supply"], p["max_supply"], p["volume_24h"]) == (
        1_889_000_000_000, 19_790_000, 21_000_000, 41_250_000_000)
    assert all(p[key] is None for key in COMPANY)


def test_an_index_has_its_level(vendor, yahoo) -> None:
    p = vendor.profile("^GSPC", TODAY)
    assert (p["asset_class"], p["level"]) == ("index", 6032.38)


def test_a_past_day_gets_none_of_todays_figures(vendor, yahoo) -> None:
    p = vendor.profile("SPY", date(2023, 1, 3))
    assert "holdings" not in p and "expense_ratio" not in p and p["name"] == "SPDR S&P 500 ETF Trust"


def _run(vendor, symbol: str, kind: str, name: str) -> tuple[str, dict]:
    tools = {t.name: t for t in make_toolkit(vendor, symbol, TODAY)[kind]}
    message = asyncio.run(tools[name].ainvoke({"type": "tool_call", "name": name, "args": {}, "id": "1"}))
    return str(message.content), message.artifact


def test_the_fundamentals_tool_per_class(vendor, yahoo) -> None:
    text, art = _run(vendor, "SPY", "fundamentals", "get_fundamentals")
    assert art["figures"]["Expense Ratio %"] == 0.09 and art["figures"]["Holding 1"] == "AAPL 7.12%"
    assert "P/E" not in art["figures"] and "Revenue Growth YoY %" not in art["figures"]
    assert "Holding AAPL (Apple Inc): 7.12%" in text
    _, art = _run(vendor, "BTC-USD", "fundamentals", "get_fundamentals")
    assert art["figures"]["Circulating Supply"] == 19_790_000 and art["figures"]["Supply Issued %"] == 94.24
    _, art = _run(vendor, "^GSPC", "fundamentals", "get_fundamentals")
    assert art["figures"] == {"Level": 6032.38} and "Tracked by: SPY, VOO, IVV" in art["items"]
    for symbol in ("EURUSD=X", "GC=F"):
        text, art = _run(vendor, symbol, "fundamentals", "get_fundamentals")
        assert art["figures"] == {} and art["not_applicable"] in ("currency", "future")
        assert "no company fundamentals" in text and len(text.splitlines()) == 2  # the source line and one line
    assert [t.name for t in make_toolkit(vendor, "SPY", TODAY)["fundamentals"]] == ["get_fundamentals",
                                                                                   "get_scheduled_events"]
    assert len(make_toolkit(vendor, "NVDA", TODAY)["fundamentals"]) == 3  # with statements and the calendar


def test_a_currency_pair_has_no_volume_figures(vendor, yahoo) -> None:
    text, art = _run(vendor, "EURUSD=X", "market", "get_price_history")
    assert "Avg Volume 20D" not in art["figures"] and "volume" not in text.splitlines()[2]
    assert "no traded volume" in text
    assert len(str(art["figures"]["Close"]).split(".")[1]) <= 4
    _, art = _run(vendor, "EURUSD=X", "market", "get_indicators")
    assert "VWMA 20" not in art["figures"] and "RSI 14" in art["figures"]
    _, art = _run(vendor, "BTC-USD", "market", "get_price_history")
    assert art["figures"]["Avg Volume 20D"] > 0
