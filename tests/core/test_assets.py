"""Every instrument has an asset class, and its class a calendar (issue 37, points 1 and 2).

The classes come from the symbol and the desk's names in demo, from Yahoo's quoteType when live (recorded
`.info` shapes below, trimmed to the fields that say what an instrument is). The calendars' days were checked
by hand: 2026-11-28 is a Saturday (crypto trades, the NYSE does not); 2026-11-26 is Thanksgiving (the NYSE
closed, CME Globex trading a short session); 2026-04-03 is Good Friday (the NYSE and CME Globex closed,
currencies trading); 2026-12-25 is a Friday (closed but for crypto and currencies)."""
from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from graph.core.assets import SERVED, AssetClass, classify, from_quote_type, market_of, tracking_funds
from graph.core.trading_days import fx_open, is_trading_day, last_trading_day, next_trading_day, sessions_between
from graph.data.synthetic import SyntheticVendor

NEW_YORK = ZoneInfo("America/New_York")
SATURDAY = date(2026, 11, 28)


@pytest.mark.parametrize(("symbol", "kind"), [
    ("NVDA", AssetClass.EQUITY), ("BRK-B", AssetClass.EQUITY), ("0700.HK", AssetClass.EQUITY),
    ("600519.SS", AssetClass.EQUITY), ("000001.SZ", AssetClass.EQUITY),  # Ping An Bank, not the SSE index
    ("SPY", AssetClass.FUND), ("QQQ", AssetClass.FUND), ("VOO", AssetClass.FUND), ("GLD", AssetClass.FUND),
    ("^GSPC", AssetClass.INDEX), ("^NDX", AssetClass.INDEX), ("^DJI", AssetClass.INDEX), ("^HSI", AssetClass.INDEX),
    ("000300.SS", AssetClass.INDEX), ("^N225", AssetClass.INDEX),
    ("BTC-USD", AssetClass.CRYPTO), ("ETH-USD", AssetClass.CRYPTO),
    ("EURUSD=X", AssetClass.CURRENCY), ("JPY=X", AssetClass.CURRENCY),
    ("GC=F", AssetClass.FUTURE), ("CL=F", AssetClass.FUTURE),
    ("AAPL240119C00150000", AssetClass.OPTION), ("SPY260320P00500000", AssetClass.OPTION),
    ("912828XX1", AssetClass.BOND), ("037833100", AssetClass.BOND),  # Apple's CUSIP: its check digit is 0
    ("123456789", AssetClass.EQUITY),  # nine digits with a wrong check digit are no CUSIP
])
def test_the_demo_reads_the_class_from_the_symbol(symbol: str, kind: AssetClass) -> None:
    assert classify(symbol) is kind
    if kind in SERVED:
        assert SyntheticVendor().asset_class(symbol) is kind


# Yahoo's `.info` for one instrument of each class (recorded, trimmed to what says what it is).
RECORDED_INFO = {
    "NVDA": {"quoteType": "EQUITY", "symbol": "NVDA", "longName": "NVIDIA Corporation", "exchange": "NMS"},
    "SPY": {"quoteType": "ETF", "symbol": "SPY", "longName": "SPDR S&P 500 ETF Trust", "exchange": "PCX",
            "fundFamily": "SPDR State Street Global Advisors", "totalAssets": 571_000_000_000},
    "VFIAX": {"quoteType": "MUTUALFUND", "symbol": "VFIAX", "longName": "Vanguard 500 Index Fund Admiral Shares"},
    "^GSPC": {"quoteType": "INDEX", "symbol": "^GSPC", "shortName": "S&P 500", "exchange": "SNP"},
    "BTC-USD": {"quoteType": "CRYPTOCURRENCY", "symbol": "BTC-USD", "name": "Bitcoin USD",
                "circulatingSupply": 19_800_000, "fromCurrency": "BTC", "toCurrency": "USD=X"},
    "EURUSD=X": {"quoteType": "CURRENCY", "symbol": "EURUSD=X", "shortName": "EUR/USD", "exchange": "CCY"},
    "GC=F": {"quoteType": "FUTURE", "symbol": "GC=F", "shortName": "Gold Dec 26", "exchange": "CMX"},
    "CL=F": {"quoteType": "FUTURE", "symbol": "CL=F", "shortName": "Crude Oil Jan 27", "exchange": "NYM"},
    "AAPL260116C00150000": {"quoteType": "OPTION", "symbol": "AAPL260116C00150000", "underlyingSymbol": "AAPL"},
}
QUOTED = {"NVDA": AssetClass.EQUITY, "SPY": AssetClass.FUND, "VFIAX": AssetClass.FUND, "^GSPC": AssetClass.INDEX,
          "BTC-USD": AssetClass.CRYPTO, "EURUSD=X": AssetClass.CURRENCY, "GC=F": AssetClass.FUTURE,
          "CL=F": AssetClass.FUTURE, "AAPL260116C00150000": AssetClass.OPTION}


@pytest.mark.parametrize("symbol", list(RECORDED_INFO))
def test_live_the_class_is_yahoos_quote_type(symbol: str, yahoo) -> None:
    from graph.data.yfinance_vendor import YFinanceVendor

    yahoo.set(symbol, info=RECORDED_INFO[symbol])
    assert YFinanceVendor(sleep=lambda _: None).asset_class(symbol) is QUOTED[symbol]


def test_the_vendors_word_wins_over_the_symbols() -> None:
    assert classify("VFIAX") is AssetClass.EQUITY           # a fund the desk's names do not list ...
    assert classify("VFIAX", "MUTUALFUND") is AssetClass.FUND  # ... is one when Yahoo says so
    assert from_quote_type("ECNQUOTE") is None and from_quote_type(None) is None
    assert classify("NVDA", "ECNQUOTE") is AssetClass.EQUITY  # a type the desk does not know: the symbol's reading


