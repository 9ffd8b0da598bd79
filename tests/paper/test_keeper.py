"""The paper keeper over a store and a hand-written vendor: which calls it follows, two users apart, and no
price read after the day it settles for."""
from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pandas as pd
import pytest
from langgraph.store.memory import InMemoryStore

from graph.paper.keeper import PaperError, PaperKeeper, amount_of, benchmark_of, benchmarks_of
from graph.paper.ledger import Bar
from graph.track.calls import Call
from graph.track.log import DecisionLog
from tests.paper.test_ledger import FRACTIONAL, TABLE

LABEL = "hand-written test prices"


class TableVendor:
    name = "table"
    label = LABEL

    def __init__(self, today: date, table: dict[str, dict[date, Bar]] = TABLE):
        self.today, self.table = today, table

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        assert end <= self.today, f"asked for {ticker} up to {end}, after {self.today}"
        rows = {d: b for d, b in self.table.get(ticker, {}).items() if start <= d <= end}
        return pd.DataFrame([{k: float(getattr(b, k)) for k in ("open", "high", "low", "close")}
                             for b in rows.values()], index=pd.DatetimeIndex([d.isoformat() for d in rows]))


def call(user: str, ticker: str, n: int = 0, *, trade_date: str = "2024-05-22",
         recorded_at: str = "2024-05-22T15:00:00+00:00", source: str = "chat", signal: str = "BUY",
         horizon: str = "3 days") -> Call:
    return Call(id=f"{user}-{ticker}:{n}", user=user, thread_id=f"{user}-{ticker}", ticker=ticker,
                trade_date=trade_date, signal=signal, position_size="2%", horizon=horizon, data=LABEL,
                source=source, recorded_at=recorded_at)


OPTED = datetime(2024, 5, 22, 13, 0, tzinfo=UTC)


async def keeper_with(*calls: Call, today: date = date(2024, 5, 29),
                      table: dict[str, dict[date, Bar]] = TABLE) -> PaperKeeper:
    store = InMemoryStore()
    await DecisionLog(store).save_all(calls)
    return PaperKeeper(store, TableVendor(today, table))  # type: ignore[arg-type]


async def test_it_follows_new_calls_of_any_source_but_a_backtest_or_a_past_day():
    keeper = await keeper_with(
        call("ann", "ACME", source="mcp"),
        call("ann", "GAP", source="watch"),
        call("ann", "DIP", source="backtest"),                                      # a backtest's day
        call("ann", "FALL", trade_date="2024-05-20"),                              # time travel to a past day
        call("ann", "HOLE", recorded_at="2024-05-22T12:00:00+00:00"),              # logged before the opt-in
    )
    await keeper.start("ann", "100000", OPTED)
    paper = await keeper.settle("ann", date(2024, 5, 29))
    assert paper is not None
    assert [o.ticker for o in paper.book.orders] == ["ACME", "GAP"]
    assert [(t.ticker, t.day) for t in paper.ledger.trades if t.why == "call"] == [
        ("ACME", date(2024, 5, 23)), ("GAP", date(2024, 5, 23))]
    # Both are US stocks: SPY, the benchmark of their class, measures them.
    (spy,) = paper.benchmarks
    assert (spy.name, spy.measures) == ("SPY", ("ACME", "GAP")) and benchmark_of("ACME") == "SPY"
    # SPY from the first open after the opt-in (500 on the 23rd), at each close: 100,000 × 502 / 500 on the 23rd.
    assert spy.curve[0] == (date(2024, 5, 23), Decimal("100400.00"))
    # Settling again takes nothing twice.
    again = await keeper.settle("ann", date(2024, 5, 29))
    assert again is not None and len(again.book.orders) == 2


async def test_two_users_paper_books_stay_apart():
    keeper = await keeper_with(call("ann", "ACME"), call("bob", "GAP"))
    await keeper.start("ann", "100000", OPTED)
    assert await keeper.settle("bob", date(2024, 5, 29)) is None  # bob never opted in
    await keeper.start("bob", "5000.50", OPTED, cost_bps=Decimal(0))
    ann, bob = await keeper.settle("ann", date(2024, 5, 29)), await keeper.settle("bob", date(2024, 5, 29))
    assert ann is not None and bob is not None
    assert {o.ticker for o in ann.book.orders} == {"ACME"} and {o.ticker for o in bob.book.orders} == {"GAP"}
    assert bob.book.start_amount == Decimal("5000.50")


