"""The synthetic price path: one long daily OHLCV series per ticker from ``SERIES_START``,
generated once (then cached), so a date's bar never depends on the window asked for; the sessions
of the listing's own exchange only (NYSE for a US symbol, Hong Kong's for 0700.HK and ^HSI, ...).
See :mod:`graph.data.synthetic`."""
from __future__ import annotations

import math
import threading
from dataclasses import replace
from datetime import date
from functools import lru_cache

import numpy as np
import pandas as pd

from graph.core import clock
from graph.core.assets import AssetClass, classify, market_of
from graph.core.trading_days import CALENDARS, EVERY_DAY, EXCHANGES, closures
from graph.data.synthetic_assets import level_of
from graph.data.synthetic_company import _seed, _traits

SERIES_START = date(1990, 1, 1)
TRADING_DAYS = 252

def market(symbol: str) -> str:
    """The market whose trading days the symbol's bars fall on (US, HK, CN, TW, JP; CRYPTO, FX, CME by asset
    class), as graph.core.assets.market_of says; a suffix without a calendar here (VOD.L) keeps the NYSE's."""
    found = market_of(symbol)
    return found if found in _MARKETS else "US"


_MARKETS = frozenset({"US", *EXCHANGES, *CALENDARS})


# --------------------------------------------------------------------------
# Price path
# --------------------------------------------------------------------------


