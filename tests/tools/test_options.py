"""Options positioning, only for today (issue 38, point 3): Yahoo's recorded option chain read into the vendor's
shape, the figures near the money, a past trade date told why there is none (the vendor never asked), the
demo's synthetic chain, and a demo run on today's session whose Social Analyst reads it, every figure traced."""
from __future__ import annotations

import asyncio
import json
from collections import namedtuple
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd
import pytest
import time_machine
from langchain_core.messages import ToolMessage

from graph.core.events import NodeDone
from graph.data import yfinance_vendor as yv
from graph.data.synthetic import SyntheticVendor
from graph.data.vendor import VendorError
from graph.data.yfinance_vendor import YFinanceVendor
from graph.tools import make_toolkit
from graph.tools.options import TOOL
from tests.support.desk import Desk
from tests.support.fred import FIXTURES

NY = ZoneInfo("America/New_York")
FRIDAY = date(2026, 11, 27)
AFTER_THE_CLOSE = datetime(2026, 11, 27, 16, 30, tzinfo=NY)
RECORDED = json.loads((FIXTURES / "yahoo_option_chain_nvda.json").read_text())
Options = namedtuple("Options", ["calls", "puts", "underlying"])  # yfinance's own


class ChainTicker:
    """yf.Ticker as the recorded answers make it: `.options`, `.option_chain(date)` and `.info`."""

    def __init__(self, symbol: str) -> None:
        self.options = tuple(RECORDED["options"])
        self.info = {"quoteType": "EQUITY", "symbol": symbol}

    def option_chain(self, expiry: str) -> Any:
        assert expiry == RECORDED["expiry"]  # the first expiry at least a week out
        return Options(pd.DataFrame(RECORDED["calls"]), pd.DataFrame(RECORDED["puts"]), RECORDED["underlying"])


def _call(vendor: Any, ticker: str, day: date) -> tuple[str, dict]:
    tool = next(t for t in make_toolkit(vendor, ticker, day)["social"] if t.name == TOOL)
    message = asyncio.run(tool.ainvoke({"type": "tool_call", "name": TOOL, "args": {}, "id": "1"}))
    assert isinstance(message, ToolMessage)
    return str(message.content), message.artifact


@pytest.fixture
def yahoo(monkeypatch: pytest.MonkeyPatch) -> YFinanceVendor:
    monkeypatch.setattr(yv.yf, "Ticker", ChainTicker)
    return YFinanceVendor(today=lambda: FRIDAY, sleep=lambda s: None)


def test_yahoos_recorded_chain_gives_the_positioning_near_the_money(yahoo: YFinanceVendor) -> None:
    chain = yahoo.option_chain("NVDA", FRIDAY)
    assert chain is not None and chain.expiry == date(2026, 12, 4) and chain.underlying == 179.2
    assert list(chain.calls.columns) == ["strike", "openInterest", "volume", "impliedVolatility"]
    with time_machine.travel(AFTER_THE_CLOSE, tick=False):
        text, art = _call(yahoo, "NVDA", FRIDAY)
    # Strikes 161.28-197.12: calls 170-195 (OI 41,100), puts 170-195 (OI 26,700); the 180 strike at the money.
    assert art["figures"] == {"Options Expiry": "2026-12-04", "Call OI Near Money": 41100, "Put OI Near Money": 26700,
                              "Put/Call OI Ratio": 0.65, "Put/Call Volume Ratio": 0.65, "ATM Implied Vol %": 47.35}
    assert "put/call open interest ratio 0.65" in text and "(7 days)" in text


def test_a_past_trade_date_is_told_why_there_is_nothing_and_the_vendor_is_not_asked() -> None:
    class Refusing(SyntheticVendor):
        def option_chain(self, ticker, as_of):
            raise AssertionError("a past date's chain was asked for")

    with time_machine.travel(AFTER_THE_CLOSE, tick=False):
        text, art = _call(Refusing(), "NVDA", date(2026, 11, 20))
    assert "option chains are not historical" in text and art["not_today"] and art["figures"] == {}
    assert not art.get("error")  # an answer, not a failure: the run goes on


def test_yahoo_refuses_a_past_chain(yahoo: YFinanceVendor) -> None:
    with pytest.raises(VendorError, match="not historical"):
        yahoo.option_chain("NVDA", date(2026, 10, 1))


def test_the_synthetic_chain_today_and_nothing_for_a_coin() -> None:
    with time_machine.travel(AFTER_THE_CLOSE, tick=False):
        text, art = _call(SyntheticVendor(), "NVDA", FRIDAY)
        again, _ = _call(SyntheticVendor(), "NVDA", FRIDAY)
        coin, coin_art = _call(SyntheticVendor(), "BTC-USD", FRIDAY)
    assert text == again  # deterministic
    figures = art["figures"]
    assert figures["Options Expiry"] == "2026-12-04" and figures["Put/Call OI Ratio"] > 0
    assert 5 < figures["ATM Implied Vol %"] < 150
    assert coin.startswith("no data:") and "no listed options" in coin_art["error"]


async def test_a_demo_run_today_reads_the_chain_and_every_figure_is_traced(settings) -> None:
    desk = Desk(settings)
    said: dict[str, str] = {}
    flagged: list[str] = []
    with time_machine.travel(datetime(2024, 5, 6, 17, 0, tzinfo=NY), tick=False):  # the Desk's today
        for ev in await desk.ask("should I buy NVDA today?"):
            if isinstance(ev, NodeDone) and ev.spoken is not None:
                said[str(ev.spoken.name)] = str(ev.spoken.content)
                flagged += ev.unverified
    social = said["Social Analyst"]
    assert "| Put/Call OI Ratio |" in social and "implied volatility at the money" in social
    assert flagged == []
    assert (await desk.state())["final_decision"] is not None
