"""The first screens (issue 10, point 6): the login page says what to type; after it, the starters
show with the demo notice in sight, and a starter runs an analysis."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from .person import VIEWPORT, Browser, Page, Site, decision_card, login, screenshot_if_failed

STARTERS = ["Should I buy NVDA today?", "Thoughts on Apple last Friday?", "$TSLA 2024-05-01", "Is Berkshire B a sell?"]


def test_the_login_page_says_what_to_type(request, browser: Browser, desk: Site):
    context = browser.new_context(viewport=VIEWPORT)  # no login yet
    page = context.new_page()
    try:
        page.goto(f"{desk.base}/login")
        expect(page.locator("#desk-login-hint")).to_have_text("Local mode: any user name, password “desk”.")
        expect(page.locator("label[for=email]")).to_have_text("User name")
        expect(page.locator("#email")).to_have_attribute("placeholder", "your user name")
        expect(page.locator("form")).not_to_contain_text("Email")
        login(page, desk.base, name="what-the-page-said")  # and what it says works
        screenshot_if_failed(request, page)
    finally:
        context.close()


def test_starters_show_with_the_demo_notice(page: Page):
    starters = page.locator("#starters button")
    expect(starters).to_have_text(STARTERS)
    for starter in starters.all():
        expect(starter).to_be_in_viewport()
    badge = page.locator("#desk-mode")  # in the header: stays in sight as the chat scrolls
    expect(badge).to_contain_text("Demo mode")
    expect(badge).to_be_in_viewport()
    notice = page.get_by_text("an offline deterministic model and synthetic market data")
    expect(notice).to_be_in_viewport()
    expect(starters.first).to_be_in_viewport()  # the notice did not take the starters away
    box = notice.bounding_box()
    assert box is not None and box["y"] + box["height"] <= VIEWPORT["height"], "the notice is below the fold"
    # While the person reads, the page loads the decision card's chart code (not when the card comes).
    page.wait_for_function("() => window.deskPreloaded === true", timeout=20_000)


def test_a_starter_runs_an_analysis(page: Page):
    page.locator("#starters button", has_text="$TSLA 2024-05-01").click()
    decision_card(page).first.wait_for(timeout=120_000)
    heading = page.locator(".ai-message h2").filter(has_text="TSLA").last
    assert re.search(r"(BUY|SELL|HOLD) TSLA · 2024-05-01", heading.inner_text())
    assert page.locator("#starters").count() == 0  # the conversation took the screen
