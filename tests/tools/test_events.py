"""Events in the window (issue 38, point 1): the synthetic calendar (deterministic, point in time), Yahoo's
recorded shapes (calendar, earnings dates, dividends, splits) read with approximate past dates, the tool cut at
the trade date, the figure check tracing event dates, the card's line, and a demo run whose Trader and Risk Judge
say how the earnings inside the horizon change the trade."""
from __future__ import annotations

import asyncio
from datetime import date, timedelta
from typing import Any

import pandas as pd
import pytest
from langchain_core.messages import ToolMessage

from chat.views.card import card_markdown, event_lines
from graph.core.events import NodeDone
from graph.core.state import FinalDecision
from graph.data import yfinance_vendor as yv
from graph.data.synthetic import SyntheticVendor
from graph.data.synthetic_events import _split
from graph.data.vendor import Event
from graph.data.yfinance_vendor import YFinanceVendor
from graph.record.figures import numbers_in, unverified
from graph.tools import make_toolkit
from graph.tools.events import TOOL, events_of
from tests.support.desk import Desk

VENDOR = SyntheticVendor()
NY = "America/New_York"


def _tool(kind: str, vendor: Any, ticker: str, day: date) -> Any:
    return next(t for t in make_toolkit(vendor, ticker, day)[kind] if t.name == TOOL)


def _call(tool: Any) -> tuple[str, dict]:
    message = asyncio.run(tool.ainvoke({"type": "tool_call", "name": TOOL, "args": {}, "id": "1"}))
    assert isinstance(message, ToolMessage)
    return str(message.content), message.artifact


# ------------------------------------------------------------------ the synthetic calendar

def test_the_synthetic_calendar_is_deterministic_and_by_class() -> None:
    window = (date(2026, 10, 15), date(2027, 1, 15))
    nvda = VENDOR.events("NVDA", *window)
    assert nvda == SyntheticVendor().events("NVDA", *window)  # the same in any vendor, any process
    assert [e.kind for e in nvda].count("earnings") == 1  # quarterly
    assert all(e.announced is not None and e.announced <= window[0] for e in nvda)
    assert all(window[0] <= e.day <= window[1] and e.day.weekday() < 5 for e in nvda)
    for coin_pair_future_index in ("BTC-USD", "EURUSD=X", "GC=F", "^GSPC"):
        assert VENDOR.events(coin_pair_future_index, *window) == []
    fund = VENDOR.events("QQQ", date(2026, 10, 28), date(2027, 1, 31))
    assert fund and {e.kind for e in fund} <= {"ex_dividend", "dividend"}  # distributions, no earnings


def test_an_event_announced_after_the_trade_date_is_not_seen() -> None:
    earnings = next(e for e in VENDOR.events("NVDA", date(2026, 10, 15), date(2026, 12, 31)) if e.kind == "earnings")
    assert earnings.announced is not None and earnings.day - earnings.announced >= timedelta(days=14)
    before = earnings.announced - timedelta(days=1)
    assert earnings not in VENDOR.events("NVDA", before, earnings.day)  # not yet on the calendar
    assert earnings in VENDOR.events("NVDA", earnings.announced, earnings.day)  # on it from its announcement


def test_dividend_amounts_and_rare_splits_are_scheduled_ahead() -> None:
    tickers = ("AAPL", "MSFT", "NVDA", "KO", "JPM", "XOM", "INTC", "AMD", "TSLA", "META")
    splits = [s for t in tickers for year in range(1995, 2026) if (s := _split(t, year))]
    assert 0 < len(splits) < len(tickers) * 31 / 10  # rare: about one company-year in thirty
    assert all(s.ratio in ("2:1", "3:1", "4:1") and s.announced and s.day - s.announced >= timedelta(30)
               for s in splits)
    first = splits[0]
    assert first.announced is not None
    assert first in VENDOR.events(next(t for t in tickers if _split(t, first.day.year) == first), first.announced,
                                  first.day)
    exes = [e for e in VENDOR.events("MSFT", date(2024, 5, 6), date(2024, 9, 30)) if e.kind == "ex_dividend"]
    assert exes and all(e.amount and e.amount > 0 for e in exes)


# ------------------------------------------------------------------ the tool, cut at the trade date

