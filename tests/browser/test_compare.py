"""A comparison as a person sees it (issue 24): both tickers' personas on the page, each named with its ticker and
drawn with its persona's picture, the Comparison's ranking, and the side-by-side card with its chart."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from graph.core.personas import PERSONAS

from .person import FAILURES, Page, ask, persona_messages, speaker_labels


def test_a_comparison_shows_both_desks_labelled_then_the_card_and_chart(page: Page):
    ask(page, "NVDA or AMD?")
    card = page.locator(".ai-message").filter(has=page.locator("th", has_text=re.compile(r"^Rank$")))
    expect(card.first).to_be_visible(timeout=180_000)
    wanted = {f"{p} · {ticker}" for p in PERSONAS for ticker in ("NVDA", "AMD")}

    def labelled() -> set[str]:
        return {re.sub(r" · round \d$", "", t) for t in speaker_labels(page).all_inner_texts()}

    # desk.js names each speaker on the next animation frame: on a loaded machine the last turns' names may come
    # a moment after the card (CI once read them before).
    for _ in range(60):
        if wanted <= labelled():
            break
        page.wait_for_timeout(500)
    assert wanted <= labelled(), (wanted - labelled(), page.locator(".ai-message").last.inner_text()[:500])
    # The picture is the persona's whatever the ticker after its name.
    bear = persona_messages(page, "Bear Researcher · AMD").first.locator("img").first
    bear.scroll_into_view_if_needed()
    expect(bear).to_be_visible()
    FAILURES.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(FAILURES.parent / "compare-labels.png"))  # .data/: git-ignored, to look at
    assert bear.evaluate("img => img.naturalWidth") > 0
    body = page.request.get(bear.get_attribute("src")).body()
    assert body == page.request.get(bear.get_attribute("src").split("%20%C2%B7")[0]).body()

    expect(page.locator(".desk-speaker", has_text=re.compile(r"^Comparison$")).first).to_be_visible()
    rows = card.first.locator("tbody tr")
    expect(rows).to_have_count(2)
    assert {rows.nth(i).locator("td").nth(1).inner_text() for i in range(2)} == {"NVDA", "AMD"}
    chart = card.first.locator(".js-plotly-plot, .plotly").first
    expect(chart).to_be_visible(timeout=30_000)
    assert chart.locator(".legendtext").all_text_contents()[:2] == ["NVDA", "AMD"]
    card.first.scroll_into_view_if_needed()
    page.screenshot(path=str(FAILURES.parent / "compare-card.png"), full_page=False)
