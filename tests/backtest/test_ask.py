"""A backtest asked in words (graph/backtest/ask.py): tickers, window and step read from the sentence, in
English and Chinese; what cannot be read is said back with an example; anything else is no backtest."""
from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine

from graph.backtest.ask import asks_for_backtest, read_ask
from graph.track.settle import last_close_day

TODAY = date(2026, 11, 26)
# The last close known depends on the real clock (graph/track/settle.py): these tests are read on
# TODAY itself, mid-session in New York, whatever day the suite runs (it failed from the day after).
ON_TODAY = datetime(2026, 11, 26, 12, 0, tzinfo=ZoneInfo("America/New_York"))


@pytest.fixture(autouse=True)
def on_today() -> Iterator[None]:
    with time_machine.travel(ON_TODAY, tick=False):
        yield


@pytest.mark.parametrize(("text", "tickers", "start", "end", "every"), [
    ("backtest NVDA from January to March 2024", ("NVDA",), "2024-01-01", "2024-03-31", 1),
    ("backtest AAPL, GOOGL and AMZN on the paper's window", ("AAPL", "GOOGL", "AMZN"), "2024-01-01", "2024-03-29", 1),
    ("Backtest TSLA 2024-01-02 to 2024-03-28 every 5 days", ("TSLA",), "2024-01-02", "2024-03-28", 5),
    ("backtest MSFT Q1 2024", ("MSFT",), "2024-01-01", "2024-03-31", 1),
    ("backtest nvda in 2023 weekly", ("NVDA",), "2023-01-01", "2023-12-31", 5),
    ("/backtest AAPL March 2024", ("AAPL",), "2024-03-01", "2024-03-31", 1),
    ("backtest NVDA Jan-Mar 2024", ("NVDA",), "2024-01-01", "2024-03-31", 1),
    ("backtest NVDA from Nov 2023 to Feb 2024", ("NVDA",), "2023-11-01", "2024-02-29", 1),
    ("backtest NVDA from Nov to Feb 2024", ("NVDA",), "2023-11-01", "2024-02-29", 1),
    ("back-test AMD and INTC 2024-02-01 – 2024-02-29 every other day", ("AMD", "INTC"), "2024-02-01", "2024-02-29", 2),
    ("backtest NVDA last month", ("NVDA",), "2026-10-01", "2026-10-31", 1),
    # a window still going ends at the last close; one not begun is left for the plan to refuse
    ("backtest NVDA December 2026", ("NVDA",), "2026-12-01", "2026-12-31", 1),
    ("回测英伟达 2024年1月到3月", ("NVDA",), "2024-01-01", "2024-03-31", 1),
    ("回测 苹果、谷歌和亚马逊 论文区间", ("AAPL", "GOOGL", "AMZN"), "2024-01-01", "2024-03-29", 1),
    ("回测 600519 2024年第一季度 每5天", ("600519.SS",), "2024-01-01", "2024-03-31", 5),
    ("回測 輝達 2024年3月 每週", ("NVDA",), "2024-03-01", "2024-03-31", 5),
    ("回测 特斯拉 2024-01-02 至 2024-03-28", ("TSLA",), "2024-01-02", "2024-03-28", 1),
])
def test_a_backtest_is_read_from_the_sentence(text: str, tickers: tuple[str, ...], start: str, end: str,
                                              every: int) -> None:
    ask = read_ask(text, TODAY)
    assert ask is not None and not ask.problem, ask
    assert (ask.tickers, ask.start, ask.end, ask.every) == (tickers, date.fromisoformat(start),
                                                            date.fromisoformat(end), every)


@pytest.mark.parametrize(("text", "budget"), [
    ("backtest NVDA Q1 2024 with a budget of 500k tokens", 500_000),
    ("backtest NVDA Q1 2024 budget 2M tokens", 2_000_000),
    ("backtest NVDA Q1 2024 token budget 1,500,000", 1_500_000),
    ("回测 英伟达 2024年第一季度 预算50万token", 500_000),
    ("backtest NVDA Q1 2024", None),
])
def test_a_token_budget_is_read(text: str, budget: int | None) -> None:
    ask = read_ask(text, TODAY)
    assert ask is not None and not ask.problem and ask.tickers == ("NVDA",), ask
    assert ask.budget == budget and ask.start == date(2024, 1, 1)


def test_a_month_still_going_ends_at_the_last_close() -> None:
    ask = read_ask("backtest NVDA November 2026", TODAY)
    assert ask is not None and (ask.start, ask.end) == (date(2026, 11, 1), min(date(2026, 11, 30),
                                                                               last_close_day(TODAY)))


def test_a_span_back_from_today_ends_at_the_last_close() -> None:
    ask = read_ask("backtest AMD over the last 3 months", TODAY)
    assert ask is not None and ask.end is not None and ask.start is not None
    assert ask.end < TODAY and (ask.end - ask.start).days in range(89, 93)
    ytd = read_ask("backtest NVDA year to date", TODAY)
    assert ytd is not None and ytd.start == date(2026, 1, 1) and ytd.end == ask.end
    chinese = read_ask("回测 腾讯 过去三个月", TODAY)
    assert chinese is not None and (chinese.tickers, chinese.start, chinese.end) == (("0700.HK",), ask.start, ask.end)


def test_a_span_back_from_a_past_today_ends_on_that_day() -> None:
    """Read a day later, TODAY's close is final: the span ends on TODAY itself."""
    with time_machine.travel(datetime(2026, 11, 27, 12, 0, tzinfo=ZoneInfo("America/New_York")), tick=False):
        ask = read_ask("backtest AMD over the last 3 months", TODAY)
    assert ask is not None and ask.end == TODAY


@pytest.mark.parametrize(("text", "language", "says"), [
    ("backtest NVDA", "en", "Over which days?"),
    ("backtest from January to March 2024", "en", "Which tickers"),
    ("backtest NVDA 2024-02-30 to 2024-03-28", "en", "does not exist"),
    ("回测 英伟达", "zh", "回测哪段时间"),
    ("回测 2024年1月到3月", "zh", "要回测哪些股票"),
    ("backtest 阿里巴巴 2024年3月", "zh", "BABA / 9988.HK"),
])
def test_what_cannot_be_read_is_said_back_with_an_example(text: str, language: str, says: str) -> None:
    ask = read_ask(text, TODAY)
    assert ask is not None and ask.language == language
    assert says in ask.problem and "`" in ask.problem


@pytest.mark.parametrize("text", [
    "should I buy NVDA today?", "how would NVDA have done in a backtest?", "what's a backtest?",
    "英伟达今天能买吗？", "NVDA backtest results please",
])
def test_anything_else_is_no_backtest(text: str) -> None:
    assert not asks_for_backtest(text)
    assert read_ask(text, TODAY) is None
