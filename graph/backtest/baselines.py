"""The paper's rule baselines, each a written rule turning closes into daily signals.

Every rule reads only the closes up to and including the day it signals on: rolling windows and
exponential averages that look back, never forward (tests/backtest/test_baselines.py changes and cuts
the future and checks no earlier signal moves). The signals then go through ``simulate()`` like the desk's,
so a baseline trades at the same closes, under the same position rule and pays the same costs.

Shared conventions:

- Closes only (the rules' usual highs and lows are replaced by closes, since the simulation has closes).
- A day without a close has no signal; the indicators run over the days that have one.
- Pass the closes from well before the window (a look-back): a rule gives no signal until its indicators
  have the history they need (``min_closes``), and the simulation ignores signals outside its window.
- Rules that follow a state (MACD, SMA) signal every day the state holds, not only on the cross: the
  position then flips exactly at each cross, and a window opens on the side the lines are already on
  instead of flat until the next cross. Repeating BUY while long trades nothing.
- Rules that react to extremes (KDJ & RSI, ZMR) signal only on the days of an extreme; in between the
  position is kept, and the window starts flat until its first extreme.

The paper names these baselines without their parameters; the ones below are the usual textbook ones. Each
rule in words, as the CLI's file and the chat show it, is the `[backtest]` text `rule_<name>` of
prompts/words_<code>.md (its English is the CLI's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import pandas as pd

from graph.core.state import Signal

from ..core.words import DEFAULT_LANGUAGE, phrase

Signals = dict[str, Signal]  # YYYY-MM-DD → signal; a day absent: no signal


@dataclass(frozen=True)
class Baseline:
    name: str  # a key: "macd"
    label: str  # as in the paper's table: "MACD"
    min_closes: int  # closes needed before the first signal
    signals: Callable[[pd.Series], Signals]

    def rule_in(self, language: str) -> str:
        """The rule in words, shown with the results, in `language`."""
        return phrase(language, f"backtest.rule_{self.name}")

    @property
    def rule(self) -> str:
        return self.rule_in(DEFAULT_LANGUAGE)


def _closes(closes: pd.Series) -> pd.Series:
    """The known closes as floats, indexed by YYYY-MM-DD, oldest first (gaps dropped)."""
    known = closes.dropna().astype(float)
    known.index = pd.Index([pd.Timestamp(day).date().isoformat() for day in known.index])
    if not known.index.is_monotonic_increasing or known.index.has_duplicates:
        raise ValueError("closes must be indexed by distinct days in increasing order")
    return known


def _by_state(up: pd.Series, down: pd.Series, min_closes: int) -> Signals:
    """BUY on days ``up`` holds, SELL on days ``down`` holds, from the ``min_closes``-th close on."""
    out: Signals = {}
    for position, day in enumerate(up.index):
        if position + 1 < min_closes:
            continue
        if up.iloc[position]:
            out[day] = "BUY"
        elif down.iloc[position]:
            out[day] = "SELL"
    return out


def _ema(values: pd.Series, span: int) -> pd.Series:
    # adjust=False is the recursive EMA: e[t] = a·x[t] + (1 − a)·e[t−1], e[0] = x[0], a = 2 / (span + 1).
    return values.ewm(span=span, adjust=False).mean()


# --- buy and hold ---------------------------------------------------------------------------------------


def buy_and_hold(closes: pd.Series) -> Signals:
    """BUY on every day with a close: long from the window's first close to its last, one trade."""
    return dict.fromkeys(_closes(closes).index, "BUY")


# --- MACD -----------------------------------------------------------------------------------------------


def macd(closes: pd.Series, fast: int = 12, slow: int = 26, signal: int = 9) -> Signals:
    known = _closes(closes)
    line = _ema(known, fast) - _ema(known, slow)
    signal_line = _ema(line, signal)
    return _by_state(line > signal_line, line < signal_line, slow + signal - 1)


# --- KDJ & RSI ------------------------------------------------------------------------------------------


