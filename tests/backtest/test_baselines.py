"""The rule baselines against signals worked out by hand on short series (small windows, so the hand
working fits in a comment), their stated defaults, and no look-ahead: cutting or changing the future never
moves an earlier signal."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from graph.backtest.baselines import BASELINES, BY_NAME, buy_and_hold, kdj, kdj_rsi, macd, rsi, sma, zmr, zscore
from graph.backtest.metrics import metrics
from graph.backtest.simulate import simulate
from graph.core.chinese_script import to_traditional

TOL = 1e-3  # the hand working below is rounded to 3-4 decimals


def _series(values: list[float]) -> pd.Series:
    return pd.Series(values, index=pd.bdate_range("2024-01-02", periods=len(values)), dtype=float)


def _days(values: list[float]) -> list[str]:
    return [day.date().isoformat() for day in _series(values).index]


def test_buy_and_hold_buys_every_day_with_a_close() -> None:
    closes = _series([10, float("nan"), 12])
    days = _days([10, 0, 12])
    assert buy_and_hold(closes) == {days[0]: "BUY", days[2]: "BUY"}  # the gap has no signal
    # over a window after a day of history: long from the window's first close to its last, one trade:
    # CR = 12 / 10 − 1
    history = _series([9, 10, 11, 12])
    sim = simulate(history.iloc[1:], buy_and_hold(history))
    assert metrics(sim).cumulative_return == pytest.approx(0.2, abs=1e-12)
    assert sim.trades == 1


MACD_CLOSES = [10, 11, 12, 11, 10, 11]


def test_macd_by_hand() -> None:
    # MACD(2, 3, 2): EMA2 has a = 2/3, EMA3 a = 1/2, the signal line EMA2 again; e[0] = x[0].
    # EMA2:  10, 10.6667, 11.5556, 11.1852, 10.3951, 10.7984
    # EMA3:  10, 10.5,    11.25,   11.125,  10.5625, 10.78125
    # line:   0, 0.1667,  0.3056,  0.0602, −0.1674,  0.0171
    # signal: 0, 0.1111,  0.2407,  0.1204, −0.0715, −0.0124
    # First signal from the 3 + 2 − 1 = 4th close: day 3 line < signal → SELL, day 4 SELL, day 5 line > signal → BUY
    days = _days(MACD_CLOSES)
    assert macd(_series(MACD_CLOSES), fast=2, slow=3, signal=2) == {days[3]: "SELL", days[4]: "SELL", days[5]: "BUY"}


KDJ_CLOSES = [10, 12, 11, 13, 9, 8, 7, 14, 15, 16, 17]


def test_kdj_by_hand() -> None:
    # KDJ(3): RSV over the last 3 closes from day 2: 50, 100, 0, 0, 0, 100, 100, 100, 100
    # K = ⅔K + ⅓RSV from 50: 50, 66.667, 44.444, 29.630, 19.753, 46.502, 64.335, 76.223, 84.148
    # D = ⅔D + ⅓K from 50:   50, 55.556, 51.852, 44.444, 36.214, 39.643, 47.874, 57.323, 66.265
    k, d = kdj(_series(KDJ_CLOSES), n=3)
    assert k.iloc[:2].isna().all() and d.iloc[:2].isna().all()
    k_by_hand = [50, 66.667, 44.444, 29.630, 19.753, 46.502, 64.335, 76.223, 84.148]
    d_by_hand = [50, 55.556, 51.852, 44.444, 36.214, 39.643, 47.874, 57.323, 66.265]
    assert list(k.iloc[2:]) == pytest.approx(k_by_hand, abs=TOL)
    assert list(d.iloc[2:]) == pytest.approx(d_by_hand, abs=TOL)


def test_rsi_by_hand() -> None:
    # RSI(2), a = 1/2. Changes: +2, −1, +2, −4, −1, −1, +7, +1, +1, +1
    # average gain from the first change (g = ½·gain + ½·g):
    #   2, 1, 1.5, 0.75, 0.375, 0.1875, 3.59375, 2.296875, 1.6484375, 1.32421875
    # average loss:
    #   0, 0.5, 0.25, 2.125, 1.5625, 1.28125, 0.640625, 0.3203125, 0.16015625, 0.080078125
    # RSI = 100 − 100 / (1 + gain / loss) from day 2 (2 changes):
    #   66.667, 85.714, 26.087, 19.355, 12.766, 84.871, 87.761, 91.145, 94.298
    value = rsi(_series(KDJ_CLOSES), n=2)
    assert value.iloc[:2].isna().all()
    assert list(value.iloc[2:]) == pytest.approx(
        [66.667, 85.714, 26.087, 19.355, 12.766, 84.871, 87.761, 91.145, 94.298], abs=TOL
    )


def test_rsi_edges() -> None:
    assert list(rsi(_series([10, 11, 12]), n=2).iloc[2:]) == [100.0]  # no loss at all
    assert list(rsi(_series([10, 10, 10]), n=2).iloc[2:]) == [50.0]  # no change at all


def test_kdj_rsi_by_hand() -> None:
    # From the two tables above: day 6 has K 19.753 < 20 and RSI 12.766 < 30 → BUY;
    # day 10 has K 84.148 > 80 and RSI 94.298 > 70 → SELL; no other day is extreme on both.
    days = _days(KDJ_CLOSES)
    assert kdj_rsi(_series(KDJ_CLOSES), n=3, rsi_n=2) == {days[6]: "BUY", days[10]: "SELL"}


ZMR_CLOSES = [10, 11, 11.5, 9, 13, 20]


def test_zmr_by_hand() -> None:
    # z over the last 3 closes, sample std (ddof 1):
    # day 2 [10, 11, 11.5]: mean 10.8333, std √(1.1667 / 2) = 0.7638, z = 0.6667 / 0.7638 = 0.8729
    # day 3 [11, 11.5, 9]:  mean 10.5,    std √(3.5 / 2) = 1.3229,    z = −1.5 / 1.3229 = −1.1339 → BUY
    # day 4 [11.5, 9, 13]:  mean 11.1667, std √(8.1667 / 2) = 2.0207, z = 1.8333 / 2.0207 = 0.9073
    # day 5 [9, 13, 20]:    mean 14,      std √(62 / 2) = 5.5678,     z = 6 / 5.5678 = 1.0776 → SELL
    closes = _series(ZMR_CLOSES)
    assert list(zscore(closes, 3).iloc[2:]) == pytest.approx([0.8729, -1.1339, 0.9073, 1.0776], abs=TOL)
    days = _days(ZMR_CLOSES)
    assert zmr(closes, window=3, entry=1.0) == {days[3]: "BUY", days[5]: "SELL"}
    assert zscore(_series([10, 10, 10]), 3).isna().all()  # no spread: no z, no signal


SMA_CLOSES = [10, 11, 12, 11, 10, 9, 12]


def test_sma_by_hand() -> None:
    # SMA2 from day 1: 10.5, 11.5, 11.5, 10.5, 9.5, 10.5
    # SMA3 from day 2:       11, 11.333, 11, 10, 10.333
    # day 2 11.5 > 11 BUY, day 3 11.5 > 11.333 BUY, day 4 10.5 < 11 SELL, day 5 9.5 < 10 SELL, day 6 10.5 > 10.333 BUY
    days = _days(SMA_CLOSES)
    assert sma(_series(SMA_CLOSES), short=2, long=3) == {
        days[2]: "BUY", days[3]: "BUY", days[4]: "SELL", days[5]: "SELL", days[6]: "BUY",
    }
    assert sma(_series([10, 10, 10]), short=2, long=3) == {}  # equal averages: no signal


def test_a_baseline_goes_through_the_same_simulation() -> None:
    # SMA(2, 3) over days 2…6: held long into day 3 (12 → 11), long into day 4 (11 → 10), short into day 5
    # (10 → 9), short into day 6 (9 → 12): CR = (11/12) × (10/11) × 1.1 × (2/3) − 1 = 0.61111 − 1 = −0.38889
    closes = _series(SMA_CLOSES)
    sim = simulate(closes.iloc[2:], sma(closes, short=2, long=3))
    assert metrics(sim).cumulative_return == pytest.approx(11 / 12 * 10 / 11 * 1.1 * 2 / 3 - 1, abs=1e-12)
    assert sim.trades == 3  # in at day 2, flip at day 4, flip at day 6


def test_the_defaults_are_the_stated_rules() -> None:
    assert [b.name for b in BASELINES] == ["buy_and_hold", "macd", "kdj_rsi", "zmr", "sma"]
    assert [b.label for b in BASELINES] == ["B&H", "MACD", "KDJ&RSI", "ZMR", "SMA"]
    assert BY_NAME["macd"].signals.keywords == {"fast": 12, "slow": 26, "signal": 9}  # type: ignore[attr-defined]
    assert BY_NAME["kdj_rsi"].signals.keywords == {"n": 9, "rsi_n": 14, "low": (20, 30), "high": (80, 70)}  # type: ignore[attr-defined]
    assert BY_NAME["zmr"].signals.keywords == {"window": 20, "entry": 1.0}  # type: ignore[attr-defined]
    assert BY_NAME["sma"].signals.keywords == {"short": 5, "long": 20}  # type: ignore[attr-defined]
    for words, name in (("12, 26, 9", "macd"), ("K < 20 and RSI < 30", "kdj_rsi"), ("z < −1", "zmr"), ("5-day", "sma")):
        assert words in BY_NAME[name].rule
    assert [b.min_closes for b in BASELINES] == [1, 34, 15, 20, 20]


def _walk(seed: int, n: int = 160) -> pd.Series:
    rng = np.random.default_rng(seed)
    # a volatile walk with swings, so every rule (even KDJ & RSI's double extremes) signals both ways
    steps = rng.normal(0, 0.025, n) + 0.03 * np.sin(np.arange(n) / 6)
    return pd.Series(100 * np.exp(np.cumsum(steps)), index=pd.bdate_range("2023-06-01", periods=n))


@pytest.mark.parametrize("baseline", BASELINES, ids=lambda b: b.name)
def test_no_look_ahead(baseline) -> None:
    closes = _walk(3)
    full = baseline.signals(closes)
    assert {"BUY", "SELL"} <= set(full.values()) or baseline.name == "buy_and_hold"
    first = closes.index[baseline.min_closes - 1].date().isoformat()
    assert min(full) == first or baseline.name in ("kdj_rsi", "zmr")  # no signal before its history
    assert min(full) >= first
    rng = np.random.default_rng(11)
    for cut in (40, 70, 100, 130):
        day = closes.index[cut].date().isoformat()
        before = {d: s for d, s in full.items() if d <= day}
        # the future cut off …
        assert baseline.signals(closes.iloc[: cut + 1]) == before
        # … or changed beyond recognition
        changed = closes.copy()
        changed.iloc[cut + 1:] *= rng.uniform(0.5, 1.5, len(closes) - cut - 1)
        assert {d: s for d, s in baseline.signals(changed).items() if d <= day} == before


@pytest.mark.parametrize("baseline", BASELINES, ids=lambda b: b.name)
def test_a_gap_day_has_no_signal(baseline) -> None:
    closes = _walk(5)
    closes.iloc[80] = float("nan")
    signals = baseline.signals(closes)
    assert closes.index[80].date().isoformat() not in signals


@pytest.mark.parametrize("baseline", BASELINES, ids=lambda b: b.name)
def test_each_rule_in_words_in_english_and_chinese(baseline) -> None:
    """The CLI's file and the chat word each rule from prompts/words_<code>.md: the English is the CLI's, the
    Chinese says the same rule (the same figures, in the same order)."""
    english, chinese = baseline.rule_in("en"), baseline.rule_in("zh")
    assert baseline.rule == english and english.endswith(".")
    assert chinese != english and re.search(r"[\u4e00-\u9fff]", chinese)
    assert re.findall(r"\d+", chinese) == re.findall(r"\d+", english)
    assert baseline.rule_in("zh-Hant") == to_traditional(chinese) != chinese
    assert baseline.rule_in("fr") == english  # a language without the text: English
