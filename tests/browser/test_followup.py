"""A follow-up answers the question asked (issue 21, point 5), as a person sees it in the page:
after a SELL whose size the judge halved on the Safe Analyst's point, "why not more conservative?"
is answered from the ruling and the risk debate, not from the Bear's lines that share a word
with it."""
from __future__ import annotations

from playwright.sync_api import expect

from .person import Page, ask, persona_messages, wait_for_decision


def test_a_follow_up_about_caution_is_answered_from_the_ruling_and_the_risk_debate(page: Page):
    ask(page, "Should I buy NVDA today?")
    wait_for_decision(page)
    before = persona_messages(page, "Desk").count()
    ask(page, "why not more conservative?")
    answers = persona_messages(page, "Desk")
    expect(answers).to_have_count(before + 1, timeout=60_000)
    answer = answers.last
    expect(answer).to_contain_text("Risk Judge", timeout=30_000)
    expect(answer).to_contain_text("the size is halved")
    expect(answer).to_contain_text("Safe Analyst")
    for persona in ("Bear Researcher", "Bull Researcher", "News Analyst"):
        expect(answer).not_to_contain_text(persona)
    expect(page.locator("#desk-stop")).to_be_hidden()  # answered from the record: nothing runs
