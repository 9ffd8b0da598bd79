"""The user's book as a person sees it (issue 26, point 1): holdings told in words come back as a before →
after table with Store and Cancel; after Store, `/book` shows the book; a broker's CSV attached with the
composer's attach button is shown the same way, and a file with bad rows lists them.

Screenshots in .data/browser-shots/book/: the offer, the stored book, the attached CSV and its offer, the
bad rows.
"""
from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from .person import FAILURES, Locator, Page, ask, persona_messages, wait_for_decision

SHOTS = FAILURES.parent / "browser-shots" / "book"


def shot(page: Page, name: str, target: Locator | None = None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if target is not None:
        target.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def desk_message(page: Page, text: str | re.Pattern[str]) -> Locator:
    return persona_messages(page, "Desk").filter(has_text=text).last


def attach(page: Page, path: Path) -> None:
    """As a person does: the composer's attach button, the file picked, then send. The file goes into the
    button's own file input (the picker Chainlit's dropzone opens is the browser's File System Access
    dialog, which Playwright cannot answer)."""
    button = page.locator("#upload-button")
    expect(button).to_be_visible()
    button.hover()
    page.locator("#upload-button-input").set_input_files(str(path))
    expect(page.get_by_text(path.name).first).to_be_visible()  # the attachment in the composer
    page.locator("#chat-submit").click()


def test_tell_store_and_show_then_attach_a_csv(page: Page, tmp_path: Path):
    ask(page, "I hold 200 NVDA at 95 and have $20k cash")
    offer = desk_message(page, "Nothing is stored until you press")
    expect(offer).to_be_visible(timeout=30_000)
    row = offer.locator("tr").filter(has_text="NVDA")
    expect(row).to_contain_text("200 @ 95.00")
    expect(offer.locator("tr").filter(has_text="Cash")).to_contain_text("20,000.00")
    store = page.get_by_role("button", name="Store", exact=True)
    expect(store).to_be_visible()
    expect(page.get_by_role("button", name="Cancel", exact=True)).to_be_visible()
    shot(page, "1-offer", offer)

    store.click()
    expect(desk_message(page, "Stored.")).to_be_visible(timeout=30_000)
    expect(store).to_have_count(0)  # the offer's buttons are gone once answered
    ask(page, "/book")
    book = desk_message(page, re.compile(r"Your book.*tell me in words", re.S))
    expect(book).to_be_visible(timeout=30_000)
    cells = book.locator("tbody tr").filter(has_text="NVDA").locator("td")
    expect(cells).to_have_text(["NVDA", "200", "95.00"])
    expect(book).to_contain_text("Cash: 20,000.00 USD")
    shot(page, "2-book", book)

    good = tmp_path / "positions.csv"
    good.write_text("Symbol,Quantity,Avg Cost\nNVDA,150,97.5\nAAPL,50,170.50\nCASH,12000,\n")
    attach(page, good)
    offer = desk_message(page, "From positions.csv")
    expect(offer).to_be_visible(timeout=30_000)
    expect(offer.locator("tr").filter(has_text="NVDA")).to_contain_text("200 @ 95.00")
    expect(offer.locator("tr").filter(has_text="NVDA")).to_contain_text("150 @ 97.50")
    expect(offer.locator("tr").filter(has_text="AAPL")).to_contain_text("50 @ 170.50")
    shot(page, "3-csv-offer", offer)
    page.get_by_role("button", name="Store", exact=True).click()
    expect(desk_message(page, "Stored.").locator("tbody tr")).to_have_count(2, timeout=30_000)

    bad = tmp_path / "broken.csv"
    bad.write_text("symbol,quantity,cost\nNVDA,200,95\nAAPL,-5,170\nMSFT,lots,400\n")
    attach(page, bad)
    refused = desk_message(page, "I could not read broken.csv")
    expect(refused).to_contain_text("row 3: a negative quantity", timeout=30_000)
    expect(refused).to_contain_text("row 4: the quantity 'lots' is not a number")
    expect(page.get_by_role("button", name="Store", exact=True)).to_have_count(0)
    shot(page, "4-csv-bad-rows", refused)


def test_the_card_shows_the_position_before_and_after(page: Page):
    """With a book stored, the decision card says what the ruling means for it: the trade in shares and
    money, and the position and cash before and after (issue 26, point 2)."""
    ask(page, "I hold 200 NVDA at 95 and have $20k cash")
    expect(desk_message(page, "Nothing is stored until you press")).to_be_visible(timeout=30_000)
    page.get_by_role("button", name="Store", exact=True).click()
    expect(desk_message(page, "Stored.")).to_be_visible(timeout=30_000)
    ask(page, "should I buy NVDA today?")
    wait_for_decision(page)
    book = page.get_by_text(re.compile(r"Your book:")).last
    expect(book).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"Position: 200 NVDA @ 95\.00 →")).last).to_be_visible()
    expect(page.get_by_text(re.compile(r"cash 20,000\.00 →")).last).to_be_visible()
    shot(page, "5-card-with-book", book)
