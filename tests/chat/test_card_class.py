"""The card of a call on something that is not a share (issue 37, point 4): the quantity in the class's units
(0.67787648 BTC-USD, not 0) and the benchmark the call is scored against, in the thread's language."""
from __future__ import annotations

from decimal import Decimal as D

from chat.views.card import card_markdown
from graph.book import Book, size_against
from graph.book.brief import sizing_state
from graph.core.state import FinalDecision

BTC = FinalDecision(ticker="BTC-USD", trade_date="2026-11-28", signal="BUY", position_size="2% of portfolio",
                    entry="2950.39", stop="2800.00", horizon="2-6 weeks", confidence=0.6, rationale="Trend up.")


def test_a_bitcoin_card_shows_a_fractional_buy_and_no_benchmark() -> None:
    sizing = sizing_state(size_against(Book((), D("100000")), "BTC-USD", D("2950.39"), "BUY", "2% of portfolio"))
    card = card_markdown(BTC, "synthetic demo data", sizing=sizing, benchmark="")
    assert "buy 0.67787648 BTC-USD at 2,950.39 for 2,000.00" in card
    assert "**Benchmark:** none: the call is scored on its own return." in card
    zh = card_markdown(BTC, sizing=sizing, benchmark="", language="zh")
    assert "买入 0.67787648 BTC-USD" in zh and "**基准：** 无" in zh


def test_an_ether_card_names_bitcoin_as_its_benchmark() -> None:
    card = card_markdown(BTC.model_copy(update={"ticker": "ETH-USD"}), benchmark="BTC-USD")
    assert "**Benchmark:** BTC-USD (the call is scored by its return against it)." in card
    assert "Benchmark" not in card_markdown(BTC)  # none given: nothing said
