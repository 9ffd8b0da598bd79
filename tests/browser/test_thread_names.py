"""The sidebar tells threads apart (issue 21, point 6): the same analysis run twice, a chat with two
analyses, a question and an unknown symbol, as a person sees them on a laptop's screen (1366×900).
The names are chat/views/thread_names.py's; the page is left in .data/browser-shots/sidebar-names.png
for a person to look at."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.chat_server import ROOT

from .person import Browser, Page, Site, ask, decision_card, open_page, wait_until_connected

LAPTOP = {"width": 1366, "height": 900}
SHOT = ROOT / ".data" / "browser-shots" / "sidebar-names.png"
THREAD_URL = re.compile(r"/thread/([0-9a-f-]{36})$")
SIGNAL = r"(BUY|SELL|HOLD)"
TIME = r"\d\d:\d\d UTC"
AGAIN = r"(?: \(\d+\))?"  # a name another thread of the user already has gets a number (thread_names.distinct)


def new_chat(page: Page) -> None:
    page.goto(page.url.split("/thread/")[0].rstrip("/") + "/")
    wait_until_connected(page)


def thread_id(page: Page) -> str:
    expect(page).to_have_url(THREAD_URL)
    match = THREAD_URL.search(page.url)
    assert match is not None
    return match[1]


def listed(page: Page, thread: str):
    """The thread's entry in the sidebar, by its link."""
    return page.locator(f"#thread-history a[href='/thread/{thread}']")


def analyse(page: Page, text: str, cards: int = 1) -> str:
    ask(page, text)
    expect(decision_card(page)).to_have_count(cards, timeout=120_000)
    return thread_id(page)


def fits(entry) -> bool:
    """The name is shown whole: its text is not cut by the sidebar's ellipsis (a long one wraps to a second line,
    public/desk.css)."""
    return entry.locator("span.truncate").evaluate(
        "s => s.scrollWidth <= s.clientWidth && s.scrollHeight <= s.clientHeight + 1")


def test_the_sidebar_tells_threads_apart(browser: Browser, desk: Site):
    context, page = open_page(browser, desk)
    try:
        page.set_viewport_size(LAPTOP)
        first = analyse(page, "Should I buy NVDA today?")
        expect(listed(page, first)).to_have_text(re.compile(rf"^NVDA · {SIGNAL} · {TIME}{AGAIN}$"))

        new_chat(page)
        both = analyse(page, "Should I buy NVDA today?")
        ask(page, "and AAPL?")
        expect(decision_card(page)).to_have_count(2, timeout=120_000)

        new_chat(page)
        ask(page, "?")
        question = thread_id(page)
        expect(listed(page, question)).to_have_text(re.compile(rf"^Question · {TIME}$"))

        new_chat(page)
        ask(page, "XYZQ")
        unknown = thread_id(page)
        expect(listed(page, unknown)).to_have_text("XYZQ · unknown symbol?")

        # The same analysis again, in the same minute or the next: its name is never the first one's (issue 35,
        # point 8: "NVDA · SELL · 13:15 UTC" twice could not be told apart).
        new_chat(page)
        again = analyse(page, "Should I buy NVDA today?")

        new_chat(page)  # a page loaded afresh lists the stored names
        names = {t: listed(page, t).inner_text() for t in (first, both, question, unknown, again)}
        assert re.fullmatch(rf"NVDA · {SIGNAL} · {TIME}{AGAIN}", names[again]), names
        assert names[again] != names[first], names
        assert re.fullmatch(rf"NVDA, AAPL · {SIGNAL} · {TIME}{AGAIN}", names[both]), names
        assert len(set(names.values())) == len(names), names
        for thread in (first, again, question, unknown):  # the common names fit the narrow sidebar
            assert fits(listed(page, thread)), names[thread]
        SHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOT))
    finally:
        context.close()
