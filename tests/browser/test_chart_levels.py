"""The chart of an instrument at thousands of dollars (issue 35, point 1): "should I buy BTC-USD?" gave a card
with entry 2,950.39 and stop 2,638.95, and a chart that labelled both "2.00", drew them at 0 on top of
each other and stretched the price axis down to 0. Each order of magnitude is tested on the figure
(tests/chat/test_card.py); here the page a person sees. The screenshot is kept in
.data/browser-shots/btc-chart.png for a person to look at."""
from __future__ import annotations

import re
from datetime import date

from playwright.sync_api import expect

from graph import SyntheticVendor

from .person import FAILURES, Browser, Site, ask, page_in

SHOTS = FAILURES.parent / "browser-shots"


def _number(text: str) -> float:
    return float(re.sub(r"[^\d.\-]", "", text))


def _box(locator) -> dict | None:
    """Where the annotation is drawn, once it is (Plotly redraws the figure when the page settles its width: an
    annotation read mid-redraw has no box; CI once caught one)."""
    for _ in range(50):
        expect(locator).to_be_visible()
        if (box := locator.bounding_box()) is not None:
            return box
    return None


DAY = date(2026, 11, 27)


def _at_thousands() -> str:
    """An instrument the demo's synthetic data prices in the thousands on DAY, a coin first (the paths are
    deterministic and the server's vendor is the same), and the test keeps its point whichever path changes. Since
    the demo prices coins at their class's level (issue 37) BTC-USD is in tens of thousands, and the demo holds it
    on DAY (a HOLD has no stop to draw): ETH-USD, in thousands, is ruled a BUY."""
    vendor = SyntheticVendor()
    for symbol in ("ETH-USD", "V", "MMM", "BKNG"):  # the demo rules BUY or SELL on DAY (a HOLD has no stop)
        if float(vendor.ohlcv(symbol, DAY, DAY)["close"].iloc[-1]) > 1000:
            return symbol
    raise AssertionError("nothing the demo knows is at thousands on that day")


def test_a_coin_s_entry_and_stop_are_drawn_where_the_card_says(browser: Browser, desk: Site):
    coin = _at_thousands()
    with page_in(browser, desk, "test_chart_levels") as page:
        ask(page, f"should I buy {coin} on {DAY.isoformat()}?")
        card = page.locator(".ai-message h2").filter(has_text=re.compile(rf"{re.escape(coin)} · {DAY}$")).first
        card.wait_for(timeout=120_000)
        cells = page.locator(".ai-message td")
        row = {cells.nth(i).inner_text().strip(): cells.nth(i + 1).inner_text().strip()
               for i in range(0, cells.count() - 1, 2)}
        entry, stop = _number(row["Entry"]), _number(row["Stop"])
        assert entry > 1000 and stop > 1000, row  # a coin at thousands: the bug read "2,950.39" as 2
        chart = page.locator(".js-plotly-plot").last
        chart.scroll_into_view_if_needed()
        expect(chart).to_be_visible()
        labels = {t.split()[0]: _number(t.split()[1]) for t in chart.locator(".annotation-text").all_text_contents()
                  if t.split()[0] in ("entry", "stop")}
        assert labels == {"entry": entry, "stop": stop}, labels
        # the labels stand apart, each beside its own line
        boxes = [_box(chart.locator(".annotation").filter(has_text=name).first) for name in labels]
        assert boxes[0] and boxes[1] and abs(boxes[0]["y"] - boxes[1]["y"]) >= boxes[0]["height"] * 0.9, boxes
        # the price axis spans the prices, not 0 to 3,000
        ticks = [_number(t) for t in chart.locator(".yaxislayer-above .ytick text").all_text_contents()
                 if re.search(r"\d", t)]
        price_ticks = [t for t in ticks if t > 100]  # the RSI panel's 30 and 70 are the other axis
        assert price_ticks and min(price_ticks) > 0.5 * stop, ticks
        SHOTS.mkdir(parents=True, exist_ok=True)
        chart.screenshot(path=str(SHOTS / "btc-chart.png"))
