"""The deliberation graph end to end, with the demo model or a scripted one."""
from __future__ import annotations

import itertools
import re

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from graph.core.events import NotePickedUp, Token, ToolStarted
from graph.core.personas import DEFAULT_ANALYSTS as ANALYSTS  # the default analysis (no Macro Analyst)
from graph.core.personas import PERSONAS
from graph.core.state import FinalDecision
from graph.data.synthetic import SyntheticVendor
from graph.data.vendor import VendorError
from tests.support.desk import spoken
from tests.support.models import ScriptedChatModel, human_text

ANALYST_NAMES = {a.persona for a in ANALYSTS}
AFTER_ANALYSTS = ["Bull Researcher", "Bear Researcher", "Research Manager", "Trader",
                  "Risky Analyst", "Safe Analyst", "Neutral Analyst", "Risk Judge"]


async def test_full_demo_run_yields_every_persona_in_order_and_a_valid_decision(desk_factory):
    desk = desk_factory()
    events = await desk.ask("should I buy NVDA today?")
    order = spoken(events)
    assert order[0] == "Desk"
    assert set(order[1:5]) == ANALYST_NAMES
    assert order[5:] == AFTER_ANALYSTS
    streamed = {ev.persona for ev in events if isinstance(ev, Token)}
    assert streamed >= set(PERSONAS), "every persona streams tokens"
    tools = [ev for ev in events if isinstance(ev, ToolStarted)]
    assert {ev.persona for ev in tools} == ANALYST_NAMES
    state = await desk.state()
    decision = state["final_decision"]
    assert isinstance(decision, FinalDecision)
    assert decision.signal in ("BUY", "SELL", "HOLD")
    assert (decision.ticker, decision.trade_date) == ("NVDA", "2024-05-06")
    assert 0 <= decision.confidence <= 1
    for a in ANALYSTS:
        assert "| Key figure | Value |" in state[a.report_key]


