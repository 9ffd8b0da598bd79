"""A deterministic, offline market-data vendor for demos and tests.

Everything is derived from the ticker string through SHA-256 (never Python's
salted ``hash()``), so the same ticker gives the same data in every process.

Prices are one long daily series per ticker starting at ``SERIES_START``
and generated once (then cached): the value on a date is a pure function of
(ticker, date) and never depends on which window a caller asks for. Sessions
are the trading days of the listing's own exchange (:mod:`graph.core.trading_days`,
chosen in :mod:`graph.data.synthetic_prices`): the NYSE's for a US symbol, Hong
Kong's for 0700.HK and ^HSI, Tokyo's for 7203.T (a suffix without a calendar
there, such as VOD.L, keeps the NYSE's). Weekends and that exchange's holidays
(Good Friday, July 4th or Christmas in New York; the Lunar New Year in Hong
Kong) have no bar, no headline and no post. Statements, news, posts and grades
are derived from that price path (tone follows the recent move), so the
analysts see a coherent story.

This module is the vendor; what it serves is made in :mod:`graph.data.synthetic_company`
(the draws and the company's traits), :mod:`graph.data.synthetic_prices` (the price path),
:mod:`graph.data.synthetic_fundamentals` (the quarterly statements) and
:mod:`graph.data.synthetic_news` (headlines and posts), :mod:`graph.data.synthetic_events` (the
calendar: earnings, dividends, splits, each announced some days before it), :mod:`graph.data.synthetic_macro`
(macro series with vintages: a CPI revised after it is first published) and
:mod:`graph.data.synthetic_options` (an option chain).

All of it is fiction and labelled so: ``source == "synthetic"`` everywhere.
"""

from __future__ import annotations

import re
from datetime import date

import pandas as pd

from graph.core.assets import AssetClass, classify
from graph.data.synthetic_assets import class_facts
from graph.data.synthetic_company import _pick, _traits, _unit
from graph.data.synthetic_events import scheduled
from graph.data.synthetic_fundamentals import _ROWS_BY_KIND, STATEMENT_QUARTERS, _filed_quarters
from graph.data.synthetic_macro import LABEL as MACRO_LABEL
from graph.data.synthetic_macro import observations
from graph.data.synthetic_news import _MACRO_TEMPLATES, _NEWS_TEMPLATES, _POST_TEMPLATES, _after_close, _headlines
from graph.data.synthetic_options import chain
from graph.data.synthetic_prices import SERIES_START, _clip_end, _close_series, _path, _sessions, _trailing_return
from graph.data.vendor import (
    FILED_ATTR,
    Event,
    NewsItem,
    Observation,
    OptionChain,
    Post,
    Sentiment,
    StatementKind,
    VendorError,
)

SOURCE = "synthetic"
MARKET_KEY = "^MARKET"  # pseudo-ticker whose path drives macro headlines

# A symbol, or an index ("^HSI": the track record's benchmarks abroad, graph/track/horizon.py).
_TICKER_RE = re.compile(r"^\^?[A-Z0-9][A-Z0-9.\-=^]{0,11}$")


def _normalise(ticker: str) -> str:
    symbol = (ticker or "").strip().upper()
    if not _TICKER_RE.match(symbol):
        raise VendorError(f"unknown ticker {ticker!r}")
    return symbol


# Every profile key that is a company's ratio: None for anything that is not a company.
_NO_RATIOS = dict.fromkeys(("market_cap", "shares_outstanding", "pe", "forward_pe", "pb", "dividend_yield", "beta",
                            "profit_margin", "debt_to_equity", "revenue_growth"))
_A = {AssetClass.FUND: "a fund", AssetClass.INDEX: "an index", AssetClass.CRYPTO: "a cryptocurrency",
      AssetClass.CURRENCY: "a currency pair", AssetClass.FUTURE: "a commodity future", AssetClass.EQUITY: "a company",
      AssetClass.OPTION: "an option", AssetClass.BOND: "a bond"}
_KIND_NAMES = {AssetClass.FUND: "Fund", AssetClass.INDEX: "Index", AssetClass.CRYPTO: "Coin",
               AssetClass.CURRENCY: "Pair", AssetClass.FUTURE: "Future"}


