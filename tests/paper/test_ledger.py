"""The paper book worked out from a hand-written price table; every figure below is worked by hand.

Sessions: Wed 2024-05-22 (the decision's day D), Thu 23, Fri 24, (Memorial Day weekend), Tue 28, Wed 29.
Cost: 5 bp of each fill's amount, in cents rounded half-up.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from graph.paper.book import Order, PaperBook, decided_on
from graph.paper.ledger import Bar, replay
from graph.track.calls import Call

D = "2024-05-22"
SINCE = "2024-05-22T13:00:00+00:00"  # opted in on the morning of D


def bar(o: str, h: str, lo: str, c: str) -> Bar:
    return Bar(Decimal(o), Decimal(h), Decimal(lo), Decimal(c))


# fmt: off
TABLE = {
    "SPY": {date(2024, 5, 22): bar("500", "501", "499", "500"), date(2024, 5, 23): bar("500", "503", "499", "502"),
            date(2024, 5, 24): bar("502", "503", "500", "501"), date(2024, 5, 28): bar("501", "504", "500", "503"),
            date(2024, 5, 29): bar("503", "505", "502", "504")},
    # D's own open (120) and close (122) must never be the fill; the next open is 123.45.
    "ACME": {date(2024, 5, 22): bar("120", "125", "119", "122"), date(2024, 5, 23): bar("123.45", "126", "122", "125"),
             date(2024, 5, 24): bar("125", "127", "124", "126"), date(2024, 5, 28): bar("126", "128", "125", "127"),
             date(2024, 5, 29): bar("90", "91", "80", "85")},      # after the horizon: must not matter
    # Opens at 110 on the 24th, through a stop of 115.
    "GAP": {date(2024, 5, 23): bar("120", "121", "118", "119"), date(2024, 5, 24): bar("110", "112", "108", "111")},
    # Trades down to 114 on the 24th after opening above the stop of 115.
    "DIP": {date(2024, 5, 23): bar("120", "121", "118", "119"), date(2024, 5, 24): bar("117", "118", "114", "116")},
    # A short: its high reaches the stop of 55 on the 24th.
    "FALL": {date(2024, 5, 23): bar("50", "51", "49", "50"), date(2024, 5, 24): bar("52", "56", "51", "53")},
    # No row on the 23rd: a gap.
    "HOLE": {date(2024, 5, 24): bar("40", "41", "39", "40")},
}
# fmt: on


def order(ticker: str, signal: str = "BUY", size: str = "2% of portfolio", stop: str = "", horizon: str = "3 days",
          decided: str = D, n: int = 0) -> Order:
    return Order(call_id=f"t{ticker}:{n}", thread_id=f"t{ticker}", ticker=ticker, signal=signal, position_size=size,
                 stop=stop, horizon=horizon, decided=decided, recorded_at=f"{decided}T15:00:0{n}+00:00",
                 rationale="because")


def book(*orders: Order, cost: str = "5") -> PaperBook:
    return PaperBook(user="ann", start="100000.00", cost_bps=cost, since=SINCE, orders=list(orders))


def test_a_buy_fills_at_the_next_open_with_its_cost_and_closes_when_its_horizon_ends():
    ledger = replay(book(order("ACME")), TABLE, date(2024, 5, 29))
    buy, sell = ledger.trades
    # 2 % of 100,000.00 is 2,000.00; at the next open, 123.45: floor(16.2) = 16 shares, 16 × 123.45 = 1,975.20;
    # cost 1,975.20 × 5 / 10,000 = 0.9876 → 0.99; cash 100,000.00 − 1,975.20 − 0.99 = 98,023.81.
    assert (buy.day, buy.action, buy.shares, buy.price, buy.amount, buy.fee, buy.cash_after) == (
        date(2024, 5, 23), "buy", Decimal(16), Decimal("123.45"), Decimal("1975.20"), Decimal("0.99"),
        Decimal("98023.81"))
    assert buy.why == "call" and buy.thread_id == "tACME" and buy.rationale == "because"
    # "3 days": the 3rd session after D is the 28th; closed at its close, 127: 16 × 127 = 2,032.00, cost 1.016 →
    # 1.02; cash 98,023.81 + 2,032.00 − 1.02 = 100,054.79. The 29th's crash comes after and changes nothing.
    assert (sell.day, sell.action, sell.price, sell.amount, sell.fee, sell.cash_after, sell.why) == (
        date(2024, 5, 28), "sell", Decimal(127), Decimal("2032.00"), Decimal("1.02"), Decimal("100054.79"), "horizon")
    assert ledger.cash == Decimal("100054.79") and not ledger.positions
    # The curve at each close: 98,023.81 + 16 × 125 on the 23rd, + 16 × 126 on the 24th, then cash.
    assert ledger.curve == [(date(2024, 5, 23), Decimal("100023.81")), (date(2024, 5, 24), Decimal("100039.81")),
                            (date(2024, 5, 28), Decimal("100054.79")), (date(2024, 5, 29), Decimal("100054.79"))]


def test_a_decision_on_d_is_never_filled_at_d_or_before():
    ledger = replay(book(order("ACME")), TABLE, date(2024, 5, 22))
    assert not ledger.trades and ledger.cash == Decimal("100000.00")
    assert [u.reason for u in ledger.waiting] == ["waits for the open of the first session after 2024-05-22"]
    # Logged on the 23rd (New York) about the 22nd: D is the 23rd, so it fills on the 24th at 125.
    late = order("ACME", decided="2024-05-23")
    assert replay(book(late), TABLE, date(2024, 5, 29)).trades[0].price == Decimal(125)


def test_decided_on_is_the_later_of_the_trade_date_and_the_new_york_day_it_was_logged():
    call = Call(id="t:0", user="ann", thread_id="t", ticker="ACME", trade_date=D, signal="BUY",
                recorded_at="2024-05-23T03:00:00+00:00")  # 23:00 on the 22nd in New York
    assert decided_on(call) == date(2024, 5, 22)
    assert decided_on(call.model_copy(update={"recorded_at": "2024-05-23T14:00:00+00:00"})) == date(2024, 5, 23)


def test_a_stop_gapped_through_closes_at_the_open():
    ledger = replay(book(order("GAP", stop="115", horizon="2 weeks")), TABLE, date(2024, 5, 29))
    buy, sell = ledger.trades
    # 2,000.00 / 120 = 16.67 → 16 shares: 1,920.00, cost 0.96, cash 98,079.04.
    assert (buy.shares, buy.amount, buy.fee, buy.cash_after) == (Decimal(16), Decimal("1920.00"), Decimal("0.96"),
                                                                Decimal("98079.04"))
    # The 24th opens at 110, under the stop: sold at that open, not at 115: 1,760.00, cost 0.88,
    # cash 98,079.04 + 1,760.00 − 0.88 = 99,838.16.
    assert (sell.day, sell.price, sell.amount, sell.fee, sell.cash_after, sell.why) == (
        date(2024, 5, 24), Decimal(110), Decimal("1760.00"), Decimal("0.88"), Decimal("99838.16"), "stop_gap")


def test_a_stop_reached_after_the_open_closes_at_the_stop():
    sell = replay(book(order("DIP", stop="$115.00 (-4%)", horizon="2 weeks")), TABLE, date(2024, 5, 29)).trades[1]
    # Opens at 117, trades down to 114: sold at the stop, 16 × 115 = 1,840.00, cost 0.92;
    # cash 98,079.04 + 1,840.00 − 0.92 = 99,918.12.
    assert (sell.price, sell.amount, sell.fee, sell.cash_after, sell.why) == (
        Decimal(115), Decimal("1840.00"), Decimal("0.92"), Decimal("99918.12"), "stop")


def test_a_sell_opens_a_short_whose_stop_is_its_high():
    ledger = replay(book(order("FALL", signal="SELL", size="5%", stop="55", horizon="1 month")), TABLE,
                    date(2024, 5, 29))
    short, cover = ledger.trades
    # 5 % of 100,000.00 = 5,000.00 at 50: 100 shares; proceeds 5,000.00, cost 2.50, cash 104,997.50.
    assert (short.action, short.shares, short.amount, short.fee, short.cash_after) == (
        "short", Decimal(100), Decimal("5000.00"), Decimal("2.50"), Decimal("104997.50"))
    # The 24th's high, 56, reaches 55: covered at 55, 5,500.00, cost 2.75; cash 104,997.50 − 5,500.00 − 2.75.
    assert (cover.action, cover.price, cover.cash_after, cover.why) == ("cover", Decimal(55), Decimal("99494.75"),
                                                                        "stop")
    # Marked on the 23rd: 104,997.50 − 100 × 50 = 99,997.50.
    assert ledger.curve[0] == (date(2024, 5, 23), Decimal("99997.50"))


def test_a_missing_price_is_a_gap_the_order_waits_through():
    waiting = replay(book(order("HOLE")), TABLE, date(2024, 5, 23))
    assert not waiting.trades
    assert [u.reason for u in waiting.waiting] == ["no open for HOLE on 2024-05-23: waits for the next one"]
    filled = replay(book(order("HOLE")), TABLE, date(2024, 5, 24))
    # 2,000.00 / 40 = 50 shares at the 24th's open: 2,000.00, cost 1.00, cash 97,999.00.
    assert [(t.day, t.shares, t.price, t.cash_after) for t in filled.trades] == [
        (date(2024, 5, 24), Decimal(50), Decimal(40), Decimal("97999.00"))]


def test_a_position_without_a_close_leaves_a_gap_in_the_curve_not_a_made_up_point():
    ledger = replay(book(order("GAP", horizon="2 weeks")), TABLE, date(2024, 5, 28))
    # Held from the 23rd (no stop); GAP has no row on the 28th: that session is off the curve.
    assert [d for d, _ in ledger.curve] == [date(2024, 5, 23), date(2024, 5, 24)]
    assert ledger.gaps == [(date(2024, 5, 28), "GAP")]


def test_holds_and_sizes_without_a_percent_are_not_traded_and_say_why():
    ledger = replay(book(order("ACME", signal="HOLD"), order("SPY", size="small", n=1)), TABLE, date(2024, 5, 29))
    assert not ledger.trades
    assert [u.reason for u in ledger.skipped] == ["a HOLD: nothing to trade", "its size 'small' gives no percent"]


def test_a_newer_call_on_a_ticker_replaces_its_position_at_the_same_open():
    first = order("ACME", horizon="2 weeks")
    second = order("ACME", signal="SELL", size="1%", horizon="2 weeks", decided="2024-05-23", n=1)
    trades = replay(book(first, second), TABLE, date(2024, 5, 24)).trades
    assert [(t.day, t.action, t.why, t.call_id) for t in trades] == [
        (date(2024, 5, 23), "buy", "call", "tACME:0"), (date(2024, 5, 24), "sell", "replaced", "tACME:1"),
        (date(2024, 5, 24), "short", "call", "tACME:1")]
    # Sold 16 at 125: 2,000.00, cost 1.00 → 98,023.81 + 1,999.00 = 100,022.81; then 1 % of that is 1,000.2281
    # at 125: 8 shares short, 1,000.00, cost 0.50 → 101,022.31.
    assert [t.cash_after for t in trades[1:]] == [Decimal("100022.81"), Decimal("101022.31")]


def test_a_zero_cost_book_pays_nothing():
    buy = replay(book(order("ACME"), cost="0"), TABLE, date(2024, 5, 23)).trades[0]
    assert (buy.fee, buy.cash_after) == (Decimal("0.00"), Decimal("98024.80"))


# A coin and a currency pair, sized in their class's units (graph/book/sizing.py's in_units), not in whole shares.
# fmt: off
FRACTIONAL = {
    "BTC-USD": {date(2024, 5, 22): bar("66000", "67500", "65800", "67000"),
                date(2024, 5, 23): bar("67123.45", "68000", "67000", "67800"),
                date(2024, 5, 24): bar("67800", "69000", "67500", "68500")},
    "EURUSD=X": {date(2024, 5, 22): bar("1.0820", "1.0860", "1.0810", "1.0840"),
                 date(2024, 5, 23): bar("1.0850", "1.0870", "1.0830", "1.0860"),
                 date(2024, 5, 24): bar("1.0860", "1.0880", "1.0850", "1.0870")},
}
# fmt: on


# -- the class's units (issue 37): a coin in fractions, a future in whole contracts at its notional -----------------
# fmt: off
CLASSES = {
    **TABLE,
    "BTC-USD": {date(2024, 5, 22): bar("39000", "39500", "38500", "39200"),
                date(2024, 5, 23): bar("40000", "40800", "39800", "40500"),
                date(2024, 5, 24): bar("40500", "41000", "40200", "40800"),
                date(2024, 5, 28): bar("40800", "41500", "40600", "41000")},
    "CL=F": {date(2024, 5, 22): bar("69", "70", "68", "69.5"), date(2024, 5, 23): bar("70", "71.5", "69.5", "71"),
             date(2024, 5, 24): bar("71", "72", "70.5", "71.5"), date(2024, 5, 28): bar("71.5", "72.5", "71", "72")},
    "GC=F": {date(2024, 5, 23): bar("2000", "2010", "1990", "2005")},
    "ZC=F": {date(2024, 5, 23): bar("450", "455", "445", "452")},
}
# fmt: on


def test_a_coin_is_bought_to_the_satoshi_at_the_next_open():
    ledger = replay(book(order("BTC-USD", horizon="1 month")), FRACTIONAL, date(2024, 5, 24))
    (buy,) = ledger.trades
    # 2 % of 100,000.00 is 2,000.00; at the next open, 67,123.45: 2,000 / 67,123.45 = 0.0297958462… BTC, rounded down
    # to 8 decimals: 0.02979584 BTC. Amount 0.02979584 × 67,123.45 = 1,999.999576448 → 2,000.00; cost 5 bp of it
    # = 1.00; cash 100,000.00 − 2,000.00 − 1.00 = 97,999.00.
    assert (buy.day, buy.action, buy.shares, buy.price, buy.amount, buy.fee, buy.cash_after) == (
        date(2024, 5, 23), "buy", Decimal("0.02979584"), Decimal("67123.45"), Decimal("2000.00"), Decimal("1.00"),
        Decimal("97999.00"))
    # Marked at the 24th's close, 68,500: 0.02979584 × 68,500 = 2,041.01504 → 97,999.00 + 2,041.02 (in cents).
    assert ledger.curve[-1] == (date(2024, 5, 24), Decimal("100040.02"))
    assert [p.shares for p in ledger.positions] == [Decimal("0.02979584")]


def test_a_currency_pair_is_sized_in_its_base_currency_to_the_cent():
    ledger = replay(book(order("EURUSD=X", horizon="1 month")), FRACTIONAL, date(2024, 5, 24))
    (buy,) = ledger.trades
    # 2,000.00 / 1.0850 = 1,843.3179… EUR → 1,843.31 EUR; amount 1,843.31 × 1.085 = 1,999.99135 → 1,999.99; cost
    # 1,999.99 × 5 / 10,000 = 0.999995 → 1.00; cash 100,000.00 − 1,999.99 − 1.00 = 97,999.01.
    assert (buy.shares, buy.amount, buy.fee, buy.cash_after) == (
        Decimal("1843.31"), Decimal("1999.99"), Decimal("1.00"), Decimal("97999.01"))


def test_a_stock_stays_in_whole_shares_and_a_size_below_one_unit_says_so():
    # 0.001 % of 100,000 is 1.00: no whole share of ACME at 123.45, and not a satoshi short of a coin either way.
    tiny = replay(book(order("ACME", size="0.001%")), TABLE, date(2024, 5, 24))
    assert not tiny.trades and [dict(u.fields)["key"] for u in tiny.skipped] == ["no_shares"]
    coin = replay(book(order("BTC-USD", size="0.001%")), FRACTIONAL, date(2024, 5, 24))
    # 1.00 / 67,123.45 = 0.0000148… BTC: 0.00001489 BTC, a fill (a whole-share rule would have skipped it).
    assert [t.shares for t in coin.trades] == [Decimal("0.00001489")]


def test_a_stock_held_beside_a_coin_keeps_its_last_close_when_its_market_is_shut():
    """The coin trades on Saturday, Sunday and Memorial Day; the stock's market does not: not a gap for it."""
    coin = {d: bar("100", "101", "99", "100") for d in (date(2024, 5, 22), date(2024, 5, 23), date(2024, 5, 24))}
    coin |= {date(2024, 5, 25): bar("100", "111", "99", "110"), date(2024, 5, 26): bar("110", "111", "104", "105"),
             date(2024, 5, 27): bar("105", "106", "99", "100"), date(2024, 5, 28): bar("100", "101", "99", "100")}
    ledger = replay(book(order("ACME", horizon="1 month"), order("BTC-USD", horizon="1 month", n=1)),
                    {"ACME": TABLE["ACME"], "BTC-USD": coin}, date(2024, 5, 28))
    assert ledger.gaps == []
    # The 23rd's open: ACME 16 shares (1,975.20 + fee 0.99, as above); then 2 % of the 99,999.01 left = 1,999.9802 at
    # 100: 19.99980200 BTC, 1,999.98 + fee 1.00; cash 100,000 − 1,975.20 − 0.99 − 1,999.98 − 1.00 = 96,022.83.
    assert [t.shares for t in ledger.trades] == [Decimal(16), Decimal("19.99980200")]
    # Friday the 24th: 96,022.83 + 16 × 126 + 19.999802 × 100 = 100,038.81 (to the cent). Saturday: ACME at its
    # last close (126), the coin at 110: + 19.999802 × 10 = 200.00 more.
    curve = dict(ledger.curve)
    assert curve[date(2024, 5, 24)] == Decimal("100038.81")
    assert curve[date(2024, 5, 25)] == Decimal("100238.81")
    assert [d.isoformat() for d in curve] == ["2024-05-23", "2024-05-24", "2024-05-25", "2024-05-26", "2024-05-27",
                                              "2024-05-28"]


