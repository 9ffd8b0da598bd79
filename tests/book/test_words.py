"""Holdings told in words: each case's expected change worked out by hand in its comment."""
from __future__ import annotations

from decimal import Decimal as D

import pytest

from graph.book import Book, Position, apply_changes, read_holdings

# The book the "needs the current book" cases read against.
BOOK = Book((Position("AAPL", D(200), D(150)), Position("TSLA", D(30)), Position("MSFT", D(50), D(400))), D(1000))

GOOD = [
    # sentence, the changes' summaries
    ("I hold 200 NVDA at 95 and have $20k cash", ["set NVDA to 200 @ 95.00", "set cash to 20,000.00 USD"]),
    ("I own 50 shares of Apple at $170.5", ["set AAPL to 50 @ 170.50"]),
    # AAPL 200 -> half is 100, 100 left
    ("sold half my AAPL", ["sell half of AAPL: 100 of 200, leaving 100"]),
    ("sold all my TSLA", ["sell all of TSLA: 30 of 30, closing the position"]),
    # (50 * 400 + 10 * 410) / 60 = 24100 / 60 = 401.6666.. -> 401.67 shown
    ("bought 10 more MSFT at 410", ["buy 10 MSFT @ 410.00: 50 -> 60 MSFT @ 401.67"]),
    ("cash is 15,000", ["set cash to 15,000.00 USD"]),
    # 2万 = 20,000; 成本95 gives the cost to the holding before it
    ("我持有200股英伟达，成本95，现金2万", ["set NVDA to 200 @ 95.00", "set cash to 20,000.00 USD"]),
    ("现金15000", ["set cash to 15,000.00 USD"]),
    ("卖出一半苹果", ["sell half of AAPL: 100 of 200, leaving 100"]),
    ("清仓特斯拉", ["sell all of TSLA: 30 of 30, closing the position"]),
    ("买入10股微软", ["buy 10 MSFT: 50 -> 60 MSFT (cost not given)"]),
    # 25% of 200 = 50
    ("sold 25% of my AAPL", ["sell 25% of AAPL: 50 of 200, leaving 150"]),
    # 200 / 3 = 66.67, rounded down to 66 whole shares
    ("sold a third of AAPL", ["sell a third of AAPL: 66 of 200, leaving 134"]),
    ("I hold 0 TSLA", ["remove TSLA (was 30 TSLA (cost not given))"]),
    ("I hold 30 brk.b", ["set BRK-B to 30 (cost not given)"]),
    ("hold 10 0700.HK at 300", ["set 0700.HK to 10 @ 300.00"]),
    ("sold 5 tesla", ["sell 5 TSLA, leaving 25"]),
    ("short 50 TSLA at 240", ["set TSLA to short 50 @ 240.00"]),
    ("I have 200 NVDA, avg cost 95", ["set NVDA to 200 @ 95.00"]),
    ("I hold 200 NVDA 95", ["set NVDA to 200 @ 95.00"]),
    ("I hold 100 AAPL and 50 MSFT", ["set AAPL to 100 (cost not given)", "set MSFT to 50 (cost not given)"]),
    # the sale closes AAPL; the buy has no price, so MSFT's cost is no longer known
    ("sold all my AAPL and bought 20 MSFT",
     ["sell all of AAPL: 200 of 200, closing the position", "buy 20 MSFT: 50 -> 70 MSFT (cost not given)"]),
    # the later clause sees the earlier one: 200 + 100 = 300, half = 150
    ("bought 100 AAPL at 160 and sold half my AAPL",
     ["buy 100 AAPL @ 160.00: 200 -> 300 AAPL @ 153.33", "sell half of AAPL: 150 of 300, leaving 150"]),
    ("I hold 1.5k AMD at $120.25", ["set AMD to 1500 @ 120.25"]),
]

