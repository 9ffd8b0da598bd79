"""The live model path (ChatOpenAI) against an OpenAI-compatible server on loopback."""
from __future__ import annotations

from graph.core.events import Token, ToolStarted
from graph.core.personas import PERSONAS
from tests.support.desk import LiveDesk, live_settings, spoken
from tests.support.fake_openai import FakeOpenAI


async def test_a_full_run_through_chatopenai_streams_every_persona_and_calls_tools(settings):
    with FakeOpenAI() as server:
        s = live_settings(settings, server)
        assert s.live
        desk = LiveDesk(s)
        assert desk.models.live and "quick-x" in desk.models.notice
        events = await desk.ask("should I buy NVDA today?")
    assert spoken(events)[5:] == list(PERSONAS[4:])
    assert {e.persona for e in events if isinstance(e, Token)} >= set(PERSONAS)
    assert {e.persona for e in events if isinstance(e, ToolStarted)} == set(PERSONAS[:4])
    state = await desk.state()
    assert "The tool said: NVDA daily prices" in state["market_report"]
    decision = state["final_decision"]
    assert (decision.signal, decision.entry, decision.stop, decision.ticker) == ("BUY", "100.00", "95.00", "NVDA")
    models_used = {(r["model"], bool(r.get("tools"))) for r in server.requests}
    assert ("deep-x", False) in models_used and ("quick-x", True) in models_used
    # The structured extraction was not streamed to the user as the judge's words.
    judge_text = "".join(e.text for e in events if isinstance(e, Token) and e.persona == "Risk Judge")
    assert judge_text.startswith("Signal: BUY") and "{" not in judge_text


async def test_a_model_that_cannot_call_tools_still_gets_its_analysts_to_a_report(settings):
    """The server refuses tools (HTTP 400): the desk fetches each analyst's data itself, asks once
    per model, and the run reaches a decision."""
    with FakeOpenAI(no_tools=True) as server:
        desk = LiveDesk(live_settings(settings, server))
        events = await desk.ask("should I buy NVDA today?", analysts=["market"])
    refused = [r for r in server.requests if r.get("tools") and r.get("tool_choice") in (None, "auto")]
    assert len(refused) == 1, "one refusal is enough to know the model has no tools"
    assert {e.tool for e in events if isinstance(e, ToolStarted)} == {"get_price_history", "get_indicators"}
    state = await desk.state()
    assert "NVDA daily prices" in state["market_report"], "the report is written from the fetched data"
    assert state["final_decision"] is not None
