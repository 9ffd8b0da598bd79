"""A stop from an earlier call crossed by a close since (graph/watchlist/slots.py): below it for a BUY, above
it for a SELL; a HOLD or a stop without a price ("n/a") is never crossed; a vendor failure gives no notice."""
from __future__ import annotations

from datetime import date
from types import SimpleNamespace

from graph.data.synthetic import SyntheticVendor
from graph.track.calls import Call
from graph.watchlist.slots import stop_crossed, stop_level

VENDOR = SyntheticVendor()
DAY = date(2024, 5, 10)
CLOSES = VENDOR.ohlcv("NVDA", date(2024, 5, 2), DAY)["close"]
DESK = SimpleNamespace(vendor=VENDOR)


def call(signal: str, stop: str) -> Call:
    return Call(id="c:1", user="ana", thread_id="t", ticker="NVDA", trade_date="2024-05-01", signal=signal, stop=stop)


def test_stop_levels_as_judges_write_them() -> None:
    assert stop_level("865.00") == 865.0
    assert stop_level("close below 1,120.5") == 1120.5
    assert stop_level("n/a") is None and stop_level("") is None


def test_a_buy_whose_stop_is_above_a_later_close_was_crossed() -> None:
    low = float(CLOSES.min())
    said = stop_crossed(DESK, call("BUY", f"{low + 0.01:.2f}"), DAY)  # type: ignore[arg-type]
    assert said.startswith(f"the stop {low + 0.01:.2f} of the 2024-05-01 BUY call was crossed (close ")
    assert stop_crossed(DESK, call("BUY", f"{low - 0.01:.2f}"), DAY) == ""  # type: ignore[arg-type]


def test_a_sell_is_crossed_above_its_stop_and_a_hold_never() -> None:
    high = float(CLOSES.max())
    assert "was crossed" in stop_crossed(DESK, call("SELL", f"{high - 0.01:.2f}"), DAY)  # type: ignore[arg-type]
    assert stop_crossed(DESK, call("SELL", f"{high + 0.01:.2f}"), DAY) == ""  # type: ignore[arg-type]
    assert stop_crossed(DESK, call("HOLD", "1"), DAY) == ""  # type: ignore[arg-type]
    assert stop_crossed(DESK, call("BUY", "n/a"), DAY) == ""  # type: ignore[arg-type]


def test_a_vendor_failure_gives_no_notice() -> None:
    def fail(*_: object) -> None:
        raise RuntimeError("vendor down")

    assert stop_crossed(SimpleNamespace(vendor=SimpleNamespace(ohlcv=fail)), call("BUY", "9999"), DAY) == ""  # type: ignore[arg-type]
