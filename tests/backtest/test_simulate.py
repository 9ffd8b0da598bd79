"""simulate(): signals and closes into positions and returns, every figure worked out by hand.

The series used throughout: closes 100, 110, 99, 108.9 on Tue 2024-01-02 … Fri 2024-01-05, moves of
+10 % (100 → 110), −10 % (110 → 99) and +10 % (99 → 108.9).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from graph.backtest.simulate import Rules, simulate

DAYS = ["2024-01-02", "2024-01-03", "2024-01-04", "2024-01-05"]
D0, D1, D2, D3 = DAYS
CLOSES = pd.Series([100.0, 110.0, 99.0, 108.9], index=pd.DatetimeIndex(DAYS))
TOL = 1e-12


def _rets(sim):
    return [d.ret for d in sim.days]


def _approx(values):
    return [None if v is None else pytest.approx(v, abs=TOL) for v in values]


def test_long_earns_from_the_next_close_on() -> None:
    sim = simulate(CLOSES, {D0: "BUY"})
    # the first day has no close before it: no return; then +10 %, −10 %, +10 %
    assert _rets(sim) == _approx([None, 0.10, -0.10, 0.10])
    assert [d.position for d in sim.days] == [1, 1, 1, 1]
    assert sim.trades == 1


def test_short_earns_the_opposite() -> None:
    sim = simulate(CLOSES, {D0: "SELL"})
    # −1 × (+10 %), −1 × (−10 %), −1 × (+10 %)
    assert _rets(sim) == _approx([None, -0.10, 0.10, -0.10])
    assert [d.position for d in sim.days] == [-1, -1, -1, -1]


def test_a_signal_trades_at_its_own_close_so_it_misses_the_move_that_led_to_it() -> None:
    sim = simulate(CLOSES, {D1: "BUY"})  # bought at 110 after the +10 % day
    assert _rets(sim) == _approx([None, 0.0, -0.10, 0.10])


def test_flip_from_long_to_short_is_one_trade_of_two_units() -> None:
    sim = simulate(CLOSES, {D0: "BUY", D1: "SELL"})
    # day 1 was held long (+10 %), then short: −1 × (−10 %) = +10 %, −1 × (+10 %) = −10 %
    assert _rets(sim) == _approx([None, 0.10, 0.10, -0.10])
    assert [d.change for d in sim.days] == [1, -2, 0, 0]
    assert sim.trades == 2


def test_hold_and_no_signal_keep_the_position() -> None:
    sim = simulate(CLOSES, {D0: "SELL", D1: "HOLD"})  # D2, D3: no signal at all
    assert [d.position for d in sim.days] == [-1, -1, -1, -1]
    assert [d.signal for d in sim.days] == ["SELL", "HOLD", None, None]
    assert sim.trades == 1


def test_hold_before_any_call_stays_flat() -> None:
    sim = simulate(CLOSES, {D0: "HOLD", D1: "HOLD"})
    assert [d.position for d in sim.days] == [0, 0, 0, 0]
    assert _rets(sim) == _approx([None, 0.0, 0.0, 0.0])


def test_long_only_reads_sell_as_flat() -> None:
    rules = Rules(mode="long_only")
    assert [d.position for d in simulate(CLOSES, {D0: "SELL"}, rules).days] == [0, 0, 0, 0]
    sim = simulate(CLOSES, {D0: "BUY", D1: "SELL", D2: "BUY"}, rules)
    # long into D1 (+10 %), flat into D2 (0), long into D3 (+10 %)
    assert [d.position for d in sim.days] == [1, 0, 1, 1]
    assert _rets(sim) == _approx([None, 0.10, 0.0, 0.10])
    assert sim.trades == 3


def test_costs_per_unit_of_position_change() -> None:
    rules = Rules(cost_bps=10)  # 10 bp = 0.001 of the portfolio per unit
    sim = simulate(CLOSES, {D0: "BUY"}, rules)
    # the entry at D0's close costs 0.001; D0 has no return, so it is charged on D1: 1.1 × 0.999 − 1 = 0.0989
    assert _rets(sim) == _approx([None, 0.0989, -0.10, 0.10])
    assert [d.cost for d in sim.days] == _approx([0.001, 0, 0, 0])
    # the equity: 1.0989 × 0.9 × 1.1 = 1.087911 = 1.089 × 0.999
    assert math.prod(1 + r for r in _rets(sim)[1:]) == pytest.approx(1.087911, abs=TOL)


def test_a_flip_pays_twice() -> None:
    sim = simulate(CLOSES, {D0: "BUY", D1: "SELL"}, Rules(cost_bps=10))
    # D1: long +10 %, then the D0 entry (0.999) and the flip's 2 units (1 − 0.002):
    # 1.1 × 0.998 × 0.999 − 1 = 1.0967022 − 1
    assert sim.days[1].ret == pytest.approx(0.0967022, abs=TOL)
    assert sim.days[1].cost == pytest.approx(0.002, abs=TOL)
    # D2: short across −10 %: +10 %, no cost
    assert sim.days[2].ret == pytest.approx(0.10, abs=TOL)


def test_a_gap_is_stated_and_its_move_is_not_counted() -> None:
    closes = CLOSES.copy()
    closes[D1] = float("nan")  # no close on D1
    sim = simulate(closes, {D0: "BUY", D1: "SELL"})
    # D1: a gap, its SELL could not trade; D2: the move 100 → 99 spans the gap and is not counted;
    # D3: +10 %, still long
    assert sim.gaps == (D1,)
    assert sim.not_executed == (D1,)
    assert _rets(sim) == _approx([None, None, None, 0.10])
    assert [d.position for d in sim.days] == [1, 1, 1, 1]
    assert "could not trade" in (sim.days[1].note or "")
    assert "gap" in (sim.days[2].note or "")
    assert list(sim.returns().index.strftime("%Y-%m-%d")) == [D3]
    assert sim.days[1].close is None  # never filled


def test_a_cost_paid_after_a_gap_is_charged_on_the_next_counted_day() -> None:
    closes = CLOSES.copy()
    closes[D1] = float("nan")
    sim = simulate(closes, {D2: "BUY"}, Rules(cost_bps=10))
    # bought at D2's close (99) for 0.001; D3: 1.1 × 0.999 − 1 = 0.0989
    assert _rets(sim) == _approx([None, None, None, 0.0989])
    assert sim.unpaid_cost == 0


def test_a_cost_with_no_counted_day_after_it_is_reported_unpaid() -> None:
    closes = pd.Series([100.0, float("nan"), 99.0], index=pd.DatetimeIndex(DAYS[:3]))
    sim = simulate(closes, {D2: "BUY"}, Rules(cost_bps=10))
    assert sim.returns().empty
    assert sim.unpaid_cost == pytest.approx(0.001, abs=TOL)


def test_a_gap_on_the_first_day() -> None:
    closes = CLOSES.copy()
    closes[D0] = float("nan")
    sim = simulate(closes, {D0: "BUY", D1: "BUY"})
    # D0 cannot trade; bought at D1 (110); D2 −10 %, D3 +10 %
    assert _rets(sim) == _approx([None, None, -0.10, 0.10])
    assert sim.not_executed == (D0,)


def test_signals_outside_the_window_are_ignored_and_dates_may_be_dates() -> None:
    sim = simulate(CLOSES, {"2023-12-29": "SELL", pd.Timestamp(D0).date(): "BUY"})
    assert [d.position for d in sim.days] == [1, 1, 1, 1]


def test_the_result_states_its_rules() -> None:
    text = " ".join(Rules(mode="long_only", cost_bps=5).describe())
    for words in ("BUY → long", "SELL → flat", "HOLD", "close", "5 bp", "gap", "flat"):
        assert words in text
    assert "SELL → short" in " ".join(Rules().describe())
    assert simulate(CLOSES, {}).rules == Rules()


def test_returns_and_held_positions_line_up_on_the_counted_days() -> None:
    sim = simulate(CLOSES, {D0: "BUY", D2: "SELL"})
    assert list(sim.returns().index.strftime("%Y-%m-%d")) == [D1, D2, D3]
    assert list(sim.held()) == [1, 1, -1]  # what each counted day's return was earned with


@pytest.mark.parametrize(
    ("closes", "signals", "message"),
    [
        (CLOSES.iloc[::-1], {}, "increasing"),
        (pd.Series([100.0, -1.0], index=pd.DatetimeIndex(DAYS[:2])), {}, "positive"),
        (pd.Series([100.0, math.inf], index=pd.DatetimeIndex(DAYS[:2])), {}, "positive"),
        (CLOSES, {D0: "STRONG BUY"}, "unknown signal"),
    ],
)
def test_bad_input_is_refused(closes, signals, message) -> None:
    with pytest.raises(ValueError, match=message):
        simulate(closes, signals)


@pytest.mark.parametrize("kwargs", [{"mode": "both"}, {"cost_bps": -1}, {"cost_bps": math.nan}])
def test_bad_rules_are_refused(kwargs) -> None:
    with pytest.raises(ValueError):
        Rules(**kwargs)


def test_no_look_ahead_in_the_simulation() -> None:
    """Changing the closes and signals after a day changes nothing up to that day."""
    rng = np.random.default_rng(7)
    index = pd.bdate_range("2024-01-02", periods=40)
    closes = pd.Series(100 * np.exp(np.cumsum(rng.normal(0, 0.02, 40))), index=index)
    signals = {day.date().isoformat(): rng.choice(["BUY", "SELL", "HOLD"]) for day in index}
    base = simulate(closes, signals, Rules(cost_bps=7))
    cut = 25
    later = closes.copy()
    later.iloc[cut + 1:] *= 1.5
    flipped = {d: ("SELL" if s == "BUY" else "BUY") if i > cut else s for i, (d, s) in enumerate(signals.items())}
    other = simulate(later, flipped, Rules(cost_bps=7))
    assert base.days[: cut + 1] == other.days[: cut + 1]
    assert base.days[cut + 1:] != other.days[cut + 1:]


@pytest.mark.parametrize(("signals", "held"), [
    ({D0: "BUY"}, 1.0),  # bought on day one and never sold: buy-and-hold
    ({D0: "BUY", D1: "BUY", D2: "HOLD"}, 1.0),  # a BUY repeated while long trades nothing
    ({D0: "SELL"}, -1.0),  # sold short on day one and never bought back
    ({D1: "BUY"}, None),  # bought a day late
    ({D0: "BUY", D2: "SELL"}, None),  # sold later
    ({}, None),  # never traded
    ({D0: "HOLD"}, None),
])
def test_held_throughout_is_one_trade_at_the_first_close(signals, held) -> None:
    sim = simulate(CLOSES, signals)
    first = sim.held_throughout
    assert (first and first.position) == held
    if held is not None:
        assert first is sim.days[0] and sim.trades == 1
    if held == 1.0:  # buy-and-hold's very days, so its figures to the cent
        hold = simulate(CLOSES, dict.fromkeys(DAYS, "BUY"))
        assert [(d.position, d.ret) for d in sim.days] == [(d.position, d.ret) for d in hold.days]


def test_held_throughout_starts_at_the_first_close_after_a_gap() -> None:
    gapped = CLOSES.copy()
    gapped.iloc[0] = float("nan")
    sim = simulate(gapped, {D1: "BUY"})
    assert sim.held_throughout == sim.days[1]
    assert simulate(gapped, {D2: "BUY"}).held_throughout is None
    assert simulate(CLOSES, {D0: "SELL"}, Rules(mode="long_only")).held_throughout is None  # flat: no trade