async def test_demo_reports_quote_the_tools_numbers(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    await desk.ask("should I buy AAPL today?")
    state = await desk.state()
    close = None
    for call in model.calls:
        for m in call["messages"]:
            if isinstance(m, ToolMessage) and m.name == "get_price_history":
                close = m.artifact["figures"]["Close"]
    assert close is not None
    assert f"| Close | {close} |" in state["market_report"]
    assert str(close) in state["trader_plan"]


async def test_different_tickers_can_get_different_signals(desk_factory):
    signals = set()
    for ticker in ("NVDA", "AAPL", "TSLA", "KO", "XOM", "JPM", "PFE", "AMD"):
        desk = desk_factory()
        await desk.ask(f"should I buy {ticker} today?")
        signals.add((await desk.state())["final_decision"].signal)
    assert len(signals) >= 2


@pytest.mark.parametrize("debate_rounds,risk_rounds", [(1, 1), (2, 1), (1, 2), (3, 3)])
async def test_turn_order_follows_the_rounds(desk_factory, debate_rounds, risk_rounds):
    desk = desk_factory()
    events = await desk.ask("should I buy NVDA today?", debate_rounds=debate_rounds, risk_rounds=risk_rounds)
    after = spoken(events)[5:]
    expected = (["Bull Researcher", "Bear Researcher"] * debate_rounds + ["Research Manager", "Trader"]
                + ["Risky Analyst", "Safe Analyst", "Neutral Analyst"] * risk_rounds + ["Risk Judge"])
    assert after == expected
    state = await desk.state()
    assert state["investment_debate"].count == 2 * debate_rounds
    assert state["risk_debate"].count == 3 * risk_rounds


async def test_tool_rounds_are_capped(desk_factory):
    def greedy(persona, messages, tools):
        if persona == "Market Analyst" and tools:
            return AIMessage(content="", tool_calls=[{"name": "get_price_history", "args": {}, "id": None}])
        return None
    model = ScriptedChatModel(script=greedy)
    desk = desk_factory(model, max_tool_rounds=3)
    await desk.ask("should I buy NVDA today?", analysts=["market"])
    market = [c for c in model.calls if c["persona"] == "Market Analyst"]
    assert [bool(c["tools"]) for c in market] == [True, True, True, False]
    assert "used all 3 tool rounds" in human_text(market[-1]["messages"])
    assert (await desk.state())["market_report"]


async def test_the_chart_window_is_the_one_the_market_analyst_read(desk_factory):
    def window(persona, messages, tools):
        if persona == "Market Analyst" and tools and not any(isinstance(m, ToolMessage) for m in messages):
            return AIMessage(content="", tool_calls=[{"name": "get_price_history", "args": {"lookback_days": 2000},
                                                      "id": None}])
        return None
    desk = desk_factory(ScriptedChatModel(script=window))
    await desk.ask("should I buy NVDA today?", analysts=["market"])
    assert (await desk.state())["chart_window_days"] == 730  # what the tool showed: clamped to 730 days


async def test_analysts_are_selectable(desk_factory):
    desk = desk_factory()
    events = await desk.ask("should I buy NVDA today?", analysts=["market", "news"])
    order = spoken(events)
    assert set(order[1:3]) == {"Market Analyst", "News Analyst"}
    assert order[3] == "Bull Researcher"
    state = await desk.state()
    assert state["market_report"] and state["news_report"]
    assert not state["sentiment_report"] and not state["fundamentals_report"]


async def test_analysts_run_concurrently(desk_factory):
    model = ScriptedChatModel(sleep_s=0.3)
    desk = desk_factory(model)
    await desk.ask("should I buy NVDA today?", analysts=["market", "social", "news", "fundamentals"])
    first = {}
    for c in model.calls:
        if c["persona"] in ANALYST_NAMES and c["persona"] not in first:
            first[c["persona"]] = (c["start"], c["end"])
    assert len(first) == 4
    # Overlap, not a time limit: every analyst's first call started before any of them ended.
    assert max(s for s, _ in first.values()) < min(e for _, e in first.values())


async def test_analysts_never_see_each_others_tool_chatter(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    await desk.ask("should I buy NVDA today?")
    own = {"Market Analyst": {"get_price_history", "get_indicators"},
           "Social Analyst": {"get_social_sentiment", "get_options_positioning"},
           "News Analyst": {"get_company_news", "get_macro_news", "get_scheduled_events"},
           "Fundamentals Analyst": {"get_fundamentals", "get_financial_statements", "get_scheduled_events"}}
    for c in model.calls:
        if c["persona"] in own:
            seen = {m.name for m in c["messages"] if isinstance(m, ToolMessage)}
            assert seen <= own[c["persona"]]
    visible = (await desk.state())["messages"]
    assert not any(isinstance(m, ToolMessage) for m in visible)


async def test_no_look_ahead_reaches_the_models(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    await desk.ask("thoughts on TSLA on 2023-03-15?")
    dates = set()
    scheduled = set()  # the calendar's events are after the trade date by design: what was scheduled then
    for c in model.calls:
        for m in c["messages"]:
            dates.update(re.findall(r"\b(20\d\d-\d\d-\d\d)\b", str(m.content)))
            if isinstance(m, ToolMessage) and isinstance(m.artifact, dict):
                dates.update(re.findall(r"\b(20\d\d-\d\d-\d\d)\b", str(m.artifact)))
                for record in m.artifact.get("events") or []:
                    assert record["announced"] <= "2023-03-15"
                    scheduled.add(record["day"])
                if "window_end" in m.artifact:  # how far the calendar looks ahead
                    scheduled.add(m.artifact["window_end"])
    assert dates and max(dates - scheduled) <= "2023-03-15"


async def test_an_intervention_during_the_bull_reaches_the_bear(desk_factory):
    note = "Bear, what about the China export ban?"
    holder = {}

    async def interject(persona, messages, tools):
        if persona == "Bull Researcher" and "seq" not in holder:
            holder["seq"] = await holder["desk"].post(note)
        return None

    model = ScriptedChatModel(script=interject)
    desk = desk_factory(model)
    holder["desk"] = desk
    events = await desk.ask("should I buy NVDA today?")
    bear = next(c for c in model.calls if c["persona"] == "Bear Researcher")
    assert note in human_text(bear["messages"])
    bull = next(c for c in model.calls if c["persona"] == "Bull Researcher")
    assert note not in human_text(bull["messages"])
    state = await desk.state()
    seq = holder["seq"]
    assert [(i.seq, i.text, i.answered_by) for i in state["interventions"]] == [(seq, note, ["Bear Researcher"])]
    assert len(state["inbox_read"]) == 1
    assert f"“{note}”" in state["investment_debate"].history_of("bear"), "the demo bear quotes it"
    picked = [ev for ev in events if isinstance(ev, NotePickedUp)]
    assert [(ev.persona, ev.seq) for ev in picked] == [("Bear Researcher", seq)]
    # Nobody answers it twice.
    later = [c for c in model.calls if c["persona"] in ("Research Manager", "Trader", "Risk Judge")]
    assert all(note not in human_text(c["messages"]) for c in later)


async def test_a_follow_up_is_answered_from_the_record_without_rerunning(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    await desk.ask("should I buy NVDA today?")
    before = await desk.state()
    calls_before = len(model.calls)
    events = await desk.ask("what was the RSI?")
    order = spoken(events)
    assert order == ["Desk"]
    assert [c["persona"] for c in model.calls[calls_before:]] == ["Desk"]
    answer = (await desk.state())["messages"][-1].content
    rsi = re.search(r"\| RSI 14 \| ([\d.]+) \|", before["market_report"])[1]
    assert rsi in answer
    after = await desk.state()
    assert after["final_decision"] == before["final_decision"]


async def test_a_new_ticker_starts_a_new_analysis_and_keeps_the_old_decision(desk_factory):
    desk = desk_factory()
    await desk.ask("should I buy NVDA today?")
    first = (await desk.state())["final_decision"]
    events = await desk.ask("and what about AAPL?")
    assert "Bull Researcher" in spoken(events)
    state = await desk.state()
    assert state["ticker"] == "AAPL"
    assert state["past_decisions"] == [first]
    assert state["final_decision"].ticker == "AAPL"


async def test_a_request_without_a_ticker_gets_a_question_and_no_analysis(desk_factory):
    desk = desk_factory()
    events = await desk.ask("should I buy something today?")
    assert spoken(events) == ["Desk"]
    state = await desk.state()
    assert state["intent"] == "clarify"
    assert "?" in state["messages"][-1].content


class DownVendor(SyntheticVendor):
    name, label = "down", "a vendor that is down"

    def _fail(self, *a, **k):
        raise VendorError("rate limited")

    ohlcv = profile = statements = news = macro_news = social_posts = recommendations = events = _fail


async def test_a_failing_vendor_gives_no_data_not_numbers(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model, vendor=DownVendor())
    await desk.ask("should I buy NVDA today?")
    state = await desk.state()
    results = [m for c in model.calls for m in c["messages"] if isinstance(m, ToolMessage)]
    # Every tool says "no data", but the options tool, which on a past trade date asks no vendor: it says why.
    options = "get_options_positioning"
    assert results and all(str(m.content).startswith("no data: ") for m in results if m.name != options)
    assert all("not historical" in str(m.content) for m in results if m.name == options)
    assert "Data I could not get, so not used and not estimated: price history, technical indicators." in (
        state["market_report"])
    assert "| Key figure |" not in state["market_report"]
    assert state["final_decision"].signal == "HOLD"


async def test_a_model_failure_is_explained_and_the_thread_resumes(desk_factory):
    broken = {"on": True}

    def flaky(persona, messages, tools):
        if persona == "Trader" and broken["on"]:
            raise TimeoutError("read timeout")
        return None

    model = ScriptedChatModel(script=flaky)
    desk = desk_factory(model)
    with pytest.raises(Exception) as info:
        await desk.ask("should I buy NVDA today?")
    assert "Trader" in str(info.value) and "did not answer in time" in str(info.value)
    snapshot = await desk.graph.aget_state(desk.config)
    assert snapshot.next == ("trader",)
    assert snapshot.values["investment_plan"], "work before the failure is kept"
    broken["on"] = False
    await desk.ask(None)  # resume: only the failed step onwards runs
    assert (await desk.state())["final_decision"] is not None


async def test_analysts_can_run_in_sequence(desk_factory):
    model = ScriptedChatModel(sleep_s=0.05)
    desk = desk_factory(model, parallel_analysts=False)
    events = await desk.ask("should I buy NVDA today?")
    order = spoken(events)
    assert order[1:5] == [a.persona for a in ANALYSTS], "TradingAgents' order"
    assert order[5:] == AFTER_ANALYSTS
    spans = {}
    for c in model.calls:
        if c["persona"] in ANALYST_NAMES:
            start, end = spans.get(c["persona"], (c["start"], c["end"]))
            spans[c["persona"]] = (min(start, c["start"]), max(end, c["end"]))
    ordered = [spans[a.persona] for a in ANALYSTS]
    assert all(prev[1] <= nxt[0] for prev, nxt in itertools.pairwise(ordered)), "no overlap in sequence"
