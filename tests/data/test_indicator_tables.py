"""Indicator tables are remembered by the rows they came from: the same rows give the same figures
without stockstats again, other rows (a revised close, one more session) their own, and a caller
changing its copy changes nothing for the next."""
from __future__ import annotations

from datetime import date

import pandas as pd
from stockstats import StockDataFrame

import graph.data.indicators as indicators
from graph.data.synthetic import SyntheticVendor


def _rows() -> pd.DataFrame:
    return SyntheticVendor().ohlcv("NVDA", date(2023, 1, 2), date(2024, 5, 6))


def test_same_rows_same_figures_computed_once(monkeypatch):
    rows = _rows()
    first = indicators.indicator_series(rows)
    calls = []
    real = StockDataFrame.retype
    monkeypatch.setattr(StockDataFrame, "retype", lambda *a, **k: calls.append(1) or real(*a, **k))
    again = indicators.indicator_series(rows.copy())
    pd.testing.assert_frame_equal(first, again)
    assert calls == []
    first.iloc[-1, 0] = -1.0  # the caller's copy
    assert indicators.indicator_series(rows).iloc[-1, 0] != -1.0


def test_other_rows_are_computed_anew():
    rows = _rows()
    before = indicators.compute_indicators(rows)
    revised = rows.copy()
    revised.iloc[-1, revised.columns.get_loc("close")] *= 1.10  # the last close revised
    assert indicators.compute_indicators(revised)["EMA 10"].value != before["EMA 10"].value
    shorter = rows.iloc[:-1]  # a day earlier: its own figures
    assert indicators.compute_indicators(shorter)["EMA 10"].recent[-1][0] == before["EMA 10"].recent[-2][0]
    assert indicators.compute_indicators(shorter)["EMA 10"].value == before["EMA 10"].recent[-2][1]
