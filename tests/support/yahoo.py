"""Recorded yfinance shapes (column names, tz-aware index, news item shapes) and a fake
``yfinance.Ticker`` built from them, so the live vendor path runs offline."""
from __future__ import annotations

import numpy as np
import pandas as pd

NY = "America/New_York"


# --------------------------------------------------------------------------
# Recorded shapes
# --------------------------------------------------------------------------


def price_frame(start: str = "2022-04-01", end: str = "2024-05-10", tz: str = NY) -> pd.DataFrame:
    """What ``Ticker.history(auto_adjust=False)`` returns: capitalised columns,
    "Adj Close", actions columns, a tz-aware midnight index named Date."""
    days = pd.bdate_range(start, end)
    i = np.arange(len(days))
    close = np.round(100 + 0.25 * i + 5 * np.sin(i / 7), 4)
    frame = pd.DataFrame(
        {
            "Open": close - 0.5,
            "High": close + 1.25,
            "Low": close - 1.5,
            "Close": close,
            "Adj Close": close * 0.98,
            "Volume": (1_000_000 + 1000 * i).astype("int64"),
            "Dividends": 0.0,
            "Stock Splits": 0.0,
        },
        index=pd.DatetimeIndex(days, name="Date").tz_localize(tz),
    )
    return frame


def income_frame() -> pd.DataFrame:
    """``quarterly_income_stmt``: line items x period ends (naive), newest first."""
    columns = pd.to_datetime(["2024-03-31", "2023-12-31", "2023-09-30", "2023-06-30", "2023-03-31", "2022-12-31"])
    return pd.DataFrame(
        {
            columns[0]: [26.04e9, 14.88e9, 5.98],
            columns[1]: [22.10e9, 12.29e9, 4.93],
            columns[2]: [18.12e9, 9.24e9, 3.71],
            columns[3]: [13.51e9, 6.19e9, 2.48],
            columns[4]: [7.19e9, 2.04e9, 0.82],
            columns[5]: [np.nan, np.nan, np.nan],  # yfinance pads old periods with NaN
        },
        index=pd.Index(["Total Revenue", "Net Income", "Diluted EPS"]),
    )


NEW_SHAPE_NEWS = [
    {
        "id": "c0ffee01-0000-4000-8000-000000000001",
        "content": {
            "id": "c0ffee01-0000-4000-8000-000000000001",
            "contentType": "STORY",
            "title": "Nvidia shares rally as AI demand stays strong",
            "description": "",
            "summary": "Chip stocks climbed on Wednesday.",
            "pubDate": "2024-05-01T12:00:00Z",
            "displayTime": "2024-05-01T12:05:00Z",
            "isHosted": True,
            "provider": {"displayName": "Reuters", "url": "http://www.reuters.com/"},
            "canonicalUrl": {"url": "https://finance.yahoo.com/news/nvidia-rally-120000.html",
                             "site": "finance", "region": "US", "lang": "en-US"},
            "clickThroughUrl": {"url": "https://finance.yahoo.com/news/nvidia-rally-120000.html"},
            "metadata": {"editorsPick": False},
        },
    },
    {   # 02:30 UTC on May 2 is 22:30 on May 1 in New York: inside a window ending May 1
        "id": "c0ffee01-0000-4000-8000-000000000002",
        "content": {
            "title": "Late session: Nvidia slides after hours",
            "summary": "",
            "pubDate": "2024-05-02T02:30:00Z",
            "provider": {"displayName": "Yahoo Finance"},
            "canonicalUrl": {"url": "https://finance.yahoo.com/news/late-023000.html"},
        },
    },
    {   # after the window
        "id": "c0ffee01-0000-4000-8000-000000000003",
        "content": {"title": "Nvidia jumps on record quarter", "pubDate": "2024-05-03T15:00:00Z",
                    "provider": {"displayName": "Barron's"}, "canonicalUrl": {"url": "https://x.test/3"}},
    },
    {"id": "no-title", "content": {"pubDate": "2024-05-01T10:00:00Z"}},  # skipped
]

