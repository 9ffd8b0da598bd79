"""A backtest asked in the chat, as a person sees it (issue 23): the plan with Run, the progress message, then
Table 1, the equity and drawdown chart and the exports; a day's link opens that day's debate and card.

What a newcomer hit (issue 35, point 7), in a 1400 × 900 window: the plan reads whole (a list, not a code block
cut off at the right), the day links are short lines by ticker and month with no date broken across two, the
drawdown panel's dates keep clear of the legend, the baselines' rules are under the table, and a row equal to
buy-and-hold says why beside it; in English and in Chinese.

Screenshots in .data/browser-shots/backtest/: the plan, the progress, the result, a day's thread; the newcomer's
window (6-…) and a Chinese backtest (7-…).
"""
from __future__ import annotations

import re

from playwright.sync_api import expect

from .person import FAILURES, Locator, Page, ask, persona_messages

SHOTS = FAILURES.parent / "browser-shots" / "backtest"
NEWCOMER = {"width": 1400, "height": 900}  # the window of the newcomer's screenshots


def shot(page: Page, name: str, target: Locator | None = None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if target is not None:
        target.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def desk_message(page: Page, text: str | re.Pattern[str]) -> Locator:
    return persona_messages(page, "Desk").filter(has_text=text).last


def cut_off(message: Locator) -> list[str]:
    """What of a message does not fit its width: a box past the message's right edge, or one that scrolls."""
    return message.evaluate("""(m) => {
        const right = m.getBoundingClientRect().right + 1;
        return [...m.querySelectorAll('*')].filter((n) => {
            const r = n.getBoundingClientRect();
            return r.width > 0 && (r.right > right || (n.clientWidth > 0 && n.scrollWidth > n.clientWidth + 1));
        }).map((n) => `${n.tagName}: ${n.textContent.slice(0, 60)}`);
    }""")


def plan_reads_whole(plan: Locator, total: re.Pattern[str]) -> None:
    """The plan is text that wraps, not a fixed-width block, and its last words (the total) are in sight."""
    expect(plan.locator("pre, code")).to_have_count(0)
    expect(plan.locator("li").filter(has_text=total)).to_be_visible()
    assert cut_off(plan) == []


def table_rows(table: Locator) -> dict[str, list[str]]:
    """Each body row's cells, by the row's first words (its strategy)."""
    rows: dict[str, list[str]] = {}
    for row in table.locator("tbody tr").all():
        cells = [c.strip() for c in row.locator("td").all_inner_texts()]
        rows[cells[0].split(" ")[0]] = cells
    return rows


def day_links_break_between_links(links: Locator) -> list[str]:
    """Each day link on one line (one box): the links that a line break cuts in two (none)."""
    return links.evaluate("""(m) => [...m.querySelectorAll('a[href*="/backtest/"]')]
        .filter((a) => a.getClientRects().length !== 1).map((a) => a.textContent)""")


def dates_clear_of_the_legend(chart: Locator) -> dict[str, int]:
    """The x axis's date labels against the legend's entries and the chart's bottom edge."""
    return chart.evaluate("""(c) => {
        const boxes = (sel) => [...c.querySelectorAll(sel)].map((n) => n.getBoundingClientRect())
            .filter((r) => r.width > 0 && r.height > 0);
        const dates = boxes('.xaxislayer-above text'), legend = boxes('.legend .traces');
        const bottom = c.querySelector('.main-svg').getBoundingClientRect().bottom + 1;
        const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        return {dates: dates.length, legend: legend.length,
                overlaps: dates.filter((d) => legend.some((l) => meet(d, l))).length,
                below: dates.filter((d) => d.bottom > bottom).length};
    }""")


def test_ask_run_see_progress_table_and_chart_then_open_a_day(instant_page: Page):
    page = instant_page  # the days at no pace: none is watched as it streams
    ask(page, "backtest NVDA and AAPL 2024-01-02 to 2024-01-05")
    plan = desk_message(page, "Backtest plan:")
    expect(plan).to_contain_text("8 deliberations", timeout=30_000)
    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_be_visible()
    expect(page.get_by_role("button", name="Cancel", exact=True)).to_be_visible()
    plan_reads_whole(plan, re.compile(r"~\d+ calls, ~[\d,]+ tokens in all"))
    shot(page, "1-plan", plan)

    run.click()
    progress = desk_message(page, re.compile(r"Backtest [0-9a-f]{8} · NVDA, AAPL"))
    expect(progress).to_contain_text(re.compile(r"\d/8 days"), timeout=30_000)
    expect(progress).to_contain_text(re.compile(r"(NVDA|AAPL) 2024-01-0[2-5] (BUY|SELL|HOLD)"), timeout=60_000)
    shot(page, "2-progress", progress)

    result = desk_message(page, re.compile(r"Backtest [0-9a-f]{8} done"))
    expect(result).to_be_visible(timeout=120_000)
    expect(progress).to_contain_text("8/8 days")
    tables = result.locator("table")
    expect(tables).to_have_count(2)  # a table per ticker: eight figures side by side ran off the page
    expect(tables.first.locator("thead")).to_contain_text("NVDA CR%")
    expect(tables.last.locator("thead")).to_contain_text("AAPL CR%")
    table = tables.first
    expect(table).to_be_visible()
    expect(table.locator("tbody tr").filter(has_text="Trading Desk")).to_have_count(1)
    expect(table.locator("tbody td:first-child").filter(has_text=re.compile(r"^B&H$"))).to_have_count(1)
    expect(result).to_contain_text("synthetic")
    charts = result.locator(".js-plotly-plot")
    expect(charts).to_have_count(2, timeout=30_000)  # one per ticker
    expect(charts.first.locator(".gtitle")).to_contain_text("equity and drawdown")
    expect(result.get_by_text(re.compile(r"backtest-[0-9a-f]{8}-daily\.csv"))).to_be_visible()
    # On NVDA, KDJ&RSI bought on the window's first day and never sold: buy-and-hold's figures, and why beside them;
    # on AAPL it sold short that day and never bought back.
    nvda, aapl = table_rows(tables.first), table_rows(tables.last)
    assert nvda["KDJ&RSI"][1:] == nvda["B&H"][1:]
    assert nvda["KDJ&RSI"][0] == "KDJ&RSI — bought on day one and never sold, so the same as B&H"
    assert aapl["KDJ&RSI"][0] == "KDJ&RSI — sold short on day one and never bought back"
    assert cut_off(tables.first.locator("xpath=..")) == cut_off(tables.last.locator("xpath=..")) == []
    expect(result.locator("li").filter(has_text=re.compile(r"^MACD: MACD\(12, 26, 9\) on closes"))).to_have_count(1)
    assert dates_clear_of_the_legend(charts.first)["overlaps"] == 0
    shot(page, "3-result", table)
    shot(page, "4-chart", charts.first)

    links = desk_message(page, "opens as its own thread")
    link = links.locator("a[href*='/backtest/'][href*='/NVDA/2024-01-03']")
    expect(link).to_have_count(1)
    expect(link).to_have_text(re.compile(r"^03\s(🟢|🔴|🟡)$"))
    expect(link).to_have_attribute("title", re.compile(r"^NVDA 2024-01-03 (BUY|SELL|HOLD)$"))  # on hover
    expect(links.locator("li").filter(has_text="January 2024")).to_have_count(2)  # NVDA's and AAPL's
    page.goto(page.url.split("/thread/")[0].split("/", 3)[0] + "//" + page.url.split("/")[2]
              + str(link.get_attribute("href")))
    expect(page).to_have_url(re.compile(r"/thread/bt-[0-9a-f]{8}-NVDA-20240103$"))
    expect(persona_messages(page, "Bull Researcher").first).to_be_visible(timeout=30_000)
    card = persona_messages(page, "Desk").filter(has=page.locator("h2").filter(has_text="NVDA · 2024-01-03"))
    expect(card).to_have_count(1, timeout=30_000)
    expect(card.locator(".js-plotly-plot")).to_have_count(1, timeout=30_000)
    shot(page, "5-day-thread", card)


def test_the_newcomers_backtest_reads_whole_in_a_1400_window(instant_page: Page):
    page = instant_page  # the days at no pace: none is watched as it streams
    """NVDA from January to March 2024: 61 days, as the newcomer asked it (issue 35, point 7)."""
    page.set_viewport_size(NEWCOMER)
    ask(page, "backtest NVDA from January to March 2024")
    plan = desk_message(page, "Backtest plan:")
    expect(plan).to_contain_text("61 deliberations", timeout=30_000)
    plan_reads_whole(plan, re.compile(r"~1,037 calls, ~[\d,]+ tokens in all"))  # the total, cut off before
    shot(page, "6-newcomer-plan", plan)

    page.get_by_role("button", name="Run", exact=True).click()
    result = desk_message(page, re.compile(r"Backtest [0-9a-f]{8} done"))
    expect(result).to_be_visible(timeout=300_000)
    table = result.locator("table")
    rows = table_rows(table)
    # The newcomer's row: KDJ&RSI equal to buy-and-hold to the cent, and now the reason beside it.
    assert rows["KDJ&RSI"][1:] == rows["B&H"][1:] == ["-34.46", "-83.04", "-4.27", "34.46"]
    assert rows["KDJ&RSI"][0] == "KDJ&RSI — bought on day one and never sold, so the same as B&H"
    assert rows["MACD"][0] == "MACD"  # a row that traded through the window needs no reason
    assert cut_off(table.locator("xpath=..")) == []  # the table fits its page: nothing scrolls out of sight
    shot(page, "6-newcomer-table", table)

    rules = result.locator("li").filter(has_text=re.compile(r"^(B&H|MACD|KDJ&RSI|ZMR|SMA): "))
    expect(rules).to_have_count(5)
    expect(result.get_by_text("The baselines' rules", exact=True)).to_be_visible()
    expect(rules.filter(has_text="KDJ(9, 3, 3) with RSI(14), on closes: BUY when K < 20 and RSI < 30")).to_have_count(1)
    shot(page, "6-newcomer-rules", rules.last)

    chart = result.locator(".js-plotly-plot").first
    expect(chart.locator(".legend .traces").first).to_be_visible(timeout=30_000)
    chart.scroll_into_view_if_needed()
    placed = dates_clear_of_the_legend(chart)
    assert placed["dates"] >= 5 and placed["legend"] >= 6, placed
    assert placed["overlaps"] == 0 and placed["below"] == 0, placed
    shot(page, "6-newcomer-chart", chart)

    links = desk_message(page, "opens as its own thread")
    expect(links.locator("a[href*='/backtest/']")).to_have_count(61)
    months = links.locator("li")
    expect(months).to_have_count(3)
    for n, month in enumerate(("January 2024", "February 2024", "March 2024")):
        expect(months.nth(n)).to_contain_text(month)
    assert links.locator("a[href*='/backtest/'][href$='/NVDA/2024-02-01']").inner_text().startswith("01")
    assert day_links_break_between_links(links) == []
    assert cut_off(links) == []
    shot(page, "6-newcomer-days", links)


def test_a_chinese_backtest_reads_whole_in_chinese(instant_page: Page):
    """The same in a Chinese thread: the plan, the rules, a row's reason, the table's notes and the months are
    Chinese."""
    page = instant_page  # the days at no pace: none is watched as it streams
    page.set_viewport_size(NEWCOMER)
    ask(page, "回测英伟达 2024-01-29 至 2024-02-02")
    plan = desk_message(page, "回测计划：NVDA")
    expect(plan).to_contain_text("共 5 次讨论", timeout=30_000)
    plan_reads_whole(plan, re.compile(r"总计约 \d+ 次调用、约 [\d,]+ 个 token"))
    shot(page, "7-chinese-plan", plan)

    page.get_by_role("button", name="运行", exact=True).click()
    result = desk_message(page, re.compile(r"回测 [0-9a-f]{8} 完成"))
    expect(result).to_be_visible(timeout=120_000)
    rows = table_rows(result.locator("table"))
    assert rows["MACD"][1:] == rows["B&H"][1:]
    assert rows["MACD"][0] == "MACD —— 第一天买入后一直没有卖出，所以与 B&H 相同"
    assert rows["SMA"][0] == "SMA —— 第一天卖空后一直没有买回"
    assert re.fullmatch(r"交易台( —— .*)?", rows["交易台"][0]), rows  # the desk's row, the title, the header (point 4)
    title = re.compile(r"^回测 [0-9a-f]{8}：NVDA，2024-01-29 … 2024-02-02（合成数据）$")
    expect(result.get_by_text(title)).to_be_visible()
    expect(result.locator("table th").first).to_have_text("策略")
    expect(result.get_by_text("基准策略的规则", exact=True)).to_be_visible()
    rules = result.locator("li").filter(has_text=re.compile(r"^(B&H|MACD|KDJ&RSI|ZMR|SMA)："))
    expect(rules).to_have_count(5)
    expect(rules.filter(has_text="均线交叉（SMA）：5 日收盘均价高于 20 日均价")).to_have_count(1)
    shot(page, "7-chinese-result", result.locator("table"))
    shot(page, "7-chinese-rules", rules.last)
    # The notes under the table too (issue 35, point 4): the synthetic data's, the desk's, the rules', the figures'.
    notes = result.locator("li")
    expect(notes.filter(has_text=re.compile(r"^合成数据：合成演示数据和/或演示模型。"))).to_have_count(1)
    expect(notes.filter(has_text=re.compile(r"^交易台：每个交易日讨论一次（"))).to_have_count(1)
    expect(notes.filter(has_text=re.compile(r"^规则："))).to_have_count(5)
    expect(notes.filter(has_text=re.compile(r"Synthetic|Rule:|Trading Desk|risk-free|deliberation"))).to_have_count(0)
    shot(page, "7-chinese-notes", notes.filter(has_text=re.compile(r"^规则：")).last)

    links = desk_message(page, "每个交易日的讨论")
    months = links.locator("li")
    expect(months).to_have_count(2)
    expect(months.first).to_contain_text("2024年1月")
    expect(months.last).to_contain_text("2024年2月")
    expect(links).to_contain_text("🟢 买入（BUY）")
    expect(links.locator("a[href*='/backtest/']")).to_have_count(5)
    assert day_links_break_between_links(links) == []
    shot(page, "7-chinese-days", links)

    # Its chart in Chinese too (issue 35, point 4): title, axes, the desk's line and its turns.
    chart = result.locator(".js-plotly-plot").first
    expect(chart.locator(".gtitle")).to_have_text("NVDA · 净值与回撤", timeout=30_000)
    expect(chart.locator(".ytitle, .y2title")).to_have_text(["收益", "回撤"])
    legend = chart.locator(".legendtext").all_text_contents()
    assert "交易台" in legend and any(name.startswith("交易台 → ") for name in legend), legend
    assert not [name for name in legend if "desk" in name.lower()], legend
    shot(page, "7-chinese-chart", chart)
