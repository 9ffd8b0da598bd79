"""A ticker nobody can vouch for: live data without prices stops before the analysts; demo data
asks before it makes numbers up, and a confirmation runs it."""
from __future__ import annotations

import os
import subprocess
import sys
from datetime import date

import pytest

from graph.data.cache import CachedVendor
from graph.data.yfinance_vendor import YFinanceVendor
from tests.support.chat_server import Server
from tests.support.clock import python_path
from tests.support.desk import spoken
from tests.support.env import TEST_PACE
from tests.support.models import ScriptedChatModel
from tests.support.socket_client import DeskClient, runs_finished
from tests.support.yahoo import STOCKTWITS


def live_vendor(tmp_path):
    inner = YFinanceVendor(sleep=lambda s: None, today=lambda: date(2024, 5, 6),
                           fetch=lambda url, timeout: STOCKTWITS)
    return CachedVendor(inner, tmp_path / "cache.sqlite", today=lambda: date(2024, 5, 6))


def last_said(state) -> str:
    return str(state["messages"][-1].content)


# ------------------------------------------------------------------ live data


async def test_live_a_ticker_without_prices_stops_before_the_analysts(desk_factory, yahoo, tmp_path):
    model = ScriptedChatModel()
    desk = desk_factory(model, vendor=live_vendor(tmp_path))
    events = await desk.ask("should I buy XYZQ today?")
    assert spoken(events) == ["Desk"]
    assert model.calls == [], "no analyst, no model call"
    state = await desk.state()
    assert state["intent"] == "clarify" and state.get("final_decision") is None
    assert "no market data for XYZQ on Yahoo Finance — check the symbol" in last_said(state)
    assert yahoo.count("history", "XYZQ") == 1

    # The symbol the desk does have prices for is analysed, and its check is served to the
    # market analyst from the cache: one price request for the pre-check and the indicators.
    events = await desk.ask("should I buy NVDA on 2024-04-30?")
    assert "Risk Judge" in spoken(events)
    assert (await desk.state())["final_decision"].ticker == "NVDA"
    assert yahoo.count("history", "NVDA") == 2, "the price history's window and the indicators' (the check's)"


async def test_live_a_typo_of_a_known_company_gets_a_suggestion(desk_factory, yahoo, tmp_path):
    desk = desk_factory(ScriptedChatModel(), vendor=live_vendor(tmp_path))
    await desk.ask("$NVDQ 2024-04-30")
    said = last_said(await desk.state())
    assert "no market data for NVDQ on Yahoo Finance" in said and "**NVDA** (NVIDIA)" in said


async def test_live_an_outage_is_not_an_unknown_ticker(desk_factory, yahoo, tmp_path):
    yahoo.fail("NVDA", "history", *[ConnectionError("reset")] * 3)
    desk = desk_factory(ScriptedChatModel(), vendor=live_vendor(tmp_path), analysts=["market"])
    events = await desk.ask("should I buy NVDA on 2024-04-30?")
    assert "Market Analyst" in spoken(events), "the analysts run and report what they could get"


def test_cli_says_so_and_exits_2_without_a_traceback(tmp_path):
    # Live data through the CLI: yfinance replaced by the recorded fake in the child process.
    script = (
        "import sys; from graph.data import yfinance_vendor; from tests.support.yahoo import recorded_yahoo;"
        "yfinance_vendor.yf.Ticker = recorded_yahoo().Ticker;"
        "from graph.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "DESK_"))} | TEST_PACE
    env |= {"DESK_DATA_DIR": str(tmp_path / "data"), "DESK_DEMO_DELAY_MS": "0", "DESK_DATA_VENDOR": "yfinance",
            "PYTHONPATH": python_path(os.getcwd())}
    out = subprocess.run([sys.executable, "-c", script, "--today", "2024-05-06", "should I buy XYZQ today?"],
                         capture_output=True, text=True, env=env, timeout=180)
    assert out.returncode == 2, out.stderr
    assert "no market data for XYZQ on Yahoo Finance — check the symbol" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr and "▶ Market Analyst" not in out.stdout


# ------------------------------------------------------------------ demo data


async def test_demo_asks_before_making_up_data_and_a_repeat_of_the_symbol_runs_it(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    events = await desk.ask("should I buy XYZQ on 2024-05-01?")
    assert spoken(events) == ["Desk"] and model.calls == []
    state = await desk.state()
    question = last_said(state)
    assert state["intent"] == "clarify" and "I don't know **XYZQ**" in question
    assert "synthetic demo data" in question and "reply `XYZQ` again" in question

    events = await desk.ask("XYZQ")
    assert spoken(events)[-1] == "Risk Judge"
    state = await desk.state()
    assert (state["ticker"], state["trade_date"]) == ("XYZQ", "2024-05-01"), "the date first asked is kept"
    said = str(next(m for m in state["messages"] if m.name == "Desk" and "Analyzing" in str(m.content)).content)
    assert "synthetic demo data" in said
    assert state.get("pending_ticker") is None


@pytest.mark.parametrize("reply", ["yes", "Yes please", "ok, go ahead"])
async def test_demo_a_yes_confirms_the_pending_symbol(desk_factory, reply):
    desk = desk_factory()
    await desk.ask("should I buy XYZQ today?")
    events = await desk.ask(reply, analysts=["market"])
    assert "Market Analyst" in spoken(events)
    assert (await desk.state())["final_decision"].ticker == "XYZQ"


async def test_demo_a_known_ticker_needs_no_confirmation_and_a_typo_gets_a_suggestion(desk_factory):
    desk = desk_factory()
    await desk.ask("should I buy APPL today?")
    said = last_said(await desk.state())
    assert "I don't know **APPL**" in said and "Did you mean **AAPL** (Apple)" in said
    events = await desk.ask("AAPL then", analysts=["market"])
    assert "Market Analyst" in spoken(events)
    state = await desk.state()
    assert state["ticker"] == "AAPL" and state.get("pending_ticker") is None
    # the question is asked again for a new unknown symbol after a decision; "yes" is then no follow-up
    await desk.ask("and XYZQ?")
    assert "I don't know **XYZQ**" in last_said(await desk.state())
    await desk.ask("yes", analysts=["market"])
    assert (await desk.state())["final_decision"].ticker == "XYZQ"


async def test_demo_the_question_is_asked_once_another_message_drops_it(desk_factory):
    desk = desk_factory()
    await desk.ask("should I buy XYZQ today?")
    await desk.ask("hello")
    assert (await desk.state()).get("pending_ticker") is None
    events = await desk.ask("yes")
    assert spoken(events) == ["Desk"], "a yes with nothing pending starts nothing"


@pytest.mark.e2e
async def test_chat_asks_back_and_runs_after_the_confirmation(tmp_path):
    server = Server(tmp_path, DESK_DEMO_DELAY_MS="0")  # no pace: the analysis is waited for whole
    server.start()
    client = DeskClient(server.base)
    try:
        await client.connect()
        await client.wait_for(lambda: client.by_author("Desk"), 15, "the mode notice")
        start = len(client.order)
        await client.send("should I buy XYZQ today?")
        await client.wait_for(lambda: runs_finished(client) >= 1, 30, "the question back")
        assert client.authors(start) == ["Desk"]
        assert "I don't know **XYZQ**" in client.by_author("Desk")[-1]["output"]
        await client.send("yes")
        await client.wait_for(lambda: runs_finished(client) >= 2, 120, "the analysis")
        assert "Risk Judge" in client.authors(start)
    finally:
        await client.close()
        server.stop()