OLD_SHAPE_NEWS = [
    {
        "uuid": "3b1f2a9e-aaaa-bbbb-cccc-000000000001",
        "title": "Is Nvidia stock a buy before earnings?",
        "publisher": "Motley Fool",
        "link": "https://finance.yahoo.com/m/3b1f2a9e/is-nvidia-a-buy.html",
        "providerPublishTime": 1714483800,  # 2024-04-30 13:30 UTC = 09:30 New York
        "type": "STORY",
        "relatedTickers": ["NVDA"],
    },
    {
        "uuid": "3b1f2a9e-aaaa-bbbb-cccc-000000000002",
        "title": "Old story",
        "publisher": "Zacks",
        "link": "https://x.test/old",
        "providerPublishTime": 1700000000,  # November 2023: before the window
        "type": "STORY",
    },
]

UPGRADES = pd.DataFrame(
    {
        "Firm": ["Bernstein", "Morgan Stanley", "Loop Capital", "HSBC"],
        "ToGrade": ["Outperform", "Overweight", "Buy", "Buy"],
        "FromGrade": ["", "Overweight", "Hold", "Hold"],
        "Action": ["init", "main", "up", "up"],
        "priceTargetAction": ["Announces", "Raises", "Raises", "Raises"],
        "currentPriceTarget": [1300.0, 1000.0, 1200.0, 880.0],
        "priorPriceTarget": [0.0, 800.0, 1000.0, 700.0],
    },
    index=pd.DatetimeIndex(
        ["2024-05-29 11:03:00", "2024-04-24 09:12:44", "2024-03-18 10:00:00", "2024-01-30 08:30:00"],
        name="GradeDate",
    ),
)

INFO = {
    "longName": "NVIDIA Corporation",
    "shortName": "NVIDIA Corp",
    "quoteType": "EQUITY",
    "sector": "Technology",
    "industry": "Semiconductors",
    "currency": "USD",
    "financialCurrency": "USD",
    "currentPrice": 880.0,
    "marketCap": 2_200_000_000_000,
    "sharesOutstanding": 2_500_000_000,
    "trailingPE": 73.5,
    "forwardPE": 35.2,
    "priceToBook": 51.0,
    "dividendRate": 0.16,
    "dividendYield": 0.02,  # Yahoo now reports percent (0.02 %)
    "beta": 1.7,
    "profitMargins": 0.489,
    "debtToEquity": 25.7,  # percent on Yahoo -> 0.257
    "revenueGrowth": 2.65,
}

# ---- one recorded shape per asset class (issue 37): what ``Ticker.info`` sends for each quoteType ----------

SPY_INFO = {  # an ETF: Yahoo sends a P/E for it too (the desk does not read one for a fund)
    "quoteType": "ETF", "longName": "SPDR S&P 500 ETF Trust", "shortName": "SPDR S&P 500", "currency": "USD",
    "category": "Large Blend", "fundFamily": "State Street Investment Management", "legalType": "Exchange Traded Fund",
    "totalAssets": 633_474_000_000, "navPrice": 590.12, "regularMarketPrice": 590.5, "previousClose": 588.2,
    "yield": 0.0121, "netExpenseRatio": 0.0945, "ytdReturn": 25.26, "trailingPE": 27.31, "beta3Year": 1.0,
}


class FundsData:
    """``Ticker.funds_data``: ``top_holdings`` (index Symbol; Name, Holding Percent as a fraction) and
    ``fund_operations`` (the fund's column and the category's average)."""

    def __init__(self, symbol: str) -> None:
        self.top_holdings = pd.DataFrame(
            {"Name": ["Apple Inc", "NVIDIA Corp", "Microsoft Corp", "Amazon.com Inc", "Meta Platforms Inc Class A"],
             "Holding Percent": [0.0712, 0.0665, 0.0621, 0.0398, 0.0251]},
            index=pd.Index(["AAPL", "NVDA", "MSFT", "AMZN", "META"], name="Symbol"))
        self.fund_operations = pd.DataFrame(
            {symbol: [0.000945, 0.03, 633_474_000_000], "Category Average": [0.0082, 0.51, 9.2e9]},
            index=pd.Index(["Annual Report Expense Ratio", "Annual Holdings Turnover", "Total Net Assets"],
                           name="Attributes"))