class LeakyCalendar(SyntheticVendor):
    """Answers events announced after the trade date and dated before it: the tool must cut both."""

    def events(self, ticker: str, as_of: date, until: date) -> list[Event]:
        return [Event("earnings", as_of + timedelta(days=5), as_of + timedelta(days=1), source="leaky"),
                Event("split", as_of - timedelta(days=3), as_of - timedelta(days=40), ratio="2:1"),
                Event("ex_dividend", as_of + timedelta(days=8), as_of - timedelta(days=10), amount=0.25),
                Event("earnings", as_of + timedelta(days=20), None, True, "known after the fact")]


def test_the_tool_is_cut_at_the_trade_date_and_lists_for_news_and_fundamentals() -> None:
    day = date(2026, 6, 1)
    text, art = _call(_tool("news", LeakyCalendar(), "NVDA", day))
    days = [r["day"] for r in art["events"]]
    assert days == ["2026-06-09", "2026-06-21"]  # the later-announced and the past one cut
    assert art["figures"]["Next Ex-Dividend"] == "2026-06-09" and art["figures"]["Dividend Per Share"] == 0.25
    assert art["figures"]["Next Earnings"] == "2026-06-21 (approx.)" and "known after the fact" in text
    assert any(t.name == TOOL for t in make_toolkit(VENDOR, "NVDA", day)["fundamentals"])
    assert not any(t.name == TOOL for t in make_toolkit(VENDOR, "NVDA", day)["market"])
    kept = events_of([ToolMessage(content=text, artifact=art, tool_call_id="1", name=TOOL)])
    assert set(kept["events"]) == {"ex_dividend 2026-06-09", "earnings 2026-06-21"}


def test_a_coin_has_nothing_scheduled() -> None:
    text, art = _call(_tool("news", VENDOR, "BTC-USD", date(2026, 6, 1)))
    assert "no earnings, dividends or splits" in text and art["events"] == [] and not art.get("error")


# ------------------------------------------------------------------ Yahoo's recorded shapes

# Ticker.calendar (yfinance 0.2.40+: quoteSummary calendarEvents as a dict).
CALENDAR = {"Dividend Date": date(2026, 12, 11), "Ex-Dividend Date": date(2026, 12, 4),
            "Earnings Date": [date(2026, 12, 3)], "Earnings High": 1.01, "Earnings Low": 0.84,
            "Earnings Average": 0.93, "Revenue High": 38_600_000_000, "Revenue Low": 36_200_000_000,
            "Revenue Average": 37_400_000_000}


def _earnings_dates() -> pd.DataFrame:
    """get_earnings_dates(): tz-aware 'Earnings Date' index, the next one unreported."""
    index = pd.DatetimeIndex(pd.to_datetime(["2026-12-03 16:00", "2026-08-27 16:00", "2026-05-28 16:00",
                                             "2026-02-25 16:00"]).tz_localize(NY), name="Earnings Date")
    return pd.DataFrame({"EPS Estimate": [0.93, 1.01, 0.88, 0.85], "Reported EPS": [float("nan"), 1.05, 0.96, 0.89],
                         "Surprise(%)": [float("nan"), 3.96, 9.09, 4.71]}, index=index)


def _actions(values: dict[str, float], name: str) -> pd.Series:
    index = pd.DatetimeIndex(pd.to_datetime(list(values)).tz_localize(NY), name="Date")
    return pd.Series(list(values.values()), index=index, name=name)


class FakeTicker:
    def __init__(self, symbol: str) -> None:
        self.calendar = CALENDAR
        self.dividends = _actions({"2026-03-05": 0.01, "2026-06-05": 0.01, "2026-09-04": 0.01}, "Dividends")
        self.splits = _actions({"2024-06-10": 10.0}, "Stock Splits")

    def get_earnings_dates(self, limit: int = 12) -> pd.DataFrame:
        return _earnings_dates()


@pytest.fixture
def yahoo(monkeypatch: pytest.MonkeyPatch) -> YFinanceVendor:
    monkeypatch.setattr(yv.yf, "Ticker", FakeTicker)
    return YFinanceVendor(today=lambda: date(2026, 11, 27), sleep=lambda s: None)


def test_yahoo_today_reads_the_calendar_as_scheduled(yahoo: YFinanceVendor) -> None:
    events = yahoo.events("NVDA", date(2026, 11, 27), date(2027, 2, 27))
    assert [(e.kind, e.day.isoformat(), e.approximate) for e in events] == [
        ("earnings", "2026-12-03", False), ("ex_dividend", "2026-12-04", False), ("dividend", "2026-12-11", False)]


