"""/paper and /record as a person sees them (issue 40): a paper book that has followed a few calls (seeded in the
server's own store before it starts: the calls a month of chat, watch and MCP analyses would have logged, with their
outcomes), shown with its positions, open order, trades linked to their threads, Table 1's figures, the equity chart
against SPY with its drawdown, and the calibration chart, whose overconfident bucket is called out; /record draws the
same calibration under its alpha chart. Screenshots go to .data/browser-shots/paper/ to be looked at."""
from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.support.chat_server import ROOT, Server
from tests.support.paper_book import paper_server, seeded_call

from .person import Browser, Page, ask, logged_in_page, persona_messages

SHOTS = ROOT / ".data" / "browser-shots" / "paper"
USER = f"paper-{uuid.uuid4().hex[:6]}"

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


@pytest.fixture(scope="module")
def paper_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    calls = [seeded_call(f"paper-shot-{i}:0", USER, ticker, signal, size, day, horizon, confidence, verdict, alpha,
                         f"The {ticker} call's reasons, as the Risk Judge gave them.", source=source, hour=hour)
             for i, (ticker, signal, size, day, hour, horizon, confidence, verdict, alpha, source) in enumerate(CALLS)]
    with paper_server(tmp_path_factory.mktemp("paper-browser"), USER, calls) as server:
        yield server


@pytest.fixture
def own_page(request: pytest.FixtureRequest, browser: Browser, paper_site: Server) -> Iterator[Page]:
    with logged_in_page(request, browser, paper_site.base, USER) as page:
        yield page


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