BTC_INFO = {
    "quoteType": "CRYPTOCURRENCY", "name": "Bitcoin", "shortName": "Bitcoin USD", "currency": "USD",
    "fromCurrency": "BTC", "toCurrency": "USD=X", "regularMarketPrice": 95_432.1, "marketCap": 1_889_000_000_000,
    "circulatingSupply": 19_790_000, "maxSupply": 21_000_000, "volume24Hr": 41_250_000_000,
    "volumeAllCurrencies": 41_250_000_000, "startDate": 1278979200,
}
GSPC_INFO = {
    "quoteType": "INDEX", "shortName": "S&P 500", "longName": "S&P 500", "currency": "USD", "exchange": "SNP",
    "regularMarketPrice": 6032.38, "previousClose": 5998.74, "fiftyTwoWeekHigh": 6044.17, "fiftyTwoWeekLow": 4682.11,
}
EURUSD_INFO = {
    "quoteType": "CURRENCY", "shortName": "EUR/USD", "longName": "EUR/USD", "currency": "USD",
    "regularMarketPrice": 1.0564, "bid": 1.0563, "ask": 1.0566, "regularMarketVolume": 0,
    "averageDailyVolume10Day": 0,
}
GOLD_INFO = {
    "quoteType": "FUTURE", "shortName": "Gold Dec 24", "underlyingSymbol": "GC=F", "currency": "USD",
    "exchange": "CMX", "regularMarketPrice": 2650.1, "openInterest": 11_082, "expireDate": 1735171200,
}


def fx_price_frame(start: str = "2024-04-01", end: str = "2024-05-10") -> pd.DataFrame:
    """``history()`` of a currency pair: a London-midnight index, four-decimal prices, Volume all 0."""
    frame = price_frame(start, end, tz="Europe/London")
    for column in ("Open", "High", "Low", "Close", "Adj Close"):
        frame[column] = (frame[column] / 100).round(4)
    frame["Volume"] = 0
    return frame


def crypto_price_frame(start: str = "2024-04-01", end: str = "2024-05-10") -> pd.DataFrame:
    """``history()`` of a coin: every calendar day, a UTC-midnight index."""
    days = pd.date_range(start, end)
    i = np.arange(len(days))
    close = np.round(60_000 + 150 * i, 2)
    return pd.DataFrame({"Open": close - 50, "High": close + 300, "Low": close - 400, "Close": close,
                         "Adj Close": close, "Volume": (30_000_000_000 + 1_000_000 * i).astype("int64"),
                         "Dividends": 0.0, "Stock Splits": 0.0},
                        index=pd.DatetimeIndex(days, name="Date").tz_localize("UTC"))


STOCKTWITS = {
    "response": {"status": 200},
    "symbol": {"id": 7264, "symbol": "NVDA", "title": "NVIDIA Corp", "exchange": "NASDAQ"},
    "cursor": {"more": True, "since": 571000003, "max": 571000001},
    "messages": [
        {"id": 571000003, "body": "$NVDA to the moon after earnings", "created_at": "2024-05-03T14:00:00Z",
         "user": {"id": 1, "username": "a"}, "entities": {"sentiment": {"basic": "Bullish"}}},
        {"id": 571000002, "body": "$NVDA ripping into the close", "created_at": "2024-05-01T19:45:12Z",
         "user": {"id": 2, "username": "b"}, "entities": {"sentiment": {"basic": "Bullish"}}},
        {"id": 571000001, "body": "$NVDA overextended, trimming", "created_at": "2024-05-01T14:02:11Z",
         "user": {"id": 3, "username": "c"}, "entities": {"sentiment": {"basic": "Bearish"}}},
        {"id": 571000000, "body": "watching $NVDA", "created_at": "2024-04-30T15:00:00Z",
         "user": {"id": 4, "username": "d"}, "entities": {"sentiment": None}},
        {"id": 570999999, "body": "week-old take", "created_at": "2024-04-20T15:00:00Z",
         "entities": {"sentiment": {"basic": "Bearish"}}},
    ],
}