def test_yahoo_in_the_past_gives_what_happened_marked_approximate(yahoo: YFinanceVendor) -> None:
    events = yahoo.events("NVDA", date(2026, 8, 3), date(2026, 11, 2))
    assert [(e.kind, e.day.isoformat()) for e in events] == [("earnings", "2026-08-27"), ("ex_dividend", "2026-09-04")]
    assert all(e.approximate and "known after the fact" in e.basis for e in events)
    assert events[1].amount == 0.01
    split = yahoo.events("NVDA", date(2024, 6, 3), date(2024, 6, 28))
    assert [(e.kind, e.ratio, e.approximate) for e in split] == [("split", "10:1", True)]
    assert yahoo.events("BTC-USD", date(2026, 8, 3), date(2026, 11, 2)) == []


def test_yahoo_gives_an_unconfirmed_range_as_approximate(monkeypatch: pytest.MonkeyPatch,
                                                          yahoo: YFinanceVendor) -> None:
    monkeypatch.setitem(CALENDAR, "Earnings Date", [date(2027, 2, 24), date(2027, 3, 2)])
    earnings = {e.day: e for e in yahoo.events("NVDA", date(2026, 11, 27), date(2027, 3, 31)) if e.kind == "earnings"}
    assert earnings[date(2027, 2, 24)].approximate and "range" in earnings[date(2027, 2, 24)].basis


# ------------------------------------------------------------------ the figure check and the card

def test_the_figure_check_traces_event_dates() -> None:
    evidence = list(numbers_in("Next Earnings | 2026-12-03"))
    assert unverified("Earnings on 2026-12-03 fall inside the horizon: the size is halved.", evidence) == []
    assert unverified("Earnings on 2026-12-10 fall inside the horizon.", evidence) == ["2026-12-10"]
    assert unverified("The rally on 2026-12-10 was strong.", evidence) == []  # not an event's date: unchecked


DECISION = FinalDecision(ticker="NVDA", trade_date="2026-11-27", signal="BUY", position_size="1% of portfolio",
                         entry="180.00", stop="170.00", horizon="2-6 weeks", confidence=0.6, rationale="Trend.")
KEPT = {"earnings 2026-12-03": {"kind": "earnings", "day": "2026-12-03", "approximate": False},
        "dividend 2027-02-20": {"kind": "dividend", "day": "2027-02-20", "approximate": True}}


def test_the_card_says_which_events_fall_inside_the_horizon() -> None:
    line = event_lines(KEPT, DECISION)
    assert "Earnings 2026-12-03 (inside the horizon)" in line
    assert "Dividend paid 2027-02-20 (after the horizon; approximate" in line
    assert line in card_markdown(DECISION, events=line)
    assert "财报 2026-12-03（在持有期内）" in event_lines(KEPT, DECISION, "zh")
    assert event_lines({}, DECISION) == ""


# ------------------------------------------------------------------ a demo run

async def test_a_demo_run_shows_the_earnings_and_the_trader_and_judge_answer_it(settings) -> None:
    desk = Desk(settings)
    said: dict[str, str] = {}
    flagged: list[str] = []
    for ev in await desk.ask("should I buy NVDA today?"):  # 2024-05-06: earnings on 2024-05-09
        if isinstance(ev, NodeDone) and ev.spoken is not None:
            said[str(ev.spoken.name)] = str(ev.spoken.content)
            flagged += ev.unverified
    state = await desk.state()
    assert "earnings 2024-05-09" in state["events"]
    assert "earnings are due on 2024-05-09, 3 sessions after the trade date" in said["News Analyst"]
    assert "| Next Earnings | 2024-05-09 |" in said["Fundamentals Analyst"]
    for persona in ("Trader", "Risk Judge"):
        assert "Earnings on 2024-05-09 fall inside the 2-6 weeks horizon (3 sessions away)" in said[persona]
    assert flagged == []  # the event dates are traced figures
    decision = state["final_decision"]
    assert "Earnings 2024-05-09 (inside the horizon)" in event_lines(state["events"], decision)



def test_the_calendar_is_cached_like_the_rest(tmp_path) -> None:
    from graph.data.cache import CachedVendor

    class Counting(SyntheticVendor):
        asked = 0

        def events(self, ticker: str, as_of: date, until: date) -> list[Event]:
            Counting.asked += 1
            return super().events(ticker, as_of, until)

    cached = CachedVendor(Counting(), tmp_path / "cache.sqlite", today=lambda: date(2024, 5, 6))
    window = (date(2024, 4, 15), date(2024, 7, 15))
    assert cached.events("NVDA", *window) == cached.events("NVDA", *window) == VENDOR.events("NVDA", *window)
    assert Counting.asked == 1  # a closed past day's calendar is kept
    cached.close()
