"""The track record's figures, the card's line and the /record table, on five hand-made calls."""
from __future__ import annotations

from datetime import date

import pytest

from graph.core.state import Signal
from graph.track.calls import Call, Outcome, Verdict
from graph.track.summary import Summary, card_line, cumulative_alpha, record_table, summarize

BOTH = {"Bull Researcher": "up", "Bear Researcher": "down"}


def outcome(settle_date: str, raw: float, alpha: float, verdict: Verdict, stop_hit: str | None = None,
            stop: float | None = None) -> Outcome:
    return Outcome(settle_date=settle_date, sessions=5, entry_close=100.0, exit_close=100 * (1 + raw),
                   raw_return=raw, benchmark="SPY", benchmark_return=raw - alpha, alpha=alpha, verdict=verdict,
                   stop_hit=stop_hit, stop_price=stop)


def make(n: int, ticker: str, signal: Signal, trade_date: str, o: Outcome | None, argued: dict[str, str],
         size: str = "2% of portfolio", pending: str = "", horizon: str = "1 week", stop: str = "n/a") -> Call:
    return Call(id=f"t{n}:1", user="ann", thread_id=f"t{n}", ticker=ticker, trade_date=trade_date, signal=signal,
                position_size=size, horizon=horizon, stop=stop, outcome=o, argued=argued, pending=pending)


# The stocks' alpha: +3 %, +2 %, -1 %, +4 % over the settled four; the Judge right on 1, 3 and 4. The calls'
# own alpha (call_alpha): +3 % (BUY), -2 % (a SELL of a stock that beat SPY), 0 (a HOLD), +4 % (BUY).
CALLS = [
    make(1, "NVDA", "BUY", "2024-05-03", outcome("2024-05-10", 0.04, 0.03, "right", stop=850.0), BOTH,
         stop="850"),
    make(2, "NVDA", "SELL", "2024-05-10", outcome("2024-05-17", 0.025, 0.02, "wrong", stop_hit="2024-05-13",
                                                  stop=950.0), BOTH, size="1% | half size", stop="950"),
    make(3, "AAPL", "HOLD", "2024-05-07", outcome("2024-05-14", 0.0, -0.01, "right"),
         {"Bull Researcher": "up", "Safe Analyst": "careful"}),
    make(4, "MSFT", "BUY", "2024-05-13", outcome("2024-05-20", 0.05, 0.04, "right"), {}),  # logged before `argued`
    make(5, "TSLA", "BUY", "2024-05-31", None, BOTH,
         pending="settles on or after 2024-06-07 (5 trading days after the trade date)"),
]


def test_summary_figures() -> None:
    s = summarize(CALLS)
    assert (s.calls, s.settled, s.right, s.pending) == (5, 4, 3, 1)
    assert s.mean_alpha == pytest.approx((0.03 - 0.02 + 0.0 + 0.04) / 4, abs=1e-12)   # +1.25 %
    assert s.hit_rate == 0.75
    # Bull argued 1, 2, 3 (settled): alpha > 0 on 1 and 2. Bear argued 1, 2: alpha < 0 on neither.
    # The pending call 5 counts for no one.
    assert s.sides == {"Bull Researcher": (2, 3), "Bear Researcher": (0, 2), "Research Manager": (0, 0),
                       "Trader": (0, 0), "Risk Judge": (3, 4)}


def test_card_line() -> None:
    assert card_line(summarize(CALLS)) == "5 past calls: 3 right, mean alpha +1.2 %; 1 pending"
    assert card_line(summarize(CALLS[:4])) == "4 past calls: 3 right, mean alpha +1.2 %"
    assert card_line(summarize(CALLS[2:3])) == "1 past call: 1 right, mean alpha +0.0 %"  # a HOLD takes no position
    # A right SELL earned the stock's lag: alpha -5 % is +5 % for the call.
    sold = make(6, "INTC", "SELL", "2024-05-06", outcome("2024-05-13", -0.04, -0.05, "right"), BOTH)
    assert card_line(summarize([sold])) == "1 past call: 1 right, mean alpha +5.0 %"
    assert card_line(summarize(CALLS[4:])) == "1 past call, none settled yet"
    assert card_line(summarize([CALLS[4], CALLS[4]])) == "2 past calls, none settled yet"
    assert card_line(summarize([])) == ""


