"""/paper as a person whose browser reads Chinese sees it (issue 40): the words "我的模拟账户" answered in Chinese, a
book that followed US stocks and a coin (seeded in the server's own store before it starts, as in test_paper.py), the
coin bought in fractions of a unit rather than whole shares, each asset class measured against its own benchmark (SPY
for the stocks, BTC-USD for the coin) in Table 1's rows with the book's alpha over each and in the equity chart, and
the calibration chart in Chinese. Screenshots go to .data/browser-shots/paper/zh-*.png to be looked at."""
from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.support.chat_server import ROOT, Server
from tests.support.paper_book import paper_server, seeded_call

from .person import Browser, Page, ask, logged_in_page, persona_messages

SHOTS = ROOT / ".data" / "browser-shots" / "paper"
USER = f"paper-zh-{uuid.uuid4().hex[:6]}"

# (ticker, signal, size, trade date, horizon, confidence, verdict, alpha)
CALLS = (
    ("NVDA", "BUY", "5%", "2024-05-21", "10 days", 0.8, "wrong", -0.021),
    ("BTC-USD", "BUY", "4%", "2024-05-23", "2-6 weeks", 0.75, "right", 0.035),
    ("AAPL", "SELL", "4%", "2024-05-28", "2 weeks", 0.85, "wrong", -0.013),
    ("AMD", "BUY", "5%", "2024-06-03", "10 days", 0.65, "right", 0.031),
)


@pytest.fixture(scope="module")
def paper_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    calls = [seeded_call(f"paper-zh-{i}:0", USER, ticker, signal, size, day, horizon, confidence, verdict, alpha,
                         f"{ticker} 的理由，按风险裁判给出的原话。")
             for i, (ticker, signal, size, day, horizon, confidence, verdict, alpha) in enumerate(CALLS)]
    with paper_server(tmp_path_factory.mktemp("paper-browser-zh"), USER, calls) as server:
        yield server


@pytest.fixture
def chinese_page(request: pytest.FixtureRequest, browser: Browser, paper_site: Server) -> Iterator[Page]:
    # A browser set to Chinese: navigator.language and every request's Accept-Language say zh-CN.
    with logged_in_page(request, browser, paper_site.base, USER, locale="zh-CN") as page:
        yield page


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_paper_in_chinese_measures_each_class_against_its_benchmark(chinese_page: Page) -> None:
    page = chinese_page
    ask(page, "我的模拟账户")
    answer = persona_messages(page, "Desk").filter(has_text="你的模拟账户").last
    expect(answer).to_be_visible(timeout=60_000)
    expect(answer).to_contain_text("自 2024-05-20 起跟随你的判断：初始资金 100,000.00，每笔成交成本 5 个基点。")
    expect(answer).to_contain_text("截至 2024-06-27 收盘")
    expect(answer).to_contain_text("加密货币精确到小数点后 8 位")
    # The stock in whole shares (股), the coin in fractions of a unit, with no 股 after them.
    expect(answer).to_contain_text(re.compile(r"2024-05-22 买入 \d+ 股 NVDA，价格"))
    expect(answer).to_contain_text(re.compile(r"2024-05-24 买入 \d+\.\d+ BTC-USD，价格"))
    expect(answer).to_contain_text("判断为 BUY：BTC-USD 的理由")
    expect(answer.locator('a[href^="/thread/"]').first).to_be_visible()
    # Table 1's rows: the book, then each class's benchmark with the book's alpha over it.
    expect(answer).to_contain_text("自 2024-05-20 起（")
    expect(answer).to_contain_text("SPY（NVDA、AAPL、AMD 的基准）：CR")
    expect(answer).to_contain_text("BTC-USD（BTC-USD 的基准）：CR")
    expect(answer).to_contain_text("模拟账户相对它的超额收益")
    expect(answer).not_to_contain_text("未计入曲线的交易日")  # the coin's weekends are no gap for the stocks
    expect(answer).to_contain_text("校准（你已结算的判断")
    charts = answer.locator(".js-plotly-plot")
    expect(charts).to_have_count(2, timeout=30_000)
    expect(charts.nth(0).locator(".gtitle")).to_have_text("模拟账户 vs SPY、BTC-USD")
    expect(charts.nth(0).locator(".legend")).to_contain_text("BTC-USD")
    expect(charts.nth(1).locator(".gtitle")).to_contain_text("校准 · Brier")
    answer.get_by_text("你的模拟账户", exact=True).scroll_into_view_if_needed()
    shot(page, "zh-1-top")
    answer.get_by_text("成交记录", exact=True).scroll_into_view_if_needed()
    shot(page, "zh-2-trades")
    charts.nth(0).scroll_into_view_if_needed()
    charts.nth(0).screenshot(path=str(SHOTS / "zh-3-equity.png"))  # the chart whole: the page is at its end
    charts.nth(1).scroll_into_view_if_needed()
    shot(page, "zh-4-calibration")
