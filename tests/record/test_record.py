"""The record: one walk over the state for the report, the case file and the follow-up Desk's notes."""
from __future__ import annotations

import itertools

from graph.core.state import Debate, FinalDecision, Intervention, Turn
from graph.record.case import case_record, desk_notes, entries, report_markdown

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


def test_the_case_record_is_in_speaking_order_one_heading_per_part_and_per_speaker():
    text = case_record(STATE)
    assert text.startswith("## Analyst reports\n\n### Market Analyst\nRSI 14 at 55.\n\n### News Analyst\n")
    order = ["## Investment debate\n\n### Bull Researcher\nUp.\n\n### Bear Researcher\nDown.\n\n"
             "### Bull Researcher\nStill up.", "## Investment plan\n\n### Research Manager\nSell.",
             "## Trader's plan\n\n### Trader\nSell at 42.93.", "## Risk debate\n\n### Safe Analyst\nSmall.",
             "## Risk Judge's ruling\n\n### Risk Judge\nSignal: SELL"]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
    assert text.endswith("Signal: SELL")


def test_each_speakers_case_record_starts_with_the_previous_speakers():
    # The state as each speaker found it: a later speaker's record only appends to an earlier one's.
    risk = STATE["risk_debate"]
    states = [{k: v for k, v in STATE.items() if k not in ("investment_debate", "investment_plan", "trader_plan",
                                                           "risk_debate")}]
    for n in range(1, 4):
        states.append(states[0] | {"investment_debate": Debate(turns=STATE["investment_debate"].turns[:n])})
    states.append(states[-1] | {"investment_plan": "Sell."})
    states.append(states[-1] | {"trader_plan": "Sell at 42.93."})
    states.append(states[-1] | {"risk_debate": Debate(turns=risk.turns)})
    states.append(states[-1] | {"risk_debate": risk})
    records = [case_record(s) for s in states]
    assert all(later.startswith(earlier) and later != earlier for earlier, later in itertools.pairwise(records))


def test_without_reports_the_case_record_says_so():
    assert case_record({"ticker": "NVDA"}) == "## Analyst reports\n(no analyst reports)"


def test_the_desks_notes_hold_the_decision_the_interjections_and_earlier_decisions():
    text = desk_notes(STATE)
    assert text.startswith("## Final decision\nSignal: SELL\nPosition size: 1.8% of portfolio")
    assert "- “what about China?” (answered by Bear Researcher)" in text
    assert "- AAPL 2024-05-03: BUY (confidence 0.80)" in text


def test_a_turn_is_carried_by_its_claims_a_prefix_of_its_words():
    from graph.record.case import CLAIM_CHARS, CUT, claims
    assert claims("Up: 3 signals for.\n\nMy evidence: RSI 55.") == "Up: 3 signals for." + CUT
    assert claims("One paragraph only.") == "One paragraph only."
    long = " ".join(f"Point {i} holds." for i in range(100))
    cut = claims(long)
    assert cut.endswith(CUT) and long.startswith(cut.removesuffix(CUT)) and cut.removesuffix(CUT).endswith(".")
    assert len(cut) <= CLAIM_CHARS + len(CUT)


def test_earlier_debate_turns_are_carried_by_their_claims_and_the_last_one_whole():
    from graph.record.case import CUT, in_full, reused
    turns = [Turn(side="bull", persona="Bull Researcher", text="Up.\n\nRSI 14 at 55."),
             Turn(side="bear", persona="Bear Researcher", text="Down.\n\nTone negative.")]
    reports = {k: v for k, v in STATE.items() if k not in ("investment_plan", "trader_plan", "risk_debate")}
    bear_read = case_record(reports | {"investment_debate": Debate(turns=turns[:1])})
    assert bear_read.endswith("### Bull Researcher\nUp.\n\nRSI 14 at 55."), "the turn to answer, whole"
    manager_read = case_record(reports | {"investment_debate": Debate(turns=turns)})
    assert manager_read.endswith("### Bull Researcher\nUp." + CUT + "\n\n### Bear Researcher\nDown.\n\nTone negative.")
    assert manager_read.startswith(reused(bear_read)), "a prefix cache reuses all but the rest of the last turn"
    trader_read = case_record(reports | {"investment_debate": Debate(turns=turns), "investment_plan": "Sell."})
    assert "### Bear Researcher\nDown." + CUT in trader_read and "## Investment plan\n\n### Research Manager\nSell." \
        in trader_read
    # The follow-up Desk reads the shortened turns whole, apart.
    full = in_full(STATE | {"investment_debate": Debate(turns=turns)})
    assert "### Bull Researcher\nUp.\n\nRSI 14 at 55." in full
    assert "### Bear Researcher\nDown.\n\nTone negative." in full
    assert in_full(STATE) == ""  # one-paragraph turns: nothing shortened
