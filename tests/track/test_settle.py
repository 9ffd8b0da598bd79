"""Scoring a call from a hand-written price table, every figure worked out by hand below.

The sessions of the table: Tue 2024-05-21, Wed 22 (the trade date), Thu 23, Fri 24, (Sat 25, Sun 26,
Memorial Day Mon 27: no US rows), Tue 28, Wed 29, Thu 30, Fri 31, (weekend) Mon 06-03, Tue 06-04.
A "5 days" call traded on the 22nd therefore settles on the 5th row after it: 23, 24, 28, 29, 30 -> 2024-05-30.
The rows after the window move the other way, so reading past the settle date would show.
"""
from __future__ import annotations

from datetime import UTC, date, datetime

import pandas as pd
import pytest

from graph.core.state import Signal
from graph.data.vendor import VendorError
from graph.track.calls import Call, Outcome
from graph.track.settle import HOLD_BAND, is_due, price_in, settle, verdict

TRADE = "2024-05-22"
NOW = datetime(2024, 6, 5, 12, 0, tzinfo=UTC)
Bar = tuple[float, float, float, float]  # open, high, low, close

# fmt: off
TABLE: dict[str, dict[str, Bar]] = {
    "SPY": {
        "2024-05-21": (497, 499, 496, 498),
        "2024-05-22": (498, 501, 497, 500),   # entry: 500
        "2024-05-23": (500, 503, 499, 502),
        "2024-05-24": (502, 503, 500, 501),
        "2024-05-28": (501, 504, 500, 503),   # a 3-session window ends here: 503 / 500 - 1 = +0.6 %
        "2024-05-29": (503, 505, 502, 504),
        "2024-05-30": (504, 506, 503, 505),   # a 5-session window ends here: 505 / 500 - 1 = +1 %
        "2024-05-31": (505, 511, 504, 510),
        "2024-06-03": (510, 510, 489, 490),
        "2024-06-04": (490, 496, 488, 495),
    },
    "UP": {   # rises 10 % in the window, then falls hard after it
        "2024-05-21": (98, 99, 97, 99),
        "2024-05-22": (99, 101, 99, 100),
        "2024-05-23": (100, 104, 100, 103),
        "2024-05-24": (103, 105, 102, 104),
        "2024-05-28": (104, 107, 103, 106),
        "2024-05-29": (106, 109, 105, 108),
        "2024-05-30": (108, 111, 107, 110),
        "2024-05-31": (110, 110, 89, 90),
        "2024-06-03": (90, 91, 78, 80),       # a low under any BUY stop, but after the window
        "2024-06-04": (80, 86, 79, 85),
    },
    "DOWN": {  # falls 5 % in the window, with a spike to 106 on the 24th
        "2024-05-22": (101, 101, 99, 100),
        "2024-05-23": (100, 100, 97, 98),
        "2024-05-24": (98, 106, 97, 99),
        "2024-05-28": (99, 99, 96, 97),
        "2024-05-29": (97, 98, 95, 96),
        "2024-05-30": (96, 97, 94, 95),
        "2024-05-31": (95, 121, 95, 120),     # a high over any SELL stop, but after the window
        "2024-06-03": (120, 125, 119, 124),
        "2024-06-04": (124, 126, 122, 125),
    },
    "FLAT": {  # +2 % in the window: 1 % better than SPY
        "2024-05-22": (50, 50.5, 49.5, 50),
        "2024-05-23": (50, 51, 50, 50.5),
        "2024-05-24": (50.5, 50.5, 49, 49.5),
        "2024-05-28": (49.5, 50.5, 49.5, 50.25),
        "2024-05-29": (50.25, 51, 50, 50.75),
        "2024-05-30": (50.75, 51.5, 50.5, 51),
        "2024-05-31": (51, 60, 51, 60),
    },
    "DIP": {   # dips to a low of 94 on the 28th (95.5 on the 24th), ends 8 % up
        "2024-05-22": (100, 101, 99, 100),
        "2024-05-23": (100, 100, 96, 97),
        "2024-05-24": (97, 97, 95.5, 96),
        "2024-05-28": (96, 100, 94, 99),
        "2024-05-29": (99, 105, 98, 104),
        "2024-05-30": (104, 109, 103, 108),
    },
    "STALE": {  # the vendor has not caught up: nothing after the 28th
        "2024-05-22": (20, 21, 19, 20),
        "2024-05-23": (20, 21, 19, 20),
        "2024-05-24": (20, 21, 19, 20),
        "2024-05-28": (20, 21, 19, 20),
    },
    "NEW": {    # first listed the day after the trade date
        "2024-05-23": (10, 11, 9, 10),
        "2024-05-24": (10, 11, 9, 10),
        "2024-05-28": (10, 11, 9, 10),
        "2024-05-29": (10, 11, 9, 10),
        "2024-05-30": (10, 11, 9, 10),
    },
    # Hong Kong trades on US Memorial Day (the 27th): its own sessions count
    "0700.HK": {
        "2024-05-22": (358, 361, 357, 360),
        "2024-05-23": (360, 363, 359, 362),
        "2024-05-24": (362, 366, 361, 365),
        "2024-05-27": (365, 371, 364, 370),
        "2024-05-28": (370, 371, 366, 368),
    },
    "^HSI": {
        "2024-05-22": (18950, 19050, 18900, 19000),
        "2024-05-23": (19000, 19150, 18990, 19100),
        "2024-05-24": (19100, 19120, 18900, 18950),
        "2024-05-27": (18950, 19400, 18950, 19380),
        "2024-05-28": (19380, 19390, 18990, 19000),
    },
}
# fmt: on