BAD = [
    # sentence, a piece of the reason
    ("I hold 100 XYZQ at 5", "unknown symbol XYZQ"),
    ("I hold -50 TSLA", "negative quantity"),
    ("I hold 5 billion AAPL", "more than the 1,000,000,000"),
    ("hello there", "no holding or cash read"),
    ("", "no holding or cash read"),
    ("sold 300 AAPL", "more than the 200 held"),
    ("sold half my NVDA", "no NVDA in the book"),
    ("I hold lots of NVDA", "how many NVDA"),
    ("bought $5000 of AAPL", "is a sum of money"),
    ("I hold 100 阿里巴巴", "say which"),
    ("cash is 5,000,000,000,000", "more than the 1,000,000,000,000"),
    ("I hold 200 at 95", "no symbol read"),
    ("cash is lots", "how much cash"),
    ("bought 0 AAPL", "changes nothing"),
    ("x" * 3000, "longer than 2000 characters"),
    ("I hold 200 NVDA at -5", "a price cannot be negative"),
    ("sold 150% of my AAPL", "between 0% and 100%"),
    ("I hold 100 AAPL at 5 at 6", "more than one price"),
    ("cash is 5 and 6", "no symbol read"),  # "6" alone is a number with no symbol: refused, not guessed
]


@pytest.mark.parametrize(("text", "summaries"), GOOD)
def test_read(text: str, summaries: list[str]) -> None:
    reading = read_holdings(text, BOOK)
    assert not reading.problems, reading.problems
    assert [c.summary for c in reading.changes] == summaries


@pytest.mark.parametrize(("text", "reason"), BAD)
def test_refused(text: str, reason: str) -> None:
    reading = read_holdings(text, BOOK)
    assert not reading.ok
    assert any(reason in p.reason for p in reading.problems), reading.problems


def test_reading_applies_nothing() -> None:
    before = BOOK.to_json()
    read_holdings("sold all my AAPL and cash is 5", BOOK)
    assert BOOK.to_json() == before


def test_apply_the_changes() -> None:
    # set NVDA 200 @ 95, cash 20,000, half of AAPL sold: AAPL 100 @ 150 (a sale keeps the cost)
    reading = read_holdings("I hold 200 NVDA at 95 and have $20k cash; sold half my AAPL", BOOK)
    book = apply_changes(BOOK, reading.changes)
    assert book.get("NVDA") == Position("NVDA", D(200), D(95))
    assert book.get("AAPL") == Position("AAPL", D(100), D(150))
    assert book.cash == D(20000)
    assert book.get("MSFT") == BOOK.get("MSFT")


def test_a_good_part_and_a_bad_part() -> None:
    # each clause gets its own answer: NVDA read, XYZQ refused with its reason
    reading = read_holdings("I hold 200 NVDA at 95 and 10 XYZQ", None)
    assert [c.summary for c in reading.changes] == ["set NVDA to 200 @ 95.00"]
    assert [p.text for p in reading.problems] == ["10 XYZQ"]
    assert not reading.ok


def test_without_a_book_a_part_needs_one() -> None:
    reading = read_holdings("sold half my AAPL")
    assert "tell the desk what you hold first" in reading.problems[0].reason


def test_position_validation() -> None:
    from graph.book import BookError

    with pytest.raises(BookError):
        Position("AAPL", D("NaN"))
    with pytest.raises(BookError):
        Position("AAPL", D("1e10"))
    with pytest.raises(BookError):
        Position("AAPL", D(1), D(-1))
    with pytest.raises(BookError):
        Position("not a symbol!", D(1))
    with pytest.raises(BookError):
        Book((Position("AAPL", D(1)), Position("aapl", D(2))))
    assert Position("nvda", 10.5, "95").quantity == D("10.5")


@pytest.mark.parametrize(("text", "english", "chinese"), [
    ("I hold 0.1234567 NVDA", "has more than 6 decimals", "小数超过 6 位"),
    ("我持有0.1234567股英伟达", "has more than 6 decimals", "小数超过 6 位"),
    ("I hold 100 NVDA at 10000000000000", "is not a price", "不是一个价格"),
    ("我持有100股英伟达，成本价10000000000000", "is not a price", "不是一个价格"),
])
def test_what_a_position_cannot_hold_is_refused_in_the_users_language(text: str, english: str, chinese: str) -> None:
    # These reached the chat as a Position's English words before.
    reading = read_holdings(text, BOOK)
    assert not reading.ok and english in reading.problems[0].reason
    assert chinese in reading.problems[0].told("zh")


def test_a_part_of_a_fractional_holding_is_cut_to_six_places() -> None:
    # A third of 0.5 NVDA was refused in a Position's English ("more than 6 decimals").
    book = Book((Position("NVDA", D("0.5"), D(100)),))
    for text in ("I sold a third of my NVDA", "卖出三分之一英伟达"):
        reading = read_holdings(text, book)
        assert reading.ok, reading.problems
        assert apply_changes(book, reading.changes).get("NVDA") == Position("NVDA", D("0.333334"), D(100))