# --------------------------------------------------------------------------
# The fake yfinance
# --------------------------------------------------------------------------


class FakeYahoo:
    """Stands in for ``yfinance.Ticker``: per-symbol recorded data, scripted
    failures (popped one per call), and a log of every call."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, object]] = {}
        self.failures: dict[tuple[str, str], list[BaseException]] = {}
        self.calls: list[tuple[str, str, dict]] = []

    def set(self, symbol: str, **fields: object) -> None:
        self.data.setdefault(symbol, {}).update(fields)

    def fail(self, symbol: str, field: str, *errors: BaseException) -> None:
        self.failures.setdefault((symbol, field), []).extend(errors)

    def count(self, field: str, symbol: str | None = None) -> int:
        return sum(1 for s, f, _ in self.calls if f == field and (symbol is None or s == symbol))

    def Ticker(self, symbol: str) -> FakeTicker:  # mirrors yfinance
        return FakeTicker(self, symbol)

    def answer(self, symbol: str, field: str, kwargs: dict | None = None) -> object:
        self.calls.append((symbol, field, kwargs or {}))
        queue = self.failures.get((symbol, field))
        if queue:
            raise queue.pop(0)
        value = self.data.get(symbol, {}).get(field, _EMPTY[field]())
        return value.copy() if isinstance(value, (pd.DataFrame, dict, list)) else value


_EMPTY = {
    "history": lambda: pd.DataFrame(columns=["Open", "High", "Low", "Close", "Adj Close", "Volume"]),
    "info": lambda: {"trailingPegRatio": None},  # what .info gives for an unknown symbol
    "news": list,
    "quarterly_income_stmt": pd.DataFrame,
    "income_stmt": pd.DataFrame,
    "quarterly_balance_sheet": pd.DataFrame,
    "balance_sheet": pd.DataFrame,
    "quarterly_cashflow": pd.DataFrame,
    "cashflow": pd.DataFrame,
    "upgrades_downgrades": pd.DataFrame,
    "funds_data": lambda: None,
}


class FakeTicker:
    def __init__(self, yahoo: FakeYahoo, symbol: str) -> None:
        self._yahoo = yahoo
        self.ticker = symbol

    def history(self, **kwargs):
        return self._yahoo.answer(self.ticker, "history", kwargs)

    def __getattr__(self, field: str):
        if field in _EMPTY:  # properties such as .info, .news, .quarterly_income_stmt
            return self._yahoo.answer(self.ticker, field)
        raise AttributeError(field)


def recorded_yahoo() -> FakeYahoo:
    """The fake with NVDA's recorded prices, profile, news, income statement and analyst actions;
    the `yahoo` fixture puts it in place of ``yfinance.Ticker``."""
    fake = FakeYahoo()
    fake.set("NVDA", history=price_frame(), info=dict(INFO), news=NEW_SHAPE_NEWS + OLD_SHAPE_NEWS,
             quarterly_income_stmt=income_frame(), upgrades_downgrades=UPGRADES)
    fake.set("SPY", history=price_frame(), info=dict(SPY_INFO), funds_data=FundsData("SPY"))
    fake.set("BTC-USD", history=crypto_price_frame(), info=dict(BTC_INFO))
    fake.set("^GSPC", history=price_frame(), info=dict(GSPC_INFO))
    fake.set("EURUSD=X", history=fx_price_frame(), info=dict(EURUSD_INFO))
    fake.set("GC=F", history=price_frame(), info=dict(GOLD_INFO))
    return fake