def test_a_coin_is_bought_in_fractions():
    ledger = replay(book(order("BTC-USD")), CLASSES, date(2024, 5, 29))
    buy, sell = ledger.trades
    # 2 % of 100,000.00 = 2,000.00 at the next open, 40,000: 0.05 BTC (not 0 whole coins), 2,000.00, cost 1.00;
    # cash 97,999.00. Sold at the 28th's close, 41,000: 2,050.00, cost 1.025 -> 1.03; cash 100,047.97
    assert (buy.shares, buy.amount, buy.fee, buy.cash_after) == (Decimal("0.05"), Decimal("2000.00"),
                                                                 Decimal("1.00"), Decimal("97999.00"))
    assert (sell.amount, sell.fee, sell.cash_after) == (Decimal("2050.00"), Decimal("1.03"), Decimal("100047.97"))
    # the curve: 97,999.00 + 0.05 × 40,500 on the 23rd, + 0.05 × 40,800 on the 24th
    assert ledger.curve[:2] == [(date(2024, 5, 23), Decimal("100024.00")), (date(2024, 5, 24), Decimal("100039.00"))]


def test_a_future_is_bought_in_whole_contracts_at_its_notional():
    ledger = replay(book(order("CL=F", size="80%")), CLASSES, date(2024, 5, 29))
    buy, sell = ledger.trades
    # 80 % of 100,000.00 = 80,000.00; one CL=F contract at the open, 70: 1,000 barrels × 70 = 70,000.00 -> 1
    # contract; amount 70,000.00, cost 35.00, cash 29,965.00. At the 28th's close, 72: 72,000.00, cost 36.00,
    # cash 29,965.00 + 72,000.00 - 36.00 = 101,929.00
    assert (buy.shares, buy.amount, buy.fee, buy.cash_after) == (Decimal(1), Decimal("70000.00"), Decimal("35.00"),
                                                                 Decimal("29965.00"))
    assert (sell.amount, sell.fee, sell.cash_after) == (Decimal("72000.00"), Decimal("36.00"), Decimal("101929.00"))
    # the curve counts the contract's notional: 29,965.00 + 1,000 × 71 on the 23rd
    assert ledger.curve[0] == (date(2024, 5, 23), Decimal("100965.00"))


def test_a_future_below_one_contract_or_of_unknown_size_is_not_traded_and_says_why():
    ledger = replay(book(order("GC=F"), order("ZC=F", n=1)), CLASSES, date(2024, 5, 29))
    assert not ledger.trades
    # 2 % = 2,000.00; one GC=F contract at 2,000 is 100 troy oz × 2,000 = 200,000 of notional
    assert [u.reason for u in ledger.skipped] == [
        "2 % of the book's value buys no whole contract at 2000 (notional 200000 a contract)",
        "the contract multiplier of ZC=F is unknown, so its notional is too"]


def test_the_reasons_a_future_is_not_traded_in_words():
    from graph.paper.words import unfilled_reason

    gold, corn = replay(book(order("GC=F"), order("ZC=F", n=1)), CLASSES, date(2024, 5, 29)).skipped
    assert unfilled_reason(gold, "zh", "skipped_") == "账户价值的 2 % 按 2000 买不到一手合约（每手名义价值 200000）"
    assert unfilled_reason(corn, "en", "skipped_") == (
        "the contract multiplier of ZC=F is not known to the desk, so its notional is unknown (not guessed)")