async def test_no_price_after_the_settling_day_is_read_and_the_order_waits_until_there_is_one():
    keeper = await keeper_with(call("ann", "ACME"), today=date(2024, 5, 22))
    await keeper.start("ann", "100000", OPTED)
    paper = await keeper.settle("ann", date(2024, 5, 22))  # the vendor refuses any day after the 22nd
    assert paper is not None and not paper.ledger.trades
    assert [u.reason for u in paper.ledger.waiting] == ["waits for the open of the first session after 2024-05-22"]


async def test_opting_out_keeps_what_was_taken_and_follows_nothing_logged_after():
    keeper = await keeper_with(call("ann", "ACME"), call("ann", "GAP", recorded_at="2024-05-22T18:00:00+00:00"))
    await keeper.start("ann", "100000", OPTED)
    with pytest.raises(PaperError):
        await keeper.start("ann", "100000", OPTED)  # already following
    await keeper.stop("ann", datetime(2024, 5, 22, 16, 0, tzinfo=UTC))
    paper = await keeper.settle("ann", date(2024, 5, 29))
    assert paper is not None and [o.ticker for o in paper.book.orders] == ["ACME"]
    assert (await keeper.start("ann", "2000", datetime(2024, 5, 30, tzinfo=UTC))).orders == []  # a new book


@pytest.mark.parametrize("text", ["0", "-5", "12.345", "lots", "nan"])
def test_an_amount_is_cents_above_zero(text):
    with pytest.raises(PaperError):
        amount_of(text)


def test_amounts_read_with_separators():
    assert amount_of("100,000") == Decimal("100000.00")


@pytest.mark.parametrize(("ticker", "benchmark"), [
    ("NVDA", "SPY"), ("0700.HK", "^HSI"), ("600519.SS", "000300.SS"), ("ETH-USD", "BTC-USD"), ("GC=F", "DBC"),
    ("^GSPC", "SPY"), ("SPY", "SPY"), ("BTC-USD", "BTC-USD"), ("EURUSD=X", ""),
])
def test_each_ticker_is_measured_against_the_benchmark_of_its_class(ticker, benchmark):
    """The track record's (graph/track/horizon.py benchmark_for); a benchmark traded itself is its class's own."""
    assert benchmark_of(ticker) == benchmark


async def test_a_book_of_several_classes_is_measured_against_each_class_benchmark():
    keeper = await keeper_with(call("ann", "ACME"), call("ann", "BTC-USD", horizon="1 month"),
                               call("ann", "EURUSD=X", horizon="1 month"), today=date(2024, 5, 24),
                               table=TABLE | FRACTIONAL)
    await keeper.start("ann", "100000", OPTED)
    paper = await keeper.settle("ann", date(2024, 5, 24))
    assert paper is not None
    assert benchmarks_of(paper.book) == {"SPY": ["ACME"], "BTC-USD": ["BTC-USD"]}
    spy, btc = paper.benchmarks
    assert (spy.name, spy.measures, btc.name, btc.measures) == ("SPY", ("ACME",), "BTC-USD", ("BTC-USD",))
    # Each holds the stated amount from the first open after the opt-in (the 23rd): SPY 500 → 502 and 501;
    # BTC-USD 67,123.45 → 67,800 and 68,500: 100,000 × 67,800 / 67,123.45 = 101,007.92…, × 68,500 → 102,050.77…
    assert spy.curve == [(date(2024, 5, 23), Decimal("100400.00")), (date(2024, 5, 24), Decimal("100200.00"))]
    assert btc.curve == [(date(2024, 5, 23), Decimal("101007.92")), (date(2024, 5, 24), Decimal("102050.77"))]
    assert paper.unbenchmarked == ("EURUSD=X",)  # a pair has none: said so
    # The stock in whole shares, the coin in satoshis, the pair in cents of euros, one after the other at the 23rd's
    # open, each 2 % of the value left after the fees before it: ACME 16 (fee 0.99, value 99,999.01); BTC-USD
    # 1,999.9802 / 67,123.45 = 0.029795549… → 0.02979555 (1,999.98, fee 1.00, value 99,998.01); EURUSD=X
    # 1,999.9602 / 1.085 = 1,843.281… → 1,843.28.
    assert {t.ticker: t.shares for t in paper.ledger.trades if t.why == "call"} == {
        "ACME": Decimal(16), "BTC-USD": Decimal("0.02979555"), "EURUSD=X": Decimal("1843.28")}


async def test_a_book_with_no_order_yet_is_measured_against_spy():
    keeper = await keeper_with()
    await keeper.start("ann", "100000", OPTED)
    paper = await keeper.settle("ann", date(2024, 5, 29))
    assert paper is not None and [(b.name, b.measures) for b in paper.benchmarks] == [("SPY", ())]
