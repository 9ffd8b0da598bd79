"""A finished thread opened again (issue 21, items 1 and 2): after a reload, and in a page that opens
`/thread/<id>`, every decision card's chart is drawn (its traces, not an empty plot with axes
−1…6) and every analyst's tool calls are listed under it, as they were live. Two analyses in one
thread, so the second chart and the first one's steps come back too."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from .person import (
    FAILURES,
    Browser,
    Page,
    Site,
    ask,
    decision_card,
    open_page,
    screenshot_if_failed,
    wait_for_decision,
)

THREAD_URL = re.compile(r"/thread/[0-9a-f-]{36}$")
SHOTS = FAILURES.parent / "browser-reopen"
# What the page shows of the steps, in order: each tool step with the persona whose message it
# follows (Chainlit draws a message's child steps right after it, at its level).
TOOLS_BY_PERSONA = """() => {
    const out = {};
    let persona = null;
    for (const step of document.querySelectorAll('[data-step-type]')) {
        const type = step.getAttribute('data-step-type');
        if (type === 'assistant_message') {
            const img = step.querySelector("img[alt^='Avatar for ']");
            persona = img ? img.alt.replace('Avatar for ', '').split(' · ')[0] : null;
        } else if (type === 'tool' && persona) {
            const trigger = step.querySelector('button[id^="step-"], p[id^="step-"]');
            const label = (trigger ? trigger.textContent : '').replace(/\\s+/g, ' ').trim();
            (out[persona] = out[persona] || []).push(label);
        } else if (type !== 'tool') {
            persona = null;
        }
    }
    for (const k of Object.keys(out)) out[k].sort();
    return out;
}"""


def charts_drawn(page: Page) -> list[int]:
    """How many traces each chart on the page has drawn (Plotly keeps them on the plot's div)."""
    return page.locator(".js-plotly-plot").evaluate_all(
        "plots => plots.map(p => (p.data || []).length && p.querySelectorAll('.scatterlayer .trace').length)")


def tool_steps(page: Page) -> dict[str, list[str]]:
    return page.evaluate(TOOLS_BY_PERSONA)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    chart = page.locator(".js-plotly-plot").last
    chart.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def wait_for_charts(page: Page, cards: int) -> None:
    expect(decision_card(page)).to_have_count(cards, timeout=60_000)
    expect(page.locator(".js-plotly-plot")).to_have_count(cards, timeout=30_000)
    page.wait_for_function(
        f"() => [...document.querySelectorAll('.js-plotly-plot')].filter(p =>"
        f" p.querySelectorAll('.scatterlayer .trace').length > 0).length >= {cards}", timeout=30_000)


@pytest.fixture(scope="module")
def analysed(browser: Browser, desk: Site) -> Iterator[tuple[Page, dict[str, list[str]]]]:
    """Two analyses in one thread, and the tool steps the page showed live."""
    context, page = open_page(browser, desk)
    try:
        try:
            ask(page, "Should I buy NVDA today?")
            wait_for_decision(page)
            expect(page).to_have_url(THREAD_URL)
            ask(page, "$TSLA 2024-05-01")
            wait_for_charts(page, 2)
            shot(page, "live")
        except Exception:
            FAILURES.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(FAILURES / "test_reopen-the-analyses.png"))
            raise
        yield page, tool_steps(page)
    finally:
        context.close()


@pytest.fixture(autouse=True)
def _screenshot(request: pytest.FixtureRequest, analysed: tuple[Page, dict]) -> Iterator[None]:
    yield
    screenshot_if_failed(request, analysed[0])


def test_live_the_analysts_show_their_tool_calls(analysed: tuple[Page, dict]):
    page, live = analysed
    assert {"Used get_price_history", "Used get_indicators"} <= set(live.get("Market Analyst", [])), live
    assert all(c > 0 for c in charts_drawn(page)), charts_drawn(page)


def _same_as_live(page: Page, live: dict[str, list[str]], name: str) -> None:
    wait_for_charts(page, 2)
    drawn = charts_drawn(page)
    assert len(drawn) == 2 and all(c >= 4 for c in drawn), drawn  # close, SMAs, bands, RSI
    legend = page.locator(".js-plotly-plot").last.locator(".legend .legendtext").all_text_contents()
    assert legend == ["Bollinger 20", "SMA 200", "SMA 50", "Close", "RSI 14"]
    expect(page.locator("[data-step-type=tool]").first).to_be_attached()
    assert tool_steps(page) == live
    shot(page, name)
    # the tool call opens, as live, onto what it answered
    step = page.locator("[data-step-type=tool]").filter(has=page.locator("button#step-get_price_history")).first
    step.scroll_into_view_if_needed()
    trigger = step.locator("button#step-get_price_history")
    trigger.click()
    expect(trigger).to_have_attribute("aria-expanded", "true")
    expect(step).to_contain_text("daily prices")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-tools.png"))


def test_a_reload_draws_the_charts_and_lists_the_tool_calls(analysed: tuple[Page, dict]):
    page, live = analysed
    page.reload()
    expect(page).to_have_url(THREAD_URL)
    _same_as_live(page, live, "reloaded")


def test_reopening_the_thread_draws_the_charts_and_lists_the_tool_calls(browser: Browser, desk: Site,
                                                                        analysed: tuple[Page, dict]):
    page, live = analysed
    url = page.url
    context, other = open_page(browser, desk)  # a new chat first, then the thread, as from the sidebar
    try:
        other.goto(url)
        _same_as_live(other, live, "reopened")
    except Exception:
        FAILURES.mkdir(parents=True, exist_ok=True)
        other.screenshot(path=str(FAILURES / "test_reopen-reopened.png"))
        raise
    finally:
        context.close()
