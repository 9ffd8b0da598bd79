"""Sizing in the units of the ticker's class (issue 37, point 4), every number worked out by hand: crypto to
8 decimals (the satoshi), a currency pair in units of its base currency to the cent, equities in whole shares.
Money stays exact (Decimal), cost and cash to the cent half-up."""
from __future__ import annotations

from decimal import Decimal as D

import pytest

from graph.book import Book, BookError, Position, size_against
from graph.core.assets import AssetClass, unit_places
from graph.core.words import phrase

CASH_ONLY = Book((), D("100000.00"))


def test_the_issue_s_bitcoin_buy_is_fractional() -> None:
    # The issue's "buy 0 BTC-USD at 2,950.39 for 0.00": 2% of 100,000.00 = 2,000.00;
    # 2,000.00 / 2,950.39 = 0.677876484… -> 0.67787648 BTC (8 decimals, rounded down);
    # cost 0.67787648 * 2,950.39 = 1,999.999985… -> 2,000.00; cash 100,000.00 - 2,000.00 = 98,000.00;
    # weight 1,999.999985 / 100,000 = 0.0200
    s = size_against(CASH_ONLY, "BTC-USD", D("2950.39"), "BUY", "2% of portfolio")
    assert (s.action, s.shares, s.amount, s.cash_after) == ("buy", D("0.67787648"), D("2000.00"), D("98000.00"))
    assert s.weight_after == D("0.0200")
    assert s.after == Position("BTC-USD", D("0.67787648"), D("2950.39"))
    assert s.summary == "buy 0.67787648 BTC-USD at 2,950.39 for 2,000.00: weight 0.00% -> 2.00%"
    assert "0.67787648 units (to 8 decimals) at 2,950.39" in s.notes[0]
    assert s.told("zh") == "买入 0.67787648 BTC-USD，价格 2,950.39，金额 2,000.00：权重 0.00% → 2.00%"  # no 股


def test_a_hundredth_of_a_bitcoin() -> None:
    # 1% of 50,000.00 = 500.00; 500.00 / 40,650.40 = 0.01230000(2…) -> 0.0123 BTC;
    # cost 0.0123 * 40,650.40 = 499.99992 -> 500.00; cash 50,000.00 - 500.00 = 49,500.00
    s = size_against(Book((), D("50000.00")), "BTC-USD", D("40650.40"), "BUY", "1%")
    assert (s.shares, s.amount, s.cash_after) == (D("0.0123"), D("500.00"), D("49500.00"))
    assert s.summary.startswith("buy 0.0123 BTC-USD at 40,650.40 for 500.00")


def test_selling_part_of_a_bitcoin_holding() -> None:
    # 0.05 BTC at 40,000 = 2,000 plus 8,000 cash: value 10,000. SELL 10%: 1,000 / 40,000 = 0.025 BTC;
    # proceeds 0.025 * 40,000 = 1,000.00; 0.025 left; cash 9,000.00; weight 1,000 / 10,000 = 0.1000
    book = Book((Position("BTC-USD", D("0.05"), D("30000")),), D("8000"))
    s = size_against(book, "BTC-USD", D(40000), "SELL", "10%")
    assert (s.action, s.shares, s.amount, s.cash_after) == ("sell", D("0.025"), D("1000.00"), D("9000.00"))
    assert s.after == Position("BTC-USD", D("0.025"), D("30000")) and s.weight_after == D("0.1000")


def test_a_euro_dollar_position_in_euros() -> None:
    # EURUSD=X at 1.1800 (dollars per euro): 2% of 100,000.00 = 2,000.00 USD; 2,000.00 / 1.18 = 1,694.9152… EUR
    # -> 1,694.91 EUR (units of the base currency, to the cent); cost 1,694.91 * 1.18 = 1,999.9938 -> 1,999.99;
    # cash 100,000.00 - 1,999.99 = 98,000.01
    s = size_against(CASH_ONLY, "EURUSD=X", D("1.1800"), "BUY", "2% of portfolio")
    assert (s.shares, s.amount, s.cash_after) == (D("1694.91"), D("1999.99"), D("98000.01"))
    assert "units of the base currency EUR (to 2 decimals)" in s.notes[0]


def test_equities_and_funds_stay_in_whole_shares() -> None:
    # 2% of 100,000.00 = 2,000.00; / 2,950.39 = 0.68 -> 0 whole shares of a stock or a fund at that price
    for symbol in ("NVDA", "SPY"):
        s = size_against(CASH_ONLY, symbol, D("2950.39"), "BUY", "2%")
        assert (s.shares, s.amount) == (D(0), D("0.00"))
        assert s.said[0] == "book.sizing_buy"  # "买入 0 股 …" in Chinese, shares
    assert phrase("zh", "book.sizing_buy", shares="0", symbol="SPY", price="1", amount="0", before="0",
                  after="0").startswith("买入 0 股")


def test_unit_places_per_class() -> None:
    assert [unit_places(k) for k in AssetClass] == [0, 0, 0, 8, 2, 0, 0, 0]
    assert unit_places(None) == 0 and unit_places("nonsense") == 0


def test_a_book_keeps_a_coin_to_the_satoshi_and_shares_to_six_places() -> None:
    assert Position("BTC-USD", D("0.12345678")).quantity == D("0.12345678")
    with pytest.raises(BookError, match="more than 8 decimals"):
        Position("BTC-USD", D("0.123456789"))
    with pytest.raises(BookError, match="more than 6 decimals"):
        Position("NVDA", D("0.1234567"))
