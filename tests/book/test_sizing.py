"""Sizing a ruling against a book, every number worked out by hand.

The book: 200 AAPL (cost 150) and 10,000.00 cash. Prices: AAPL 180, NVDA 100.
Its value: 10,000 + 200 * 180 = 10,000 + 36,000 = 46,000.
"""
from __future__ import annotations

from decimal import Decimal as D

from graph.book import Book, Position, size_against, size_decision
from graph.core.state import FinalDecision

BOOK = Book((Position("AAPL", D(200), D(150)),), D(10000))
PRICES = {"AAPL": D(180)}


def test_buy() -> None:
    # 2% of 46,000 = 920; 920 / 100 = 9.2 -> 9 whole shares; cost 900; cash 10,000 - 900 = 9,100;
    # weight 900 / 46,000 = 0.019565 -> 0.0196
    s = size_against(BOOK, "NVDA", D(100), "BUY", "2% of portfolio", PRICES)
    assert (s.action, s.shares, s.amount, s.cash_after) == ("buy", D(9), D("900.00"), D("9100.00"))
    assert s.value == D(46000)
    assert (s.weight_before, s.weight_after) == (D(0), D("0.0196"))
    assert s.before is None and s.after == Position("NVDA", D(9), D(100))
    assert s.summary == "buy 9 NVDA at 100.00 for 900.00: weight 0.00% -> 1.96%"


def test_buy_rounds_down_to_whole_shares() -> None:
    # 5% of 46,000 = 2,300; 2,300 / 333.33 = 6.90 -> 6 shares; 6 * 333.33 = 1,999.98; cash 8,000.02;
    # weight 1,999.98 / 46,000 = 0.043478 -> 0.0435
    s = size_against(BOOK, "NVDA", D("333.33"), "BUY", "5%", PRICES)
    assert (s.shares, s.amount, s.cash_after, s.weight_after) == (D(6), D("1999.98"), D("8000.02"), D("0.0435"))


def test_buy_with_too_little_cash() -> None:
    # value 500 + 36,000 = 36,500; 10% = 3,650 -> 36 shares wanted at 100; the cash covers 500 / 100 = 5;
    # cost 500, cash 0; weight 500 / 36,500 = 0.013698 -> 0.0137
    book = Book(BOOK.positions, D(500))
    s = size_against(book, "NVDA", 100, "BUY", "10% of portfolio", PRICES)
    assert (s.shares, s.amount, s.cash_after, s.weight_after) == (D(5), D("500.00"), D("0.00"), D("0.0137"))
    assert any("covers only 5" in n for n in s.notes)


def test_buy_more_of_a_holding() -> None:
    # 2% of 46,000 = 920 / 180 = 5.11 -> 5 shares, 900; cost (200*150 + 5*180) / 205 = 30,900 / 205
    # = 150.7317..; weight before 36,000 / 46,000 = 0.7826, after 205 * 180 = 36,900 / 46,000 = 0.8022
    s = size_against(BOOK, "AAPL", 180, "BUY", "2%", PRICES)
    assert s.after == Position("AAPL", D(205), D("150.7317"))
    assert (s.weight_before, s.weight_after) == (D("0.7826"), D("0.8022"))


def test_cents_rounded_half_up() -> None:
    # cash 100 only; 31% = 31; 31 / 10.005 = 3.098 -> 3 shares; 3 * 10.005 = 30.015 -> 30.02 (half up);
    # the cash is debited what is shown: 100 - 30.02 = 69.98
    s = size_against(Book((), D(100)), "NVDA", "10.005", "BUY", "31%")
    assert (s.shares, s.amount, s.cash_after) == (D(3), D("30.02"), D("69.98"))


def test_sell_when_held() -> None:
    # 10% of 46,000 = 4,600; 4,600 / 180 = 25.56 -> 25 shares; proceeds 4,500; cash 14,500;
    # 175 left at the old cost; weight 175 * 180 = 31,500 / 46,000 = 0.684782 -> 0.6848
    s = size_against(BOOK, "AAPL", 180, "SELL", "10% of portfolio", PRICES)
    assert (s.action, s.shares, s.amount, s.cash_after) == ("sell", D(25), D("4500.00"), D("14500.00"))
    assert s.before == Position("AAPL", D(200), D(150)) and s.after == Position("AAPL", D(175), D(150))
    assert (s.weight_before, s.weight_after) == (D("0.7826"), D("0.6848"))
    assert s.summary.startswith("sell 25 of 200 AAPL at 180.00 for 4,500.00: 175 left")


def test_sell_capped_at_the_holding() -> None:
    # 90% of 46,000 = 41,400 / 180 = 230 > 200 held -> 200; proceeds 36,000; cash 46,000; nothing left
    s = size_against(BOOK, "AAPL", 180, "SELL", "90%", PRICES)
    assert (s.shares, s.amount, s.cash_after, s.after, s.weight_after) == (
        D(200), D("36000.00"), D("46000.00"), None, D(0))
    assert any("capped at the 200 held" in n for n in s.notes)


def test_sell_none_held_no_short() -> None:
    s = size_against(BOOK, "NVDA", 100, "SELL", "5%", PRICES)
    assert s.action == "stay out" and s.shares == 0 and s.cash_after == BOOK.cash
    assert s.before is None and s.after is None
    assert "shorting is not allowed" in s.summary


def test_sell_none_held_short_allowed() -> None:
    # 5% of 46,000 = 2,300 / 100 = 23 shares short; proceeds 2,300 credited: cash 12,300;
    # weight -2,300 / 46,000 = -0.05
    s = size_against(BOOK, "NVDA", 100, "SELL", "5%", PRICES, allow_short=True)
    assert (s.action, s.shares, s.amount, s.cash_after) == ("short", D(23), D("2300.00"), D("12300.00"))
    assert s.after == Position("NVDA", D(-23), D(100)) and s.weight_after == D("-0.0500")


def test_hold() -> None:
    s = size_against(BOOK, "AAPL", 180, "HOLD", "0% (stay flat)", PRICES)
    assert s.action == "hold" and s.shares == 0 and s.before == s.after and s.cash_after == BOOK.cash


def test_a_missing_price_is_a_gap() -> None:
    # AAPL is held but has no price: the book's value is unknown, so nothing is sized
    s = size_against(BOOK, "NVDA", 100, "BUY", "2%")
    assert s.action == "gap" and s.gaps == ("price of AAPL",) and s.shares == 0 and s.value is None


def test_a_size_without_a_percent_is_a_gap() -> None:
    s = size_against(BOOK, "NVDA", 100, "BUY", "a small starter position", PRICES)
    assert s.action == "gap" and s.gaps == ("position size",)


def test_zero_percent_buys_nothing() -> None:
    s = size_against(BOOK, "NVDA", 100, "BUY", "0% (stay flat)", PRICES)
    assert s.shares == 0 and s.amount == 0 and s.cash_after == BOOK.cash


def test_from_the_ruling() -> None:
    decision = FinalDecision(signal="SELL", position_size="10% of portfolio", entry="n/a", stop="n/a",
                             horizon="2-6 weeks", confidence=0.6, rationale="r", ticker="AAPL")
    assert size_decision(BOOK, decision, 180, PRICES).shares == D(25)  # as test_sell_when_held


def test_short_already_held_and_no_more_shorting() -> None:
    book = Book((Position("TSLA", D(-10), D(240)),), D(5000))  # value 5,000 - 10 * 200 = 3,000
    s = size_against(book, "tsla", 200, "SELL", "5%")  # the symbol as typed: normalised to TSLA
    assert s.action == "stay out" and s.summary.startswith("stay out: already short 10 TSLA")
