"""A Chinese thread is Chinese wherever the desk writes (issue 35, point 4), in Simplified and in Traditional: the
card's size and horizon ("1.0% of the portfolio", "2-6 weeks" before), the key-figure tables and their folds, the
chart's date axis (Plotly's "Sep 6 2026" before), the Desk's name on the first message. And a date never breaks
across lines in running text (point 9: Chromium breaks after a hyphen, "2026-11-" / "27"), at any width of the page.
The screenshots are kept in .data/browser-shots/ for a person to look at."""
from __future__ import annotations

import re

import pytest

from .person import FAILURES, Browser, Page, Site, ask, page_in, speaker_labels

SHOTS = FAILURES.parent / "browser-shots"
ENGLISH_MONTHS = re.compile(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b")

# Every date the desk wrote in a message or a step, and on how many lines each stands.
DATES_ON_LINES = """() => [...document.querySelectorAll('[data-step-type] .desk-date')]
    .filter(d => d.getClientRects().length)
    .map(d => [d.textContent, new Set([...d.getClientRects()].map(r => Math.round(r.top))).size])"""
# Dates in the messages' text that are not kept whole (none once desk.js has been through).
LOOSE_DATES = """() => { const out = [];
    const w = document.createTreeWalker(document.querySelector('#root'), NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      const p = n.parentElement;
      if (!p || !p.closest('.ai-message') || p.closest('code, pre, svg, .desk-date')) continue;
      if (/\\d{4}-\\d{2}-\\d{2}(?![\\d-])/.test(n.nodeValue)) out.push(n.nodeValue);
    } return out; }"""


def card_cell(page: Page, label: str) -> str:
    row = page.locator(".ai-message tr").filter(has=page.locator("td, th").filter(has_text=re.compile(f"^{label}$")))
    return row.last.locator("td, th").nth(1).inner_text().strip()


@pytest.mark.parametrize(("locale", "question", "words"), [
    ("zh-CN", "英伟达今天能买吗？", {"signal": "信号", "size": "仓位", "horizon": "期限", "of": "投资组合的",
                                   "week": "周", "figures": "关键数据", "value": "数值", "cap": "市值",
                                   "desk": "交易台"}),
    ("zh-TW", "輝達今天能買嗎？", {"signal": "信號", "size": "倉位", "horizon": "期限", "of": "投資組合的",
                                 "week": "周", "figures": "關鍵數據", "value": "數值", "cap": "市值",
                                 "desk": "交易臺"}),
])
def test_a_chinese_thread_is_chinese_where_the_desk_writes(browser: Browser, desk: Site, locale: str, question: str,
                                                          words: dict[str, str]):
    with page_in(browser, desk, f"chinese-thread-{locale}", locale=locale) as page:
        # The first message, before any request, is the Desk's under its Chinese name.
        page.locator("[data-step-type=system_message] .desk-speaker").first.wait_for()
        assert page.locator("[data-step-type=system_message] .desk-speaker").first.inner_text() == words["desk"]

        ask(page, question)
        page.locator(".ai-message th, .ai-message td").filter(has_text=re.compile(f"^{words['signal']}$")).first \
            .wait_for(timeout=120_000)
        size, horizon = card_cell(page, words["size"]), card_cell(page, words["horizon"])
        assert re.fullmatch(re.escape(words["of"]) + r" \d+(\.\d+)?%", size), size
        assert re.fullmatch(r"\d+–\d+ " + words["week"], horizon), horizon
        assert "Desk" not in speaker_labels(page).all_inner_texts()

        # The key-figure tables: their header and the tools' figure names, and the folds named after them.
        header = page.locator(".ai-message th").filter(has_text=re.compile(f"^{words['figures']}$"))
        assert header.count() >= 1, header.count()  # the news analyst's short table, in place
        page.locator(".ai-message th").filter(has_text=re.compile(f"^{words['value']}$")).first.wait_for()
        fold = page.locator(f"button[id^='step-{words['figures']}（']")
        # The market and fundamentals analysts' long ones, folded, and the social analyst's with today's options.
        assert fold.count() >= 2, fold.count()
        assert re.fullmatch(f".*{words['figures']}（\\d+ 行）", fold.first.inner_text().strip(), re.S)
        for one in fold.all():
            one.click()
        page.locator("td").filter(has_text=re.compile(f"^{words['cap']}$")).first.wait_for()
        # (The demo's personas write English, "Key figures (source: …)" and "2% of the portfolio" in their words.)
        cells = set(page.locator("th, td").all_inner_texts())
        assert not cells & {"Key figure", "Value", "Market Cap", "52W High", "Close"}, cells
        assert not [c for c in cells if "of the portfolio" in c or "weeks" in c], cells

        # The chart's dates in Chinese, not Plotly's English months.
        chart = page.locator(".js-plotly-plot").first
        chart.wait_for()
        ticks = chart.locator(".xaxislayer-above text").all_text_contents()
        assert ticks and all("月" in t for t in ticks) and not any(ENGLISH_MONTHS.search(t) for t in ticks), ticks
        SHOTS.mkdir(parents=True, exist_ok=True)
        chart.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"chinese-thread-chart-{locale}.png"))
        page.locator(".ai-message table").filter(has_text=words["signal"]).last.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"chinese-thread-card-{locale}.png"))

        # Every date in the messages kept whole, at every width of the page (the lines fall differently each time).
        assert page.evaluate(LOOSE_DATES) == []
        assert len(page.evaluate(DATES_ON_LINES)) > 10
        for width in range(760, 1440, 23):
            page.set_viewport_size({"width": width, "height": 900})
            broken = [d for d, lines in page.evaluate(DATES_ON_LINES) if lines > 1]
            assert not broken, (width, broken)
        page.set_viewport_size({"width": 760, "height": 900})
        page.locator(".ai-message").filter(has_text=re.compile(r"交易日 \d{4}-")).first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"chinese-thread-narrow-{locale}.png"))
