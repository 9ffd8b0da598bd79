"""A backtest asked in the chat, as a person sees it (issue 23): the plan with Run, the progress message, then
Table 1, the equity and drawdown chart and the exports; a day's link opens that day's debate and card.

Screenshots in .data/browser-shots/backtest/: the plan, the progress, the result, a day's thread.
"""
from __future__ import annotations

import re

from playwright.sync_api import expect

from .person import FAILURES, Locator, Page, ask, persona_messages

SHOTS = FAILURES.parent / "browser-shots" / "backtest"


def shot(page: Page, name: str, target: Locator | None = None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if target is not None:
        target.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def desk_message(page: Page, text: str | re.Pattern[str]) -> Locator:
    return persona_messages(page, "Desk").filter(has_text=text).last


def test_ask_run_see_progress_table_and_chart_then_open_a_day(page: Page):
    ask(page, "backtest NVDA and AAPL 2024-01-02 to 2024-01-05")
    plan = desk_message(page, "Backtest plan:")
    expect(plan).to_contain_text("8 deliberations", timeout=30_000)
    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_be_visible()
    expect(page.get_by_role("button", name="Cancel", exact=True)).to_be_visible()
    shot(page, "1-plan", plan)

    run.click()
    progress = desk_message(page, re.compile(r"Backtest [0-9a-f]{8} · NVDA, AAPL"))
    expect(progress).to_contain_text(re.compile(r"\d/8 days"), timeout=30_000)
    expect(progress).to_contain_text(re.compile(r"(NVDA|AAPL) 2024-01-0[2-5] (BUY|SELL|HOLD)"), timeout=60_000)
    shot(page, "2-progress", progress)

    result = desk_message(page, re.compile(r"Backtest [0-9a-f]{8} done"))
    expect(result).to_be_visible(timeout=120_000)
    expect(progress).to_contain_text("8/8 days")
    table = result.locator("table")
    expect(table).to_be_visible()
    expect(table.locator("tbody tr").filter(has_text="Trading Desk")).to_have_count(1)
    expect(table.locator("tbody tr").filter(has_text="B&H")).to_have_count(1)
    expect(result).to_contain_text("synthetic")
    charts = result.locator(".js-plotly-plot")
    expect(charts).to_have_count(2, timeout=30_000)  # one per ticker
    expect(charts.first.locator(".gtitle")).to_contain_text("equity and drawdown")
    expect(result.get_by_text(re.compile(r"backtest-[0-9a-f]{8}-daily\.csv"))).to_be_visible()
    shot(page, "3-result", table)
    shot(page, "4-chart", charts.first)

    links = desk_message(page, "opens as its own thread")
    link = links.locator("a[href*='/backtest/'][href*='/NVDA/2024-01-03']")
    expect(link).to_have_count(1)
    page.goto(page.url.split("/thread/")[0].split("/", 3)[0] + "//" + page.url.split("/")[2]
              + str(link.get_attribute("href")))
    expect(page).to_have_url(re.compile(r"/thread/bt-[0-9a-f]{8}-NVDA-20240103$"))
    expect(persona_messages(page, "Bull Researcher").first).to_be_visible(timeout=30_000)
    card = persona_messages(page, "Desk").filter(has=page.locator("h2").filter(has_text="NVDA · 2024-01-03"))
    expect(card).to_have_count(1, timeout=30_000)
    expect(card.locator(".js-plotly-plot")).to_have_count(1, timeout=30_000)
    shot(page, "5-day-thread", card)
