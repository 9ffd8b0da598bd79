"""Which messages tell holdings (read into the book, to confirm) and which ask the desk (an analysis, a
follow-up): `tells_holdings`. A wrong yes costs the user an analysis, so every question, hypothesis,
intention and denial is a no; bad holdings are a yes (the reader then says what is wrong with them)."""
from __future__ import annotations

import pytest

from graph.book import read_csv, read_holdings, tells_holdings

TELLS = [
    "I hold 200 NVDA at 95 and have $20k cash",
    "I own 50 shares of Apple at $170.5",
    "I have 200 NVDA",
    "I have 200 shares of NVDA",
    "I've got 100 AAPL",
    "I have $20k cash",
    "we own 30 brk.b",
    "I currently hold 200 NVDA",
    "Holding 200 NVDA at 95",
    "long 200 NVDA at 95",
    "bought 50 AMD at 120",
    "just bought 10 MSFT",
    "I bought 50 AMD at 120",
    "sold half my AAPL",
    "I sold 50 AAPL",
    "I sold all my TSLA",
    "I just sold 25% of my AAPL",
    "sold a third of AAPL",
    "I sold 50 AAPL when it hit 200",  # "when" inside a clause is not a question
    "bought 50 AMD in May",  # a month, not "may"
    "I'm short 50 TSLA at 240",
    "short 50 TSLA at 240",
    "cash is 15,000",
    "my cash is $20k",
    "My holdings: 200 NVDA, 50 AAPL",
    "I hold 100 AAPL and 50 MSFT",
    # bad holdings still tell: the reader answers with the reason
    "I hold 0 NVDA",
    "I hold -50 TSLA",
    "I hold 5 billion AAPL",
    "I hold lots of NVDA",
    "I hold 100 XYZQ at 5",
    # Chinese
    "我持有200股英伟达，成本95，现金2万",
    "卖了一半苹果",
    "我卖了一半苹果",
    "我有200股英伟达",
    "现金2万",
    "我买入10股微软",
    "买了10股微软",
    "清仓了特斯拉",
]

ASKS = [
    "should I buy NVDA today?",
    "should I buy NVDA",
    "thoughts on Apple last Friday?",
    "$TSLA 2024-05-01",
    "NVDA 2024-05-01",
    "is Berkshire B a sell?",
    "is AAPL a sell",
    "what if I sold half my AAPL?",
    "what if I sold half my AAPL",
    "if I sold half my AAPL, what happens",
    "I hold 200 NVDA, should I sell?",
    "I hold 200 NVDA. What now",
    "I have a question about NVDA",
    "I have 2 questions about NVDA",
    "I have been watching NVDA for 3 years",
    "I want to buy 100 NVDA",
    "I'm thinking of selling half my AAPL",
    "I will buy 50 AMD tomorrow",
    "I'd buy 100 NVDA",
    "I don't own any NVDA",
    "how much NVDA do I hold",
    "do I own NVDA",
    "buy 50 AMD at 120",  # an order, not a fact: the desk analyses AMD
    "sell half my AAPL",
    "sell NVDA",
    "buy the dip on NVDA",
    "backtest NVDA from January to March 2024",
    "Bear, what about the China export ban?",
    "why was the bear worried?",
    "what was the RSI?",
    "hold",
    "/book",
    "",
    "英伟达能买吗",
    "我应该买英伟达吗？",
    "如果我卖了一半苹果呢？",
    "我想买100股英伟达",
    "我有一个问题",
    "我有2个问题",
    "我持有英伟达，应该卖吗",
    "回测英伟达 2024年1月到3月",
]


@pytest.mark.parametrize("text", TELLS)
def test_tells(text: str) -> None:
    assert tells_holdings(text)


@pytest.mark.parametrize("text", ASKS)
def test_asks(text: str) -> None:
    assert not tells_holdings(text)


def test_too_long_is_not_read() -> None:
    assert not tells_holdings("I hold 200 NVDA " + "x" * 3000)


def test_the_reading_says_its_language() -> None:
    # the chat answers a Chinese statement in Chinese
    assert read_holdings("我持有200股英伟达").language == "zh"
    assert read_holdings("I hold 200 NVDA").language == "en"


def test_a_csv_says_whether_it_had_cash() -> None:
    # without a cash row the chat keeps the cash the user told; with one, the file's is the cash
    assert not read_csv("symbol,qty\nNVDA,1\n").has_cash
    assert read_csv("symbol,qty\nNVDA,1\nCASH,0\n").has_cash
