"""The record: one walk over the state for the report and the follow-up Desk's context."""
from __future__ import annotations

from graph.record import entries, record_text, report_markdown
from graph.state import Debate, FinalDecision, Intervention, Turn

DECISION = FinalDecision(signal="SELL", position_size="1.8% of portfolio", entry="42.93", stop="49.49",
                         horizon="2-6 weeks", confidence=0.8, rationale="Trend is down.", ticker="NVDA",
                         trade_date="2024-05-03")
STATE = {
    "ticker": "NVDA", "company": "NVIDIA", "trade_date": "2024-05-03", "final_decision": DECISION,
    "market_report": "RSI 14 at 55.", "news_report": "Tone positive.",
    "investment_debate": Debate(turns=[Turn(side="bull", persona="Bull Researcher", text="Up."),
                                       Turn(side="bear", persona="Bear Researcher", text="Down."),
                                       Turn(side="bull", persona="Bull Researcher", text="Still up.")]),
    "investment_plan": "Sell.", "trader_plan": "Sell at 42.93.",
    "risk_debate": Debate(turns=[Turn(side="safe", persona="Safe Analyst", text="Small.")],
                          judge_decision="Signal: SELL"),
    "interventions": [Intervention(seq=1, text="what about China?", answered_by=["Bear Researcher"])],
    "past_decisions": [DECISION.model_copy(update={"ticker": "AAPL", "signal": "BUY"})],
}


def test_entries_are_in_speaking_order():
    assert [e.persona for e in entries(STATE)] == [
        "Market Analyst", "News Analyst", "Bull Researcher", "Bear Researcher", "Bull Researcher",
        "Research Manager", "Trader", "Safe Analyst", "Risk Judge"]


def test_report_covers_the_whole_deliberation():
    state = STATE
    report = report_markdown(state, "synthetic demo data")
    order = ["# Trading Desk report: NVDA (NVIDIA)", "## Final decision", "### Market Analyst", "### News Analyst",
             "### Bull Researcher", "### Bear Researcher", "### Research Manager", "## Trader", "### Safe Analyst",
             "### Risk Judge", "“what about China?” (answered by Bear Researcher)"]
    positions = [report.index(text) for text in order]
    assert positions == sorted(positions)


def test_record_text_groups_by_persona_for_the_follow_up_desk():
    text = record_text(STATE)
    assert text.startswith("## Final decision\nSignal: SELL\nPosition size: 1.8% of portfolio")
    assert "## Bull Researcher\nUp.\n\nStill up." in text
    assert "## Risk Judge\nSignal: SELL" in text
    assert "- “what about China?” (answered by Bear Researcher)" in text
    assert "- AAPL 2024-05-03: BUY (confidence 0.80)" in text
