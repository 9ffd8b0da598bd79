"""Reading a comparison from words: which messages are comparisons, of which tickers, on which trade date; what is
refused and said back; what is not a comparison at all."""
from __future__ import annotations

from datetime import date

import pytest

from graph.compare.ask import MAX_TICKERS, read_comparison
from tests.compare.conftest import TODAY

FRIDAY = date(2024, 5, 3)

ENGLISH = [
    ("NVDA or AMD?", ("NVDA", "AMD"), TODAY),
    ("compare AAPL and MSFT", ("AAPL", "MSFT"), TODAY),
    ("which of NVDA, AMD and INTC should I buy?", ("NVDA", "AMD", "INTC"), TODAY),
    ("should I buy nvda or amd", ("NVDA", "AMD"), TODAY),
    ("NVDA vs AMD last Friday", ("NVDA", "AMD"), FRIDAY),
    ("Apple or Microsoft on 2024-03-01?", ("AAPL", "MSFT"), date(2024, 3, 1)),
    ("which is better: Coca-Cola or Pepsi?", ("KO", "PEP"), TODAY),
    ("google vs meta", ("GOOGL", "META"), TODAY),
    ("compare BRK.B and JPM", ("BRK-B", "JPM"), TODAY),
    ("$TSLA or $F today?", ("TSLA", "F"), TODAY),
    ("AAPL, MSFT, GOOGL, AMZN or META?", ("AAPL", "MSFT", "GOOGL", "AMZN", "META"), TODAY),
    ("Tesla versus Ford, which one?", ("TSLA", "F"), TODAY),
    ("compare nvidia with amd on 2024-04-30", ("NVDA", "AMD"), date(2024, 4, 30)),
    ("Is Apple a better buy than Microsoft?", ("AAPL", "MSFT"), TODAY),
    ("AMD or NVDA or AMD?", ("AMD", "NVDA"), TODAY),  # each ticker once, in the order named
    ("compare JPM and BAC for 2024-05-04", ("JPM", "BAC"), FRIDAY),  # a Saturday: the Friday before
    ("NVDA vs AMD yesterday", ("NVDA", "AMD"), FRIDAY),  # Sunday: Friday's session
    ("which should I buy, Netflix or Disney?", ("NFLX", "DIS"), TODAY),
    ("compare $XOM and $CVX", ("XOM", "CVX"), TODAY),
    ("intel or amd, 2024-03-15", ("INTC", "AMD"), date(2024, 3, 15)),
    ("Walmart vs Costco", ("WMT", "COST"), TODAY),
    ("pick one: META or GOOGL", ("META", "GOOGL"), TODAY),
]

CHINESE = [
    ("英伟达和AMD哪个好？", ("NVDA", "AMD"), TODAY),
    ("比较苹果和微软", ("AAPL", "MSFT"), TODAY),
    ("比较英伟达、AMD和英特尔", ("NVDA", "AMD", "INTC"), TODAY),
    ("苹果还是微软？2024年3月1日", ("AAPL", "MSFT"), date(2024, 3, 1)),
    ("特斯拉和英伟达哪个值得买", ("TSLA", "NVDA"), TODAY),
    ("苹果和微软上周五哪个好", ("AAPL", "MSFT"), FRIDAY),
    ("微软还是谷歌？", ("MSFT", "GOOGL"), TODAY),
    ("比较 NVDA 和 AMD", ("NVDA", "AMD"), TODAY),
    ("亚马逊和苹果，2024年4月30日", ("AMZN", "AAPL"), date(2024, 4, 30)),
    ("英伟达、苹果和微软该买哪个？", ("NVDA", "AAPL", "MSFT"), TODAY),
    ("比较特斯拉与苹果", ("TSLA", "AAPL"), TODAY),
]


@pytest.mark.parametrize(("text", "tickers", "trade_date"), ENGLISH + CHINESE, ids=[t for t, _, _ in ENGLISH + CHINESE])
def test_a_comparison_is_read_with_its_tickers_and_one_trade_date(text: str, tickers: tuple[str, ...],
                                                                   trade_date: date) -> None:
    ask = read_comparison(text, TODAY)
    assert ask is not None and not ask.problem, ask
    assert ask.tickers == tickers
    assert ask.trade_date == trade_date
    assert ask.language == ("zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en")


@pytest.mark.parametrize("text", ["Is NVDA a buy?", "NVDA or NVDA?", "compare apple and AAPL", "hello", "",
                                  "英伟达今天能买吗？", "backtest NVDA and AMD from January to March 2024",
                                  "回测 英伟达和AMD 2024年1月到3月", "what was the RSI?"])
def test_one_ticker_or_none_or_a_backtest_is_not_a_comparison(text: str) -> None:
    assert read_comparison(text, TODAY) is None


def test_more_than_the_maximum_is_refused_with_the_reason() -> None:
    ask = read_comparison("compare TSLA, F, GM, RIVN, LCID and NIO", TODAY)
    assert ask is not None and ask.trade_date is None
    assert ask.tickers == ("TSLA", "F", "GM", "RIVN", "LCID", "NIO")
    assert f"at most {MAX_TICKERS}" in ask.problem and "6 tickers" in ask.problem
    assert "`compare TSLA F GM RIVN LCID`" in ask.problem  # what to type instead
    zh = read_comparison("比较苹果、微软、谷歌、亚马逊、特斯拉和英伟达", TODAY)
    assert zh is not None and "最多比较 5 只" in zh.problem


def test_a_company_listed_in_several_places_is_asked_about() -> None:
    ask = read_comparison("阿里巴巴和腾讯哪个好", TODAY)
    assert ask is not None and ask.trade_date is None
    assert "BABA" in ask.problem and "9988.HK" in ask.problem


def test_a_date_the_parser_refuses_is_said_back() -> None:
    ask = read_comparison("NVDA or AMD on 2024-02-30?", TODAY)
    assert ask is not None and ask.trade_date is None and ask.problem
    future = read_comparison("NVDA or AMD on 2030-01-02?", TODAY)
    assert future is not None and future.trade_date is None and future.problem
