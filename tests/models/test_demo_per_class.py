"""The demo desk per asset class (issue 37, points 3 and 5), a whole run each on synthetic data: a fund's
Fundamentals Analyst cites holdings and costs and no revenue; a coin's its supply; a currency pair's says in one
line that it has nothing and no analyst cites a volume figure; the opening names what the Fundamentals Analyst
reads (or that it has nothing) and the class's benchmark; every figure cited traces to a tool's output."""
from __future__ import annotations

import re

import pytest

from graph.core.events import NodeDone, Said
from graph.core.personas import DESK
from tests.support.desk import Desk

COMPANY_WORDS = re.compile(r"P/E|revenue grew|profit margin|Revenue Growth|Debt/Equity", re.I)


async def run(settings, text: str) -> tuple[str, dict[str, str], dict[str, list[str]], dict]:
    desk = Desk(settings)
    events = await desk.ask(text)
    opening = next(ev.text for ev in events if isinstance(ev, Said) and ev.persona == DESK)
    said: dict[str, str] = {}
    unverified: dict[str, list[str]] = {}
    for ev in events:
        if isinstance(ev, NodeDone) and ev.spoken is not None:
            said[str(ev.spoken.name)] = str(ev.spoken.content)
            unverified.setdefault(str(ev.spoken.name), []).extend(ev.unverified)
    return opening, said, unverified, await desk.state()


async def test_a_fund_has_holdings_and_no_revenue(settings) -> None:
    opening, said, unverified, state = await run(settings, "should I buy SPY today?")
    assert state["asset_class"] == "fund"
    assert "SPY is a fund" in opening and "scored on its own return" in opening  # SPY is itself the benchmark
    fundamentals = said["Fundamentals Analyst"]
    assert "| Expense Ratio % |" in fundamentals and "| Holding 1 |" in fundamentals
    assert not COMPANY_WORDS.search(fundamentals)
    assert not any(unverified.values()), unverified


async def test_a_coin_has_its_supply_and_a_benchmark_of_bitcoin(settings) -> None:
    opening, said, unverified, state = await run(settings, "should I buy ETH-USD today?")
    assert state["asset_class"] == "crypto"
    assert "cryptocurrency" in opening and "scored against **BTC-USD**" in opening
    fundamentals = said["Fundamentals Analyst"]
    assert "| Circulating Supply |" in fundamentals and not COMPANY_WORDS.search(fundamentals)
    assert not any(unverified.values()), unverified


async def test_a_currency_pair_has_no_fundamentals_and_no_volume(settings) -> None:
    opening, said, unverified, state = await run(settings, "EUR/USD today?")
    assert state["ticker"] == "EURUSD=X" and state["asset_class"] == "currency"
    assert "the Fundamentals Analyst has nothing for it" in opening and "no benchmark" in opening
    fundamentals = said["Fundamentals Analyst"]
    assert fundamentals.count("\n") == 0 and "nothing to report" in fundamentals  # one line, nothing invented
    for persona, text in said.items():
        assert not re.search(r"Avg Volume|VWMA|OBV", text), persona
    assert not any(unverified.values()), unverified


@pytest.mark.parametrize(("text", "ticker"), [("how about gold?", "GC=F"), ("what about the S&P 500?", "^GSPC")])
async def test_gold_and_the_index_cite_no_company_figures(settings, text: str, ticker: str) -> None:
    opening, said, unverified, state = await run(settings, text)
    assert state["ticker"] == ticker
    assert not COMPANY_WORDS.search(said["Fundamentals Analyst"])
    assert ("scored against **DBC**" if ticker == "GC=F" else "scored against **SPY**") in opening
    assert not any(unverified.values()), unverified
