"""A person asks about a stretch of time, as people say it (issue 24): a season is asked back in the
chat, a quarter is analysed on its last day and the card says so. In a Chinese browser, in Chinese.
The screenshot is kept in .data/browser-shots/ for a person to look at."""
from __future__ import annotations

import re

from .person import FAILURES, Browser, Site, ask, page_in

SHOTS = FAILURES.parent / "browser-shots"


def test_a_season_is_asked_back_and_a_quarter_is_analysed_on_its_last_day(browser: Browser, desk: Site):
    with page_in(browser, desk, "test_periods", locale="zh-CN") as page:
        ask(page, "英伟达去年夏天能买吗？")
        page.locator(".ai-message").filter(has_text="“去年夏天”没有说明是哪一天").first.wait_for()
        assert page.locator(".ai-message td").count() == 0  # nothing was analysed

        ask(page, "英伟达2024年第三季度")
        page.locator(".ai-message h2").filter(has_text=re.compile(r"NVDA · 2024-09-30$")).first.wait_for(
            timeout=120_000)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "quarter-card.png"))