def test_empty_summary() -> None:
    s = summarize([])
    assert s == Summary(calls=0, settled=0, right=0, mean_alpha=None, hit_rate=None, pending=0,
                        sides={"Bull Researcher": (0, 0), "Bear Researcher": (0, 0), "Research Manager": (0, 0),
                               "Trader": (0, 0), "Risk Judge": (0, 0)})


def test_cumulative_alpha_in_settle_order() -> None:
    # settled 05-10 (BUY, +3 %), 05-14 (HOLD, 0), 05-17 (SELL of a stock 2 % up on SPY, -2 %), 05-20 (BUY, +4 %)
    curve = cumulative_alpha(CALLS)
    assert [d for d, _ in curve] == ["2024-05-10", "2024-05-14", "2024-05-17", "2024-05-20"]
    assert [a for _, a in curve] == pytest.approx([0.03, 0.03, 0.01, 0.05], abs=1e-12)
    assert cumulative_alpha(CALLS[4:]) == []


def test_record_table() -> None:
    table = record_table(CALLS, today=date(2024, 6, 3))
    lines = table.splitlines()
    assert lines[0] == "| Date | Ticker | Call | Settled | Return | Alpha | Verdict |"
    rows = lines[2:7]
    assert [r.split(" | ")[0] for r in rows] == ["| 2024-05-31", "| 2024-05-13", "| 2024-05-10", "| 2024-05-07",
                                                 "| 2024-05-03"]   # newest trade date first
    assert rows[0] == "| 2024-05-31 | TSLA | BUY 2% of portfolio | after 2024-06-07 | — | — | pending |"
    assert rows[2] == ("| 2024-05-10 | NVDA | SELL 1% \\| half size | 2024-05-17 | +2.50 % (stop hit 2024-05-13) "
                       "| +2.00 % vs SPY | wrong |")
    assert "| +4.00 % | +3.00 % vs SPY | right |" in rows[4]
    assert "| +0.00 % | -1.00 % vs SPY | right |" in rows[3]
    # every row has its 7 cells: the escaped "|" is not a cell border
    assert all(r.replace("\\|", "").count("|") == 8 for r in rows)
    assert lines[7:] == ["", "5 past calls: 3 right, mean alpha +1.2 %; 1 pending",
                         "Bull Researcher 2/3 right · Bear Researcher 0/2 · Risk Judge 3/4"]


def test_record_table_escapes_every_cell() -> None:
    odd = make(6, "X|Y", "BUY", "2024-05-01", None, {}, size="a\nb", horizon="2|3 weeks")
    row = record_table([odd], today=date(2024, 5, 2)).splitlines()[2]
    assert "X\\|Y" in row and "| BUY a b |" in row
    assert row.replace("\\|", "").count("|") == 8


def test_record_table_says_when_a_call_never_tried_settles() -> None:
    fresh = make(7, "AMD", "BUY", "2024-05-22", None, {}, horizon="3 days")
    assert "| after 2024-05-28 |" in record_table([fresh], today=date(2024, 5, 23))
    # due but not tried yet: said under the table
    assert "- 2024-05-22 AMD: due: scored at the next settlement pass" in record_table([fresh], today=date(2024, 5, 28))
    # nothing settled: the summary's line, no accuracy line
    assert record_table([fresh], today=date(2024, 5, 23)).splitlines()[-1] == "1 past call, none settled yet"


def test_record_table_empty() -> None:
    text = record_table([], today=date(2024, 6, 3))
    assert "|" not in text
    assert "no" in text.lower() and "Ask, e.g., “should I buy NVDA today?”" in text
