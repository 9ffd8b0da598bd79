"""A bitcoin analysis with a stored book, as a person sees it (issue 37): the card sizes the ruling in
fractions of a coin (never "buy 0 BTC-USD … for 0.00"), shows the position before and after to the satoshi,
and states the benchmark the call is scored against (none for BTC-USD itself: its own return); the opening
says what the Fundamentals Analyst reads for a coin.

Screenshots in .data/browser-shots/assets/: the card with the book.
"""
from __future__ import annotations

import re

from playwright.sync_api import expect

from .person import FAILURES, Page, ask, persona_messages, wait_for_decision

SHOTS = FAILURES.parent / "browser-shots" / "assets"


def test_a_bitcoin_card_in_fractions_with_its_benchmark(page: Page):
    ask(page, "I hold 12.5 BTC-USD at 110 and have $5k cash")
    expect(persona_messages(page, "Desk").filter(has_text="Nothing is stored until you press").last).to_be_visible(
        timeout=30_000)
    page.get_by_role("button", name="Store", exact=True).click()
    expect(persona_messages(page, "Desk").filter(has_text="Stored.").last).to_be_visible(timeout=30_000)

    ask(page, "should I buy BTC-USD today?")
    opening = persona_messages(page, "Desk").filter(has_text="is a cryptocurrency").last
    expect(opening).to_contain_text("market cap, supply and traded value", timeout=30_000)
    wait_for_decision(page)
    card = persona_messages(page, "Desk").filter(has_text="Benchmark:").last
    expect(card).to_contain_text(re.compile(r"Position: 12\.5 BTC-USD @ 110\.00 →"), timeout=30_000)
    expect(card).to_contain_text("Benchmark: none: the call is scored on its own return.")
    text = card.inner_text()
    # A BUY or a SELL of 1-2 % of the book (12.5 coins at the demo's bitcoin, tens of thousands, and 5,000 cash)
    # moves a fraction of a coin (never "buy 0 BTC-USD … for 0.00"); a HOLD keeps the 12.5.
    trade = re.search(r"Your book: (?:buy|sell) (\d+\.\d+)(?: of 12\.5)? BTC-USD", text)
    assert trade or "Your book: hold: no change to 12.5 BTC-USD" in text, text
    if trade:
        assert 0 < float(trade.group(1)) < 12.5 and len(trade.group(1).split(".")[1]) > 2
    SHOTS.mkdir(parents=True, exist_ok=True)
    card.get_by_text("Benchmark:").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "1-bitcoin-card-with-book.png"))
