"""A thread reopened on a server slow to send it back (person.py HOLD_AFTER_RESUME, as on a loaded machine):
Chainlit's page draws an empty chat with a composer of its own until the thread comes, then swaps in the
composer under the messages. What is typed in the first is in the second (public/desk.js carries it over); what
is sent from the first is answered and not put back (it would be sent twice)."""
from __future__ import annotations

from playwright.sync_api import expect

from .person import (
    Page,
    ask,
    hold_next_resume,
    persona_messages,
    release_resume,
    wait_for_decision,
    wait_while_held,
)


def test_what_is_typed_while_the_thread_comes_back_stays_and_what_is_sent_then_is_answered_once(page: Page):
    ask(page, "Should I buy NVDA on 2026-11-27?")
    wait_for_decision(page)
    answers = persona_messages(page, "Desk")
    before = answers.count()

    hold_next_resume(page)
    page.reload()
    wait_while_held(page)
    waiting = page.locator("#welcome-screen #chat-input")
    waiting.press_sequentially("why not more conservative?")
    release_resume(page)
    expect(persona_messages(page, "Risk Judge").first).to_be_visible()
    expect(page.locator("#welcome-screen")).to_have_count(0)
    expect(page.locator("#chat-input")).to_have_value("why not more conservative?")

    hold_next_resume(page)
    page.reload()  # a reload that is no dropped connection keeps nothing unsent: the person asks again
    wait_while_held(page)
    waiting.press_sequentially("why not more conservative?")
    waiting.press("Enter")
    expect(page.locator("#welcome-screen")).to_have_count(0)  # sent: Chainlit draws the chat with it
    release_resume(page)
    expect(answers).to_have_count(before + 1, timeout=60_000)
    expect(answers.last).to_contain_text("Risk Judge")
    expect(page.locator("#chat-input")).to_have_value("")
