import pytest

from graph.personas import INVESTMENT_SIDES, RISK_SIDES
from graph.routing import next_speaker
from graph.state import Debate, Turn


def speak_until_judge(sides, rounds):
    debate, order = Debate(), []
    while (side := next_speaker(debate, sides, rounds)) is not None:
        order.append(side)
        debate = debate.said(Turn(side=side, persona=side, text=f"turn {len(order)}"))
    return order, debate


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_investment_debate_alternates_bull_first(rounds):
    order, debate = speak_until_judge(INVESTMENT_SIDES, rounds)
    assert order == ["bull", "bear"] * rounds
    assert debate.count == 2 * rounds
    assert debate.history_of("bull").count("turn") == rounds


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_risk_debate_cycles_risky_safe_neutral(rounds):
    order, debate = speak_until_judge(RISK_SIDES, rounds)
    assert order == ["risky", "safe", "neutral"] * rounds
    assert debate.latest.side == "neutral"


def test_any_number_of_sides():
    order, _ = speak_until_judge(("a", "b", "c", "d"), 2)
    assert order == list("abcdabcd")
