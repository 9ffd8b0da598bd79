"""A thread reopened on a server slow to send it back (person.py HOLD_AFTER_RESUME, as on a loaded machine):
Chainlit's page draws an empty chat with a composer of its own until the thread comes, then swaps in the
composer under the messages. What is typed in the first is in the second (public/desk.js carries it over); what
is sent from the first goes once the thread is shown, and stays in it (sent at once, Chainlit's drawing of the
thread took its bubble away); the welcome screen's starters, a new chat's, are not offered on the thread's page."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from .person import (
    Browser,
    Page,
    Site,
    ask,
    hold_next_resume,
    page_in,
    persona_messages,
    release_resume,
    wait_for_decision,
    wait_while_held,
)

FOLLOW_UP = "why not more conservative?"


def asked(page: Page, text: str):
    """The person's own messages saying `text`."""
    return page.locator("[data-step-type='user_message']").filter(has_text=text)


def test_what_is_typed_while_the_thread_comes_back_stays(page: Page):
    ask(page, "Should I buy NVDA on 2026-11-27?")
    wait_for_decision(page)

    hold_next_resume(page)
    page.reload()
    wait_while_held(page)
    waiting = page.locator("#welcome-screen #chat-input")
    waiting.press_sequentially(FOLLOW_UP)
    release_resume(page)
    expect(persona_messages(page, "Risk Judge").first).to_be_visible()
    expect(page.locator("#welcome-screen")).to_have_count(0)
    expect(page.locator("#chat-input")).to_have_value(FOLLOW_UP)


def test_what_is_sent_while_the_thread_comes_back_goes_once_it_is_shown_and_stays_in_it(page: Page):
    ask(page, "Should I buy NVDA on 2026-11-27?")
    wait_for_decision(page)
    answers = persona_messages(page, "Desk")
    before = answers.count()

    hold_next_resume(page)
    page.reload()
    wait_while_held(page)
    waiting = page.locator("#welcome-screen #chat-input")
    waiting.press_sequentially(FOLLOW_UP)
    waiting.press("Enter")
    page.locator("#welcome-screen #chat-submit").click()  # and the button, the thread not there yet: one message
    # Held, in sight: the words stay in the composer, which says the thread is on its way.
    expect(page.locator("#welcome-screen[data-desk-loading]")).to_have_count(1)
    expect(waiting).to_have_value(FOLLOW_UP)
    release_resume(page)
    expect(answers).to_have_count(before + 1, timeout=60_000)
    expect(answers.last).to_contain_text("Risk Judge")
    expect(asked(page, FOLLOW_UP)).to_have_count(1)  # the person's message is in the thread, answered
    expect(page.locator("#chat-input")).to_have_value("")
    page.reload()  # stored once: sent once
    expect(answers).to_have_count(before + 1, timeout=30_000)
    expect(asked(page, FOLLOW_UP)).to_have_count(1)


def test_a_threads_page_offers_no_starters_while_the_thread_comes_back_and_says_so_in_the_pages_language(
        browser: Browser, desk: Site):
    with page_in(browser, desk, "no-starters-while-waiting", locale="zh-CN") as page:
        ask(page, "Should I buy NVDA on 2026-11-27?")
        wait_for_decision(page)
        mine = page.locator("[data-step-type='user_message']")
        before = mine.count()
        answers = persona_messages(page, "Desk")
        answered = answers.count()

        hold_next_resume(page)
        page.reload()
        wait_while_held(page)
        expect(page.locator("#welcome-screen #chat-input")).to_be_visible()
        expect(page.locator("#welcome-screen")).to_have_attribute("data-desk-loading", re.compile("^正在打开对话"))
        starter = page.locator("#starters button").first
        expect(starter).to_be_hidden()  # a new chat's suggestions, not this thread's
        label = starter.inner_text().strip()
        starter.dispatch_event("click")  # and inert, were it reached
        release_resume(page)
        expect(persona_messages(page, "Risk Judge").first).to_be_visible()
        ask(page, FOLLOW_UP)  # after anything the starter would have sent
        expect(asked(page, FOLLOW_UP)).to_have_count(1)
        expect(answers).to_have_count(answered + 1, timeout=60_000)
        page.reload()
        expect(asked(page, FOLLOW_UP)).to_have_count(1, timeout=30_000)
        expect(mine).to_have_count(before + 1)
        expect(asked(page, label)).to_have_count(0)
