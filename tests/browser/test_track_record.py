"""The desk answers for its calls (issue 22), as a person sees it in the page: a second analysis of
NVDA in the same chat opens with a closed "Track record" step that lists the first call with its
verdict and alpha, its card carries the desk's record on NVDA, and "/record" answers with a table
of the calls and a chart of the cumulative alpha; after a reload all of it is still there.

A user of their own, so other tests' calls (same server, same shared password) are not in the record.
The demo judge's horizon is "2-6 weeks", 30 sessions: a call of 2024-05-01 settles on 2024-06-13,
so an analysis of 2024-06-14 may recall it (one of 2024-06-03 could not: it is not settled by then).
"""
from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from .person import (
    FAILURES,
    Browser,
    Locator,
    Page,
    Site,
    ask,
    logged_in_page,
    persona_messages,
    wait_for_decision,
)

SHOTS = FAILURES.parent / "browser-track-record"
STEP = 'button[id="step-Track record"]'


@pytest.fixture
def own_page(request: pytest.FixtureRequest, browser: Browser, desk: Site) -> Iterator[Page]:
    """A page on a new chat, logged in as a user nobody else is."""
    with logged_in_page(request, browser, desk.base, f"record-{uuid.uuid4().hex[:8]}") as page:
        yield page


def shot(page: Page, name: str, target: Locator | None = None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if target is not None:
        target.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def track_steps(page: Page) -> Locator:
    return page.locator("[data-step-type]").filter(has=page.locator(STEP))


def cards(page: Page) -> Locator:
    """The Desk's decision cards (the record's table has a Signal column too: the card's own title)."""
    return persona_messages(page, "Desk").filter(has=page.locator("h2").filter(has_text=re.compile(r" NVDA · ")))


def test_a_later_analysis_recalls_the_first_call_and_record_shows_table_and_chart(own_page: Page):
    page = own_page
    ask(page, "should I buy NVDA on 2024-05-01?")
    wait_for_decision(page)
    expect(page.locator(STEP)).to_have_count(1)  # the first analysis: a record that starts from nothing

    ask(page, "should I buy NVDA on 2024-06-14?")
    expect(page.locator(STEP)).to_have_count(2, timeout=60_000)
    expect(cards(page)).to_have_count(2, timeout=120_000)

    # Closed until opened; it sits under the Desk's "Analyzing …", before the analysts speak.
    step = track_steps(page).last
    trigger = step.locator(STEP)
    expect(trigger).to_have_attribute("aria-expanded", "false")
    recalled = re.compile(r"2024-05-01 NVDA (BUY|SELL|HOLD) → (right|wrong): [+-]\d+\.\d\d %, alpha [+-]\d+\.\d\d %")
    expect(step).not_to_contain_text("alpha")
    trigger.click()
    expect(trigger).to_have_attribute("aria-expanded", "true")
    expect(step).to_contain_text(recalled)
    expect(step).to_contain_text("Calls scored on or before 2024-06-14")
    order = page.evaluate("""() => [...document.querySelectorAll('[data-step-type]')].map(s =>
        s.querySelector('button[id="step-Track record"]') ? 'record' :
        (s.querySelector("img[alt^='Avatar for ']") || {}).alt || '')""")
    second = [i for i, who in enumerate(order) if who == "record"][-1]
    assert any("Market Analyst" in who for who in order[second:]), order
    assert not any("Analyst" in who for who in order[second - 1:second]), order
    shot(page, "1-recalled", step)

    card = cards(page).last
    expect(card).to_contain_text(re.compile(r"Track record: 1 past call: [01] right, mean alpha [+-]\d+\.\d %"))
    shot(page, "2-card", card.locator("text=Track record"))

    ask(page, "/record")
    answer = persona_messages(page, "Desk").filter(has_text="Your track record").last
    expect(answer).to_be_visible(timeout=60_000)
    table = answer.locator("table")
    expect(table.locator("tbody tr")).to_have_count(2)
    for day in ("2024-05-01", "2024-06-14"):
        expect(table.locator("tbody tr").filter(has_text=day)).to_have_count(1)
        # a date reads whole: "2026-11-" / "27" wrapped in its narrow column (issue 35, point 9)
        cell = table.locator("td").filter(has_text=re.compile(f"^{day}$")).first
        lines = cell.evaluate("c => { const r = document.createRange(); r.selectNodeContents(c);"
                              " return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }")
        assert lines == 1, (day, lines)
    expect(answer).to_contain_text(re.compile(r"2 past calls"))
    charts = answer.locator(".js-plotly-plot")
    expect(charts).to_have_count(2, timeout=30_000)  # the cumulative alpha, then the calibration (issue 40)
    expect(charts.nth(1).locator(".gtitle")).to_contain_text("Calibration")
    chart = charts.first
    expect(chart.locator(".gtitle")).to_have_text("Cumulative alpha vs benchmark")
    expect(chart.locator(".scatterlayer .trace")).to_have_count(1)
    expect(chart.locator(".scatterlayer .trace .point")).to_have_count(2)  # one per settled call
    expect(cards(page)).to_have_count(2)  # the record is an answer, not an analysis
    shot(page, "3-record", chart)

    # Chainlit's "to the latest" arrow, shown once the view leaves the bottom, stands beside the messages,
    # not over their words (issue 35, point 9)
    box = page.locator("#chat-input").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] - 200)
    page.mouse.wheel(0, -3000)
    arrow = page.locator("div.absolute.bottom-4 > button.rounded-full")
    expect(arrow).to_be_visible(timeout=10_000)
    shot(page, "3b-scrolled-up")
    left = arrow.bounding_box()["x"]
    rights = page.locator(".ai-message").evaluate_all("ms => ms.map(m => m.getBoundingClientRect().right)")
    assert rights and left >= max(rights), (left, max(rights))

    page.reload()  # the step and the chart are stored with the thread
    expect(page.locator(STEP)).to_have_count(2, timeout=30_000)
    answer = persona_messages(page, "Desk").filter(has_text="Your track record").last
    expect(answer.locator(".js-plotly-plot").first.locator(".scatterlayer .trace .point")).to_have_count(
        2, timeout=30_000)  # the alpha chart's points (the calibration chart is the second)
    step = track_steps(page).last
    step.locator(STEP).click()
    expect(step).to_contain_text(recalled)
    shot(page, "4-reloaded", step)