class LookAhead(BaseException):
    """A BaseException, so settle()'s `except Exception` (any vendor failure leaves a call pending) cannot
    swallow the guard and a look-ahead fails the test."""


class TableVendor:
    """The three members of the Vendor protocol settle() uses, over TABLE; it refuses any date after `today`."""

    name = "table"
    label = "hand-written test prices"

    def __init__(self, today: date, table: dict[str, dict[str, Bar]] | None = None,
                 fail: Exception | None = None) -> None:
        self.today = today
        self.table = TABLE if table is None else table
        self.fail = fail
        self.asked: list[tuple[str, date, date]] = []

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        self.asked.append((ticker, start, end))
        if end > self.today:
            raise LookAhead(f"asked for {ticker} up to {end}, after today {self.today}")
        if self.fail is not None:
            raise self.fail
        if ticker not in self.table:
            raise VendorError(f"unknown ticker {ticker}")
        rows = {pd.Timestamp(day): bar for day, bar in self.table[ticker].items()
                if start <= date.fromisoformat(day) <= end}
        return pd.DataFrame([(*bar, 1_000_000) for bar in rows.values()], index=pd.DatetimeIndex(list(rows)),
                            columns=["open", "high", "low", "close", "volume"])


def call(ticker: str = "UP", signal: Signal = "BUY", horizon: str = "5 days", stop: str = "n/a",
         trade_date: str = TRADE) -> Call:
    return Call(id="t1:1", user="ann@example.com", thread_id="t1", ticker=ticker, trade_date=trade_date,
                signal=signal, horizon=horizon, stop=stop, position_size="2% of portfolio")


def settled(c: Call, today: date = date(2024, 5, 30)) -> Outcome:
    vendor = TableVendor(today)
    out = settle(c, vendor, today, now=NOW)
    assert out.outcome is not None, out.pending
    assert out.pending == ""
    assert all(end == today for _, _, end in vendor.asked)   # read up to today, and only that
    return out.outcome


def approx(x: float) -> object:
    return pytest.approx(x, abs=1e-12)


# --- scored calls --------------------------------------------------------------------------------------


def test_buy_that_was_right() -> None:
    # UP 100 -> 110 over 5 sessions: +10 %; SPY 500 -> 505: +1 %; alpha +9 % > 0: right
    o = settled(call("UP", "BUY", stop="95"))
    assert (o.settle_date, o.sessions, o.benchmark) == ("2024-05-30", 5, "SPY")
    assert (o.entry_close, o.exit_close) == (100, 110)
    assert o.raw_return == approx(0.10)
    assert o.benchmark_return == approx(0.01)
    assert o.alpha == approx(0.09)
    assert o.verdict == "right"
    # lows in the window: 100, 102, 103, 105, 107 (the 78 of 06-03 is after it): the stop held
    assert (o.stop_price, o.stop_hit) == (95, None)
    assert o.settled_at == NOW.isoformat()


def test_settle_date_is_the_nth_row_not_today() -> None:
    # settled a week later: still 100 -> 110 over 23, 24, 28, 29, 30, not the close of today (85)
    o = settled(call("UP", "BUY", stop="95"), today=date(2024, 6, 4))
    assert (o.settle_date, o.exit_close, o.stop_hit) == ("2024-05-30", 110, None)
    assert o.alpha == approx(0.09)


def test_three_sessions_skip_the_weekend_and_memorial_day() -> None:
    # UP 100 -> 106 over 23, 24, 28: +6 %; SPY 500 -> 503: +0.6 %; alpha +5.4 %
    o = settled(call("UP", "BUY", horizon="3 trading days"), today=date(2024, 5, 28))
    assert (o.settle_date, o.sessions) == ("2024-05-28", 3)
    assert o.raw_return == approx(0.06)
    assert o.benchmark_return == approx(0.006)
    assert o.alpha == approx(0.054)


