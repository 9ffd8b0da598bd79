"""The metrics against values worked out by hand on the closes 100, 110, 99, 108.9 (+10 %, −10 %, +10 %).

Long from the first close, the counted daily returns are r = (0.10, −0.10, 0.10), n = 3:
- CR  = 1.1 × 0.9 × 1.1 − 1 = 1.089 − 1 = 0.089
- ARR = 1.089 ** (252 / 3) − 1 = 1.089 ** 84 − 1 ≈ 1288.26 (three days annualised: absurd, as it should be)
- SR: mean = 0.1 / 3; deviations 1/15, −2/15, 1/15 → sample variance (1 + 4 + 1) / 225 / 2 = 2/150,
  std = √(2/150) = 0.2 / √3; mean / std = (1/30) / (0.2/√3) = √3 / 6; × √252 = √(3 × 252 / 36) = √21
- MDD: the equity 1 → 1.1 → 0.99 → 1.089; the fall from the 1.1 peak to 0.99 is 0.11 / 1.1 = 0.10
- hit rate 2 of 3 days; exposure 3 of 3 days; one trade.
"""
from __future__ import annotations

import math

import pandas as pd
import pytest

from graph.backtest.metrics import metrics
from graph.backtest.simulate import Rules, simulate

DAYS = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05"]
D0, D1, D2, D3 = DAYS
CLOSES = pd.Series([100.0, 110.0, 99.0, 108.9], index=pd.DatetimeIndex(DAYS))
TOL = 1e-9


def test_long() -> None:
    m = metrics(simulate(CLOSES, {D0: "BUY"}))
    assert m.cumulative_return == pytest.approx(0.089, abs=TOL)
    assert m.annualized_return == pytest.approx(1.089**84 - 1, rel=TOL)
    assert m.sharpe == pytest.approx(math.sqrt(21), rel=TOL)
    assert m.max_drawdown == pytest.approx(0.10, abs=TOL)
    assert m.hit_rate == pytest.approx(2 / 3, abs=TOL)
    assert (m.trades, m.exposure, m.days) == (1, 1.0, 3)


def test_short_and_a_drawdown_from_the_starting_equity() -> None:
    # r = (−0.10, +0.10, −0.10): the equity 1 → 0.9 → 0.99 → 0.891, never above its start, so the
    # drawdown runs from the start: 1 − 0.891 = 0.109, which is also −CR
    m = metrics(simulate(CLOSES, {D0: "SELL"}))
    assert m.cumulative_return == pytest.approx(-0.109, abs=TOL)
    assert m.max_drawdown == pytest.approx(0.109, abs=TOL)
    assert m.sharpe == pytest.approx(-math.sqrt(21), rel=TOL)  # the same spread, the opposite mean
    assert m.annualized_return == pytest.approx(0.891**84 - 1, rel=TOL)
    assert m.hit_rate == pytest.approx(1 / 3, abs=TOL)


def test_risk_free_rate_is_annual_and_taken_off_each_day() -> None:
    # an annual rate of 1.01 ** 252 − 1 is 1 % a day; the excess returns (0.09, −0.11, 0.09) have the mean
    # 0.07 / 3 and the same spread 0.2 / √3: SR = (0.07 / 3) / (0.2 / √3) × √252 = (7 / 60) × √3 × √252
    # = (7 / 60) × √756 = (7 / 60) × 6√21 = 0.7 × √21 ≈ 3.2078
    m = metrics(simulate(CLOSES, {D0: "BUY"}), risk_free_rate=1.01**252 - 1)
    assert m.sharpe == pytest.approx(0.7 * math.sqrt(21), rel=1e-9)
    assert m.risk_free_rate == pytest.approx(1.01**252 - 1)
    assert m.cumulative_return == pytest.approx(0.089, abs=TOL)  # CR is not an excess return


def test_partial_exposure_and_hit_rate_on_the_days_in_the_market() -> None:
    # long-only: BUY at D0, SELL (flat) at D1 → held into D1 only; r = (0.10, 0, 0)
    m = metrics(simulate(CLOSES, {D0: "BUY", D1: "SELL"}, Rules(mode="long_only")))
    assert m.cumulative_return == pytest.approx(0.10, abs=TOL)
    assert m.exposure == pytest.approx(1 / 3, abs=TOL)
    assert m.hit_rate == 1.0  # one day in the market, and it gained
    assert m.trades == 2
    assert m.max_drawdown == 0.0  # no losing day
    # mean 1/30; deviations 2/30, −1/30, −1/30 → variance (4 + 1 + 1) / 900 / 2 = 1/300, std = 1/√300;
    # mean / std = √300 / 30 = 1/√3; × √252 = √84
    assert m.sharpe == pytest.approx(math.sqrt(84), rel=TOL)


def test_costs_show_in_every_figure() -> None:
    # 10 bp on entry: r = (0.0989, −0.10, 0.10); CR = 1.0989 × 0.9 × 1.1 − 1 = 0.087911
    m = metrics(simulate(CLOSES, {D0: "BUY"}, Rules(cost_bps=10)))
    assert m.cumulative_return == pytest.approx(0.087911, abs=TOL)
    # peak 1.0989 → 0.98901: the same 10 % fall
    assert m.max_drawdown == pytest.approx(0.10, abs=TOL)


def test_flat_all_along() -> None:
    m = metrics(simulate(CLOSES, {}))
    assert (m.cumulative_return, m.annualized_return, m.max_drawdown) == (0.0, 0.0, 0.0)
    assert m.sharpe is None  # no variation: undefined, not 0 or infinite
    assert m.hit_rate is None
    assert (m.trades, m.exposure, m.days) == (0, 0.0, 3)


def test_a_window_of_one_day_has_no_figures() -> None:
    m = metrics(simulate(CLOSES.iloc[:1], {D0: "BUY"}))
    assert (m.cumulative_return, m.annualized_return, m.sharpe, m.max_drawdown, m.hit_rate, m.exposure) == (None,) * 6
    assert (m.trades, m.days) == (1, 0)


def test_a_gap_leaves_its_move_out_of_every_figure() -> None:
    closes = CLOSES.copy()
    closes[D1] = float("nan")
    # only D3 is counted: r = (0.10,)
    m = metrics(simulate(closes, {D0: "BUY"}))
    assert m.cumulative_return == pytest.approx(0.10, abs=TOL)
    assert m.annualized_return == pytest.approx(1.1**252 - 1, rel=TOL)
    assert m.days == 1
    assert m.sharpe is None  # one return has no spread


def test_a_day_above_plus_100_percent_is_refused() -> None:
    closes = pd.Series([100.0, 250.0, 240.0], index=pd.DatetimeIndex(DAYS[:3]))
    with pytest.raises(ValueError, match="100 %"):
        metrics(simulate(closes, {D0: "BUY"}))


def test_a_bad_risk_free_rate_is_refused() -> None:
    with pytest.raises(ValueError):
        metrics(simulate(CLOSES, {D0: "BUY"}), risk_free_rate=math.nan)
