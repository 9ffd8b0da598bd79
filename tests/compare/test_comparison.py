"""The Comparison step: a ranking drawn from the desks' own decisions and debates, read back from the turn's lines,
never invented; a ticker without a decision is listed as such; follow-ups are answered from the record."""
from __future__ import annotations

from collections.abc import AsyncIterator

from graph.compare.ask import read_comparison
from graph.compare.comparison import DeskOutcome, Ranked, complete, ranking_from_lines, side_by_side
from graph.compare.flow import Comparison, followup_of
from graph.core.events import Event, Token
from graph.core.settings import Settings
from tests.compare.conftest import TODAY, demo_desk


async def _drain(ticker: str, events: AsyncIterator[Event]) -> None:
    async for _ in events:
        pass


async def test_the_ranking_comes_from_the_desks_decisions_and_the_follow_ups_from_the_record(
        settings: Settings) -> None:
    desk = demo_desk(settings)
    ask = read_comparison("which of NVDA, AMD and INTC should I buy?", TODAY)
    assert ask is not None
    comparison = await Comparison.new(desk, "ann", "parent-3", ask, context=desk.context(today=TODAY, user="ann"))
    await comparison.run_desks(_drain)
    turn = comparison.turn()
    tokens = [t async for t in turn.stream()]
    assert tokens and all(isinstance(t, Token) and t.persona == "Comparison" for t in tokens)
    result = turn.result
    assert result is not None and result.read == "lines"
    assert "".join(t.text for t in tokens).strip() == result.text.strip()
    decisions = {o.ticker: o for o in turn.outcomes}
    assert [r.rank for r in result.ranking] == [1, 2, 3]
    assert {r.ticker for r in result.ranking} == {"NVDA", "AMD", "INTC"}
    for r in result.ranking:  # each line names its desk's own signal and confidence
        o = decisions[r.ticker]
        assert o.signal in r.reason and f"{o.confidence:.2f}" in r.reason
    # The demo's rule: BUY before HOLD before SELL.
    order = {"BUY": 0, "HOLD": 1, "SELL": 2}
    signals = [order[decisions[r.ticker].signal] for r in result.ranking]
    assert signals == sorted(signals)

    await comparison.finish(result)
    headers, rows = side_by_side(turn.outcomes, result.rows())
    assert headers == ["Rank", "Ticker", "Signal", "Size", "Confidence", "Entry", "Stop"]
    assert [row[1] for row in rows] == [r.ticker for r in result.ranking]
    assert rows[0][2] == decisions[rows[0][1]].signal and rows[0][6] == decisions[rows[0][1]].stop

    # A follow-up in the parent thread is the comparison's; a new ticker or another date is not.
    followed = await followup_of(desk, "ann", "parent-3", "which was riskier?", TODAY)
    assert followed is not None
    answer = [p async for p in followed.followup("which was riskier?")]
    text = answer[-1]
    assert isinstance(text, str) and "riskier" in text and all(t in text for t in ("NVDA", "AMD", "INTC"))
    assert await followup_of(desk, "ann", "parent-3", "should I buy TSLA?", TODAY) is None
    assert await followup_of(desk, "ann", "parent-3", "NVDA or AMD on 2024-03-01?", TODAY) is None
    assert await followup_of(desk, "bob", "parent-3", "which was riskier?", TODAY) is None  # another user's


def test_a_ticker_without_a_decision_is_never_ranked() -> None:
    outcomes = [DeskOutcome("NVDA", "t1", signal="BUY", confidence=0.7, size="2%", entry="100", stop="95"),
                DeskOutcome("AMD", "t2", why_none="stopped before a decision"),
                DeskOutcome("INTC", "t3", signal="HOLD", confidence=0.5, size="0%", entry="n/a", stop="n/a")]
    text = "1. **AMD** — a great buy\n2. **INTC** — steady\n3. TSLA — not compared\n4. **NVDA** — strong"
    read = ranking_from_lines(text, outcomes)
    assert read == [Ranked("INTC", 1, "steady"), Ranked("NVDA", 2, "strong")]  # AMD has no decision; TSLA wasn't asked
    shown = complete(read, outcomes)
    assert shown[-1] == Ranked("AMD", None, "stopped before a decision")
    _, rows = side_by_side(outcomes, [{"ticker": r.ticker, "rank": r.rank} for r in shown])
    assert rows[-1] == ["—", "AMD", "no decision", "—", "—", "—", "—"]
    # Words with no ranking in them rank nothing: every decided ticker is listed unranked.
    assert [r.rank for r in complete(ranking_from_lines("They all look fine.", outcomes), outcomes)] == [None] * 3


def test_a_live_comparison_of_more_than_two_states_its_cost_first() -> None:
    from graph.compare.flow import comparison_cost, needs_confirmation
    from graph.core.plan import RunPlan

    assert needs_confirmation(3, live=True) and not needs_confirmation(2, live=True)
    assert not needs_confirmation(5, live=False)  # the demo costs nothing
    one, three = comparison_cost(RunPlan(), 1, live=True), comparison_cost(RunPlan(), 3, live=True)
    assert three.tokens == 3 * one.per_analysis.tokens and three.calls == 3 * one.per_analysis.calls + 1
