"""A finished analysis as a person sees it (issue 10): who is speaking (point 1), the chart
(point 10) and the thread's name in the sidebar (point 11). One analysis serves the module."""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from graph.core.personas import DEBATERS, DESK, PERSONAS

from .person import (
    FAILURES,
    Browser,
    Page,
    Site,
    ask,
    decision_card,
    open_page,
    persona_messages,
    screenshot_if_failed,
    speaker_labels,
    wait_for_decision,
)

TITLE = re.compile(r"^NVDA · (BUY|SELL|HOLD) · \d\d:\d\d UTC$")  # the time the run began
DEBATER_PERSONAS = {d.persona for d in DEBATERS.values()}


@pytest.fixture(scope="module")
def analysed(browser: Browser, desk: Site) -> Iterator[Page]:
    context, page = open_page(browser, desk)
    try:
        try:
            ask(page, "Should I buy NVDA today?")
            wait_for_decision(page)
        except Exception:
            FAILURES.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(FAILURES / "test_analysis-the-analysis.png"))
            raise
        yield page
    finally:
        context.close()


@pytest.fixture(autouse=True)
def _screenshot(request: pytest.FixtureRequest, analysed: Page) -> Iterator[None]:
    yield
    screenshot_if_failed(request, analysed)


def test_every_message_names_its_speaker(analysed: Page):
    page = analysed
    for persona in (*PERSONAS, DESK):
        messages = persona_messages(page, persona)
        expect(messages.first).to_be_visible()
        labels = messages.locator(".desk-speaker")
        expect(labels).to_have_count(messages.count())  # every message of theirs, not only the first
        for text in labels.all_inner_texts():
            if persona in DEBATER_PERSONAS:
                assert re.fullmatch(rf"{persona} · round \d", text), text
            else:
                assert text.startswith(persona), text
    # the name is text on the page, above the words, not a tooltip
    bull = persona_messages(page, "Bull Researcher").first
    label, words = bull.locator(".desk-speaker"), bull.locator(".message-content").first
    assert label.bounding_box()["y"] < words.bounding_box()["y"]


def test_debate_turns_name_their_round(page: Page):
    set_debate_rounds(page, 2)
    ask(page, "$TSLA 2024-05-01")
    wait_for_decision(page)
    labels = [t for t in speaker_labels(page).all_inner_texts() if t != DESK]
    debate = [t for t in labels if t.startswith(("Bull", "Bear"))]
    assert debate == ["Bull Researcher · round 1", "Bear Researcher · round 1",
                      "Bull Researcher · round 2", "Bear Researcher · round 2"]
    assert {"Risky Analyst · round 1", "Safe Analyst · round 1", "Neutral Analyst · round 1"} <= set(labels)
    assert {"Market Analyst", "Research Manager", "Trader", "Risk Judge"} <= set(labels)  # no round outside a debate
    # the picture is the persona's, whatever its round
    image = persona_messages(page, "Bull Researcher · round 2").first.locator("img").first
    expect(image).to_have_attribute("src", re.compile("round"))
    assert image.evaluate("img => img.naturalWidth") > 0
    body = page.request.get(image.get_attribute("src")).body()
    assert body == page.request.get(image.get_attribute("src").split("%20%C2%B7")[0]).body()


def set_debate_rounds(page: Page, rounds: int) -> None:
    """The settings panel (the sliders icon): the Bull ⇄ Bear debate's rounds, then Confirm."""
    page.locator("#chat-settings-open-modal").click()
    slider = page.locator("#debate_rounds [role=slider], [role=slider]#debate_rounds").first
    slider.focus()
    slider.press("Home")
    for _ in range(rounds - 1):
        slider.press("ArrowRight")
    expect(slider).to_have_attribute("aria-valuenow", str(rounds))
    page.locator("#confirm").click()
    expect(page.get_by_text(f"{rounds} debate round(s)")).to_be_visible()


def test_every_avatar_is_its_own(analysed: Page):
    page = analysed
    pictures: dict[str, str] = {}
    for persona in (*PERSONAS, DESK):
        image = persona_messages(page, persona).first.locator("img").first
        expect(image).to_be_visible()
        assert image.evaluate("img => img.naturalWidth") > 0, f"{persona}'s avatar did not load"
        box = image.bounding_box()
        assert box["width"] >= 24, "big enough to tell apart"
        body = page.request.get(image.get_attribute("src")).body()
        pictures[persona] = hashlib.sha256(body).hexdigest()
    assert len(set(pictures.values())) == len(pictures), pictures


def _contrast(rgb_a: tuple[float, ...], rgb_b: tuple[float, ...]) -> float:
    def luminance(rgb: tuple[float, ...]) -> float:
        c = [v / 255 for v in rgb[:3]]
        c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    hi, lo = sorted((luminance(rgb_a), luminance(rgb_b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _rgb(css: str) -> tuple[float, ...]:
    return tuple(float(v) for v in re.findall(r"[\d.]+", css)[:3])


def test_the_chart_reads_in_both_themes_and_answers_the_pointer(analysed: Page):
    page = analysed
    chart = page.locator(".js-plotly-plot").last
    chart.scroll_into_view_if_needed()
    expect(chart).to_be_visible()
    legend = chart.locator(".legend .legendtext").all_text_contents()
    assert legend == ["Bollinger 20", "SMA 200", "SMA 50", "Close", "RSI 14"]  # what it draws, no MACD
    assert chart.locator(".main-svg").first.evaluate("svg => getComputedStyle(svg).backgroundColor") in (
        "rgba(0, 0, 0, 0)", "transparent")
    for theme in ("dark", "light"):
        page.evaluate("theme => { const root = document.documentElement;"
                      " root.classList.remove('light', 'dark'); root.classList.add(theme); }", theme)
        background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        tick = chart.locator(".ytick text").first.evaluate("t => getComputedStyle(t).fill")
        assert _contrast(_rgb(tick), _rgb(background)) >= 4.5, (theme, tick, background)
    box = chart.locator(".nsewdrag").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    hover = chart.locator(".hoverlayer")
    expect(hover.locator("text").first).to_be_visible()  # hover shows the values, readable on its box
    text = hover.locator("text").first.evaluate("t => getComputedStyle(t).fill")
    box_fill = hover.locator("rect.bg, path").first.evaluate("b => getComputedStyle(b).fill")
    assert _contrast(_rgb(text), _rgb(box_fill)) >= 4.5, (text, box_fill)
    expect(chart.locator(".modebar-btn[data-attr='zoom']").first).to_be_attached()  # and it zooms


def _listed(page: Page):
    """The page's thread in the sidebar, by its link (other tests' threads may have the same name)."""
    expect(page).to_have_url(re.compile(r"/thread/[0-9a-f-]{36}$"))
    return page.locator(f"#thread-history a[href='/thread/{page.url.rsplit('/', 1)[1]}']")


def test_the_sidebar_names_the_thread_by_its_decision(analysed: Page):
    expect(_listed(analysed)).to_have_text(TITLE)


def test_a_thread_with_several_analyses_takes_the_latest_name(analysed: Page):
    """Last in the module: it adds a second analysis to the shared thread."""
    page = analysed
    listed = _listed(page)
    expect(listed).to_have_text(TITLE)
    ask(page, "$TSLA 2024-05-01")
    expect(decision_card(page)).to_have_count(2, timeout=120_000)
    # Both tickers, the day asked about beside TSLA (not today's), without a reload.
    expect(listed).to_have_text(re.compile(r"^NVDA, TSLA 2024-05-01 · (BUY|SELL|HOLD) · \d\d:\d\d UTC$"))
