"""/paper as a person whose browser reads Chinese sees it (issue 40): the words "我的模拟账户" answered in Chinese, a
book that followed US stocks and a coin (seeded in the server's own store before it starts, as in test_paper.py), the
coin bought in fractions of a unit rather than whole shares, each asset class measured against its own benchmark (SPY
for the stocks, BTC-USD for the coin) in Table 1's rows with the book's alpha over each and in the equity chart, and
the calibration chart in Chinese. Screenshots go to .data/browser-shots/paper/zh-*.png to be looked at."""
from __future__ import annotations

import asyncio
import os
import re
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import expect

from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.track.calls import Call, Outcome
from graph.track.log import DecisionLog
from tests.support.chat_server import ROOT, Server
from tests.support.clock import NOW, SET_AT, TRAVEL_DIR

from .person import VIEWPORT, Browser, Page, ask, login, persona_messages, screenshot_if_failed, wait_until_connected

SHOTS = ROOT / ".data" / "browser-shots" / "paper"
TODAY = "2024-06-28T14:00:00+00:00"      # a Friday, in the session: the 27th is the last close
SINCE = datetime(2024, 5, 20, 13, 0, tzinfo=UTC)
USER = f"paper-zh-{uuid.uuid4().hex[:6]}"
DATA = "synthetic demo data"             # the demo vendor's label: the book trades calls made on its data

# (ticker, signal, size, trade date, horizon, confidence, verdict, alpha)
CALLS = (
    ("NVDA", "BUY", "5%", "2024-05-21", "10 days", 0.8, "wrong", -0.021),
    ("BTC-USD", "BUY", "4%", "2024-05-23", "2-6 weeks", 0.75, "right", 0.035),
    ("AAPL", "SELL", "4%", "2024-05-28", "2 weeks", 0.85, "wrong", -0.013),
    ("AMD", "BUY", "5%", "2024-06-03", "10 days", 0.65, "right", 0.031),
)


def seeded_calls() -> list[Call]:
    out = []
    for i, (ticker, signal, size, day, horizon, confidence, verdict, alpha) in enumerate(CALLS):
        outcome = Outcome(
            settle_date="2024-06-20", sessions=10, entry_close=100.0, exit_close=100.0 * (1 + alpha), raw_return=alpha,
            benchmark="SPY", benchmark_return=0.0, alpha=alpha, verdict=verdict, reflection="Seeded for the test.",
            reflected_by="demo", settled_at="2024-06-21T00:00:00+00:00")
        out.append(Call(id=f"paper-zh-{i}:0", user=USER, thread_id=f"{uuid.uuid4()}", ticker=ticker, trade_date=day,
                        signal=signal, position_size=size, horizon=horizon, confidence=confidence, stop="",
                        rationale=f"{ticker} 的理由，按风险裁判给出的原话。", data=DATA, source="chat",
                        recorded_at=f"{day}T15:00:00+00:00", outcome=outcome,
                        argued={"Bull Researcher": "…", "Bear Researcher": "…"},
                        plan_calls={"Research Manager": signal, "Trader": signal}))
    return out


async def seed(data_dir: Path) -> None:
    async with DeskRuntime.open(Settings(data_dir=data_dir, demo_delay_ms=0)) as desk:
        await desk.paper.start(USER, "100000", SINCE)
        await DecisionLog(desk.store).save_all(seeded_calls())


@pytest.fixture(scope="module")
def paper_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data_dir = tmp_path_factory.mktemp("paper-browser-zh")
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds an event loop in this thread
        pool.submit(asyncio.run, seed(data_dir)).result()
    paths = [str(TRAVEL_DIR), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    server = Server(data_dir, DESK_DEMO_DELAY_MS="0", **{NOW: TODAY, SET_AT: repr(time.time()),
                                                          "PYTHONPATH": os.pathsep.join(paths)})
    server.start()
    yield server
    server.stop()


@pytest.fixture
def chinese_page(request: pytest.FixtureRequest, browser: Browser, paper_site: Server) -> Iterator[Page]:
    # A browser set to Chinese: navigator.language and every request's Accept-Language say zh-CN.
    context = browser.new_context(viewport=VIEWPORT, locale="zh-CN")
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        login(page, paper_site.base, name=USER)
        wait_until_connected(page)
        yield page
        screenshot_if_failed(request, page)
    finally:
        context.close()


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
