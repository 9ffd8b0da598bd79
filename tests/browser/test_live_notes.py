"""Replying mid-debate and after a Stop, as a person does it in the page (issue 10, points 4
and 7): a note naming a persona goes to that persona, whoever the page shows speaking, the
acknowledgement says who answers, and the answer is about what the note says; after Stop, the
offered follow-up is answered from what was said so far. One paced run for all three (each took one of its own):
the note to the Bear while the Bull speaks, a note to the Bear once the debate is over, then Stop and the follow-up."""
from __future__ import annotations

from playwright.sync_api import expect

from .person import FAILURES, Page, ask, persona_messages

SHOTS = FAILURES.parent / "browser-shots"

NOTE = "Bear, what about the China export ban?"
STOPPED = "Stopped. Everything up to the last finished turn is kept"


def desk_messages(page: Page):
    return persona_messages(page, "Desk")


def test_notes_to_the_bear_in_and_after_the_debate_then_stop_and_the_follow_up_is_answered_from_what_was_said(
        paced_page: Page):
    page = paced_page
    ask(page, "Should I buy NVDA today?")
    expect(persona_messages(page, "Bull Researcher").first).to_be_visible(timeout=120_000)
    ask(page, NOTE)  # typed while the Bull speaks
    ack = desk_messages(page).filter(has_text=NOTE)
    expect(ack).to_contain_text("Bear Researcher", timeout=30_000)
    bear = persona_messages(page, "Bear Researcher").filter(has_text=NOTE)
    expect(bear).to_be_visible(timeout=120_000)
    # It engages with the note's words, and says what the data has on them.
    expect(bear).to_contain_text("Nothing in our data mentions “china”, “export”, “ban”")
    expect(bear).to_contain_text("macro news tone")
    expect(persona_messages(page, "Bull Researcher").filter(has_text=NOTE)).to_have_count(0)

    # "bear, …" after the Bear's only turn got "Noted — the Trader will answer this next", without a word on the
    # Bear (issue 35, point 6).
    expect(persona_messages(page, "Trader").first).to_be_visible(timeout=120_000)  # the debate is over
    late = "bear, what about the China export rules?"
    ask(page, late)
    late_ack = desk_messages(page).filter(has_text=late)
    expect(late_ack).to_contain_text("Bear Researcher has had its last turn in this run", timeout=30_000)
    expect(persona_messages(page, "Bear Researcher").filter(has_text=late)).to_have_count(0)
    late_ack.first.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "note-to-a-finished-persona.png"))

    # After Stop, the offered follow-up is answered from what was said so far.
    page.locator("#desk-stop").click()
    expect(page.get_by_text(STOPPED)).to_be_visible(timeout=30_000)
    ask(page, "why was the bear worried?")
    answer = desk_messages(page).last
    expect(answer).to_contain_text("Bear Researcher", timeout=30_000)
    expect(answer).not_to_contain_text("Which stock should I analyze?")
    expect(page.locator("#desk-stop")).to_be_hidden()  # answered from the record: nothing runs
