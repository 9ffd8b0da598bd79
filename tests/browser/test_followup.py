"""A follow-up answers the question asked (issue 21, point 5), as a person sees it in the page:
after a SELL whose size the judge halved on the Safe Analyst's point, "why not more conservative?"
is answered from the ruling and the risk debate, not from the Bear's lines that share a word
with it."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from .person import FAILURES, Browser, Page, Site, ask, page_in, persona_messages, wait_for_decision

SHOTS = FAILURES.parent / "browser-shots"


def test_a_follow_up_about_caution_is_answered_from_the_ruling_and_the_risk_debate(page: Page):
    ask(page, "Should I buy NVDA on 2026-11-27?")  # a fixed day: whether the judge halves the size is the data's
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


def test_why_the_judge_was_cautious_gives_its_reason(page: Page):
    """It quoted the ruling's first words and left out its reason (issue 35, point 3). A fixed day: the
    synthetic data of "today" changes with the clock, and with it what the judge says."""
    ask(page, "Should I buy NVDA on 2026-11-27?")
    wait_for_decision(page)
    before = persona_messages(page, "Desk").count()
    ask(page, "why was the judge cautious?")
    answers = persona_messages(page, "Desk")
    expect(answers).to_have_count(before + 1, timeout=60_000)
    expect(answers.last).to_contain_text("Risk Judge: “The Safe Analyst's point on volatility wins: the size is "
                                         "halved.”", timeout=30_000)


def test_the_follow_up_the_chinese_card_suggests_is_answered(browser: Browser, desk: Site):
    """空头为什么担心？, the question the Chinese card itself suggests, got "The record does not cover that"
    while the English one worked (issue 35, point 3). The page is kept in .data/browser-shots/."""
    with page_in(browser, desk, "test_chinese_followup", locale="zh-CN") as page:
        ask(page, "英伟达2026年11月27日能买吗？")  # a fixed day: "today"'s synthetic data changes with the clock
        page.locator(".ai-message th, .ai-message td").filter(has_text=re.compile(r"^信号$")).first.wait_for(
            timeout=120_000)
        page.get_by_text("空头为什么担心？").first.wait_for()  # the card's own suggestion
        before = persona_messages(page, "Desk").count()
        ask(page, "空头为什么担心？")
        answers = persona_messages(page, "Desk")
        expect(answers).to_have_count(before + 1, timeout=60_000)
        expect(answers.last).to_contain_text("Bear Researcher: “The bear case for NVDA", timeout=30_000)
        expect(answers.last).not_to_contain_text("does not cover")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "chinese-followup.png"))