def test_sell_that_was_right() -> None:
    # DOWN 100 -> 95: -5 %; SPY +1 %; alpha -6 % < 0: a SELL is right (the sign is not flipped)
    # highs in the window: 100, 106, 99, 98, 97: a stop at 110 held (the 121 of 05-31 is after the window)
    o = settled(call("DOWN", "SELL", stop="110.00"))
    assert o.raw_return == approx(-0.05)
    assert o.benchmark_return == approx(0.01)
    assert o.alpha == approx(-0.06)
    assert o.verdict == "right"
    assert (o.stop_price, o.stop_hit) == (110, None)


def test_buy_of_a_falling_stock_was_wrong() -> None:
    o = settled(call("DOWN", "BUY"))
    assert o.alpha == approx(-0.06)
    assert o.verdict == "wrong"


def test_hold_inside_the_band() -> None:
    # FLAT 50 -> 51: +2 %; SPY +1 %; alpha +1 %, |alpha| <= 2 %: right
    o = settled(call("FLAT", "HOLD", stop="50"))
    assert o.raw_return == approx(0.02)
    assert o.alpha == approx(0.01)
    assert o.verdict == "right"
    assert (o.stop_price, o.stop_hit) == (50, None)   # a HOLD has no stop to hit (a BUY's would: low 49)


def test_hold_outside_the_band() -> None:
    # UP: alpha +9 % > 2 %: a HOLD missed the move, wrong
    o = settled(call("UP", "HOLD"))
    assert o.alpha == approx(0.09)
    assert o.verdict == "wrong"


def test_buy_whose_stop_was_hit() -> None:
    # DIP 100 -> 108: +8 %; SPY +1 %; alpha +7 %: right. Lows 96, 95.5, 94, ...: a stop at 95 is first
    # reached on 05-28 (94 <= 95); the returns stay close to close, the hit is a fact beside them.
    o = settled(call("DIP", "BUY", stop="$95 (-5%)"))
    assert o.raw_return == approx(0.08)
    assert o.alpha == approx(0.07)
    assert o.verdict == "right"
    assert (o.stop_price, o.stop_hit) == (95, "2024-05-28")


def test_a_low_equal_to_the_stop_hits_it() -> None:
    o = settled(call("DIP", "BUY", stop="stop 95.5"))
    assert o.stop_hit == "2024-05-24"


def test_sell_whose_stop_was_hit() -> None:
    # DOWN's high of 106 on 05-24 is the first >= 105; the SELL is still right on alpha -6 %
    o = settled(call("DOWN", "SELL", stop="105"))
    assert (o.stop_price, o.stop_hit) == (105, "2024-05-24")
    assert o.alpha == approx(-0.06)
    assert o.verdict == "right"


def test_exchange_abroad_counts_its_own_sessions() -> None:
    # 0700.HK "3 days": 23, 24 and 27 (Hong Kong trades on US Memorial Day) -> settles 05-27 against ^HSI.
    # 360 -> 370: 10/360 = +2.777… %; ^HSI 19000 -> 19380: 380/19000 = +2 %; alpha 10/360 - 0.02 > 0: right.
    # The NYSE estimate (due) is 05-28: the call is only tried then.
    o = settled(call("0700.HK", "BUY", horizon="3d"), today=date(2024, 5, 28))
    assert (o.settle_date, o.benchmark) == ("2024-05-27", "^HSI")
    assert o.raw_return == approx(10 / 360)
    assert o.benchmark_return == approx(0.02)
    assert o.alpha == approx(10 / 360 - 0.02)
    assert o.verdict == "right"


# --- pending: nothing is guessed ---------------------------------------------------------------------


def pending(c: Call, vendor: TableVendor) -> str:
    out = settle(c, vendor, vendor.today, now=NOW)
    assert out.outcome is None
    assert out.pending
    return out.pending


def test_not_yet_due_asks_no_vendor() -> None:
    vendor = TableVendor(date(2024, 5, 29))
    reason = pending(call("UP", horizon="5 days"), vendor)
    assert reason == "settles on or after 2024-05-30 (5 trading days after the trade date)"
    assert vendor.asked == []
    assert not is_due(call("UP", horizon="5 days"), date(2024, 5, 29))
    assert is_due(call("UP", horizon="5 days"), date(2024, 5, 30))


def test_missing_trade_date_close() -> None:
    assert pending(call("NEW"), TableVendor(date(2024, 5, 30))) == \
        "no close for NEW on 2024-05-22 from hand-written test prices"


