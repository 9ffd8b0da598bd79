"""Walls of text: the demo desk leads with its conclusion, quotes the previous speaker briefly,
says something new in each later round, and its Risk Judge does not repeat the decision card."""
from __future__ import annotations

import re

import pytest
from langchain_core.messages import AIMessage

from graph.core.personas import RISK_JUDGE, SIDE_OF
from graph.core.state import DECISION_FIELDS

TICKERS = ["NVDA", "AAPL", "TSLA", "MSFT"]


async def _run(desk_factory, ticker: str) -> tuple[dict, list[AIMessage]]:
    desk = desk_factory()
    await desk.ask(f"should I buy {ticker} today?", debate_rounds=2, risk_rounds=2)
    state = await desk.state()
    said = [m for m in state["messages"] if isinstance(m, AIMessage) and m.name and m.name != "Desk"]
    return state, said


@pytest.mark.parametrize("ticker", TICKERS)
async def test_every_debaters_second_round_says_something_new(desk_factory, ticker):
    _, said = await _run(desk_factory, ticker)
    for persona in SIDE_OF:
        first, second = [str(m.content) for m in said if m.name == persona]
        assert first != second, persona
        assert first.split("\n")[0] != second.split("\n")[0], persona  # a new opening, not the old one


@pytest.mark.parametrize("ticker", TICKERS)
async def test_every_persona_leads_with_a_conclusion_and_quotes_briefly(desk_factory, ticker):
    _, said = await _run(desk_factory, ticker)
    assert len(said) == 4 + 4 + 2 + 6 + 1
    for m in said:
        opening = str(m.content).lstrip().split("\n")[0]
        assert not opening.startswith(("|", "#", ">")), (m.name, opening)
        assert ticker in opening, (m.name, opening)  # the conclusion names what it is about
        for quote in re.findall(r"“([^”]*)”", str(m.content)):
            assert len(quote.split()) <= 16, (m.name, quote)  # a phrase, never the whole turn


@pytest.mark.parametrize("ticker", TICKERS)
async def test_the_judge_gives_its_reasoning_not_the_cards_field_list(desk_factory, ticker):
    state, said = await _run(desk_factory, ticker)
    [ruling] = [str(m.content) for m in said if m.name == RISK_JUDGE]
    labels = [label for _, label in DECISION_FIELDS]
    assert not [line for line in ruling.splitlines() if re.match(rf"^\W*(?:{'|'.join(labels)})\s*:", line)]
    assert len([p for p in ruling.split("\n\n") if p.strip()]) <= 3
    decision = state["final_decision"]  # the card still gets every field from the one-line lead
    assert decision.signal in ruling.split("\n")[0]
    assert decision.horizon == "2-6 weeks" and 0 < decision.confidence <= 1
    assert decision.rationale.startswith("the evidence nets")
    if decision.signal != "HOLD":
        assert decision.entry in ruling and "of the portfolio" in decision.position_size