def test_live_an_instrument_yahoo_does_not_know_is_read_from_its_symbol(yahoo) -> None:
    from graph.data.yfinance_vendor import YFinanceVendor

    assert YFinanceVendor(sleep=lambda _: None).asset_class("ETH-USD") is AssetClass.CRYPTO  # .info has no quoteType


def test_an_index_names_the_funds_that_track_it() -> None:
    assert tracking_funds("^GSPC") == ("SPY", "VOO", "IVV")
    assert tracking_funds("^NDX") == ("QQQ", "QQQM")
    assert tracking_funds("SPY") == () and tracking_funds("NVDA") == ()


# --- the calendars ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("symbol", "market"), [
    ("NVDA", "US"), ("SPY", "US"), ("^GSPC", "US"), ("^HSI", "HK"), ("000300.SS", "CN"), ("^N225", "JP"),
    ("0700.HK", "HK"), ("BTC-USD", "CRYPTO"), ("EURUSD=X", "FX"), ("GC=F", "CME"), ("CL=F", "CME"),
])
def test_each_class_trades_on_its_own_calendar(symbol: str, market: str) -> None:
    assert market_of(symbol) == market


@pytest.mark.parametrize(("day", "open_in"), [
    (SATURDAY, {"CRYPTO"}),                                    # Saturday: crypto only
    (date(2026, 11, 29), {"CRYPTO"}),                          # Sunday: the FX day that opens at 17:00 is Monday's
    (date(2026, 11, 26), {"CRYPTO", "FX", "CME"}),             # Thanksgiving: the NYSE closed, Globex trading
    (date(2026, 4, 3), {"CRYPTO", "FX"}),                      # Good Friday: the NYSE and Globex closed
    (date(2026, 12, 25), {"CRYPTO", "FX"}),                    # Christmas
    (date(2026, 11, 27), {"CRYPTO", "FX", "CME", "US"}),       # Friday after Thanksgiving: all (the NYSE half a day)
])
def test_the_days_each_class_trades(day: date, open_in: set[str]) -> None:
    assert {m for m in ("CRYPTO", "FX", "CME", "US") if is_trading_day(day, m)} == open_in


def test_the_walks_follow_the_class() -> None:
    assert last_trading_day(SATURDAY, "CRYPTO") == SATURDAY
    assert last_trading_day(SATURDAY, "US") == date(2026, 11, 27)
    assert last_trading_day(date(2026, 11, 29), "FX") == date(2026, 11, 27)
    assert last_trading_day(date(2026, 4, 3), "CME") == date(2026, 4, 2)
    assert next_trading_day(date(2026, 11, 27), "CRYPTO") == SATURDAY
    assert next_trading_day(date(2026, 11, 27), "FX") == date(2026, 11, 30)
    week = sessions_between(date(2026, 11, 23), date(2026, 11, 29), "CRYPTO")
    assert len(week) == 7
    assert len(sessions_between(date(2026, 11, 23), date(2026, 11, 29), "FX")) == 5
    assert len(sessions_between(date(2026, 11, 23), date(2026, 11, 29), "US")) == 4


@pytest.mark.parametrize(("moment", "open_"), [
    (datetime(2026, 11, 28, 12, 0, tzinfo=NEW_YORK), False),   # Saturday noon
    (datetime(2026, 11, 29, 16, 59, tzinfo=NEW_YORK), False),  # Sunday before 17:00
    (datetime(2026, 11, 29, 17, 0, tzinfo=NEW_YORK), True),    # Sunday 17:00: Sydney opens the week
    (datetime(2026, 11, 29, 23, 0, tzinfo=UTC), True),         # Sunday 18:00 in New York
    (datetime(2026, 12, 2, 3, 0, tzinfo=NEW_YORK), True),      # a Wednesday night
    (datetime(2026, 12, 4, 16, 59, tzinfo=NEW_YORK), True),    # Friday before 17:00
    (datetime(2026, 12, 4, 17, 0, tzinfo=NEW_YORK), False),    # Friday 17:00: closed for the weekend
])
def test_currencies_trade_sunday_evening_to_friday_evening_new_york(moment: datetime, open_: bool) -> None:
    assert fx_open(moment) is open_


def test_the_demo_crypto_has_weekend_bars_and_the_demo_stock_does_not() -> None:
    vendor = SyntheticVendor()
    btc = [d.date() for d in vendor.ohlcv("BTC-USD", date(2025, 11, 24), date(2025, 11, 30)).index]
    nvda = [d.date() for d in vendor.ohlcv("NVDA", date(2025, 11, 24), date(2025, 11, 30)).index]
    fx = [d.date() for d in vendor.ohlcv("EURUSD=X", date(2025, 11, 24), date(2025, 11, 30)).index]
    assert len(btc) == 7 and date(2025, 11, 29) in btc
    assert date(2025, 11, 27) not in nvda and len(nvda) == 4    # Thanksgiving 2025
    assert len(fx) == 5                                          # Thanksgiving is a currency session


def test_a_watch_follows_the_class_calendar() -> None:
    from graph.watchlist.rules import EVERY_TRADING_DAY, EXCHANGE_HOURS, Rule

    crypto = Rule(EVERY_TRADING_DAY, EXCHANGE_HOURS["CRYPTO"].after_close, "CRYPTO")
    fx = Rule(EVERY_TRADING_DAY, EXCHANGE_HOURS["FX"].after_close, "FX")
    assert crypto.runs_on(SATURDAY) and not fx.runs_on(SATURDAY)
    assert fx.runs_on(date(2026, 11, 26)) and fx.zone == "America/New_York"  # Thanksgiving: currencies trade
