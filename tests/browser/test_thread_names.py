"""The sidebar tells threads apart (issue 21, point 6): the same analysis run twice, a chat with two
analyses, a question and an unknown symbol, as a person sees them on a laptop's screen (1366×900).
The names are chat/views/thread_names.py's; the page is left in .data/browser-shots/sidebar-names.png
for a person to look at."""
from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from playwright.sync_api import expect

from tests.support.chat_server import ROOT
from tests.support.clock import NOW, SET_AT, TRAVEL_DIR, python_path

from .conftest import FAST_DELAY_MS, _site
from .person import Browser, Page, Site, ask, decision_card, open_page, wait_until_connected

LAPTOP = {"width": 1366, "height": 900}
SHOT = ROOT / ".data" / "browser-shots" / "sidebar-names.png"
THREAD_URL = re.compile(r"/thread/([0-9a-f-]{36})$")
SIGNAL = r"(BUY|SELL|HOLD)"
TIME = r"\d\d:\d\d UTC"
# From the server's start to the next minute on its clock: time to log in and ask the first analysis, so that
# the same analysis asked again after the others begins in a minute of its own without a minute's wait.
LEAD_S = 25


def real_time() -> float:
    """The machine's own clock, whatever date the suite runs on (tests/support/clock.py)."""
    hatch = time_machine.escape_hatch
    return hatch.time.time() if hatch.is_travelling() else time.time()


@dataclass
class ClockedSite(Site):
    """The fast desk on a clock of its own: the suite's, moved on by less than a minute, so that a minute
    begins LEAD_S after it starts (tests/support/travel/sitecustomize.py moves a server's clock so)."""

    started_at: datetime  # the server's clock at `real_started`
    real_started: float

    def now(self) -> datetime:
        return self.started_at + timedelta(seconds=real_time() - self.real_started)


@pytest.fixture(scope="module")
def clocked_desk(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClockedSite]:
    real, suite = real_time(), datetime.now(UTC)
    minute = (suite + timedelta(seconds=LEAD_S)).replace(second=0, microsecond=0) + timedelta(minutes=1)
    started_at = minute - timedelta(seconds=LEAD_S)
    env = {NOW: started_at.isoformat(), SET_AT: repr(real), "PYTHONPATH": python_path(TRAVEL_DIR)}
    for site in _site(browser, tmp_path_factory.mktemp("desk-browser-clocked"), FAST_DELAY_MS, **env):
        yield ClockedSite(site.server, site.state, started_at, real)


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
    """The name is shown whole: its text is not cut by the sidebar's ellipsis."""
    return entry.locator("span.truncate").evaluate("s => s.scrollWidth <= s.clientWidth")


def test_the_sidebar_tells_threads_apart(browser: Browser, clocked_desk: ClockedSite):
    desk = clocked_desk
    context, page = open_page(browser, desk)
    try:
        page.set_viewport_size(LAPTOP)
        first = analyse(page, "Should I buy NVDA today?")
        expect(listed(page, first)).to_have_text(re.compile(rf"^NVDA · {SIGNAL} · {TIME}$"))
        began = listed(page, first).inner_text()[-9:-4]

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

        # The same analysis again, in a minute of its own (on the server's clock): names tell runs apart to the
        # minute.
        while desk.now().strftime("%H:%M") == began:
            page.wait_for_timeout(250)
        new_chat(page)
        again = analyse(page, "Should I buy NVDA today?")

        new_chat(page)  # a page loaded afresh lists the stored names
        names = {t: listed(page, t).inner_text() for t in (first, both, question, unknown, again)}
        assert re.fullmatch(rf"NVDA · {SIGNAL} · {TIME}", names[again]), names
        assert names[again] != names[first], names
        assert re.fullmatch(rf"NVDA, AAPL · {SIGNAL} · {TIME}", names[both]), names
        assert len(set(names.values())) == len(names), names
        for thread in (first, again, question, unknown):  # the common names fit the narrow sidebar
            assert fits(listed(page, thread)), names[thread]
        SHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOT))
    finally:
        context.close()
