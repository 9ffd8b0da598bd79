"""The desks of a comparison run side by side, each an ordinary analysis thread: both decide on the same trade date,
their model calls overlap in time, each ticker's data is fetched as for one analysis and only by its own desk, and a
stop mid-way resumes both without asking a finished speaker again."""
from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator
from typing import ClassVar

from langchain_core.messages import AIMessage, HumanMessage

from graph.compare.ask import read_comparison
from graph.compare.flow import Comparison
from graph.compare.runner import CompareRunner, desk_thread
from graph.compare.store import Comparisons
from graph.core.events import Event, NodeDone
from graph.core.plan import RunPlan
from graph.core.settings import Settings
from graph.models.demo import DemoChatModel
from tests.compare.conftest import TODAY, CountingVendor, demo_desk


class TimedDemo(DemoChatModel):
    """The demo model, noting when each call for each ticker started and ended."""

    calls: ClassVar[list[tuple[str, float, float]]] = []

    async def reply(self, messages, *, persona, tools, tool_choice) -> AIMessage:
        started = time.monotonic()
        await asyncio.sleep(0.01)  # a model that takes a moment: the desks' calls can overlap
        answer = await super().reply(messages, persona=persona, tools=tools, tool_choice=tool_choice)
        text = "\n".join(str(m.content) for m in messages)
        ticker = "NVDA" if "NVDA" in text and "AMD" not in text else "AMD" if "AMD" in text else "?"
        self.calls.append((ticker, started, time.monotonic()))
        return answer


def spoken(events: list[Event]) -> list[str]:
    return [str(ev.spoken.name) for ev in events if isinstance(ev, NodeDone) and ev.spoken is not None
            and ev.node != "coordinator"]


async def test_two_desks_run_side_by_side_on_one_trade_date(settings: Settings) -> None:
    model = TimedDemo(delay_ms=0)
    TimedDemo.calls = []
    vendor = CountingVendor()
    desk = demo_desk(settings, model, vendor)
    ask = read_comparison("NVDA or AMD last Friday?", TODAY)
    assert ask is not None and ask.trade_date is not None
    runner = CompareRunner(desk, "parent-1", ask.tickers, ask.trade_date, context=desk.context(today=TODAY))
    seen: dict[str, list[Event]] = {}

    async def consume(ticker: str, events: AsyncIterator[Event]) -> None:
        seen[ticker] = [ev async for ev in events]

    desks = await runner.run(consume)
    assert set(desks) == {"NVDA", "AMD"}
    for ticker, run in desks.items():
        assert run.thread == desk_thread("parent-1", ticker) and not run.error
        state = await desk.state(run.thread)  # an ordinary, stored analysis of the ticker
        assert state["ticker"] == ticker and state["trade_date"] == "2024-05-03"
        assert run.decision is not None and run.decision.ticker == ticker and run.decision.trade_date == "2024-05-03"
        asked = [m.content for m in state["messages"] if isinstance(m, HumanMessage)]
        assert asked == [f"analyze ${ticker} on 2024-05-03"]
        assert state.get("unverified") is not None  # the figure check ran on its personas, as on any analysis
    assert desks["NVDA"].thread != desks["AMD"].thread

    # Side by side: some call of one desk ran while a call of the other was running.
    nvda = [(a, b) for t, a, b in model.calls if t == "NVDA"]
    amd = [(a, b) for t, a, b in model.calls if t == "AMD"]
    assert nvda and amd
    assert any(a1 < b2 and a2 < b1 for a1, b1 in nvda for a2, b2 in amd)

    # Each ticker's prices were fetched as often as by one analysis alone, on or before the trade date.
    alone = CountingVendor()
    single = demo_desk(settings, vendor=alone)
    async with single.turn("alone", "analyze $NVDA on 2024-05-03") as turn:
        async for _ in turn.events(single.context(today=TODAY)):
            pass
    assert vendor.fetches["NVDA"] == alone.fetches["NVDA"] > 0
    assert set(vendor.fetches) == {"NVDA", "AMD"} and vendor.fetches["AMD"] == alone.fetches["NVDA"]
    assert not vendor.late


async def test_a_stopped_comparison_resumes_both_desks_without_repeating_a_finished_speaker(
        settings: Settings) -> None:
    desk = demo_desk(settings, DemoChatModel(delay_ms=2))
    ask = read_comparison("compare NVDA and AMD", TODAY)
    assert ask is not None
    comparison = await Comparison.new(desk, "ann", "parent-2", ask, "compare NVDA and AMD",
                                      context=desk.context(today=TODAY, user="ann"))
    said: Counter[tuple[str, str]] = Counter()
    bull_done = asyncio.Event()

    async def consume(ticker: str, events: AsyncIterator[Event]) -> None:
        async for ev in events:
            for persona in spoken([ev]):
                said[(ticker, persona)] += 1
                if persona == "Bull Researcher":
                    bull_done.set()

    task = asyncio.create_task(comparison.run_desks(consume))
    await asyncio.wait_for(bull_done.wait(), 60)
    task.cancel()  # /stop
    await asyncio.gather(task, return_exceptions=True)
    first = Counter(said)
    stopped = await comparison.interrupted()
    assert set(stopped) == {"NVDA", "AMD"}  # neither had decided
    # The analysts run side by side in one step of the graph, and a stop inside that step may have an analyst asked
    # again on resume, even one whose report the state already shows (seen on a loaded machine; not understood yet,
    # noted in the session's closing note). The turns after them are stored one by one: those are never repeated.
    kept = {}
    for ticker in ("NVDA", "AMD"):
        state = await desk.state(desk_thread("parent-2", ticker))
        plan = RunPlan.from_state(state, desk.settings.parallel_analysts)
        kept[ticker] = {s.persona for s in plan.turns()[:plan.turns_done(state)]}

    # Another process (or a restart) finds the comparison by its parent thread, under its user only.
    again = await Comparison.stored(desk, "ann", "parent-2", context=desk.context(today=TODAY, user="ann"))
    assert again is not None and await Comparison.stored(desk, "bob", "parent-2") is None
    assert set((await again.runner.survey()).values()) <= {"resumed", "new"}
    desks = await again.run_desks(consume)
    assert all(run.decision is not None and not run.error for run in desks.values()), \
        {t: (run.decision, run.error) for t, run in desks.items()}
    for ticker in ("NVDA", "AMD"):
        personas = [p for (t, p) in said if t == ticker]
        assert "Risk Judge" in personas
        # Nobody whose turn was stored before the stop was asked again.
        assert all(said[(ticker, p)] == 1 for p in kept[ticker]), \
            {(ticker, p): said[(ticker, p)] for p in kept[ticker] if said[(ticker, p)] != 1}
    assert any(first.values())
    # A third run keeps both (decided): nothing is asked again.
    assert set((await again.runner.survey()).values()) == {"kept"}
    record = await Comparisons(desk.store).get("ann", "parent-2")
    assert record is not None and record.threads == {t: desk_thread("parent-2", t) for t in ("NVDA", "AMD")}
