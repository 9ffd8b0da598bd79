"""When a trade settles, by asset class (graph/core/settlement.py, issue 37), every date worked out by hand on the
calendar of November and December 2026: Thursday 2026-11-26 is Thanksgiving (NYSE closed), 28 and 29 a weekend,
Friday 2026-12-25 Christmas (NYSE and CME closed; the currency market keeps no exchange holiday)."""
from __future__ import annotations

from datetime import date
from decimal import Decimal as D

import pytest

from graph.book import Book
from graph.book.brief import PricedBook, sizing_state
from graph.core.assets import AssetClass
from graph.core.settlement import settlement_of
from graph.core.state import FinalDecision


@pytest.mark.parametrize(("symbol", "traded", "rule", "settles"), [
    ("NVDA", "2026-11-25", "T+1", "2026-11-27"),    # Wednesday + 1 NYSE session: Thursday is Thanksgiving
    ("SPY", "2026-11-27", "T+1", "2026-11-30"),     # a fund as a stock: Friday + 1 session is Monday
    ("NVDA", "2026-11-28", "T+1", "2026-11-30"),    # a Saturday's trade is Friday's session's: + 1 is Monday
    ("0700.HK", "2026-11-26", "T+2", "2026-11-30"), # Hong Kong, T+2: Thursday -> Friday, Monday
    ("600519.SS", "2026-11-27", "T+1", "2026-11-30"),
    ("BTC-USD", "2026-11-28", "T+0", "2026-11-28"), # crypto: the same day, a Saturday too
    ("EURUSD=X", "2026-11-25", "T+2", "2026-11-27"),# FX: Thanksgiving is a currency day: Thursday, Friday
    ("EURUSD=X", "2026-12-24", "T+2", "2026-12-28"),# Thursday -> Christmas Friday (a currency day), Monday
    ("CAD=X", "2026-11-27", "T+1", "2026-11-30"),   # USD/CAD spot settles T+1
    ("GC=F", "2026-12-24", "T+0", "2026-12-24"),    # a future: marked and margined on the session itself
])
def test_a_trade_settles_on_its_class_s_days(symbol: str, traded: str, rule: str, settles: str) -> None:
    s = settlement_of(symbol)
    assert s is not None and s.rule == rule
    assert s.on(date.fromisoformat(traded)).isoformat() == settles


def test_a_future_settles_daily_and_an_index_is_not_traded() -> None:
    gold = settlement_of("GC=F")
    assert gold is not None and gold.daily and gold.market == "CME"
    assert gold.on(date(2026, 12, 25)) == date(2026, 12, 24)  # Christmas: Globex closed, the last session's
    assert settlement_of("^GSPC") is None
    assert settlement_of("BTC-USD", AssetClass.CRYPTO).days == 0  # type: ignore[union-attr]


def _decision(ticker: str, signal: str = "BUY") -> FinalDecision:
    return FinalDecision(ticker=ticker, signal=signal, position_size="2% of portfolio", entry="n/a", stop="n/a",
                         horizon="2-6 weeks", confidence=0.6, rationale="r")  # type: ignore[arg-type]


def test_a_sized_trade_states_when_it_settles_and_nothing_traded_states_nothing() -> None:
    book = Book((), D("100000.00"))
    nvda = PricedBook(book, "NVDA", "2026-11-25", {"NVDA": D("100.00")}).size(_decision("NVDA"))
    assert nvda is not None and nvda.settles == ("T+1", "2026-11-25", "2026-11-27", "")
    assert sizing_state(nvda)["settles"] == {"rule": "T+1", "trade_date": "2026-11-25", "date": "2026-11-27",
                                             "daily": ""}
    hold = PricedBook(book, "NVDA", "2026-11-25", {"NVDA": D("100.00")}).size(_decision("NVDA", "HOLD"))
    assert hold is not None and hold.settles is None and "settles" not in sizing_state(hold)


def test_the_card_and_the_case_file_say_when_it_settles() -> None:
    from chat.views.card import position_lines
    from graph.record.case import _book_notes

    btc = PricedBook(Book((), D("100000.00")), "BTC-USD", "2026-11-28", {"BTC-USD": D("40000.00")})
    sizing = btc.size(_decision("BTC-USD"))
    assert sizing is not None
    state = sizing_state(sizing)
    assert position_lines(state, "en")[-1] == "**Settles:** T+0: a trade on 2026-11-28 settles on 2026-11-28"
    assert position_lines(state, "zh")[-1] == "**交收：** T+0：2026-11-28 的交易于 2026-11-28 交收"
    gold = PricedBook(Book((), D("10000000.00")), "GC=F", "2026-11-27", {"GC=F": D("2000.00")})
    state = sizing_state(gold.size(_decision("GC=F")))  # type: ignore[arg-type]
    assert "margin paid every exchange day from 2026-11-27" in position_lines(state, "en")[-1]
    notes = _book_notes({"book": btc.as_state(), "sizing": sizing_state(sizing)})
    assert notes.endswith("Settles T+0: a trade on 2026-11-28 settles on 2026-11-28.")