def _instrument_name(symbol: str, kind: AssetClass) -> str:
    return f"{symbol} Synthetic {_KIND_NAMES.get(kind, 'Instrument')}"


_GRADES = ("Sell", "Underperform", "Hold", "Outperform", "Buy")
_FIRMS = ("Synthetic Research", "Demo Capital Markets", "Simulated Securities", "Placeholder Partners")


# --------------------------------------------------------------------------
# The vendor
# --------------------------------------------------------------------------


class SyntheticVendor:
    """Deterministic fake market data; see the module docstring."""

    name = SOURCE
    label = "synthetic demo data"
    macro_source: str | None = MACRO_LABEL
    timeout_s: float | None = None  # a tool's time limit per call (graph/tools/guarded.py); None: its default

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        symbol = _normalise(ticker)
        frame = _path(symbol).loc[pd.Timestamp(start) : pd.Timestamp(_clip_end(end))].copy()
        frame.attrs["source"] = SOURCE
        return frame

    def asset_class(self, ticker: str) -> AssetClass:
        """Read from the symbol and the desk's names: the demo has no metadata of its own."""
        return classify(_normalise(ticker))

    def profile(self, ticker: str, as_of: date) -> dict:
        symbol = _normalise(ticker)
        traits = _traits(symbol)
        closes = _close_series(symbol).loc[: pd.Timestamp(_clip_end(as_of))]
        if closes.empty:
            raise VendorError(f"no synthetic history for {symbol} before {SERIES_START}")
        price = float(closes.iloc[-1])
        kind = classify(symbol)
        if kind is not AssetClass.EQUITY:  # a fund, a coin, an index, a pair, a future: no company figures
            volume = float(_path(symbol).loc[closes.index[-1], "volume"])
            return {"name": _instrument_name(symbol, kind), "sector": None, "industry": None, "currency": "USD",
                    "asset_class": kind.value, "price": price, **_NO_RATIOS,
                    **class_facts(kind, symbol, price, volume), "source": SOURCE}
        market_cap = price * traits.shares
        filed = _filed_quarters(symbol, as_of)
        ttm = filed.iloc[-4:] if len(filed) >= 4 else None

        pe = forward_pe = pb = margin = growth = None
        if ttm is not None:
            ttm_income = float(ttm["Net Income"].sum())
            ttm_revenue = float(ttm["Total Revenue"].sum())
            margin = ttm_income / ttm_revenue
            if ttm_income > 0:
                pe = market_cap / ttm_income
            equity = float(ttm["Stockholders Equity"].iloc[-1])
            pb = market_cap / equity if equity > 0 else None
        if len(filed) >= 5:
            growth = float(filed["Total Revenue"].iloc[-1] / filed["Total Revenue"].iloc[-5] - 1)
        if pe is not None and growth is not None and growth > -0.5:
            # Consensus-style guess: next year's earnings grow like revenue.
            forward_pe = pe / (1 + growth)

        return {
            "name": traits.name,
            "sector": traits.sector,
            "industry": traits.industry,
            "currency": "USD",
            "price": price,
            "market_cap": market_cap,
            "shares_outstanding": traits.shares,
            "pe": pe,
            "forward_pe": forward_pe,
            "pb": pb,
            "dividend_yield": traits.dividend_yield,
            "beta": traits.beta,
            "profit_margin": margin,
            "debt_to_equity": traits.debt_to_equity,
            "revenue_growth": growth,
            "summary": f"{traits.name} is a fictional {traits.industry.lower()} company generated for demos.",
            "source": SOURCE,
        }

    def statements(self, ticker: str, as_of: date, kind: StatementKind) -> pd.DataFrame:
        symbol = _normalise(ticker)
        if (asset := classify(symbol)) is not AssetClass.EQUITY:
            raise VendorError(f"{symbol} is {_A[asset]}: it files no {kind} statement")
        if kind not in _ROWS_BY_KIND:
            raise VendorError(f"unknown statement kind {kind!r}")
        filed = _filed_quarters(symbol, as_of).iloc[-STATEMENT_QUARTERS:].iloc[::-1]
        frame = filed[list(_ROWS_BY_KIND[kind])].T.astype(float)
        frame.columns.name = "period"
        frame.attrs[FILED_ATTR] = dict(zip(filed.index, filed["filed"]))
        frame.attrs["source"] = SOURCE
        return frame

    def news(self, ticker: str, start: date, end: date) -> list[NewsItem]:
        symbol = _normalise(ticker)
        fill = {"ticker": symbol, "name": _traits(symbol).name}
        return _headlines(symbol, start, end, _NEWS_TEMPLATES, fill)

    def macro_news(self, start: date, end: date) -> list[NewsItem]:
        return _headlines(MARKET_KEY, start, end, _MACRO_TEMPLATES, {})

    def social_posts(self, ticker: str, start: date, end: date) -> list[Post]:
        symbol = _normalise(ticker)
        closes = _close_series(symbol)
        posts = []
        for day in _sessions(start, end, symbol):
            move = _trailing_return(closes, day, 5)
            # Crowd mood leans with the recent move but is never unanimous.
            p_bull = 0.5 + min(max(move * 5, -0.35), 0.35)
            for j in range(2 + int(_unit(symbol, "post-count", day.date()) * 7)):
                parts = (symbol, day.date(), j)
                sentiment: Sentiment | None
                if _unit("post-labelled", *parts) < 0.2:
                    sentiment = None
                else:
                    sentiment = "bullish" if _unit("post-mood", *parts) < p_bull else "bearish"
                posts.append(
                    Post(
                        created=_after_close(day, "post-time", *parts, span_minutes=420),
                        text=_pick(_POST_TEMPLATES[sentiment], "post-text", *parts).format(ticker=symbol),
                        sentiment=sentiment,
                        source=SOURCE,
                    )
                )
        return sorted(posts, key=lambda post: post.created, reverse=True)

    def events(self, ticker: str, as_of: date, until: date) -> list[Event]:
        """What was on the calendar on ``as_of`` (announced by then) dated in [as_of, until]: point in time."""
        symbol = _normalise(ticker)
        return scheduled(symbol, classify(symbol), as_of, until)

    def macro_series(self, series_id: str, start: date, as_of: date) -> list[Observation]:
        """The demo's macro series as published on ``as_of`` (graph/data/synthetic_macro.py: vintages)."""
        return observations(series_id, start, _clip_end(as_of))

    def option_chain(self, ticker: str, as_of: date) -> OptionChain | None:
        """A chain as quoted at ``as_of``'s close (the tool asks only for today's session)."""
        symbol = _normalise(ticker)
        return chain(symbol, classify(symbol), _clip_end(as_of))

    def recommendations(self, ticker: str, as_of: date) -> list[dict]:
        symbol = _normalise(ticker)
        if classify(symbol) not in (AssetClass.EQUITY, AssetClass.FUND):
            return []  # sell-side analysts grade companies (and funds), not coins, pairs or indices
        closes = _close_series(symbol).loc[: pd.Timestamp(_clip_end(as_of))]
        # One grade change per month, on the first session of the month.
        firsts = closes.groupby(closes.index.to_period("M")).head(1).index[-12:]
        grades = []
        for day in firsts:
            firm = _pick(_FIRMS, symbol, "firm", day.date())
            to_grade = self._grade(symbol, closes, day)
            prior = closes.index[closes.index < day - pd.DateOffset(months=1)]
            from_grade = self._grade(symbol, closes, prior[-1]) if len(prior) else None
            action = "main" if from_grade in (None, to_grade) else (
                "up" if _GRADES.index(to_grade) > _GRADES.index(from_grade) else "down"
            )
            grades.append(
                {
                    "date": day.date(),
                    "firm": firm,
                    "to_grade": to_grade,
                    "from_grade": from_grade,
                    "action": action,
                    "source": SOURCE,
                }
            )
        return grades[::-1]

    @staticmethod
    def _grade(symbol: str, closes: pd.Series, day: pd.Timestamp) -> str:
        """Grade from the 3-month trend plus a little analyst disagreement."""
        score = _trailing_return(closes, day, 63) * 4 + (_unit(symbol, "grade", day.date()) - 0.5)
        index = round(min(max(score, -1.0), 1.0) * 2) + 2
        return _GRADES[index]