def _regime_schedule(rng: np.random.Generator, n: int, base_vol: float,
                     drift_scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Daily drift and volatility arrays made of random-length regimes.

    Regimes are drawn one after another from their own stream, so the first
    k days' regimes are the same however long the series is. `drift_scale` shrinks a quiet market's trends
    with its volatility (a currency pair's year does not move like a stock's).
    """
    mu = np.empty(n)
    sigma = np.empty(n)
    i = 0
    while i < n:
        length = int(rng.integers(40, 260))
        annual_mu = rng.normal(0.03, 0.55) * drift_scale
        annual_sigma = base_vol * rng.uniform(0.6, 1.6)
        mu[i : i + length] = annual_mu / TRADING_DAYS
        sigma[i : i + length] = annual_sigma / math.sqrt(TRADING_DAYS)
        i += length
    return mu, sigma


def _log_deviation(mu: np.ndarray, sigma: np.ndarray, shocks: np.ndarray, pull: float = 1.0 / 1000.0) -> np.ndarray:
    """Regime-driven random walk with weak pull back to the long-run anchor.

    The pull (about a three-year half-life for a stock) keeps 35 years of compounding in
    a plausible price range while leaving months-long trends clearly visible.
    """
    keep = 1.0 - pull
    step = mu + sigma * shocks
    x = np.empty(len(step))
    level = 0.0
    # level[i] = keep * level[i-1] + step[i], solved a block at a time with numpy (a Python loop
    # over 9,000+ days cost ~100 ms per new ticker); blocks start at fixed offsets, so a date's
    # value never depends on how long the series is.
    for b0 in range(0, len(step), _BLOCK):
        u = step[b0:b0 + _BLOCK]
        powers = keep ** np.arange(len(u))
        x[b0:b0 + len(u)] = keep * powers * level + powers * np.cumsum(u / powers)
        level = x[b0 + len(u) - 1]
    return x


_BLOCK = 256


@lru_cache(maxsize=16)
def _holiday_index(first_year: int, last_year: int, market: str) -> pd.DatetimeIndex:
    """The market's weekday closures from ``first_year`` through ``last_year``."""
    days = sorted(d for year in range(first_year, last_year + 1) for d in closures(year, market))
    return pd.DatetimeIndex(days, name="date")


# Tools call the vendor from worker threads, several at once for a new ticker; lru_cache does
# not stop them all generating the same series, so generation (and cache lookups) take turns.
_GENERATING = threading.RLock()


@lru_cache(maxsize=128)
def _daily_path(symbol: str, through_year: int) -> pd.DataFrame:
    """The whole OHLCV history of ``symbol`` from SERIES_START to year end.

    ``through_year`` is only part of the cache key (so a long-running process
    eventually extends the series); every stream below is consumed in order,
    so a date's values do not change when the series is made longer.

    Random draws are made on the plain weekday grid, then exchange holidays
    are dropped: the price keeps walking through a holiday (the next session
    shows two days' move, as after a real closure), and a date's values do
    not depend on how many holidays came before it. Crypto trades every day: its grid is every
    calendar day, its daily volatility spread over 365 days a year instead of 252.
    """
    traits = _traits(symbol)
    kind = classify(symbol)
    pair = kind is AssetClass.CURRENCY
    pull, drift_scale, places = 1.0 / 1000.0, 1.0, 2
    if (level := level_of(symbol, kind)) is not None:
        # Not a company's share: a level that fits the class (bitcoin in tens of thousands, EUR/USD near 1.1,
        # gold in the 2,000s), no long-run growth, held near it by a stronger pull; a quiet market's trends
        # shrink with its volatility (graph/data/synthetic_assets.py).
        traits = replace(traits, start_price=level.anchor, base_vol=level.base_vol, long_run_growth=0.0,
                         base_volume=level.base_volume)
        pull, drift_scale, places = level.pull, min(1.0, level.base_vol / 0.34), level.places
    every_day = market(symbol) == EVERY_DAY
    grid = pd.date_range if every_day else pd.bdate_range
    weekdays = grid(SERIES_START, date(through_year, 12, 31), name="date")
    n = len(weekdays)
    days_a_year = 365 if every_day else TRADING_DAYS
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(_seed(symbol, "path")).spawn(5)]
    regimes, returns, gaps, ranges, volumes = streams

    mu, sigma = _regime_schedule(regimes, n, traits.base_vol * (TRADING_DAYS / days_a_year) ** 0.5, drift_scale)
    deviation = _log_deviation(mu, sigma, returns.standard_normal(n), pull)
    years = np.arange(n) / days_a_year
    close = traits.start_price * np.exp(traits.long_run_growth * years + deviation)
    gap_draws = gaps.standard_normal(n)
    # Shape (n, 2) so draws are consumed day by day (keeps the prefix stable).
    range_draws = ranges.standard_normal((n, 2))
    volume_draws = volumes.standard_normal(n)

    # Keep the exchange's sessions only; every bar is built from the previous *session*.
    session = ~weekdays.isin(_holiday_index(SERIES_START.year, through_year, market(symbol)))
    days = weekdays[session]
    close, sigma = close[session], sigma[session]
    gap_draws, range_draws, volume_draws = gap_draws[session], range_draws[session], volume_draws[session]

    prev_close = np.concatenate(([close[0]], close[:-1]))
    open_ = prev_close * np.exp(gap_draws * sigma * 0.3)
    spread = (np.abs(range_draws) * sigma[:, None] * 0.6 + 0.002).T
    high = np.maximum(open_, close) * np.exp(spread[0])
    low = np.minimum(open_, close) * np.exp(-spread[1])

    # Busier tape on big moves, plus day-to-day noise.
    move = np.abs(np.log(close / prev_close))
    volume = traits.base_volume * np.exp(0.3 * volume_draws) * (1.0 + 12.0 * move)

    frame = pd.DataFrame(
        {
            "open": np.round(open_, places),
            "high": np.round(high, places),
            "low": np.round(low, places),
            "close": np.round(close, places),
            "volume": volume.astype(np.int64),
        },
        index=days,
    ).clip(lower=10.0 ** -places)
    # Rounding can nudge open/close past the wick; keep bars self-consistent.
    frame["high"] = frame[["open", "high", "close"]].max(axis=1)
    frame["low"] = frame[["open", "low", "close"]].min(axis=1)
    if pair:
        frame["volume"] = 0  # a currency pair trades over the counter: no volume, as Yahoo reports it
    return frame


def _path(symbol: str) -> pd.DataFrame:
    with _GENERATING:
        return _daily_path(symbol, clock.today().year)


def _clip_end(end: date) -> date:
    # The series is generated past today, but nothing after today "exists".
    return min(end, clock.today())


def _close_series(symbol: str) -> pd.Series:
    return _path(symbol)["close"]


def _trailing_return(closes: pd.Series, day: pd.Timestamp, sessions: int) -> float:
    """Return over ``sessions`` bars ending on ``day`` (0.0 at the very start)."""
    i = closes.index.get_loc(day)
    j = max(0, i - sessions)
    return float(closes.iloc[i] / closes.iloc[j] - 1.0)


def _sessions(start: date, end: date, symbol: str) -> pd.DatetimeIndex:
    """The symbol's trading days in [start, end]: the dates that have a bar (its exchange's sessions)."""
    days = _path(symbol).index
    return days[(days >= pd.Timestamp(start)) & (days <= pd.Timestamp(_clip_end(end)))]
