"""A commodity future sized in whole contracts of its multiplier (graph/core/contracts.py, graph/book/sizing.py;
issue 37), every figure worked out by hand; money exact (Decimal), amounts to the cent."""
from __future__ import annotations

from decimal import Decimal as D

from graph.book import Book, Position, size_against
from graph.book.sizing import book_value
from graph.core.contracts import contract_of

CASH_ONLY = Book((), D("100000.00"))


def test_the_table_names_each_contract_and_knows_what_it_does_not() -> None:
    assert contract_of("GC=F") == ("GC", D(100), "troy_oz")
    assert contract_of("CL=F") == ("CL", D(1000), "barrels")
    assert contract_of("SI=F") == ("SI", D(5000), "troy_oz")
    assert contract_of("ES=F") == ("ES", D(50), "index_dollars")
    assert contract_of("NQ=F") == ("NQ", D(20), "index_dollars")
    assert contract_of("ZC=F") is None and contract_of("GC") is None and contract_of("NVDA") is None


def test_two_percent_of_a_small_book_buys_no_gold_contract_and_says_why() -> None:
    # 2% of 100,000.00 = 2,000.00; one GC=F contract = 100 troy oz x 2,000.00 = 200,000.00 of notional;
    # 2,000.00 / 200,000.00 = 0.01 -> 0 whole contracts: nothing is traded, the cash and weight unchanged
    s = size_against(CASH_ONLY, "GC=F", D("2000.00"), "BUY", "2% of portfolio")
    assert (s.action, s.shares, s.amount, s.cash_after, s.weight_after) == ("stay out", D(0), D(0),
                                                                            D("100000.00"), D(0))
    assert s.summary == ("no GC=F contract: 2% of the book is 2,000.00, less than one contract's notional of "
                         "200,000.00 (100 troy oz at 2,000.00), so nothing is traded")
    assert s.told("zh") == ("0 手 GC=F 合约：账户的 2% 为 2,000.00，不足一手合约的名义价值 200,000.00"
                            "（价格 2,000.00），因此不交易")


def test_a_crude_contract_bought_states_its_notional() -> None:
    # 80% of 100,000.00 = 80,000.00; one CL=F contract = 1,000 barrels x 70.00 = 70,000.00;
    # 80,000.00 / 70,000.00 = 1.14… -> 1 contract, a notional of 70,000.00; cash 100,000.00 - 70,000.00 = 30,000.00
    # (counted fully collateralised); weight 70,000 / 100,000 = 0.7000
    s = size_against(CASH_ONLY, "CL=F", D("70.00"), "BUY", "80%")
    assert (s.action, s.shares, s.amount, s.cash_after, s.weight_after) == ("buy", D(1), D("70000.00"),
                                                                            D("30000.00"), D("0.7000"))
    assert s.after == Position("CL=F", D(1), D("70.00"))
    assert s.summary == ("buy CL=F contracts: 1 at 70.00 (1,000 barrels each, notional 70,000.00 a contract) for "
                         "a notional of 70,000.00: weight 0.00% -> 70.00%")


def test_an_index_future_is_dollars_per_point_and_a_held_one_counts_its_notional() -> None:
    # ES=F at 5,000.00: $50 x 5,000.00 = 250,000.00 a contract. A book of 1,000,000.00 cash, 30%: 300,000.00
    # -> 1 contract (1.2 rounded down), notional 250,000.00, weight 0.2500
    s = size_against(Book((), D("1000000.00")), "ES=F", D("5000.00"), "BUY", "30%")
    assert (s.shares, s.amount, s.weight_after) == (D(1), D("250000.00"), D("0.2500"))
    # held: 2 ES=F at 5,000.00 = 500,000.00 of notional, plus 500,000.00 cash: a book of 1,000,000.00;
    # SELL 30% = 300,000.00 -> 1 contract of the 2, 1 left: weight 0.5000 -> 0.2500
    held = Book((Position("ES=F", D(2), D("4800.00")),), D("500000.00"))
    assert book_value(held, {"ES=F": D("5000.00")}) == (D("1000000.00"), [])
    s = size_against(held, "ES=F", D("5000.00"), "SELL", "30%")
    assert (s.action, s.shares, s.amount, s.cash_after) == ("sell", D(1), D("250000.00"), D("750000.00"))
    assert (s.weight_before, s.weight_after) == (D("0.5000"), D("0.2500"))


def test_a_future_with_an_unknown_multiplier_is_not_sized() -> None:
    s = size_against(CASH_ONLY, "ZC=F", D("450.00"), "BUY", "2%")
    assert s.action == "gap" and s.gaps == ("contract multiplier of ZC=F",)
    assert s.summary == ("no sizing: the contract multiplier of ZC=F is not known to the desk, so a contract's "
                         "notional is unknown (not guessed)")
    # held, it leaves the book's value unknown too, whatever is sized
    s = size_against(Book((Position("ZC=F", D(1)),), D("100000.00")), "NVDA", D("100.00"), "BUY", "2%",
                     {"ZC=F": D("450.00")})
    assert s.action == "gap" and "ZC=F" in s.summary