def kdj(closes: pd.Series, n: int = 9) -> tuple[pd.Series, pd.Series]:
    """K and D of KDJ(n, 3, 3) on closes. RSV = 100 × (close − lowest) / (highest − lowest) over the last
    n closes (50 when they are all equal); K = ⅔·K[t−1] + ⅓·RSV, D = ⅔·D[t−1] + ⅓·K, both starting
    from 50 on the first day with n closes. NaN before that day."""
    known = _closes(closes)
    low = known.rolling(n).min()
    high = known.rolling(n).max()
    spread = high - low
    rsv = (100 * (known - low) / spread.where(spread > 0)).where(spread > 0, 50.0).where(spread.notna())
    k_values: list[float] = []
    d_values: list[float] = []
    k = d = 50.0
    for value in rsv:
        if pd.isna(value):
            k_values.append(float("nan"))
            d_values.append(float("nan"))
            continue
        k = 2 / 3 * k + 1 / 3 * float(value)
        d = 2 / 3 * d + 1 / 3 * k
        k_values.append(k)
        d_values.append(d)
    return pd.Series(k_values, index=known.index), pd.Series(d_values, index=known.index)


def rsi(closes: pd.Series, n: int = 14) -> pd.Series:
    """RSI(n) with Wilder's smoothing: the average gain and loss of the close-to-close changes, each
    g[t] = (1/n)·gain[t] + (1 − 1/n)·g[t−1] from the first change (pandas ewm, alpha 1/n, adjust=False);
    RSI = 100 − 100 / (1 + gain / loss); 100 with no loss, 50 with no change at all. NaN before n changes."""
    known = _closes(closes)
    change = known.diff()
    gain = change.clip(lower=0).ewm(alpha=1 / n, adjust=False).mean()
    loss = (-change).clip(lower=0).ewm(alpha=1 / n, adjust=False).mean()
    value = (100 - 100 / (1 + gain / loss.where(loss > 0))).where(loss > 0, 100.0).where(gain + loss > 0, 50.0)
    value.iloc[:n] = float("nan")  # row i has i changes behind it; n are needed
    return value


def kdj_rsi(
    closes: pd.Series,
    n: int = 9,
    rsi_n: int = 14,
    low: tuple[float, float] = (20, 30),  # K below, RSI below: oversold
    high: tuple[float, float] = (80, 70),  # K above, RSI above: overbought
) -> Signals:
    k, _ = kdj(closes, n)
    strength = rsi(closes, rsi_n)
    oversold = (k < low[0]) & (strength < low[1])
    overbought = (k > high[0]) & (strength > high[1])
    return _by_state(oversold, overbought, max(n, rsi_n + 1))


# --- ZMR (zero-mean reversion) --------------------------------------------------------------------------


def zscore(closes: pd.Series, window: int = 20) -> pd.Series:
    """(close − mean of the last ``window`` closes) / their sample standard deviation (ddof 1), the day's
    own close included; NaN before ``window`` closes or when the closes did not vary."""
    known = _closes(closes)
    mean = known.rolling(window).mean()
    spread = known.rolling(window).std(ddof=1)
    return (known - mean) / spread.where(spread > 0)


def zmr(closes: pd.Series, window: int = 20, entry: float = 1.0) -> Signals:
    z = zscore(closes, window)
    return _by_state(z < -entry, z > entry, window)


# --- SMA crossover --------------------------------------------------------------------------------------


def sma(closes: pd.Series, short: int = 5, long: int = 20) -> Signals:
    known = _closes(closes)
    fast = known.rolling(short).mean()
    slow = known.rolling(long).mean()
    return _by_state(fast > slow, fast < slow, long)


BASELINES: tuple[Baseline, ...] = (
    Baseline("buy_and_hold", "B&H", 1, buy_and_hold),
    Baseline("macd", "MACD", 34, partial(macd, fast=12, slow=26, signal=9)),
    Baseline("kdj_rsi", "KDJ&RSI", 15, partial(kdj_rsi, n=9, rsi_n=14, low=(20, 30), high=(80, 70))),
    Baseline("zmr", "ZMR", 20, partial(zmr, window=20, entry=1.0)),
    Baseline("sma", "SMA", 20, partial(sma, short=5, long=20)),
)
BY_NAME: dict[str, Baseline] = {baseline.name: baseline for baseline in BASELINES}
