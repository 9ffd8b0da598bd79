"""/paper and /record as a person sees them (issue 40): a paper book that has followed a few calls (seeded in the
server's own store before it starts: the calls a month of chat, watch and MCP analyses would have logged, with their
outcomes), shown with its positions, open order, trades linked to their threads, Table 1's figures, the equity chart
against SPY with its drawdown, and the calibration chart, whose overconfident bucket is called out; /record draws the
same calibration under its alpha chart. Screenshots go to .data/browser-shots/paper/ to be looked at."""
from __future__ import annotations

import asyncio
import os
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
USER = f"paper-{uuid.uuid4().hex[:6]}"
DATA = "synthetic demo data"             # the demo vendor's label: the book trades calls made on its data

# (ticker, signal, size, trade date, recorded hour UTC, horizon, confidence, verdict, alpha, source)
CALLS = (
    ("NVDA", "BUY", "5%", "2024-05-21", 15, "10 days", 0.8, "wrong", -0.021, "chat"),
    ("AAPL", "SELL", "4%", "2024-05-23", 15, "2 weeks", 0.85, "wrong", -0.013, "scheduled"),
    ("MSFT", "BUY", "3%", "2024-05-28", 15, "10 days", 0.62, "wrong", -0.008, "mcp"),
    ("AMD", "BUY", "5%", "2024-05-30", 15, "10 days", 0.65, "right", 0.031, "chat"),
    ("TSLA", "BUY", "4%", "2024-06-03", 15, "2-6 weeks", 0.82, "right", 0.024, "chat"),
    ("AMZN", "SELL", "3%", "2024-06-05", 15, "10 days", 0.8, "right", 0.012, "scheduled"),
    ("META", "BUY", "4%", "2024-06-27", 21, "2-6 weeks", 0.7, None, 0.0, "chat"),  # after the close: waits
)


def seeded_calls() -> list[Call]:
    out = []
    for i, (ticker, signal, size, day, hour, horizon, confidence, verdict, alpha, source) in enumerate(CALLS):
        outcome = None if verdict is None else Outcome(
            settle_date="2024-06-20", sessions=10, entry_close=100.0, exit_close=100.0 * (1 + alpha),
            raw_return=alpha, benchmark="SPY", benchmark_return=0.0, alpha=alpha, verdict=verdict,
            reflection="Seeded for the test.", reflected_by="demo", settled_at="2024-06-21T00:00:00+00:00")
        out.append(Call(id=f"paper-shot-{i}:0", user=USER, thread_id=f"{uuid.uuid4()}", ticker=ticker, trade_date=day,
                        signal=signal, position_size=size, horizon=horizon, confidence=confidence, stop="",
                        rationale=f"The {ticker} call's reasons, as the Risk Judge gave them.", data=DATA,
                        source=source, recorded_at=f"{day}T{hour}:00:00+00:00", outcome=outcome,
                        argued={"Bull Researcher": "…", "Bear Researcher": "…"},
                        plan_calls={"Research Manager": signal, "Trader": signal}))
    return out


async def seed(data_dir: Path) -> None:
    async with DeskRuntime.open(Settings(data_dir=data_dir, demo_delay_ms=0)) as desk:
        await desk.paper.start(USER, "100000", SINCE)
        await DecisionLog(desk.store).save_all(seeded_calls())


@pytest.fixture(scope="module")
def paper_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data_dir = tmp_path_factory.mktemp("paper-browser")
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds an event loop in this thread
        pool.submit(asyncio.run, seed(data_dir)).result()
    paths = [str(TRAVEL_DIR), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    server = Server(data_dir, DESK_DEMO_DELAY_MS="0", **{NOW: TODAY, SET_AT: repr(time.time()),
                                                          "PYTHONPATH": os.pathsep.join(paths)})
    server.start()
    yield server
    server.stop()


@pytest.fixture
def own_page(request: pytest.FixtureRequest, browser: Browser, paper_site: Server) -> Iterator[Page]:
    context = browser.new_context(viewport=VIEWPORT)
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


def test_paper_and_record_show_the_book_its_charts_and_the_calibration(own_page: Page) -> None:
    page = own_page
    ask(page, "/paper")
    answer = persona_messages(page, "Desk").filter(has_text="Your paper book").last
    expect(answer).to_be_visible(timeout=60_000)
    expect(answer).to_contain_text("Following your calls since 2024-05-20: started with 100,000.00, cost 5 bp")
    expect(answer).to_contain_text("As of the close of 2024-06-27")
    expect(answer).to_contain_text("META BUY 4%, decided 2024-06-27")
    expect(answer).to_contain_text("waits for the open of the first session after 2024-06-27")
    expect(answer).to_contain_text("2024-05-22 buy")
    expect(answer.locator('a[href^="/thread/"]').first).to_be_visible()
    expect(answer).to_contain_text("SPY, the benchmark of NVDA, AAPL")
    charts = answer.locator(".js-plotly-plot")
    expect(charts).to_have_count(2, timeout=30_000)
    expect(charts.nth(0).locator(".gtitle")).to_have_text("Paper book vs SPY")
    expect(charts.nth(1).locator(".gtitle")).to_contain_text("Calibration · Brier")
    expect(charts.nth(1)).to_contain_text("Says 0.82, right 50 % (4 calls)")
    answer.get_by_text("Your paper book", exact=True).scroll_into_view_if_needed()
    shot(page, "1-paper-top")
    answer.get_by_text("Trades", exact=True).scroll_into_view_if_needed()
    shot(page, "2-paper-trades")
    charts.nth(0).scroll_into_view_if_needed()
    charts.nth(0).screenshot(path=str(SHOTS / "3-paper-equity.png"))  # the chart whole: the page is at its end
    charts.nth(1).scroll_into_view_if_needed()
    shot(page, "4-paper-calibration")

    ask(page, "/record")
    record = persona_messages(page, "Desk").filter(has_text="Your track record").last
    expect(record).to_be_visible(timeout=60_000)
    drawn = record.locator(".js-plotly-plot")
    expect(drawn).to_have_count(2, timeout=30_000)
    expect(drawn.nth(1).locator(".gtitle")).to_contain_text("Calibration · Brier")
    drawn.nth(1).scroll_into_view_if_needed()
    shot(page, "5-record-calibration")
