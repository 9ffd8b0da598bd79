"""The run plan: one speaking order for routing, the progress list and interjection prediction."""
import pytest

from graph.core.personas import ALL_PERSONAS, ANALYST_KINDS, DEBATERS, DEFAULT_ANALYST_KINDS, PERSONAS
from graph.core.plan import RunPlan
from graph.core.state import Debate, FinalDecision, Turn


def walk(plan: RunPlan) -> list[str]:
    """Drive the plan's routing over a state that records each turn as the nodes would."""
    state: dict = {"investment_debate": Debate(), "risk_debate": Debate()}
    order = []
    while True:
        node = plan.next_node(state)
        order.append(node)
        if node in DEBATERS:
            spec = DEBATERS[node]
            state[spec.debate_key] = state[spec.debate_key].said(Turn(side=node, persona=spec.persona, text="x"))
        elif node == "research_manager":
            state["investment_plan"] = "plan"
        elif node == "trader":
            state["trader_plan"] = "trade"
        else:
            return order


@pytest.mark.parametrize("debate_rounds,risk_rounds", [(1, 1), (2, 1), (3, 2)])
def test_routing_follows_the_plans_turns(debate_rounds, risk_rounds):
    plan = RunPlan(debate_rounds=debate_rounds, risk_rounds=risk_rounds)
    assert walk(plan) == [s.node for s in plan.turns()]
    assert walk(plan) == (["bull", "bear"] * debate_rounds + ["research_manager", "trader"]
                          + ["risky", "safe", "neutral"] * risk_rounds + ["risk_judge"])


def test_slots_carry_personas_stages_and_rounds():
    plan = RunPlan(debate_rounds=2)
    assert [s.persona for s in RunPlan(analysts=ANALYST_KINDS).slots()] == list(ALL_PERSONAS)
    assert [s.persona for s in RunPlan().slots()] == list(PERSONAS)
    # The Macro Analyst is chosen, never in the default analysis (issue 38): the default's tokens stay.
    assert RunPlan().analysts == DEFAULT_ANALYST_KINDS == ("market", "social", "news", "fundamentals")
    assert "Macro Analyst" not in [s.persona for s in RunPlan().slots()]
    bulls = [s for s in plan.turns() if s.node == "bull"]
    assert [s.round for s in bulls] == [1, 2] and bulls[0].stage == "Bull ⇄ Bear debate (2 rounds)"
    titles = [st.title for st in plan.stages()]
    assert titles == ["Market Analyst", "Social Analyst", "News Analyst", "Fundamentals Analyst",
                      "Bull ⇄ Bear debate (2 rounds)", "Research Manager", "Trader", "Risk debate (1 round)",
                      "Risk Judge"]


def test_turns_done_reads_the_state():
    state = {"investment_debate": Debate(turns=[Turn(side="bull", persona="Bull Researcher", text="x")] * 2),
             "investment_plan": "p", "trader_plan": "t",
             "risk_debate": Debate(turns=[Turn(side="risky", persona="Risky Analyst", text="x")])}
    assert RunPlan.turns_done(state) == 5
    assert RunPlan().next_node(state) == "safe"
    decided = {**state, "final_decision": FinalDecision(signal="HOLD", position_size="0", entry="n/a", stop="n/a",
                                                        horizon="n/a", confidence=0.5, rationale="r")}
    assert RunPlan.turns_done(decided) == 6


def test_analysts_in_sequence_hand_over_in_order():
    plan = RunPlan(analysts=("market", "news"), parallel_analysts=False)
    assert plan.first_nodes() == ["market_analyst"]
    assert plan.next_analyst("market_analyst") == "news_analyst"
    assert plan.next_analyst("news_analyst") is None
    assert RunPlan(analysts=("market", "news")).first_nodes() == ["market_analyst", "news_analyst"]
    assert RunPlan().next_analyst("market_analyst") is None


def test_the_next_reader_of_a_note():
    plan = RunPlan(debate_rounds=2)
    assert plan.next_reader([]) is None
    assert plan.next_reader(["News Analyst"]).persona == "Bull Researcher"  # analysts start together
    started = ["Market Analyst", "Bull Researcher", "Bear Researcher", "Bull Researcher"]
    assert plan.next_reader(started).persona == "Bear Researcher"
    assert plan.next_reader(started).round == 2
    every = [s.persona for s in plan.slots()]
    assert plan.next_reader(every) is None
    sequence = RunPlan(analysts=("market", "news"), parallel_analysts=False)
    assert sequence.next_reader(["Market Analyst"]).persona == "News Analyst"


def test_a_plan_of_the_settings_keeps_the_persona_order(tmp_path):
    from graph.core.settings import Settings

    settings = Settings(DESK_DATA_DIR=tmp_path, DESK_DEBATE_ROUNDS=2, DESK_PARALLEL_ANALYSTS=False)
    assert RunPlan.of(settings) == RunPlan(debate_rounds=2, parallel_analysts=False)
    chosen = RunPlan.of(settings, analysts=["news", "market", "bogus"], risk_rounds=3)
    assert chosen.analysts == ("market", "news") and (chosen.debate_rounds, chosen.risk_rounds) == (2, 3)