def test_a_row_without_a_close_is_no_price() -> None:
    table = {**TABLE, "UP": {**TABLE["UP"], "2024-05-22": (99, 101, 99, float("nan"))}}
    assert pending(call("UP"), TableVendor(date(2024, 5, 30), table)) == \
        "no close for UP on 2024-05-22 from hand-written test prices"


def test_missing_benchmark_close_on_the_trade_date() -> None:
    spy = {day: bar for day, bar in TABLE["SPY"].items() if day != TRADE}
    assert pending(call("UP"), TableVendor(date(2024, 5, 30), {**TABLE, "SPY": spy})) == \
        "no close for SPY on 2024-05-22 from hand-written test prices"


def test_missing_benchmark_close_on_the_settle_date() -> None:
    spy = {day: bar for day, bar in TABLE["SPY"].items() if day != "2024-05-30"}
    assert pending(call("UP"), TableVendor(date(2024, 5, 30), {**TABLE, "SPY": spy})) == \
        "no close for SPY on 2024-05-30 from hand-written test prices"


@pytest.mark.parametrize("error, reason", [
    (VendorError("rate limited"), "rate limited"),
    (RuntimeError("connection reset"), "connection reset"),
    (TimeoutError(), "TimeoutError"),
])
def test_vendor_failure(error: Exception, reason: str) -> None:
    assert pending(call("UP"), TableVendor(date(2024, 5, 30), fail=error)) == \
        f"the data vendor failed: {reason}; will retry"


def test_unknown_ticker_is_a_vendor_failure() -> None:
    assert pending(call("NOPE"), TableVendor(date(2024, 5, 30))) == \
        "the data vendor failed: unknown ticker NOPE; will retry"


def test_too_few_rows() -> None:
    assert pending(call("STALE"), TableVendor(date(2024, 5, 30))) == \
        "the data has only 3 of 5 sessions after 2024-05-22 for STALE from hand-written test prices; will retry"


def test_unreadable_trade_date() -> None:
    vendor = TableVendor(date(2024, 5, 30))
    assert pending(call(trade_date="someday"), vendor) == "its trade date 'someday' cannot be read"
    assert vendor.asked == []


def test_pending_call_settles_later_and_clears_its_reason() -> None:
    first = settle(call("UP"), TableVendor(date(2024, 5, 29)), date(2024, 5, 29))
    assert first.pending.startswith("settles on or after")
    second = settle(first, TableVendor(date(2024, 5, 30)), date(2024, 5, 30))
    assert second.outcome is not None and second.pending == ""
    assert first.outcome is None   # a copy: the call given is left as it was


def test_a_settled_call_is_returned_unchanged() -> None:
    done = settle(call("UP"), TableVendor(date(2024, 5, 30)), date(2024, 5, 30), now=NOW)
    vendor = TableVendor(date(2024, 6, 4), fail=VendorError("down"))
    again = settle(done, vendor, date(2024, 6, 4), now=datetime(2030, 1, 1, tzinfo=UTC))
    assert again == done
    assert vendor.asked == []
    assert not is_due(done, date(2024, 6, 4))


# --- the pieces ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, price", [
    ("865.00", 865.0), ("stop 865", 865.0), ("$865.5 (-4%)", 865.5), ("1,234.50 hard stop", 1234.5),
    ("-4% at 865", 865.0), ("close below 49.49", 49.49), ("2x ATR below entry, ~872", 872.0),
    ("below the 50-day average (860)", 860.0), ("3 % under entry: 912.10", 912.1),
    ("review 2024-06-01, stop 865", 865.0),
    ("n/a", None), ("none", None), ("trailing 5%", None), ("", None), ("5 % below entry", None),
    ("1.5 ATR", None), ("after 2024-06-01", None),
])
def test_stop_price(text: str, price: float | None) -> None:
    assert price_in(text) == price


@pytest.mark.parametrize("signal, alpha, expected", [
    ("BUY", 0.001, "right"), ("BUY", 0.0, "wrong"), ("BUY", -0.03, "wrong"),
    ("SELL", -0.001, "right"), ("SELL", 0.0, "wrong"), ("SELL", 0.03, "wrong"),
    ("HOLD", 0.0, "right"), ("HOLD", HOLD_BAND, "right"), ("HOLD", -HOLD_BAND, "right"),
    ("HOLD", 0.0201, "wrong"), ("HOLD", -0.0201, "wrong"),
])
def test_verdict(signal: Signal, alpha: float, expected: str) -> None:
    assert verdict(signal, alpha) == expected


@pytest.mark.parametrize("text", ["7-8% below entry", "8 percent", "10 pct under", "2.5 standard deviations",
                                  "2 sd below", "trailing 5%"])
def test_a_stop_given_as_a_distance_is_not_a_price(text: str) -> None:
    assert price_in(text) is None
