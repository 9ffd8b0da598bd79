"""The paper's scores for one simulated strategy: CR, ARR, SR and MDD, plus hit rate, trades and exposure.

The formulas are quantstats' (a maintained metrics library), not ours. Why quantstats and not
empyrical-reloaded, the lighter of the two: every empyrical-reloaded release (0.5.x to 0.7.1) declares
``peewee<3.17.4``, while the lock pins peewee 4.5.3 for yfinance, so it cannot be installed beside the app
without downgrading yfinance's database layer (empyrical never imports peewee; the cap is stale metadata).
quantstats 0.0.86 installs against the lock as it is and computes the same figures on pandas 3.1.1 and
numpy 2.4.6 (checked: CR, annualised return, Sharpe and drawdown agree with empyrical's on a test series).
Its cost is weight: it imports matplotlib and seaborn, so it is imported inside ``metrics()`` only.

Conventions, so a reader can redo any figure:

- **CR**, cumulative return: ``∏(1 + r) − 1`` over the counted days (quantstats ``comp``).
- **ARR**, annualised return: ``(1 + CR) ** (252 / n) − 1``, n the number of counted daily returns
  (quantstats ``cagr`` with 252 periods a year). The paper annualises over 252 trading days too, but its
  published ARR cannot be rebuilt from its CR this way (AAPL: CR 26.62 %, ARR 30.50 % over about three
  months), so a published ARR is shown as published and not compared formula for formula.
- **SR**, Sharpe ratio: ``mean(r − rf_day) / std(r − rf_day) × √252`` with the sample standard deviation
  (ddof 1); ``rf_day = (1 + rf) ** (1 / 252) − 1`` for an annual risk-free rate ``rf`` (0 by default).
  None when it is undefined: fewer than two returns, or no variation at all.
- **MDD**, maximum drawdown: the largest fall of the equity from its running peak, the window's starting
  equity included, as a positive fraction (the paper prints MDD % as a positive number, lower is better).
- **Hit rate**: of the days a position was held into, the share that made money; days that returned
  exactly 0 are left out (quantstats ``win_rate``). None when no such day.
- **Trades**: days on which the position changed (the simulation's count; a flip is one trade).
- **Exposure**: the share of counted days on which a position (long or short) was held. Counted from the
  positions, not from quantstats' ``exposure``, which infers it from non-zero returns and rounds up to a
  whole percent.

Every figure is a fraction (0.2662, not 26.62); the table turns them into percentages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from itertools import pairwise

import pandas as pd

from graph.backtest.simulate import Simulation

TRADING_DAYS_PER_YEAR = 252  # the paper's and quantstats' convention


@dataclass(frozen=True)
class Metrics:
    cumulative_return: float | None  # CR
    annualized_return: float | None  # ARR
    sharpe: float | None  # SR
    max_drawdown: float | None  # MDD, a positive fraction
    hit_rate: float | None
    trades: int
    exposure: float | None
    days: int  # counted daily returns behind the figures
    risk_free_rate: float = 0.0  # annual, as given


def _finite(value: object) -> float | None:
    number = float(value)  # type: ignore[arg-type]
    return number if math.isfinite(number) else None


def _check_readable(returns: pd.Series) -> None:
    # quantstats guesses whether a series holds prices or returns: all values ≥ 0 with one above 1 reads
    # as prices. A ±1 position's daily returns can only look like that after a day of more than +100 %;
    # refuse such a day (in any subset the scores read) rather than let the guess misread the series.
    if returns.max() > 1:
        raise ValueError("a daily return above +100 %: quantstats could read the series as prices")


def metrics(simulation: Simulation, risk_free_rate: float = 0.0) -> Metrics:
    """CR, ARR, SR, MDD, hit rate, trades and exposure of a simulated strategy (see the module docstring)."""
    if not math.isfinite(risk_free_rate):
        raise ValueError(f"the risk-free rate must be a finite number, not {risk_free_rate!r}")
    returns = simulation.returns()
    trades = simulation.trades
    if returns.empty:
        return Metrics(None, None, None, None, None, trades, None, 0, risk_free_rate)
    from quantstats import stats  # imports matplotlib and seaborn: only when scores are asked for

    cr, arr, sharpe, drawdown = scores(returns, risk_free_rate)
    held = simulation.held()
    in_market = returns[held != 0]
    moved = in_market[in_market != 0]
    return Metrics(
        cumulative_return=cr,
        annualized_return=arr,
        sharpe=sharpe,
        max_drawdown=drawdown,
        hit_rate=_finite(stats.win_rate(moved)) if len(moved) else None,
        trades=trades,
        exposure=float((held != 0).sum()) / len(held),
        days=len(returns),
        risk_free_rate=risk_free_rate,
    )


def scores(returns: pd.Series, risk_free_rate: float = 0.0) -> tuple[float | None, float | None, float | None,
                                                                     float | None]:
    """CR, ARR, SR and MDD of daily returns (indexed by date), by the conventions above: what `metrics` scores
    a simulation with, and a paper book's equity curve is scored with (`curve_metrics`)."""
    if returns.empty:
        return None, None, None, None
    _check_readable(returns)
    from quantstats import stats  # imports matplotlib and seaborn: only when scores are asked for

    sharpe = None
    if len(returns) >= 2 and returns.std(ddof=1) > 0:
        sharpe = _finite(stats.sharpe(returns, rf=risk_free_rate, periods=TRADING_DAYS_PER_YEAR))
    # No losing day means no drawdown; saying so also keeps quantstats' prices-or-returns guess out of it.
    drawdown = 0.0 if returns.min() >= 0 else -float(stats.max_drawdown(returns))
    return (_finite(stats.comp(returns)), _finite(stats.cagr(returns, periods=TRADING_DAYS_PER_YEAR)), sharpe,
            drawdown)


@dataclass(frozen=True)
class CurveMetrics:
    """Table 1's four figures over an equity curve (a paper book's, its benchmark's), since its start."""

    cumulative_return: float | None  # CR
    annualized_return: float | None  # ARR
    sharpe: float | None  # SR
    max_drawdown: float | None  # MDD, a positive fraction
    days: int  # counted daily returns


def curve_metrics(start: float, curve: Sequence[tuple[date, float]], risk_free_rate: float = 0.0) -> CurveMetrics:
    """CR, ARR, SR and MDD of an equity curve: its daily returns, the first measured from `start` (the amount
    the curve began with), each next one from the point before. The points are the curve's own days: a day
    the curve leaves out (a gap) is not filled in; the return across it is counted on the day after."""
    values = [float(start), *(float(v) for _, v in curve)]
    returns = pd.Series([b / a - 1 for a, b in pairwise(values)],
                        index=pd.DatetimeIndex([d.isoformat() for d, _ in curve]), dtype=float, name="return")
    cr, arr, sharpe, drawdown = scores(returns, risk_free_rate)
    return CurveMetrics(cr, arr, sharpe, drawdown, len(returns))
