"""Why an edit left the decision as it was (graph/record/edits.py edit_stands_because, issue 35 point 5): the
ruling after the edited turn says it, quoted from the record, never written by the desk."""
from __future__ import annotations

from typing import Any

from graph.core.state import Debate, FinalDecision
from graph.record.edits import WHY_CHARS, edit_stands_because

MANAGER = ("Recommendation: **SELL** NVDA as of 2026-11-27. The evidence scores -2 (3 bullish signals, 5 bearish)."
           "\n\nStrongest against: the close of 45.71 is below the SMA 50 of 58.49; RSI 14 at 33.37."
           "\n\nI would change my mind if the trend and momentum signals flip.")
JUDGE = ("**SELL NVDA**: 1.0% of the portfolio at 45.71, stop 49.20, for 2-6 weeks; confidence 0.59.\n\n"
         "Why: the evidence nets -2; the close is below the SMA 50.\n\n"
         "The Safe Analyst's point on volatility wins: the size is halved.")


def decision(signal: str = "SELL", rationale: str = "the evidence nets -2") -> FinalDecision:
    return FinalDecision(signal=signal, position_size="1.0% of the portfolio", entry="45.71", stop="49.20",
                         horizon="2-6 weeks", confidence=0.59, rationale=rationale)


def state(persona: str = "Bull Researcher", was: str = "SELL", **more: Any) -> dict[str, Any]:
    return {"forked": {"persona": persona, "label": f"{persona}, round 1", "parent_decision": decision(was)},
            "final_decision": decision(), "investment_plan": MANAGER,
            "risk_debate": Debate(judge_decision=JUDGE), **more}


def test_a_researchers_edit_the_manager_outweighed() -> None:
    assert edit_stands_because(state()) == (
        "Research Manager", "The evidence scores -2 (3 bullish signals, 5 bearish). Strongest against: the close "
                            "of 45.71 is below the SMA 50 of 58.49; RSI 14 at 33.37.")


def test_a_later_turn_the_judge_ruled_on() -> None:
    who, why = edit_stands_because(state("Trader"))
    assert who == "Risk Judge" and why.startswith("Why: the evidence nets -2") and "**" not in why
    assert "volatility wins" in why


def test_only_when_the_decision_stands() -> None:
    assert edit_stands_because(state(was="BUY")) is None
    assert edit_stands_because({**state(), "forked": None}) is None
    assert edit_stands_because({**state(), "final_decision": None}) is None  # the re-run has not decided yet
    assert edit_stands_because(state("Risk Judge")) is None  # the user wrote the ruling itself


def test_no_reason_in_the_rulings_then_the_judges_rationale() -> None:
    bare = state(investment_plan="Recommendation: SELL.", risk_debate=Debate(judge_decision="SELL NVDA."))
    assert edit_stands_because(bare) == ("Risk Judge", "the evidence nets -2")
    assert edit_stands_because({**bare, "final_decision": decision(rationale="")}) is None


def test_chinese_rulings_and_a_long_one_cut() -> None:
    zh = state(investment_plan="建议：卖出。因为证据显示看跌信号更多。")
    assert edit_stands_because(zh) == ("Research Manager", "因为证据显示看跌信号更多。")
    long = state(investment_plan="The evidence " + "is bearish and " * 60 + "done.")
    assert len(edit_stands_because(long)[1]) <= WHY_CHARS + 2
