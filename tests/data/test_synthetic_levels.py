"""The demo's prices sit where each class trades (graph/data/synthetic_assets.py, issue 37): bitcoin in tens of
thousands, EUR/USD near 1.1, gold in the 2,000s, an index in thousands of points; a stock's path is its own.
Bounds are wide on purpose (a synthetic path wanders); the figures are deterministic, so the same day gives the
same close in every run."""
from __future__ import annotations

from datetime import date

import pytest

from graph.core.assets import AssetClass
from graph.data.synthetic import SyntheticVendor
from graph.data.synthetic_assets import level_of

DAY = date(2026, 11, 27)


def _close(symbol: str) -> float:
    bars = SyntheticVendor().ohlcv(symbol, date(2026, 11, 1), DAY)
    return float(bars["close"].iloc[-1])


@pytest.mark.parametrize(("symbol", "low", "high"), [
    ("BTC-USD", 10_000, 150_000),
    ("ETH-USD", 500, 30_000),
    ("EURUSD=X", 0.8, 1.5),
    ("JPY=X", 90, 200),
    ("GC=F", 1_500, 3_600),
    ("CL=F", 20, 200),
    ("^GSPC", 2_500, 10_000),
    ("^N225", 15_000, 80_000),
])
def test_a_class_s_price_sits_at_its_level(symbol: str, low: float, high: float) -> None:
    assert low <= _close(symbol) <= high
    assert _close(symbol) == _close(symbol)  # deterministic


def test_levels_are_drawn_from_the_symbol_and_only_for_what_is_no_share() -> None:
    btc = level_of("BTC-USD", AssetClass.CRYPTO)
    assert btc is not None and 30_000 <= btc.anchor <= 70_000 and btc == level_of("BTC-USD", AssetClass.CRYPTO)
    pair = level_of("EURUSD=X", AssetClass.CURRENCY)
    assert pair is not None and pair.places == 4 and pair.base_volume == 0
    assert level_of("NVDA", AssetClass.EQUITY) is None and level_of("SPY", AssetClass.FUND) is None
    # a coin the desk has no level for is still a coin's price, to 4 places below 10
    other = level_of("XYZ-USD", AssetClass.CRYPTO)
    assert other is not None and 0.1 <= other.anchor <= 500
